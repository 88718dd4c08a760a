"""The ``limit_distance`` solver: the bone's head kept inside, outside or on a sphere about
the target point, every frame at once.

With ``p`` the bone's head, ``c`` the target point (the target bone's head or tail), ``r =
|p - c|`` and ``d`` the distance: ``inside`` moves ``p`` to ``c + (p - c) d / r`` where ``r >
d``, ``outside`` where ``r < d``, ``surface`` at every frame; at
``r = 0`` (to rounding: :data:`ZERO`) the head goes ``d`` along the bone's parent's +Y (world
+Y for a root). Only the translation of ``bone_to_world`` changes (the bone keeps its rotation
and scale) and its descendants follow.
In ``space: "object"`` the same is done with ``p`` and ``c`` taken in the parent's frame
(``inv(parent_to_world)``), so ``d`` is in the parent's units. ``distance: None`` is ``r`` at
``frame_start`` in that space, on the pose the constraints before it leave
(:meth:`~app.scene.evaluate.Context.at_frame_start`). ``info[name]["radius"]`` is the
distance used.

Blender's Limit Distance (``distlimit_evaluate``) is the reference; where it leaves the head
on the target at ``r = 0`` the contract gives it a direction, so ``outside`` and ``surface``
always keep the distance.
"""

from __future__ import annotations

import numpy as np

from app.scene.constraints.change_of_basis import parent_to_world
from app.scene.constraints.follows.common import bone_and_target, point
from app.scene.constraints.limit_distance.model import LimitDistance
from app.scene.math.transforms import inverse, transform_points, transform_vectors

UP = np.array([0.0, 1.0, 0.0])
#: ``r`` at most this fraction of the largest of ``|p|``, ``|c|`` (max norm) and ``d`` counts
#: as ``r = 0``: the head and the target apart by rounding alone.
ZERO = 1e-12


def limited(head, center, distance, mode: str, up) -> tuple[np.ndarray, np.ndarray]:
    """The heads ``(F, 3)`` after the limit, all in one frame of reference, and which frames
    moved ``(F,)`` (the others keep ``head`` as it was).

    Parameters
    ----------
    head, center : ndarray, shape (F, 3)
        The bone's head ``p`` and the target point ``c``.
    distance : float
        The sphere's radius ``d`` (``>= 0``).
    mode : {"inside", "outside", "surface"}
    up : ndarray, shape (F, 3)
        Unit directions the head takes from ``c`` where ``r = 0``.
    """
    offset = head - center
    r = np.linalg.norm(offset, axis=-1)
    if mode == "inside":
        moves = r > distance
    elif mode == "outside":
        moves = r < distance
    else:
        moves = np.ones(r.shape, dtype=bool)
    # r = 0 to rounding: a direction made of rounding errors would throw the head anywhere
    scale = np.maximum(np.abs(head).max(axis=-1), np.abs(center).max(axis=-1))
    away = r > ZERO * np.maximum(scale, distance)
    unit = np.where(away[:, None], offset / np.where(away, r, 1.0)[:, None], up)
    return np.where(moves[:, None], center + unit * distance, head), moves


def _up(to_frame, space: str) -> np.ndarray:
    """The parent's +Y ``(F, 3)``: in world units (a unit vector; world +Y where the parent
    squashes it), or ``(0, 1, 0)`` in the parent's own frame (``space: "object"``)."""
    if space != "world":
        return np.broadcast_to(UP, to_frame.shape[:1] + (3,))
    y = transform_vectors(to_frame, UP)
    length = np.linalg.norm(y, axis=-1, keepdims=True)
    ok = length > 0
    return np.where(ok, y / np.where(ok, length, 1.0), UP)


def _in_space(bone_to_world, skeleton, rig, constraint, b, t, space):
    """``(p, c, parent_to_world)`` of every frame: the head and the target point ``(F, 3)`` in
    the constraint's space (world, or the bone's parent's frame) and the parent's world
    transforms ``(F, 4, 4)``."""
    head = bone_to_world[:, b, :3, 3]
    center = point(bone_to_world, rig, constraint.target, t)
    parent = parent_to_world(skeleton, bone_to_world, b)
    if space == "world":
        return head, center, parent
    to_parent = inverse(parent)
    return transform_points(to_parent, head), transform_points(to_parent, center), parent


def apply(constraint: LimitDistance, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx``."""
    b, t = bone_and_target(constraint, ctx, itself="keep a distance from itself")
    space = ctx.space_of(constraint)
    skeleton, rig = ctx.skeleton, ctx.rig
    distance = constraint.distance
    if distance is None:

        def measure(w):
            p, c, _ = _in_space(w, skeleton, rig, constraint, b, t, space)
            return float(np.linalg.norm(p - c, axis=-1)[0])

        distance = ctx.at_frame_start(constraint, measure)
    head, center, parent = _in_space(ctx.bone_to_world, skeleton, rig, constraint, b, t, space)
    moved, moves = limited(head, center, float(distance), constraint.mode, _up(parent, space))
    new = ctx.bone_to_world[:, b].copy()
    if space != "world":  # back to the world where it moved (the others keep their bits)
        moved = np.where(moves[:, None], transform_points(parent, moved), new[:, :3, 3])
    new[:, :3, 3] = moved
    ctx.set_world(b, new)
    ctx.info[constraint.name] = {"radius": float(distance)}
