"""Carrying points into a bone's frame and turning a bone there or in the world.

The seed "change of basis" gives two ways to apply a rotation ``R_c`` computed for a bone:

- option 1, world coordinates: the rotation is about world axes through the bone's head,
  ``bone_to_world' = T(head) R_c T(-head) bone_to_world`` (:func:`turn_about_head`);
- option 2, object coordinates: points are carried into the bone's frame by the inverse of
  its chain (``world_to_bone``; for a rigid chain by transposition, as the seed spells it),
  the rotation is computed there and applied on the right,
  ``bone_to_world' = bone_to_world R_c`` (:func:`turn_in_bone`).

Option 2 is applied exactly as the format page writes it, also for a bone with a
non-uniform scale of its own: directions are read in the bone's frame (its scale included) and
``R_c`` multiplies on the right, so such a bone's frame shears as it turns, which is what
``bone_to_world R_c`` means there (with a uniform scale, ``S`` and ``R_c`` commute).
"""

from __future__ import annotations

import numpy as np

from app.scene.math import quat
from app.scene.math.transforms import R, T, inverse, rigid_inverse, rotation_from_matrix
from app.scene.rig.model import Scene
from app.scene.rig.skeleton import Skeleton


def is_rigid(scene: Scene, skeleton: Skeleton, bone: int) -> bool:
    """Whether ``bone`` and all its ancestors have unit scale (rotations and translations only)."""
    return all(
        scene.bones[b].scale == (1.0, 1.0, 1.0) and scene.bones[b].scale_keys is None
        for b in skeleton.chain_to_root(bone)
    )


def world_to_bone(bone_to_world, rigid: bool) -> np.ndarray:
    """The inverse of a bone's chain, ``(..., 4, 4)``.

    Rigid chains are inverted as the seed says (transposed rotations, negated translations,
    ``(A B)^-1 = B^-1 A^-1``); chains with scale by a general affine inverse. ``rigid`` says
    what the scene's bones hold (no scale on the bone and its ancestors); a frame that an
    upstream constraint wrote with scale (a ``child_of`` of a scaled or squashed target on
    an ancestor) is no rotation, so each frame is transposed only where it is one to
    :data:`RIGID_FRAME`, and inverted otherwise (frame by frame: no frame's inverse depends
    on the frames evaluated with it).
    """
    if not rigid:
        return inverse(bone_to_world)
    out = rigid_inverse(bone_to_world)
    scaled = ~rotations(bone_to_world)
    if np.any(scaled):
        out[scaled] = inverse(np.asarray(bone_to_world, dtype=float)[scaled])
    return out


#: How far ``RᵀR`` may lie from the identity (largest entry) for a frame of a rigid chain to
#: be inverted by transposition. A scene's quaternions written with six or seven digits give
#: frames that are rotations to ~1e-7 (``rig_200_bones.json``), which the transposition has
#: always inverted; a frame written with a scale by a constraint is further.
RIGID_FRAME = 1e-6


def rotations(a_to_b) -> np.ndarray:
    """Whether each linear part of ``a_to_b (..., 4, 4)`` is a rotation to
    :data:`RIGID_FRAME` (orthonormal columns, no mirror), shape ``(...)``."""
    m = np.asarray(a_to_b, dtype=float)[..., :3, :3]
    gram = np.swapaxes(m, -1, -2) @ m
    near = np.abs(gram - np.eye(3)).max(axis=(-1, -2)) <= RIGID_FRAME  # NaN: not
    triple = np.einsum("...i,...i->...", np.cross(m[..., :, 0], m[..., :, 1]), m[..., :, 2])
    return near & (triple > 0)


def parent_to_world(skeleton: Skeleton, bone_to_world, bone: int) -> np.ndarray:
    """World transforms ``(F, 4, 4)`` of ``bone``'s parent (the identity for a root)."""
    parent = skeleton.parents[bone]
    if parent >= 0:
        return bone_to_world[:, parent]
    return np.broadcast_to(np.eye(4), bone_to_world.shape[:1] + (4, 4))


def local_rotation(parent_to_world, bone_to_world, world_to_parent=None) -> np.ndarray:
    """The rotation of ``bone_to_parent = inv(parent_to_world) @ bone_to_world``, ``(F, 4)``.

    The polar factor, so it is exact for ``T R S`` with a positive diagonal ``S``.
    ``world_to_parent``, when given, is ``inverse(parent_to_world)`` computed already.
    """
    if world_to_parent is None:
        world_to_parent = inverse(parent_to_world)
    return rotation_from_matrix(world_to_parent @ bone_to_world)


def turn_about_head(bone_to_world, rotation) -> np.ndarray:
    """Option 1: ``T(head) R(rotation) T(-head) bone_to_world``; ``(F, 4, 4)``, ``(F, 4)``."""
    head = bone_to_world[..., :3, 3]
    return T(head) @ R(rotation) @ T(-head) @ bone_to_world


def turn_in_bone(bone_to_world, rotation) -> np.ndarray:
    """Option 2: ``bone_to_world R(rotation)``.

    Parameters
    ----------
    bone_to_world : ndarray, shape (F, 4, 4)
    rotation : ndarray, shape (F, 4)
        Rotations computed in the bone's frame.
    """
    return bone_to_world @ R(rotation)


def rest_relative(rest_rotation, local_rotation) -> np.ndarray:
    """``d = rest^-1 * local``: a pose as a rotation of the rest frame, ``(F, 4)``."""
    return quat.mul(quat.conj(np.asarray(rest_rotation, dtype=float)), local_rotation)
