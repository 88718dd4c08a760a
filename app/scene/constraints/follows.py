"""What the kinds that make a bone follow a target bone share (contract §F2).

``child_of``, ``copy_rotation`` and ``copy_location`` each read the driven bone and one
target bone, and with ``offset: "frame_start"`` keep the relation the two have at
``frame_start`` (as the constraints before them leave the pose there; see
:meth:`app.scene.evaluate.Context.at_frame_start`).
"""

from __future__ import annotations

import numpy as np

from app.scene.constraints.change_of_basis import parent_to_world
from app.scene.constraints.points_at import constraint_path
from app.scene.errors import SceneError
from app.scene.math.transforms import inverse, rotation_from_matrix, transform_points


def bone_and_target(constraint, ctx) -> tuple[int, int]:
    """Indices of the driven bone and of the target bone.

    Raises
    ------
    SceneError
        No target bone, a bone that is not in the scene, or a bone that follows itself.
    """
    path = constraint_path(ctx, constraint)
    names = ctx.rig.index
    if constraint.bone not in names:
        raise SceneError(f"{constraint.bone!r} is not a bone of this scene", f"{path}.bone")
    target = constraint.target.bone
    if target is None:
        raise SceneError("the target must be a bone", f"{path}.target")
    if target not in names:
        raise SceneError(f"{target!r} is not a bone of this scene", f"{path}.target.bone")
    if target == constraint.bone:
        raise SceneError(f"bone {target!r} cannot follow itself", f"{path}.target.bone")
    return names[constraint.bone], names[target]


def keeps_start(constraint) -> bool:
    """Whether the constraint keeps its relation at ``frame_start`` (else it has no offset)."""
    return constraint.offset == "frame_start"


def rotations(bone_to_world, skeleton, bones, space: str) -> list[np.ndarray]:
    """Each bone's rotation ``(F, 4)``: the polar part of its world transform, or in
    ``space: "object"`` of its transform relative to its parent (``inv(parent) @ bone``).

    Parameters
    ----------
    bone_to_world : ndarray, shape (F, B, 4, 4)
    bones : sequence of int
    """
    if space == "world":
        return [rotation_from_matrix(bone_to_world[:, b]) for b in bones]
    return [rotation_from_matrix(in_parent(bone_to_world, skeleton, b)) for b in bones]


def in_parent(bone_to_world, skeleton, bone: int) -> np.ndarray:
    """``bone_to_parent = inv(parent_to_world) @ bone_to_world``, ``(F, 4, 4)``."""
    return inverse(parent_to_world(skeleton, bone_to_world, bone)) @ bone_to_world[:, bone]


def point(bone_to_world, rig, target, index: int) -> np.ndarray:
    """World positions ``(F, 3)`` of a bone target's head or tail."""
    if target.at == "tail":
        return transform_points(bone_to_world[:, index], rig.tails_in_bone[index])
    return bone_to_world[:, index, :3, 3].copy()
