"""The limited stage from the root for ONE chain, in plain Python floats.

:func:`reach_from_root_limited_one` is
:func:`app.scene.constraints.fabrik.chains.reach_from_root_limited` for a single chain: the
same formulas bone after bone, on tuples of floats (:mod:`app.scene.rig.limits_one`)
instead of numpy arrays of one row, where numpy's fixed cost per call (not the arithmetic)
is what a single-frame solve spends its time on. The vectorized pass takes this path when it
is given one chain (the editor's current frame); many frames stay vectorized. The two agree
to rounding (``tests/scene/constraints/test_limits_one.py``). The pose is read once per solve
(:func:`one_pose`: each bone's limit prepared by
:func:`~app.scene.rig.limits_one.limit_turn`), and the stage writes the quaternion products
out instead of calling a function for each.
"""

from __future__ import annotations

from math import sqrt

import numpy as np

from app.scene.constraints.change_of_basis import world_to_bone
from app.scene.math.quat import conj_one, mul_one, rotate_one
from app.scene.rig.limits_one import (
    arc,
    limit_turn,
    limited_rotation_one,
    unit,
)


def reach_from_root_limited_one(P, root, lengths, pose, target=None) -> None:
    """The limited stage from the root on ``P`` (J, 3, 1) in place (see
    :func:`~app.scene.constraints.fabrik.chains.reach_from_root_limited`).

    ``root`` (3, 1), ``lengths`` (n, 1), ``pose`` a ``ChainPose`` of one chain, ``target``
    (3, 1) or None.
    """
    pts = P[:, :, 0].tolist()
    limited_lists(
        pts,
        root[:, 0].tolist(),
        lengths[:, 0].tolist(),
        pose_lists(pose),
        None if target is None else target[:, 0].tolist(),
    )
    P[:, :, 0] = pts


def pose_lists(pose):
    """What the limited stage reads from a one-chain ``ChainPose``, as Python floats
    (:func:`one_pose`)."""
    return one_pose(
        tuple(pose.parent_rotation[0].tolist()),
        pose.rest_rotation.tolist(),
        pose.d0[0].tolist(),
        pose.segment[0].tolist(),
        pose.limits,
    )


def one_pose(parent_rotation, rest_rotation, d0, segment, limits):
    """The pose of one chain as the limited stage reads it, prepared once per solve.

    Parameters are a ``ChainPose``'s fields for one chain as tuples or lists of floats
    (``parent_rotation`` 4, ``rest_rotation`` and ``d0`` n x 4, ``segment`` n x 3; ``d0``
    and ``segment`` are read only up to the last limited bone).

    Returns
    -------
    tuple
        ``(parent_rotation, steps, last)``: ``steps[k] = (rest_k, segment_k, turn_k)`` for
        the bones up to the last limited one ``last``, ``turn_k`` the bone's
        :func:`~app.scene.rig.limits_one.limit_turn`.
    """
    last = max((k for k, lim in enumerate(limits) if lim is not None), default=-1)
    steps = [
        (
            tuple(rest_rotation[k]),
            tuple(segment[k]),
            limit_turn(limits[k], tuple(d0[k]), tuple(segment[k])),
        )
        for k in range(last + 1)
    ]
    return tuple(parent_rotation), steps, last


def limited_lists(pts, root, L, pose, aim_fixed) -> None:
    """The limited stage on joint lists ``pts`` (J lists of 3 floats), in place; ``pose``
    as :func:`one_pose` gives it."""
    J = len(pts)
    (fw, fx, fy, fz), steps, last = pose  # the frame the current bone hangs from
    pts[0] = list(root)
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
        # rest = frame * rest_k; desired = rotate(conj(rest), aim - p); frame = rest * d1;
        # the segment rotated by frame: limits_one's mul and rotate written out.
        (rw, rx, ry, rz), (sx, sy, sz), turn = steps[k]
        w = fw * rw - fx * rx - fy * ry - fz * rz
        x = fw * rx + fx * rw + fy * rz - fz * ry
        y = fw * ry - fx * rz + fy * rw + fz * rx
        z = fw * rz + fx * ry - fy * rx + fz * rw
        vx, vy, vz = aim_at[0] - px, aim_at[1] - py, aim_at[2] - pz
        cx, cy, cz = -x, -y, -z
        tx, ty, tz = 2.0 * (cy * vz - cz * vy), 2.0 * (cz * vx - cx * vz), 2.0 * (cx * vy - cy * vx)
        bw, bx, by, bz = turn(
            (
                vx + w * tx + (cy * tz - cz * ty),
                vy + w * ty + (cz * tx - cx * tz),
                vz + w * tz + (cx * ty - cy * tx),
            )
        )
        fw = w * bw - x * bx - y * by - z * bz
        fx = w * bx + x * bw + y * bz - z * by
        fy = w * by - x * bz + y * bw + z * bx
        fz = w * bz + x * by - y * bx + z * bw
        tx, ty, tz = 2.0 * (fy * sz - fz * sy), 2.0 * (fz * sx - fx * sz), 2.0 * (fx * sy - fy * sx)
        dx = sx + fw * tx + (fy * tz - fz * ty)
        dy = sy + fw * ty + (fz * tx - fx * tz)
        dz = sz + fw * tz + (fx * ty - fy * tx)
        length = L[k]
        pts[k + 1] = [px + dx * length, py + dy * length, pz + dz * length]


def _reach_one(pts, order, start, lengths, fallback) -> None:
    """:func:`app.scene.constraints.fabrik.chains._reach` on one chain's joint lists."""
    cx, cy, cz = start
    pts[order[0]] = [cx, cy, cz]
    for j, length in zip(order[1:], lengths):
        x, y, z = pts[j]
        dx, dy, dz = x - cx, y - cy, z - cz
        r = sqrt(dx * dx + dy * dy + dz * dz)
        if r == 0:  # joints meet: towards the fallback point instead
            dx, dy, dz = fallback[0] - cx, fallback[1] - cy, fallback[2] - cz
            r = sqrt(dx * dx + dy * dy + dz * dz)
            if r == 0:
                dx, dy, dz, r = 1.0, 0.0, 0.0, 1.0
        s = length / r
        cx, cy, cz = cx + dx * s, cy + dy * s, cz + dz * s
        pts[j] = [cx, cy, cz]


def iterate_one(P, root, target, lengths, pose, tolerance, max_iterations, record=None) -> int:
    """:func:`app.scene.constraints.fabrik.chains._iterate` for one chain ``P`` (J, 3, 1),
    in place: stages from the tip and from the root (limited when ``pose`` is given) until
    the tail is within ``tolerance`` of the target. Returns the iterations done.

    ``record(stage, iteration, joints (J, 3))`` as in
    :func:`~app.scene.constraints.fabrik.chains.solve`.
    """
    pts = P[:, :, 0].tolist()
    it = iterate_lists(
        pts,
        root[:, 0].tolist(),
        target[:, 0].tolist(),
        lengths[:, 0].tolist(),
        None if pose is None else pose_lists(pose),
        tolerance,
        max_iterations,
        record,
    )
    P[:, :, 0] = pts
    return it


def iterate_lists(pts, r, t, L, lists, tolerance, max_iterations, record=None) -> int:
    """:func:`iterate_one` on joint lists ``pts`` (J lists of 3 floats, in place), root
    ``r``, target ``t``, lengths ``L`` and the pose as :func:`one_pose` gives it (or
    None)."""
    J = len(pts)
    back = L[::-1]
    tip_order, root_order = range(J - 1, -1, -1), range(J)
    it = 0
    for it in range(1, max_iterations + 1):
        _reach_one(pts, tip_order, t, back, r)
        if record is not None:
            record("from_tip", it, np.array(pts))
        if lists is None:
            _reach_one(pts, root_order, r, L, t)
        else:
            limited_lists(pts, r, L, lists, None)
        if record is not None:
            record("from_root", it, np.array(pts))
        x, y, z = pts[-1]
        dx, dy, dz = x - t[0], y - t[1], z - t[2]
        if sqrt(dx * dx + dy * dy + dz * dz) <= tolerance:
            break
    return it


def object_rotation_one(bone_to_world, segment, aim, rigid, limit, d0) -> np.ndarray:
    """:func:`app.scene.constraints.points_at.solver.object_rotation` (no up vector), one frame.

    ``bone_to_world`` (1, 4, 4), ``segment`` (1, 3) in the bone's frame, ``aim`` (1, 3)
    world, ``d0`` (1, 4) or None (without a limit). Returns the rotation ``(1, 4)`` in the
    bone's frame.
    """
    to_bone = world_to_bone(bone_to_world[0], rigid).tolist()
    ax, ay, az = aim[0].tolist()
    target = tuple(row[0] * ax + row[1] * ay + row[2] * az + row[3] for row in to_bone[:3])
    tail = tuple(segment[0].tolist())
    if limit is None:
        return np.array([arc(tail, target)])
    u, _ = unit(tail)
    q0 = tuple(d0[0].tolist())
    d1 = limited_rotation_one(limit, q0, u, rotate_one(q0, target))
    return np.array([mul_one(conj_one(q0), d1)])
