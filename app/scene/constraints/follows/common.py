"""What the kinds that make a bone follow a target bone share (contract §F2).

``child_of``, ``copy_rotation`` and ``copy_location`` each read the driven bone and one
target bone, and with ``offset: "frame_start"`` keep the relation the two have at
``frame_start`` (as the constraints before them leave the pose there; see
:meth:`app.scene.evaluate.Context.at_frame_start`).
"""

from __future__ import annotations

import numpy as np

from app.scene.constraints.change_of_basis import parent_to_world
from app.scene.constraints.points_at.solver import constraint_path
from app.scene.errors import SceneError
from app.scene.math import quat
from app.scene.math.transforms import RCOND, inverse, rotation_from_matrix, transform_points


def bone_and_target(constraint, ctx, itself: str = "follow itself") -> tuple[int, int]:
    """Indices of the driven bone and of the target bone (``itself``: what a bone cannot do
    with itself, in the refusal).

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
        raise SceneError(f"bone {target!r} cannot {itself}", f"{path}.target.bone")
    return names[constraint.bone], names[target]


def world_inverse(a_to_b) -> np.ndarray:
    """The inverse of world transforms ``(..., 4, 4)`` as every follow kind takes it (the
    relation kept from ``frame_start``, a bone's transform in its parent's frame): one rule,
    :func:`~app.scene.math.transforms.inverse`'s. A transform singular up to rounding (scaled
    to 0 on an axis, then turned) gets the pseudo-inverse that drops the directions below
    :data:`~app.scene.math.transforms.RCOND` of its largest, so no pose read through it
    depends on the rounding (on which frames were evaluated together); any other, its
    inverse."""
    return inverse(a_to_b)


def keeps_start(constraint) -> bool:
    """Whether the constraint keeps its relation at ``frame_start`` (else it has no offset)."""
    return constraint.offset == "frame_start"


def rotations(bone_to_world, skeleton, bones, space: str) -> np.ndarray:
    """The bones' rotations ``(F, k, 3, 3)``: the polar part of each world transform, or in
    ``space: "object"`` of its transform relative to its parent (``inv(parent) @ bone``).

    Parameters
    ----------
    bone_to_world : ndarray, shape (F, B, 4, 4)
    bones : sequence of int, (k,)
    """
    if space == "world":
        return polar(bone_to_world[:, list(bones), :3, :3])
    return polar(linear_in_parents(bone_to_world, skeleton, bones))


def linear_in_parents(bone_to_world, skeleton, bones) -> np.ndarray:
    """The linear parts ``(F, k, 3, 3)`` of ``bone_to_parent = world_inverse(parent_to_world)
    @ bone_to_world`` of each of ``bones`` (one inverse for all)."""
    parents = np.stack([parent_to_world(skeleton, bone_to_world, b) for b in bones], axis=1)
    to_parent = world_inverse(parents)[..., :3, :3]
    return to_parent @ bone_to_world[:, list(bones), :3, :3]


#: Linear parts this close to orthonormal (``|mᵀm − I|``) are taken as their own rotation.
RIGID = 1e-13


def polar(m) -> np.ndarray:
    """The rotation factor ``U Vᵀ`` of linear parts ``(..., 3, 3)`` (the rotation nearest in
    Frobenius norm; exactly ``R`` for ``R diag(s)`` with ``s > 0``), one SVD for the stack.

    A reflection flips its weakest axis. A matrix squashed to a line (rank 1, to
    :data:`~app.scene.math.transforms.RCOND`) turns by the shortest arc onto it and one of
    zeros does not turn, as :func:`~app.scene.math.transforms.rotation_from_matrix` has it;
    so does a matrix on which the SVD does not converge (subnormal entries).
    """
    m = np.asarray(m, dtype=float)
    gram = np.swapaxes(m, -1, -2) @ m
    if np.abs(gram - np.eye(3)).max(initial=0.0) <= RIGID and np.all(np.linalg.det(m) > 0):
        return m.copy()  # already rotations (the usual rig): their own polar part, no SVD
    try:
        u, s, vt = np.linalg.svd(m)
    except np.linalg.LinAlgError:
        return quat.matrix_from_quat(rotation_from_matrix(m))
    rot = u @ vt
    flip = np.linalg.det(rot) < 0
    if np.any(flip):
        u[flip, :, -1] *= -1
        rot = u @ vt
    line = (s[..., 1] <= RCOND * s[..., 0]) | ~(s[..., 0] > 0)
    if np.any(line):  # a line or nothing: the one rule of rotation_from_matrix
        rot[line] = quat.matrix_from_quat(rotation_from_matrix(m[line]))
    return rot


def point(bone_to_world, rig, target, index: int) -> np.ndarray:
    """World positions ``(F, 3)`` of a bone target's head or tail."""
    if target.at == "tail":
        return transform_points(bone_to_world[:, index], rig.tails_in_bone[index])
    return bone_to_world[:, index, :3, 3].copy()
