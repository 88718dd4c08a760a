"""Tait-Bryan Euler angles as BVH writes them, exact through gimbal lock.

An order ``"ZXY"`` means ``R = R_z(a) @ R_x(b) @ R_y(c)``: the channel order of a BVH line
``Zrotation Xrotation Yrotation`` as :mod:`app.scene.formats.bvh` reads it (intrinsic rotations,
first axis outermost). scipy calls the same convention ``Rotation.from_euler("ZXY", ...)``
(upper case: intrinsic).

Near gimbal lock (middle angle at +-90 degrees) the first and last angles are no longer
determined separately, and the textbook formulas ``atan2(tiny, tiny)`` lose every digit.
:func:`euler_from_matrix` therefore takes the first two angles from the well-conditioned
formulas and reads the last one off the residual rotation ``R_j(b)^T R_i(a)^T R``, which is
exactly a rotation about the third axis whatever the first angle came out as. At the lock
itself the first angle is set to 0 and the whole turn goes to the last one.
"""

from __future__ import annotations

import numpy as np

#: The six Tait-Bryan orders (three different axes), first axis outermost.
ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")

# |cos(middle angle)| below which the first angle is taken as 0 (the lock itself).
_LOCK = 1e-12


def _parse_order(order: str) -> tuple[int, int, int]:
    order = order.upper()
    if order not in ORDERS:
        raise ValueError(f"rotation order must be one of {', '.join(ORDERS)}, got {order!r}")
    return tuple("XYZ".index(a) for a in order)


def axis_rotation(axis: int, angle) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` about coordinate axis ``axis`` (0, 1, 2) by ``angle``
    radians ``(...)``."""
    angle = np.asarray(angle, dtype=float)
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros(angle.shape + (3, 3))
    p, q = (axis + 1) % 3, (axis + 2) % 3
    m[..., axis, axis] = 1.0
    m[..., p, p] = c
    m[..., q, q] = c
    m[..., q, p] = s
    m[..., p, q] = -s
    return m


def matrix_from_euler(order: str, angles) -> np.ndarray:
    """``R_i(a) @ R_j(b) @ R_k(c)`` for ``order = "ijk"``.

    Parameters
    ----------
    order : str
        One of :data:`ORDERS`.
    angles : array_like, shape (..., 3)
        ``(a, b, c)`` in radians, in the order's sequence.

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    i, j, k = _parse_order(order)
    angles = np.asarray(angles, dtype=float)
    return (
        axis_rotation(i, angles[..., 0])
        @ axis_rotation(j, angles[..., 1])
        @ axis_rotation(k, angles[..., 2])
    )


def euler_from_matrix(order: str, rotation) -> np.ndarray:
    """Angles ``(a, b, c)`` with ``R_i(a) @ R_j(b) @ R_k(c) = rotation`` for ``order = "ijk"``.

    Parameters
    ----------
    order : str
        One of :data:`ORDERS`.
    rotation : array_like, shape (..., 3, 3)
        Rotation matrices (orthonormal, determinant +1).

    Returns
    -------
    ndarray, shape (..., 3)
        Radians; ``a, c`` in ``(-pi, pi]``, the middle angle ``b`` in ``[-pi/2, pi/2]``.
        Composing them back reproduces ``rotation`` to rounding, also at and near gimbal
        lock (``b = +-pi/2``), where ``a = 0`` is chosen at the lock itself.
    """
    i, j, k = _parse_order(order)
    m = np.asarray(rotation, dtype=float)
    # +1 for the cyclic orders (XYZ, YZX, ZXY), -1 for the others.
    e = 1.0 if (j - i) % 3 == 1 else -1.0
    sin_b = e * m[..., i, k]
    cos_b = np.hypot(m[..., j, k], m[..., k, k])
    b = np.arctan2(sin_b, cos_b)
    a = np.where(cos_b > _LOCK, np.arctan2(-e * m[..., j, k], m[..., k, k]), 0.0)
    # The residual R_j(b)^T R_i(a)^T R is a pure rotation about axis k: read c off it, so
    # that (a, b, c) reproduce R even where a itself is poorly determined.
    residual = np.swapaxes(axis_rotation(i, a) @ axis_rotation(j, b), -1, -2) @ m
    p, q = (k + 1) % 3, (k + 2) % 3
    c = np.arctan2(residual[..., q, p], residual[..., p, p])
    return np.stack([a, b, c], axis=-1)


# --- the inspector's notation ---------------------------------------------------------------
# "XYZ Euler" as Blender shows it: X applied first, then Y, then Z, about fixed axes, so
# R = Rz(c) @ Ry(b) @ Rx(a) -- scipy's extrinsic "xyz", which is the intrinsic order "ZYX"
# above with the angles reversed. In degrees, for people.


def quat_from_euler_xyz(degrees) -> np.ndarray:
    """Quaternions ``[w, x, y, z]`` of Blender-style XYZ Euler angles in degrees.

    Parameters
    ----------
    degrees : array_like, shape (..., 3)
        ``(a, b, c)`` about x, y, z; x applied first, about fixed axes.

    Returns
    -------
    ndarray, shape (..., 4)
    """
    from app.scene.math.quat import quat_from_matrix

    angles = np.radians(np.asarray(degrees, dtype=float))[..., ::-1]
    return quat_from_matrix(matrix_from_euler("ZYX", angles))


def euler_xyz_from_quat(q) -> np.ndarray:
    """Blender-style XYZ Euler angles in degrees of quaternions ``(..., 4)``, shape (..., 3).

    ``a, c`` in ``(-180, 180]``, ``b`` in ``[-90, 90]``; composing them back gives the
    rotation also at gimbal lock, where only ``a -+ c`` is determined.
    """
    from app.scene.math.quat import matrix_from_quat, normalize

    m = matrix_from_quat(normalize(np.asarray(q, dtype=float)))
    return np.degrees(euler_from_matrix("ZYX", m)[..., ::-1])
