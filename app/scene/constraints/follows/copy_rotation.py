"""The ``copy_rotation`` constraint: the bone's rotation follows the target bone's.

The bone's head stays where the hierarchy puts it and its scale is kept; only its rotation
changes. With ``R_b``, ``R_t`` the rotations of bone and target (the polar part of the world
transform in ``space: "world"``; of the transform relative to the bone's own parent in
``space: "object"``):

``R_b'(f) = R_t(f) R_t(f0)^-1 R_b(f0)`` for ``offset: "frame_start"``, ``R_t(f)`` for
``"none"``. The bone's linear part ``R_b P`` (``P`` its stretch in its own frame) becomes
``R_b' P``: in world space ``bone_to_world' = T(head) R_b' R_b^-1 T(-head) bone_to_world``;
in object space the same turn is made in the parent's frame. Polar parts keep this finite
for a target (or parent) with a non-uniform scale or scaled to 0.
"""

from __future__ import annotations

import numpy as np

from app.scene.constraints.follows.common import (
    bone_and_target,
    keeps_start,
    linear_in_parents,
    polar,
    rotations,
)
from app.scene.constraints.follows.model import CopyRotation


def apply(constraint: CopyRotation, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx``."""
    b, t = bone_and_target(constraint, ctx)
    space = ctx.space_of(constraint)
    skeleton = ctx.skeleton
    bone_to_world = ctx.bone_to_world[:, b]
    if space == "world":
        linear = bone_to_world[:, :3, :3]
        r = polar(ctx.bone_to_world[:, [b, t], :3, :3])
    else:
        local = linear_in_parents(ctx.bone_to_world, skeleton, (b, t))
        linear = local[:, 0]  # the bone's, in its parent's frame
        r = polar(local)
    wanted = r[:, 1]
    if keeps_start(constraint):

        def measure(w):
            r0 = rotations(w, skeleton, (b, t), space)
            return np.swapaxes(r0[:, 1], -1, -2) @ r0[:, 0]  # R_t(f0)^-1 R_b(f0)

        wanted = wanted @ ctx.at_frame_start(constraint, measure)
    new = bone_to_world.copy()
    new[:, :3, :3] = wanted @ (np.swapaxes(r[:, 0], -1, -2) @ linear)
    if space != "world":
        parent = ctx.bone_to_world[:, skeleton.parents[b]] if skeleton.parents[b] >= 0 else None
        if parent is not None:
            new[:, :3, :3] = parent[:, :3, :3] @ new[:, :3, :3]
    ctx.set_world(b, new)
