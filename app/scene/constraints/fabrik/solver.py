"""The ``fabrik`` constraint: a chain of bones reaching for a target.

Every frame of the context is one chain of :func:`app.scene.constraints.fabrik.chains.solve`, so a
shot is solved in one vectorized call. From the solved joint positions the bones are turned
root to tip, each by the shortest arc from its animated orientation at that frame (its roll
follows the animation, and no frame depends on another):

- ``space: "object"`` (option 2 of the seed): the solved positions are carried into the
  first bone's frame by the inverse of its chain, the bone is turned there (within its limit,
  relative to its rest pose), the rest are carried into the next bone's frame, and so on;
- ``space: "world"`` (option 1): each bone is turned about its head in world coordinates;
  limits are ignored and the bake reports by how many degrees the pose leaves them.

Segment ``k`` runs, in bone ``k``'s frame, to the next chain bone's (current) translation,
or to the last bone's ``tail``. ``info[name]`` holds ``iterations``, ``distance`` (tail to
target) and ``reachable`` per frame.

:func:`setup` reads what the solve starts from; :func:`apply` solves and turns the bones
(one frame of a rigid chain in object space, the editor's current frame, in plain floats:
:mod:`app.scene.constraints.fabrik.one_frame`); :func:`trace` runs the same solve for one
frame keeping every reaching pass (the editor's step-through).

One idea: the ``fabrik`` constraint over a context's frames (setup, solve, turning the bones).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.constraints.change_of_basis import (
    is_rigid,
    parent_to_world,
    rest_relative,
    turn_about_head,
    turn_in_bone,
    world_to_bone,
)
from app.scene.constraints.fabrik.chains import ChainError, ChainPose, solve
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.fabrik.one_frame import apply_one, target_at
from app.scene.constraints.fabrik.one_limited import object_rotation_one
from app.scene.constraints.fabrik.trace import ChainTrace
from app.scene.constraints.fabrik.trace import trace as chain_trace
from app.scene.constraints.points_at.solver import (
    check_finite,
    constraint_path,
    measure_violation,
    object_rotation,
)
from app.scene.errors import SceneError
from app.scene.math import quat
from app.scene.math.aim import DEGENERATE, aim_delta, unit
from app.scene.math.transforms import (
    inverse,
    rotation_from_matrix,
    transform_points,
    transform_vectors,
    trs,
)
from app.scene.rig.model import HingeLimit
from app.scene.rig.prepared import prepare


@dataclass(frozen=True, eq=False)
class ChainSetup:
    """What solving one constraint over the context's frames starts from.

    Attributes
    ----------
    idx : list of int
        The chain's bone indices, root first.
    root_parent : ndarray, shape (F, 4, 4)
        World transform of the frame the chain hangs from.
    locals_ : ndarray, shape (F, n, 4, 4)
        Each chain bone's current ``bone_to_parent``.
    segments : ndarray, shape (F, n, 3)
        Each segment in its bone's frame.
    joints : ndarray, shape (F, n + 1, 3)
        The starting joints in world coordinates.
    target, pole : ndarray, shape (F, 3) (``pole`` may be None)
    bend : ndarray, shape (F, 3), or None
    pose : ChainPose or None
        Set in object space when the chain has limits.
    limits : tuple of Limit or None
    rest : ndarray, shape (n, 4)
    d0 : ndarray, shape (F, n, 4), or None
    world_space : bool
    """

    idx: list
    root_parent: np.ndarray
    locals_: np.ndarray
    segments: np.ndarray
    joints: np.ndarray
    target: np.ndarray
    pole: np.ndarray | None
    bend: np.ndarray | None
    pose: ChainPose | None
    limits: tuple
    rest: np.ndarray
    d0: np.ndarray | None
    world_space: bool


def setup(constraint: Fabrik, ctx) -> ChainSetup:
    """Read the chain, its target and its limits from the context (the current pose).

    Raises
    ------
    SceneError
        A chain bone of no length, a non-finite target or pole.
    """
    path = constraint_path(ctx, constraint)
    skeleton, frames = ctx.skeleton, ctx.frames
    rig = ctx.rig if ctx.rig is not None else prepare(ctx.scene)
    static = rig.static(constraint, lambda c: _static_of(c, ctx.scene, skeleton))
    idx, tail, limits, rest = static.idx, static.tail, static.limits, static.rest

    root_parent = parent_to_world(skeleton, ctx.bone_to_world, idx[0]).copy()
    worlds = ctx.bone_to_world[:, idx].copy()  # (F, n, 4, 4)
    parents = np.concatenate([root_parent[:, None], worlds[:, :-1]], axis=1)
    locals_ = inverse(parents) @ worlds  # current bone_to_parent of each chain bone
    segments = np.concatenate(
        [locals_[:, 1:, :3, 3], np.broadcast_to(tail, (len(frames), 1, 3))], axis=1
    )
    size = 1.0 + np.abs(worlds[:, :, :3, 3]).max(initial=0.0)
    _check_segments(segments, constraint.chain, frames, path, 1e-12 * size)
    joints = np.concatenate(
        [worlds[:, :, :3, 3], transform_points(worlds[:, -1], tail)[:, None]], axis=1
    )
    target = ctx.target_positions(constraint.target)
    check_finite(target, frames, "target", f"{path}.target")
    pole = None
    if constraint.pole is not None:
        pole = ctx.target_positions(constraint.pole)
        check_finite(pole, frames, "pole", f"{path}.pole")

    world_space = ctx.space_of(constraint) == "world"
    has_limits = any(lim is not None for lim in limits)
    d0 = None
    if has_limits:
        d0 = rest_relative(rest, rotation_from_matrix(locals_))
    pose = None
    if has_limits and not world_space:
        pose = ChainPose(rotation_from_matrix(root_parent), rest, d0, unit(segments)[0], limits)
    bend = (
        None
        if static.bend_in_root is None
        else transform_vectors(worlds[:, 0], static.bend_in_root)
    )
    return ChainSetup(
        idx,
        root_parent,
        locals_,
        segments,
        joints,
        target,
        pole,
        bend,
        pose,
        limits,
        rest,
        d0,
        world_space,
    )


@dataclass(frozen=True, eq=False)
class _ChainStatic:
    """What :func:`setup` reads from the scene that does not change with the frame (kept
    in the evaluation's :class:`~app.scene.rig.prepared.PreparedRig` per constraint)."""

    idx: list
    tail: np.ndarray
    limits: tuple
    rest: np.ndarray
    bend_in_root: np.ndarray | None
    rigid: bool
    #: For the one-frame path (:mod:`app.scene.constraints.fabrik.one_frame`): the index of
    #: the root's parent (-1 for none), the bones whose world frames it reads (that parent,
    #: if any, then the chain), ``tail`` and ``rest`` as lists, and whether each chain bone's
    #: only child is the next chain bone.
    parent: int
    rows: np.ndarray
    tail_list: list
    rest_list: list
    branchless: bool


def _static_of(constraint: Fabrik, scene, skeleton) -> _ChainStatic:
    idx = [skeleton.index(name) for name in constraint.chain]
    limits = tuple(constraint.limits.get(name) for name in constraint.chain)
    tail = np.asarray(scene.tail_of(idx[-1]), dtype=float)
    rest = np.array([scene.bones[i].rotation for i in idx], dtype=float)
    parent = int(skeleton.parents[idx[0]])
    parents = skeleton.parents
    children = np.bincount(parents[parents >= 0], minlength=len(parents))[idx[:-1]]
    return _ChainStatic(
        idx=idx,
        tail=tail,
        limits=limits,
        rest=rest,
        bend_in_root=rest_bend_in_root(scene, constraint, idx, limits),
        rigid=is_rigid(scene, skeleton, idx[-1]),
        parent=parent,
        rows=np.array(([parent] if parent >= 0 else []) + idx, dtype=np.intp),
        tail_list=tail.tolist(),
        rest_list=[tuple(q) for q in rest.tolist()],
        branchless=bool(np.all(children == 1)),
    )


def apply(constraint: Fabrik, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx`` (see the module docstring).

    One frame of a rigid chain in object space (the editor's current frame) takes the
    plain-float path of :mod:`app.scene.constraints.fabrik.one_frame`, which agrees with
    this one to rounding and hands back to it where it cannot."""
    if len(ctx.frames) == 1 and ctx.space_of(constraint) == "object":
        rig = ctx.rig if ctx.rig is not None else prepare(ctx.scene)
        static = rig.static(constraint, lambda c: _static_of(c, ctx.scene, ctx.skeleton))
        if static.rigid and apply_one(constraint, ctx, static):
            return
    _apply_setups([constraint], [setup(constraint, ctx)], ctx)


def group_key(constraint: Fabrik, ctx):
    """What must be equal for constraints to be solved together by :func:`apply_group`
    (chain length, space, tolerance, iterations, rigidity, whether the rest pose bends), or
    ``None`` for a chain solved alone (limits or a pole: per-bone state in the passes)."""
    if constraint.pole is not None:
        return None
    rig = ctx.rig if ctx.rig is not None else prepare(ctx.scene)
    static = rig.static(constraint, lambda c: _static_of(c, ctx.scene, ctx.skeleton))
    if any(lim is not None for lim in static.limits):
        return None
    return (
        len(constraint.chain),
        ctx.space_of(constraint),
        float(constraint.tolerance),
        int(constraint.max_iterations),
        static.rigid,
        static.bend_in_root is None,
    )


def apply_group(constraints, ctx) -> None:
    """Solve constraints of equal :func:`group_key` that neither read nor move each other's
    bones (the evaluation plan checks) as one batch: their frames stacked into one
    :func:`~app.scene.constraints.fabrik.chains.solve` and one pass turning the bones.
    Every chain's result is what :func:`apply` gives it alone."""
    constraints = list(constraints)
    stacked, members = _group_setup(constraints, ctx)
    _apply_setups(constraints, members, ctx, stacked)


def _group_setup(constraints, ctx):
    """:func:`setup` of every member at once: the stacked setup (member ``i`` owns rows
    ``i F .. (i + 1) F``) and each member's bone indices (as ``ChainSetup``-likes with
    ``idx`` only). The same arithmetic as :func:`setup`, on ``(m, F, ...)`` stacks."""
    skeleton, frames = ctx.skeleton, ctx.frames
    statics = [ctx.rig.static(c, lambda c: _static_of(c, ctx.scene, skeleton)) for c in constraints]
    index = np.array([st.idx for st in statics])  # (m, n)
    m, F = len(constraints), len(frames)
    worlds = np.moveaxis(ctx.bone_to_world[:, index], 0, 1)  # (m, F, n, 4, 4)
    root_parent = np.empty((m, F, 4, 4))
    for i, p in enumerate(skeleton.parents[index[:, 0]]):
        root_parent[i] = ctx.bone_to_world[:, p] if p >= 0 else np.eye(4)
    parents = np.concatenate([root_parent[:, :, None], worlds[:, :, :-1]], axis=2)
    locals_ = inverse(parents) @ worlds
    tails = np.array([st.tail for st in statics])  # (m, 3)
    segments = np.concatenate(
        [locals_[:, :, 1:, :3, 3], np.broadcast_to(tails[:, None, None], (m, F, 1, 3))], axis=2
    )
    joints = np.concatenate(
        [worlds[..., :3, 3], transform_points(worlds[:, :, -1], tails[:, None])[:, :, None]], axis=2
    )
    if F == 1:  # the editor's frame: keyed targets sampled as floats
        target = np.array([target_at(ctx, c.target) for c in constraints]).reshape(m, F, 3)
    else:
        target = np.array([ctx.target_positions(c.target) for c in constraints]).reshape(m, F, 3)
    # The checks of setup, on the whole stack at once; member by member (for the message
    # naming the first bad one) only when something fails.
    size = 1.0 + np.abs(worlds[..., :3, 3]).max(axis=(1, 2, 3), initial=0.0)  # (m,)
    short = np.linalg.norm(segments, axis=-1) <= 1e-12 * size[:, None, None]
    if np.any(short) or not np.all(np.isfinite(target)):
        for i, c in enumerate(constraints):
            path = constraint_path(ctx, c)
            _check_segments(segments[i], c.chain, frames, path, 1e-12 * size[i])
            check_finite(target[i], frames, "target", f"{path}.target")
    bend = None
    if statics[0].bend_in_root is not None:  # the group key makes it all or none
        bend = transform_vectors(
            worlds[:, :, 0], np.array([st.bend_in_root for st in statics])[:, None]
        )
    flat = lambda a: a.reshape((m * F,) + a.shape[2:])  # noqa: E731
    world_space = ctx.space_of(constraints[0]) == "world"
    stacked = ChainSetup(
        statics[0].idx,
        flat(root_parent),
        flat(locals_),
        flat(segments),
        flat(joints),
        flat(target),
        None,
        None if bend is None else flat(bend),
        None,
        statics[0].limits,
        statics[0].rest,
        None,
        world_space,
    )
    return stacked, [_Member(st.idx) for st in statics]


@dataclass(frozen=True)
class _Member:
    idx: list


def _apply_setups(constraints, setups, ctx, stacked=None) -> None:
    first = constraints[0]
    s = setups[0] if stacked is None else stacked
    F = len(ctx.frames)
    try:
        solution = solve(
            s.joints,
            s.target,
            tolerance=first.tolerance,
            max_iterations=first.max_iterations,
            pole=s.pole,
            bend=s.bend,
            pose=s.pose,
        )
    except ChainError as e:  # finite inputs and lengths were checked: this is a safety net
        where = constraint_path(ctx, constraints[e.chain // F])
        raise SceneError(
            f"{e.reason} (frame {ctx.frames[e.chain % F]:g})", f"{where}.chain"
        ) from None

    idx, n = s.idx, len(s.idx)
    rigid = (
        ctx.rig.static(first, None).rigid
        if ctx.rig is not None
        else is_rigid(ctx.scene, ctx.skeleton, idx[-1])
    )
    parent = s.root_parent
    new = np.empty((len(s.joints), n, 4, 4))
    for k in range(n):
        before = parent @ s.locals_[:, k]  # the bone carried by the bones already turned
        aim = solution.joints[:, k + 1]
        if s.world_space:
            head = before[:, :3, 3]
            tip = transform_points(before, s.segments[:, k])
            new[:, k] = turn_about_head(before, aim_delta(tip - head, aim - head))
        elif len(before) == 1 and rigid:  # one frame: plain floats (numpy's per-call cost)
            rotation = object_rotation_one(
                before,
                s.segments[:, k],
                aim,
                rigid,
                s.limits[k],
                None if s.d0 is None else s.d0[:, k],
            )
            new[:, k] = turn_in_bone(before, rotation)
        elif s.limits[k] is None:
            rotation = _free_rotation(before, s.segments[:, k], aim, rigid)
            new[:, k] = turn_in_bone(before, rotation)
        else:
            rotation = object_rotation(
                before,
                s.segments[:, k],
                aim,
                rigid,
                limit=s.limits[k],
                d0=None if s.d0 is None else s.d0[:, k],
            )
            new[:, k] = turn_in_bone(before, rotation)
        if s.limits[k] is not None:  # a chain alone (groups have no limits)
            ctx.limit_violation_deg[:, idx[k]] = measure_violation(
                s.limits[k], s.rest[k], parent, new[:, k], s.segments[:, k]
            )
        parent = new[:, k]
    m = len(constraints)
    for k in range(n):  # each write carries the bone's other children along
        if m == 1:
            ctx.set_world(setups[0].idx[k], new[:, k])
        else:  # the members' bone k together (members neither read nor move each other)
            ctx.set_world_many(
                [member.idx[k] for member in setups],
                np.moveaxis(new[:, k].reshape(m, F, 4, 4), 0, 1),
            )
    for i, constraint in enumerate(constraints):
        rows = slice(i * F, (i + 1) * F)
        ctx.info[constraint.name] = {
            "iterations": solution.iterations[rows],
            "distance": solution.distance[rows],
            "reachable": solution.reachable[rows],
        }


def _free_rotation(before, segment, aim, rigid):
    """``object_rotation(before, segment, aim, rigid)`` (no limit, no up vector), bit for bit,
    without the checks for cases that do not arise here unless they do: the shortest arcs
    of unit directions, falling back to the general path where an aim has no direction or
    lies opposite its segment."""
    target = transform_points(world_to_bone(before, rigid), aim)
    nu = np.linalg.norm(segment, axis=-1, keepdims=True)
    nv = np.linalg.norm(target, axis=-1, keepdims=True)
    if np.all((nv > 2 * DEGENERATE) & (nu > 0) & np.isfinite(nu) & np.isfinite(nv)):
        u, v = segment / nu, target / nv
        if np.all(1.0 + np.sum(u * v, axis=-1) >= 2e-6):
            return quat.arc_of_units(u, v)
    return object_rotation(before, segment, aim, rigid)


def trace(constraint: Fabrik, ctx, frame_index: int = 0) -> ChainTrace:
    """The solve of frame ``ctx.frames[frame_index]``, stage by stage (the step-through).

    ``ctx`` holds the pose just before this constraint
    (:meth:`app.scene.evaluate.Evaluator.context` with ``until``). The trace's last joints
    are what :func:`apply` turns the bones towards at that frame: bit for bit where
    :func:`apply` takes this module's path, to rounding (~1e-14) where one frame of a rigid
    chain takes :mod:`~app.scene.constraints.fabrik.one_frame`'s, which reads the same
    frames by other formulas (no SVD).
    """
    s = setup(constraint, ctx)
    f = frame_index
    return chain_trace(
        s.joints[f],
        s.target[f],
        tolerance=constraint.tolerance,
        max_iterations=constraint.max_iterations,
        pole=None if s.pole is None else s.pole[f],
        bend=None if s.bend is None else s.bend[f],
        pose=None if s.pose is None else s.pose.take([f]),
    )


def _check_segments(segments, chain, frames, path, rounding):
    """Refuse a chain bone with no length (nothing to turn towards the target).

    Segments come from the world matrices, so "zero" is "within ``rounding``" of it.
    """
    zero = np.linalg.norm(segments, axis=-1) <= rounding  # (F, n)
    if np.any(zero):
        f, k = np.argwhere(zero)[0]
        what = "its tail" if k == len(chain) - 1 else f"the translation of {chain[k + 1]!r}"
        raise SceneError(
            f"bone {chain[k]!r} has zero length at frame {frames[f]:g}: its segment ({what}, "
            "in its frame) is [0, 0, 0], so it cannot be turned towards anything",
            f"{path}.chain[{k}]",
        )


def rest_bend(scene, constraint: Fabrik, idx, root_to_world, limits) -> np.ndarray | None:
    """World direction ``(F, 3)`` in which the chain bends in its rest pose, or ``None``.

    FABRIK cannot bend a straight chain whose target lies on its own line; when there is no
    pole the chain then bends the way its rest pose does (the joint farthest off the rest
    root-tip line), or, if the rest pose is straight too, the way its first hinge opens at
    the middle of its range. The direction is read in the root bone's frame and carried by
    its current pose, so it follows the animation of the chain's root.
    """
    in_root = rest_bend_in_root(scene, constraint, idx, limits)
    if in_root is None:
        return None
    return transform_vectors(root_to_world, in_root)


def rest_bend_in_root(scene, constraint: Fabrik, idx, limits) -> np.ndarray | None:
    """:func:`rest_bend` in the root bone's frame, ``(3,)`` (static: read once per edit)."""
    bones = [scene.bones[i] for i in idx]
    rest_local = trs(
        np.array([b.translation for b in bones]),
        np.array([b.rotation for b in bones]),
        np.array([b.scale for b in bones]),
    )
    tail = np.asarray(scene.tail_of(idx[-1]), dtype=float)
    in_root = _bend_of(rest_local, tail)
    if in_root is None:
        for k, lim in enumerate(limits):
            if isinstance(lim, HingeLimit) and 0 < k:
                mid = 0.5 * (lim.min + lim.max) or (lim.max if lim.max != 0 else lim.min)
                bent = rest_local.copy()
                turn = quat.quat_from_axis_angle(lim.axis, np.radians(np.clip(mid, -90, 90)))
                bent[k] = trs(
                    bones[k].translation, quat.mul(bones[k].rotation, turn), bones[k].scale
                )
                in_root = _bend_of(bent, tail)
                if in_root is not None:
                    break
    return in_root


def _bend_of(rest_local, tail):
    """Offset direction (root bone's frame) of the joint farthest off the root-tip line."""
    to_root = np.eye(4)
    joints = [np.zeros(3)]
    for k in range(len(rest_local)):
        to_root = to_root @ rest_local[k] if k else np.eye(4)
        if k:
            joints.append(to_root[:3, 3])
    joints.append(transform_points(to_root, tail))
    joints = np.array(joints)
    tip, _ = unit(joints[-1] - joints[0])
    rel = joints - joints[0]
    off = rel - (rel @ tip)[:, None] * tip
    size = np.linalg.norm(off, axis=-1)
    if size.max() <= 1e-6 * np.linalg.norm(np.diff(joints, axis=0), axis=-1).sum():
        return None
    return off[np.argmax(size)] / size.max()


def step_through(constraint: Fabrik, ctx, frame) -> ChainTrace:
    """The step-through's trace: :func:`trace` of the one frame ``ctx`` holds (``frame``)."""
    return trace(constraint, ctx)
