"""The ``fabrik`` constraint at ONE frame of a rigid chain, in plain Python floats.

:func:`apply_one` is :func:`app.scene.constraints.fabrik.solver.apply` for a context of a
single frame (the editor's current frame) in object space, for a chain whose bones and
their ancestors have no scale: the setup (``solver.setup``), the solve
(:func:`app.scene.constraints.fabrik.chains.solve` with its pole, limits and iterations),
the rotation recovery and the limit violation, by the same formulas on floats
(:mod:`app.scene.math.rigid_one`, :mod:`app.scene.rig.limits_one`,
:mod:`app.scene.constraints.fabrik.one_limited`). On one frame the general path spends its
time on numpy's fixed cost per call (two polar decompositions, a third to measure the
violation, ~100 small array operations), not on arithmetic.

Where the two paths could differ in more than rounding, :func:`apply_one` changes nothing
and returns ``False``, and the general path runs:

- a frame it reads (the root's parent, a chain bone) is not a rotation to
  :data:`~app.scene.constraints.change_of_basis.RIGID_FRAME` (an upstream write with scale, a
  parent squashed to 0 on an axis): the general path inverts it, where the plain floats'
  transpositions and cofactors would not (a squashed parent's determinant is 0);
- a frame whose rotation is read (the root's parent; each bone up to the last limited one,
  in its parent) is not a rotation to rounding: the general path's polar decomposition gives
  it its meaning;
- a bone of no length, a non-finite target or pole: the general path refuses them, naming
  where;
- a chain lying straight on the line to its target: the general path starts it from a bow.

What stays the same is read once per edit (``solver._ChainStatic``). Each bone's frame in
its parent comes from the inverse of the parent's 3x3 part (as the general path's
``inverse``, not a transposition: sampled frames are rotations only to ~1e-14). Rotations
of a rigid frame are read by Shepperd's method directly, and the violation of a turned bone
is measured on its rotation ``d0 * R_c`` relative to the rest frame, which is what the
general path recovers from the turned matrices. The two paths agree to 1e-12
(``tests/scene/rig/test_fabrik_one_frame.py``).
"""

from __future__ import annotations

from math import sqrt

import numpy as np

from app.scene.constraints.change_of_basis import RIGID_FRAME
from app.scene.constraints.fabrik.one_chain import STRAIGHT, solve_one
from app.scene.constraints.fabrik.one_limited import iterate_lists, limited_lists, one_pose
from app.scene.math.aim import DEGENERATE
from app.scene.math.quat import conj_one, mul_one, rotate_one
from app.scene.math.rigid_one import (
    IDENTITY,
    compose,
    is_rotation,
    point_in,
    point_out,
    quat_from_rotation,
    relative,
    turned,
)
from app.scene.rig.keys import sample_one
from app.scene.rig.limits_one import (
    arc,
    limited_rotation_one,
    violation_deg_one,
)


def apply_one(constraint, ctx, static) -> bool:
    """Solve ``constraint`` at the single frame of ``ctx`` (object space, rigid chain).

    Parameters
    ----------
    constraint : Fabrik
    ctx : Context
        One frame.
    static : solver._ChainStatic
        The chain's static data (``rigid`` true).

    Returns
    -------
    bool
        Whether the frame was solved; ``False`` leaves ``ctx`` untouched (see the module
        docstring for when).
    """
    rows = ctx.bone_to_world[0, static.rows, :3].tolist()
    idx, n = static.idx, len(static.idx)
    worlds = rows[1:] if static.parent >= 0 else rows
    root_parent = rows[0] if static.parent >= 0 else IDENTITY
    # The turns carry the solved joints into each bone's frame by transposition, as the
    # general path does for a frame of a rigid chain that is a rotation (to RIGID_FRAME). A
    # chain whose bones have no scale of their own is still squashed or stretched by an
    # upstream write (a child_of of a scaled target on its parent): the general path inverts
    # such frames as far as they can be, where the cofactors here would divide by 0.
    if not (
        is_rotation(root_parent, RIGID_FRAME) and all(is_rotation(m, RIGID_FRAME) for m in worlds)
    ):
        return False
    locals_ = [relative(root_parent if k == 0 else worlds[k - 1], worlds[k]) for k in range(n)]
    limits = static.limits
    last = max((k for k, lim in enumerate(limits) if lim is not None), default=-1)
    # The frames whose rotations are read: the root's parent and each bone up to the last
    # limited one in its parent (the limited passes and turns read nothing beyond).
    if last >= 0 and not (
        is_rotation(root_parent) and all(is_rotation(m) for m in locals_[: last + 1])
    ):
        return False
    segments = [[m[0][3], m[1][3], m[2][3]] for m in locals_[1:]] + [static.tail_list]
    size = 1.0 + max(abs(m[i][3]) for m in worlds for i in range(3))
    if any(_norm(s) <= 1e-12 * size for s in segments):
        return False
    joints = [[m[0][3], m[1][3], m[2][3]] for m in worlds]
    joints.append(point_out(worlds[-1], static.tail_list))
    target = _position(ctx, constraint.target)
    pole = None if constraint.pole is None else _position(ctx, constraint.pole)
    if target is None or (constraint.pole is not None and pole is None):
        return False

    d0 = units = pose = None
    if last >= 0:  # each bone's rotation relative to its rest frame, up to the last limit
        d0 = [
            mul_one(conj_one(static.rest_list[k]), quat_from_rotation(locals_[k]))
            for k in range(last + 1)
        ]
        units = [_unit(segments[k]) for k in range(last + 1)]
        pose = one_pose(quat_from_rotation(root_parent), static.rest_list, d0, units, limits)
    solved = solve_lists(
        joints, target, constraint.tolerance, constraint.max_iterations, pole, pose
    )
    if solved is None:
        return False
    P, iterations, reachable = solved

    parent, new = root_parent, np.empty((n, 4, 4))
    new[:, 3] = (0.0, 0.0, 0.0, 1.0)
    violation = ctx.limit_violation_deg
    for k in range(n):
        before = compose(parent, locals_[k])  # the bone carried by the bones already turned
        aim = point_in(before, P[k + 1])
        if limits[k] is None:
            rotation = arc(tuple(segments[k]), aim)
        else:
            q0 = d0[k]
            d1 = limited_rotation_one(limits[k], q0, units[k], rotate_one(q0, aim))
            rotation = mul_one(conj_one(q0), d1)
            # The turned bone's rotation relative to its rest frame: rest^-1 local R_c.
            violation[0, idx[k]] = violation_deg_one(limits[k], mul_one(q0, rotation), units[k])
        parent = turned(before, rotation)
        new[k, :3] = parent
    if static.branchless:  # each bone's only child is the next one: write them at once
        ctx.bone_to_world[0, idx[:-1]] = new[:-1]
        ctx.set_world(idx[-1], new[-1:])  # the last bone's descendants follow
    else:  # each write carries the bone's other children along
        for k in range(n):
            ctx.set_world(idx[k], new[k : k + 1])
    x, y, z = P[-1]
    distance = sqrt((x - target[0]) ** 2 + (y - target[1]) ** 2 + (z - target[2]) ** 2)
    ctx.info[constraint.name] = {
        "iterations": np.array([iterations], dtype=np.intp),
        "distance": np.array([distance]),
        "reachable": np.array([reachable]),
    }
    return True


def solve_lists(joints, target, tolerance, max_iterations, pole=None, pose=None):
    """:func:`app.scene.constraints.fabrik.chains.solve` of one chain on lists.

    Parameters
    ----------
    joints : list of J lists of 3 floats
    target, pole : list of 3 floats (``pole`` may be None)
    pose : tuple or None
        The one-chain pose as ``one_limited.one_pose`` gives it, when a bone has a limit.

    Returns
    -------
    tuple or None
        ``(joints, iterations, reachable)``, or None where the vectorized solve must run
        (a segment of no length, a target on the root without pole and limits, two joints
        meeting in the unlimited passes, or a chain straight on its target's line).
    """
    if pole is None and pose is None:
        return solve_one(joints, target, tolerance, max_iterations)
    P = [list(p) for p in joints]
    J = len(P)
    L = [_norm(_sub(P[k + 1], P[k])) for k in range(J - 1)]
    if min(L) <= 1e-12 * (1.0 + max(abs(c) for p in P for c in p)):
        return None
    root = P[0]
    reach = sum(L)
    to_target = _sub(target, root)
    reachable = _norm(to_target) <= reach
    axis, at_root = _unit_or_zero(to_target)
    forced = False
    if pole is not None and reachable and not at_root:
        side, degenerate = _unit_or_zero(_across(_sub(pole, root), axis))
        if not degenerate:  # swing each joint about the root-target line to the pole's side
            for j in range(J):
                rel = _sub(P[j], root)
                along = _dot(rel, axis)
                away = _norm(_across(rel, axis))
                P[j] = [root[i] + along * axis[i] + away * side[i] for i in range(3)]
            forced = True
            if J == 3 and pose is None and _norm(_sub(P[2], target)) > tolerance:
                # two segments away from the target: start on the one solution
                P[1], P[2] = _two_bone_middle(root, target, L, axis, side), list(target)
    if reachable and not at_root:
        off_line = max(_norm(_across(_sub(p, root), axis)) for p in P)
        if off_line <= STRAIGHT * reach:
            return None  # straight on the target's line: the general path bends it (a bow)
    limited = pose is not None
    if not reachable:
        if limited:
            limited_lists(P, root, L, pose, target)
        else:  # straight along the root-target line
            s = 0.0
            for k in range(J - 1):
                s += L[k]
                P[k + 1] = [root[i] + s * axis[i] for i in range(3)]
        return P, 1, False
    if limited:  # start from the pose placed within its limits
        limited_lists(P, root, L, pose, None)
    iterations = 0
    if (_norm(_sub(P[-1], target)) > tolerance or forced) and not at_root:  # see chains.solve
        iterations = iterate_lists(P, root, list(target), L, pose, tolerance, max_iterations)
    return P, iterations, True


def target_at(ctx, target) -> list:
    """``ctx.target_positions(target)`` of a one-frame context, as a list of 3 floats (a
    keyed position sampled without arrays)."""
    if target.bone is None:
        return sample_one(target.position, target.position_keys, float(ctx.frames[0]))
    return ctx.target_positions(target)[0].tolist()


def _position(ctx, target):
    """A target's world position at the frame as a list, or None if not finite."""
    p = target_at(ctx, target)
    return p if all(c - c == 0.0 for c in p) else None  # inf - inf and nan are nan


def _two_bone_middle(root, target, L, axis, side):
    """:func:`app.scene.constraints.fabrik.chains._two_bone_middle` for one chain."""
    distance = _norm(_sub(target, root))
    along = (L[0] * L[0] - L[1] * L[1] + distance * distance) / (2 * max(distance, 1e-300))
    away = sqrt(max(L[0] * L[0] - along * along, 0.0))
    return [root[i] + along * axis[i] + away * side[i] for i in range(3)]


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _norm(v):
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


def _across(v, axis):
    """The part of ``v`` across unit ``axis``."""
    along = _dot(v, axis)
    return (v[0] - along * axis[0], v[1] - along * axis[1], v[2] - along * axis[2])


def _unit_or_zero(v):
    """:func:`app.scene.math.aim.unit` of one vector: ``(unit, False)``, or zeros and True
    within :data:`DEGENERATE` of no length."""
    n = _norm(v)
    if n <= DEGENERATE:
        return (0.0, 0.0, 0.0), True
    return (v[0] / n, v[1] / n, v[2] / n), False


def _unit(v):
    return _unit_or_zero(v)[0]
