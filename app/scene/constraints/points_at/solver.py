"""The ``points_at`` constraint: turn a bone so its tail points at a target.

The rotation is the shortest arc from ``tail - head`` to ``target - head`` (rolled by the
optional up vector), computed and applied in one of the two ways of the seed "change of
basis" (see :mod:`app.scene.constraints.change_of_basis`):

- ``space: "world"``: from world directions, applied about the head in world coordinates;
  limits cannot be expressed there, so they are ignored and the bake reports by how many
  degrees the result leaves them;
- ``space: "object"``: the target is carried into the bone's frame by the inverse of its
  chain, the rotation is computed there, limited relative to the bone's rest pose, and
  applied on the right.

Every frame of the context is solved at once. A frame whose target sits on the bone's head
gives the bone no direction: the bone keeps its pose there (``info["degenerate_frames"]``).
"""

from __future__ import annotations

import math

import numpy as np

from app.scene.bounds import MIN_BONE_LENGTH
from app.scene.constraints.change_of_basis import (
    is_rigid,
    local_rotation,
    parent_to_world,
    rest_relative,
    turn_about_head,
    turn_in_bone,
    world_to_bone,
)
from app.scene.constraints.points_at.model import PointsAt, UpVector
from app.scene.errors import SceneError
from app.scene.math import quat
from app.scene.math.aim import DEGENERATE, aim_delta, unit
from app.scene.math.transforms import inverse, transform_points, transform_vectors
from app.scene.rig.limits import limited_rotation, violation_deg
from app.scene.rig.model import Limit


def constraint_path(ctx, constraint) -> str:
    """``constraints[i]``: where ``constraint`` sits in the scene file, for error messages."""
    for i, c in enumerate(ctx.scene.constraints):
        if c.name == constraint.name:
            return f"constraints[{i}]"
    return f"constraint {constraint.name!r}"


def check_finite(points, frames, what: str, path: str) -> None:
    """Refuse non-finite ``points`` (F, 3), naming the first bad frame."""
    bad = ~np.all(np.isfinite(points), axis=-1)
    if np.any(bad):
        frame = frames[np.flatnonzero(bad)[0]]
        raise SceneError(
            f"the {what} is not a finite position at frame {frame:g} "
            f"({int(bad.sum())} frame(s) in all)",
            path,
        )


def turn_world(bone_to_world, tail_in_bone, target, up: UpVector | None = None):
    """Option 1 for a stack of frames.

    Parameters
    ----------
    bone_to_world : ndarray, shape (F, 4, 4)
    tail_in_bone : array_like, shape (3,) or (F, 3)
    target : ndarray, shape (F, 3)
        World positions.

    Returns
    -------
    ndarray, shape (F, 4, 4)
        ``T(head) R_c T(-head) bone_to_world``.
    """
    head = bone_to_world[:, :3, 3]
    tail_dir = transform_points(bone_to_world, tail_in_bone) - head
    up_dir = toward = None
    if up is not None:
        up_dir = transform_vectors(bone_to_world, up.axis)
        toward = np.broadcast_to(np.asarray(up.toward, dtype=float), head.shape)
    return turn_about_head(bone_to_world, aim_delta(tail_dir, target - head, up_dir, toward))


def object_rotation(
    bone_to_world,
    tail_in_bone,
    target,
    rigid: bool,
    *,
    limit: Limit | None = None,
    d0=None,
    up: UpVector | None = None,
):
    """Option 2: the rotation ``R_c`` in the bone's frame, for a stack of frames.

    Parameters
    ----------
    bone_to_world : ndarray, shape (F, 4, 4)
    tail_in_bone : array_like, shape (3,) or (F, 3)
        The direction to turn (the tail, or a FABRIK segment), in the bone's frame.
    target : ndarray, shape (F, 3)
        World positions; carried into the bone's frame by the inverse of its chain.
    rigid : bool
        Whether the chain has no scale (its inverse is then a transposition).
    limit : Limit, optional
        With ``d0``, the bone's current rotation relative to its rest frame (F, 4).

    Returns
    -------
    ndarray, shape (F, 4)
        Apply with :func:`~app.scene.constraints.change_of_basis.turn_in_bone`.
    """
    to_bone = world_to_bone(bone_to_world, rigid)
    target_in_rot = transform_points(to_bone, target)
    tail_in_rot = np.asarray(tail_in_bone, dtype=float)
    up_axis = toward = None
    if up is not None:
        up_axis = np.broadcast_to(np.asarray(up.axis, dtype=float), target.shape)
        toward = transform_vectors(to_bone, up.toward)
    if limit is None:
        return aim_delta(np.broadcast_to(tail_in_rot, target.shape), target_in_rot, up_axis, toward)
    # Limits are read in the rest frame: rotate the bone's-frame vectors by d0 to get there.
    u, _ = unit(np.broadcast_to(tail_in_rot, target.shape))
    d1 = limited_rotation(
        limit,
        d0,
        u,
        quat.rotate(d0, target_in_rot),
        up_axis=None if up is None else unit(up_axis)[0],
        toward=None if up is None else quat.rotate(d0, toward),
    )
    return quat.mul(quat.conj(d0), d1)


def measure_violation(
    limit, rest_rotation, parent_world, bone_to_world, direction_in_rot, world_to_parent=None
):
    """Degrees ``(F,)`` by which a bone's pose leaves ``limit`` (relative to its rest pose);
    ``world_to_parent`` is ``inverse(parent_world)`` when the caller has it."""
    d = rest_relative(rest_rotation, local_rotation(parent_world, bone_to_world, world_to_parent))
    u, _ = unit(np.broadcast_to(direction_in_rot, d.shape[:-1] + (3,)))
    return violation_deg(limit, d, u)


def apply(constraint: PointsAt, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx`` (see the module docstring)."""
    path = constraint_path(ctx, constraint)
    scene, skeleton = ctx.scene, ctx.skeleton
    b = skeleton.index(constraint.bone)
    bone = scene.bones[b]
    tail = np.asarray(scene.tail_of(b), dtype=float)
    if not np.any(tail):
        raise SceneError(
            f"bone {bone.name!r} has zero length (its tail is [0, 0, 0]): it has "
            "no direction to point",
            f"{path}.bone",
        )
    if math.hypot(*tail) < MIN_BONE_LENGTH:  # its first child's head, almost on its own
        raise SceneError(
            f"bone {bone.name!r} has zero length (its tail is "
            f"{math.hypot(*tail):.3g} long, shorter than the shortest bone, "
            f"{MIN_BONE_LENGTH:g}): it has no direction to point",
            f"{path}.bone",
        )
    target = ctx.target_positions(constraint.target)
    check_finite(target, ctx.frames, "target", f"{path}.target")
    bone_to_world = ctx.bone_to_world[:, b].copy()
    parent_world = parent_to_world(skeleton, ctx.bone_to_world, b).copy()
    head = bone_to_world[:, :3, 3]
    degenerate = np.linalg.norm(target - head, axis=-1) <= DEGENERATE
    limit = constraint.limit
    # Inverted once for both polar rotations (the pose before, and the limit after).
    to_parent = None if limit is None else inverse(parent_world)
    if ctx.space_of(constraint) == "world":
        new = turn_world(bone_to_world, tail, target, constraint.up)
    else:
        d0 = None
        if limit is not None:
            d0 = rest_relative(
                bone.rotation, local_rotation(parent_world, bone_to_world, to_parent)
            )
        rigid = is_rigid(scene, skeleton, b)
        rotation = object_rotation(
            bone_to_world, tail, target, rigid, limit=limit, d0=d0, up=constraint.up
        )
        new = turn_in_bone(bone_to_world, rotation)
    ctx.set_world(b, new)
    if limit is not None:
        ctx.limit_violation_deg[:, b] = measure_violation(
            limit, bone.rotation, parent_world, new, tail, to_parent
        )
    ctx.info[constraint.name] = {"degenerate_frames": ctx.frames[degenerate]}
