"""The ``copy_location`` constraint: the bone's head goes to the target point.

The point is the target bone's head or tail (``at``). With ``offset: "none"`` the head is
that point; with ``"frame_start"`` it is the point plus the offset ``d = head_b(f0) -
point_t(f0)`` the two had at ``frame_start``: in ``space: "world"`` as a world vector,
``head_b(f) = point_t(f) + d``; in ``space: "object"`` taken in the bone's parent frame,
``head_b(f) = point_t(f) + P(f) P(f0)^-1 d`` (``P`` the linear part of the parent's world
transform), so the offset turns and scales with the parent. The bone's rotation and scale
are kept.
"""

from __future__ import annotations

from app.scene.constraints.change_of_basis import parent_to_world
from app.scene.constraints.follows import common
from app.scene.constraints.follows.common import bone_and_target, keeps_start, point
from app.scene.constraints.follows.model import CopyLocation
from app.scene.math.transforms import transform_vectors


def apply(constraint: CopyLocation, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx``."""
    b, t = bone_and_target(constraint, ctx)
    space = ctx.space_of(constraint)
    skeleton, rig, target = ctx.skeleton, ctx.rig, constraint.target
    head = point(ctx.bone_to_world, rig, target, t)
    if keeps_start(constraint):

        def measure(w):
            offset = w[:, b, :3, 3] - point(w, rig, target, t)
            if space == "world":
                return offset
            return transform_vectors(common.world_inverse(parent_to_world(skeleton, w, b)), offset)

        offset = ctx.at_frame_start(constraint, measure)
        if space != "world":
            offset = transform_vectors(parent_to_world(skeleton, ctx.bone_to_world, b), offset)
        head += offset
    new = ctx.bone_to_world[:, b].copy()
    new[:, :3, 3] = head
    ctx.set_world(b, new)
