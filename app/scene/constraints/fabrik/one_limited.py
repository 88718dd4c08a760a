"""The limited stage from the root for ONE chain, in plain Python floats.

:func:`reach_from_root_limited_one` is
:func:`app.scene.constraints.fabrik.chains.reach_from_root_limited` for a single chain: the
same formulas bone after bone, on tuples of floats (:mod:`app.scene.rig.limits_one`)
instead of numpy arrays of one row, where numpy's fixed cost per call (not the arithmetic)
is what a single-frame solve spends its time on. The vectorized pass takes this path when it
is given one chain (the editor's current frame); many frames stay vectorized. The two agree
to rounding (``tests/test_limits_one.py``).
"""

from __future__ import annotations

from math import sqrt

from app.scene.rig.limits_one import conj, limited_rotation_one, mul, rotate


def reach_from_root_limited_one(P, root, lengths, pose, target=None) -> None:
    """The limited stage from the root on ``P`` (J, 3, 1) in place (see
    :func:`~app.scene.constraints.fabrik.chains.reach_from_root_limited`).

    ``root`` (3, 1), ``lengths`` (n, 1), ``pose`` a ``ChainPose`` of one chain, ``target``
    (3, 1) or None.
    """
    J = P.shape[0]
    pts = P[:, :, 0].tolist()
    L = lengths[:, 0].tolist()
    aim_fixed = None if target is None else tuple(target[:, 0].tolist())
    frame = tuple(pose.parent_rotation[0].tolist())
    rest_rot = pose.rest_rotation.tolist()
    d0 = pose.d0[0].tolist()
    seg = pose.segment[0].tolist()
    limits = pose.limits
    last = pose.last_limited()
    pts[0] = root[:, 0].tolist()
    for k in range(J - 1):
        aim_at = pts[k + 1] if aim_fixed is None else aim_fixed
        px, py, pz = pts[k]
        if k > last:  # no limit from here on: the plain pass
            dx, dy, dz = aim_at[0] - px, aim_at[1] - py, aim_at[2] - pz
            r = sqrt(dx * dx + dy * dy + dz * dz)
            if r == 0:  # joints meet: keep the direction of the bone before
                q = pts[max(k - 1, 0)]
                dx, dy, dz = px - q[0], py - q[1], pz - q[2]
                r = sqrt(dx * dx + dy * dy + dz * dz)
                if r == 0:
                    dx, dy, dz, r = 1.0, 0.0, 0.0, 1.0
            s = L[k] / r
            pts[k + 1] = [px + dx * s, py + dy * s, pz + dz * s]
            continue
        rest = mul(frame, rest_rot[k])
        desired = rotate(conj(rest), (aim_at[0] - px, aim_at[1] - py, aim_at[2] - pz))
        d1 = limited_rotation_one(limits[k], d0[k], seg[k], desired)
        frame = mul(rest, d1)
        dx, dy, dz = rotate(frame, seg[k])
        length = L[k]
        pts[k + 1] = [px + dx * length, py + dy * length, pz + dz * length]
    P[:, :, 0] = pts
