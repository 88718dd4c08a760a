"""The ``child_of`` constraint: the bone moves as if it were the target bone's child.

``bone_to_world(f) = target_to_world(f) @ O`` with ``O = inv(target_to_world(f0)) @
bone_to_world(f0)`` for ``offset: "frame_start"`` (``f0`` is ``frame_start``) and ``O = I``
for ``"none"``. The target's whole transform is read (``at`` and ``space`` change nothing);
a target scaled to 0 at ``frame_start`` (even up to rounding) is inverted as far as it can
be (finite; :func:`~app.scene.constraints.follows.common.world_inverse`).
"""

from __future__ import annotations

from app.scene.constraints.follows.common import bone_and_target, keeps_start, world_inverse
from app.scene.constraints.follows.model import ChildOf


def apply(constraint: ChildOf, ctx) -> None:
    """Solve ``constraint`` at every frame of ``ctx``."""
    b, t = bone_and_target(constraint, ctx)
    target_to_world = ctx.bone_to_world[:, t]
    if keeps_start(constraint):
        offset = ctx.at_frame_start(constraint, lambda w: world_inverse(w[:, t]) @ w[:, b])
        ctx.set_world(b, target_to_world @ offset)
    else:
        ctx.set_world(b, target_to_world.copy())
