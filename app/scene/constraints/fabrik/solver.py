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

:func:`setup` reads what the solve starts from; :func:`apply` solves and turns the bones;
:func:`trace` runs the same solve for one frame keeping every reaching pass (the editor's
step-through).
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
)
from app.scene.constraints.fabrik.chains import ChainError, ChainPose, solve
from app.scene.constraints.fabrik.trace import ChainTrace
from app.scene.constraints.fabrik.trace import trace as chain_trace
from app.scene.constraints.points_at import (
    check_finite,
    constraint_path,
    measure_violation,
    object_rotation,
)
from app.scene.errors import SceneError
from app.scene.math import quat
from app.scene.math.aim import aim_delta, unit
from app.scene.math.transforms import (
    inverse,
    rotation_from_matrix,
    transform_points,
    transform_vectors,
    trs,
)
from app.scene.rig.model import Fabrik, HingeLimit


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
    scene, skeleton, frames = ctx.scene, ctx.skeleton, ctx.frames
    idx = [skeleton.index(name) for name in constraint.chain]
    bones = [scene.bones[i] for i in idx]
    tail = np.asarray(scene.tail_of(idx[-1]), dtype=float)

    root_parent = parent_to_world(skeleton, ctx.bone_to_world, idx[0]).copy()
    worlds = ctx.bone_to_world[:, idx].copy()  # (F, n, 4, 4)
    parents = np.concatenate([root_parent[:, None], worlds[:, :-1]], axis=1)
    locals_ = inverse(parents) @ worlds  # current bone_to_parent of each chain bone
    segments = np.concatenate(
        [locals_[:, 1:, :3, 3], np.broadcast_to(tail, (len(frames), 1, 3))], axis=1
    )
    size = 1.0 + np.abs(worlds[:, :, :3, 3]).max()
    _check_segments(segments, constraint.chain, frames, path, 1e-12 * size)
    joints = np.concatenate([worlds[:, :, :3, 3], transform_points(worlds[:, -1], tail)[:, None]],
                            axis=1)  # fmt: skip
    target = ctx.target_positions(constraint.target)
    check_finite(target, frames, "target", f"{path}.target")
    pole = None
    if constraint.pole is not None:
        pole = ctx.target_positions(constraint.pole)
        check_finite(pole, frames, "pole", f"{path}.pole")

    limits = tuple(constraint.limits.get(name) for name in constraint.chain)
    rest = np.array([b.rotation for b in bones], dtype=float)
    world_space = ctx.space_of(constraint) == "world"
    has_limits = any(lim is not None for lim in limits)
    d0 = None
    if has_limits:
        d0 = rest_relative(rest, rotation_from_matrix(locals_))
    pose = None
    if has_limits and not world_space:
        pose = ChainPose(rotation_from_matrix(root_parent), rest, d0,
                         unit(segments)[0], limits)  # fmt: skip
    bend = rest_bend(scene, constraint, idx, worlds[:, 0], limits)
    return ChainSetup(idx, root_parent, locals_, segments, joints, target, pole, bend, pose,
                      limits, rest, d0, world_space)  # fmt: skip


def apply(constraint: Fabrik, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx`` (see the module docstring)."""
    s = setup(constraint, ctx)
    try:
        solution = solve(s.joints, s.target, tolerance=constraint.tolerance,
                         max_iterations=constraint.max_iterations, pole=s.pole, bend=s.bend,
                         pose=s.pose)  # fmt: skip
    except ChainError as e:  # finite inputs and lengths were checked: this is a safety net
        raise SceneError(f"{e.reason} (frame {ctx.frames[e.chain]:g})",
                         f"{constraint_path(ctx, constraint)}.chain") from None  # fmt: skip

    idx, n = s.idx, len(s.idx)
    rigid = is_rigid(ctx.scene, ctx.skeleton, idx[-1])
    parent = s.root_parent
    new = np.empty((len(ctx.frames), n, 4, 4))
    for k in range(n):
        before = parent @ s.locals_[:, k]  # the bone carried by the bones already turned
        aim = solution.joints[:, k + 1]
        if s.world_space:
            head = before[:, :3, 3]
            tip = transform_points(before, s.segments[:, k])
            new[:, k] = turn_about_head(before, aim_delta(tip - head, aim - head))
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
        if s.limits[k] is not None:
            ctx.limit_violation_deg[:, idx[k]] = measure_violation(
                s.limits[k], s.rest[k], parent, new[:, k], s.segments[:, k]
            )
        parent = new[:, k]
    for k in range(n):  # each write carries the bone's other children along
        ctx.set_world(idx[k], new[:, k])
    ctx.info[constraint.name] = {
        "iterations": solution.iterations,
        "distance": solution.distance,
        "reachable": solution.reachable,
    }


def trace(constraint: Fabrik, ctx, frame_index: int = 0) -> ChainTrace:
    """The solve of frame ``ctx.frames[frame_index]``, stage by stage (the step-through).

    ``ctx`` holds the pose just before this constraint
    (:meth:`app.scene.evaluate.Evaluator.context` with ``until``). The trace's last joints
    are what :func:`apply` turns the bones towards at that frame.
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
                turn = quat.from_axis_angle(lim.axis, np.radians(np.clip(mid, -90, 90)))
                bent[k] = trs(bones[k].translation, quat.mul(bones[k].rotation, turn),
                              bones[k].scale)  # fmt: skip
                in_root = _bend_of(bent, tail)
                if in_root is not None:
                    break
    if in_root is None:
        return None
    return transform_vectors(root_to_world, in_root)


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
