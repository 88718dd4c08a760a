"""How far two evaluations of the same skeleton differ, bone by bone.

The editor's Compare mode evaluates the scene in world space and in object space and shows
where they part: the distance between each bone's heads and the angle between its two
world orientations (the rotation parts, scale removed by polar decomposition).
"""

from __future__ import annotations

import numpy as np

from app.scene.math import quat
from app.scene.math.transforms import rotation_from_matrix


def rotation_parts(bone_to_world) -> np.ndarray:
    """The rotations of transforms ``(..., 4, 4)`` as quaternions ``(..., 4)``.

    Where the linear part is a rotation times an axis scale (orthogonal columns, the usual
    case), normalizing its columns gives the rotation exactly and cheaply; elsewhere
    (shear from non-uniform scale under a rotated child) the polar decomposition does.
    """
    m = np.asarray(bone_to_world, dtype=float)[..., :3, :3]
    lengths = np.linalg.norm(m, axis=-2, keepdims=True)
    r = m / np.where(lengths > 0, lengths, 1.0)
    gram = np.swapaxes(r, -1, -2) @ r
    orthogonal = np.all(np.abs(gram - np.eye(3)) < 1e-9, axis=(-1, -2)) & (np.linalg.det(r) > 0)
    out = np.empty(m.shape[:-2] + (4,))
    out[orthogonal] = quat.quat_from_matrix(r[orthogonal])
    if not np.all(orthogonal):
        out[~orthogonal] = rotation_from_matrix(m[~orthogonal])
    return out


def pose_differences(bone_to_world_a, bone_to_world_b) -> tuple[np.ndarray, np.ndarray]:
    """Per-bone head distance and orientation angle between two poses.

    Parameters
    ----------
    bone_to_world_a, bone_to_world_b : array_like, shape (..., B, 4, 4)

    Returns
    -------
    head_distance : ndarray, shape (..., B)
        In scene units.
    angle_deg : ndarray, shape (..., B)
        The angle of the rotation taking one orientation to the other, in ``[0, 180]``.
    """
    a = np.asarray(bone_to_world_a, dtype=float)
    b = np.asarray(bone_to_world_b, dtype=float)
    head_distance = np.linalg.norm(a[..., :3, 3] - b[..., :3, 3], axis=-1)
    angle = quat.angle_between(rotation_parts(a), rotation_parts(b))
    return head_distance, np.degrees(angle)


def difference_level(head_distance, angle_deg, length_scale: float) -> np.ndarray:
    """A 0..1 severity per bone for colouring: 0 means identical, 1 means clearly apart.

    A bone reaches 1 when its head moved by a quarter of ``length_scale`` (the skeleton's
    size) or its orientation by 30 degrees; differences below rounding noise count as 0.

    Parameters
    ----------
    head_distance, angle_deg : array_like, shape (B,)
    length_scale : float
        A typical length of the skeleton (> 0), e.g. its bounding radius.
    """
    d = np.asarray(head_distance, dtype=float) / max(0.25 * length_scale, 1e-12)
    a = np.asarray(angle_deg, dtype=float) / 30.0
    level = np.clip(np.maximum(d, a), 0.0, 1.0)
    noise = (np.asarray(head_distance) < 1e-6 * max(length_scale, 1e-12)) & (
        np.asarray(angle_deg) < 1e-4
    )
    return np.where(noise, 0.0, level)


def skeleton_radius(heads, tails) -> float:
    """Half the diagonal of the bounding box of a pose's joints: its size for colouring.

    Parameters
    ----------
    heads, tails : array_like, shape (B, 3)
    """
    points = np.concatenate([np.asarray(heads, float), np.asarray(tails, float)])
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)) / 2)
