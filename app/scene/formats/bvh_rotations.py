"""Quaternions of BVH rotation channels, every joint of one channel order at once.

A joint's rotation channels ``c1 c2 c3`` (degrees, in the order listed) give
``R = R_c1 @ R_c2 @ R_c3``, so ``q = q_c1 * q_c2 * q_c3`` with ``q_c = [cos(a/2), sin(a/2) e_c]``
(``docs/scene-format.md``, "BVH import"). The joints that list the same order are converted
together, a block of frames at a time: the angle columns are read row block by row block
(not one strided column of the whole clip per channel) and the temporaries stay a few
megabytes whatever the clip's length. Three channels (the usual case) are multiplied out in
closed form: the Hamilton products of axis quaternions with their zero terms dropped, the
same floating-point operations as :func:`quat.mul` on them, so the same values (a zero
component may differ in sign: -0.0 for 0.0).
"""

from __future__ import annotations

import numpy as np

from app.scene.math import quat

_AXIS = {"X": 1, "Y": 2, "Z": 3}  # quaternion component of each axis
#: Frames converted at a time (the 100,000-frame BVH: 0.27 s of CPU at 256 to 1024, 0.31 s at
#: 4096, its blocks of 370,000 angles fresh pages each time).
FRAME_BLOCK = 256


def quats_from_channels(
    data: np.ndarray, columns: dict[int, list[tuple[str, int]]]
) -> dict[int, np.ndarray]:
    """Each joint's rotation keys from its rotation channels.

    Parameters
    ----------
    data : (N, C) float
        The motion: frame by channel, angles in degrees.
    columns : dict
        Joint -> its rotation channels in order, ``[(axis "X"/"Y"/"Z", column), ...]``
        (at least one).

    Returns
    -------
    dict
        Joint -> ``(N, 4)`` unit quaternions ``[w, x, y, z]`` (joint to parent).
    """
    groups: dict[str, list[int]] = {}
    for joint, channels in columns.items():
        groups.setdefault("".join(axis for axis, _ in channels), []).append(joint)
    n = len(data)
    out = {joint: np.empty((n, 4)) for joint in columns}
    for axes, joints in groups.items():
        picked = np.array([[col for _, col in columns[j]] for j in joints]).T  # (r, G)
        for start in range(0, n, FRAME_BLOCK):
            block = slice(start, start + FRAME_BLOCK)
            half = np.radians(data[block][:, picked])  # (b, r, G): each channel's (b, G)
            half *= 0.5
            cos, sin = np.cos(half), np.sin(half)
            if len(axes) == 3:
                q = _normalized(_three_axes(axes, cos, sin))
            else:
                q = None
                for r, axis in enumerate(axes):
                    qc = np.zeros((len(half), len(joints), 4))
                    qc[..., 0] = cos[:, r]
                    qc[..., _AXIS[axis]] = sin[:, r]
                    q = qc if q is None else quat.mul(q, qc)
                q = quat.normalize(q)
            for g, joint in enumerate(joints):
                out[joint][block] = q[:, g]
    return out


def _normalized(wxyz: list[np.ndarray]) -> np.ndarray:
    """``(..., 4)``: the components ``[w, x, y, z]`` (each ``(...)``) over their norm, the
    operations of :func:`quat.normalize` in its order (the same values)."""
    w, x, y, z = wxyz
    norm = w * w
    norm += x * x
    norm += y * y
    norm += z * z
    np.sqrt(norm, out=norm)
    q = np.stack(wxyz, axis=-1)
    q /= norm[..., None]
    return q


def _three_axes(axes: str, cos: np.ndarray, sin: np.ndarray) -> list[np.ndarray]:
    """``q_a * q_b * q_c`` for the three distinct axes ``axes`` (``"ZYX"``, ...), from the
    half angles' cosines and sines ``(b, 3, G)`` (channel on axis 1); returns its
    components ``[w, x, y, z]``, each ``(b, G)``.

    With ``e_a x e_b = s e_c`` (``s = +1`` for a cyclic order, ``-1`` otherwise),
    ``q_a * q_b = (ca cb, sa cb e_a + ca sb e_b + s sa sb e_c)`` and, times
    ``(cc, sc e_c)``: ``w = ca cb cc - s sa sb sc``, ``a: sa cb cc + s ca sb sc``,
    ``b: ca sb cc - s sa cb sc``, ``c: ca cb sc + s sa sb cc``.
    """
    i, j, k = (_AXIS[a] for a in axes)
    cyclic = axes in ("XYZ", "YZX", "ZXY")
    ca, cb, cc = cos[:, 0], cos[:, 1], cos[:, 2]
    sa, sb, sc = sin[:, 0], sin[:, 1], sin[:, 2]
    cacb, sasb, casb, sacb = ca * cb, sa * sb, ca * sb, sa * cb
    if not cyclic:
        np.negative(sasb, out=sasb)  # s sa sb
    q = [cacb * cc - sasb * sc, None, None, None]
    q[j] = casb * cc - (sacb if cyclic else -sacb) * sc
    q[i] = sacb * cc + casb * sc if cyclic else sacb * cc - casb * sc
    q[k] = cacb * sc + sasb * cc
    return q
