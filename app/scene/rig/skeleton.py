"""Skeleton topology and forward kinematics over many frames at once.

``bone_to_parent = T(translation) @ R(rotation) @ S(scale)`` and
``bone_to_world = parent_to_world @ bone_to_parent``. Forward kinematics runs one depth
level of the hierarchy at a time, each level a single batched matrix product over every
frame and every bone of that depth: the Python loop is over depth, never over frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.bounds import hierarchy_depths
from app.scene.math.transforms import inverse, transform_points
from app.scene.rig.keys import sample_many
from app.scene.rig.model import Scene


@dataclass(frozen=True, eq=False)
class Skeleton:
    """Parent indices and depth levels of a scene's bones (file order).

    Attributes
    ----------
    names : tuple of str, (B,)
    parents : ndarray of int, (B,)
        Parent index, ``-1`` for a root.
    levels : tuple of ndarray
        Bone indices by depth: roots first, then their children, and so on.
    """

    names: tuple
    parents: np.ndarray
    levels: tuple

    @classmethod
    def from_scene(cls, scene: Scene) -> Skeleton:
        index = {b.name: i for i, b in enumerate(scene.bones)}
        parents = np.array(
            [-1 if b.parent is None else index[b.parent] for b in scene.bones], dtype=np.intp
        )
        # Linear in the bones whatever the depth (a walk to the root per bone is quadratic
        # on a 10^4-deep chain); a root has depth 0 here.
        depth = np.array(hierarchy_depths(parents.tolist())[0], dtype=np.intp) - 1
        levels = tuple(np.flatnonzero(depth == d) for d in range(depth.max() + 1))
        return cls(tuple(index), parents, levels)

    def __len__(self):
        return len(self.names)

    def index(self, name: str) -> int:
        return self.names.index(name)

    def descendants(self, bone: int) -> np.ndarray:
        """Indices of every bone below ``bone``, parents before children."""
        out, frontier = [], {bone}
        for level in self.levels:
            hits = [int(b) for b in level if self.parents[b] in frontier]
            out.extend(hits)
            frontier.update(hits)
        return np.array(out, dtype=np.intp)

    def chain_to_root(self, bone: int) -> list[int]:
        """``[bone, parent, grandparent, ..., root]``."""
        chain = [bone]
        while self.parents[chain[-1]] >= 0:
            chain.append(int(self.parents[chain[-1]]))
        return chain


def local_transforms(scene: Scene, frames) -> np.ndarray:
    """Animated ``bone_to_parent`` of every bone at every frame.

    Parameters
    ----------
    scene : Scene
    frames : array_like, shape (F,)
        Frames, fractional allowed.

    Returns
    -------
    ndarray, shape (F, B, 4, 4)
        A view of a component-major buffer (see :func:`forward_kinematics`).
    """
    frames = np.asarray(frames, dtype=float).reshape(-1)
    B, F = len(scene.bones), len(frames)
    cm = np.zeros((4, 4, B, F))  # component-major: cm[i, j] is entry (i, j) of every matrix
    bones = scene.bones
    translation = sample_many([b.translation for b in bones],
                              [b.translation_keys for b in bones], frames)  # fmt: skip
    rotation = sample_many([b.rotation for b in bones], [b.rotation_keys for b in bones],
                           frames, rotation=True)  # fmt: skip
    cm[:3, 3] = np.moveaxis(translation, 2, 0)
    w, x, y, z = np.moveaxis(rotation, 2, 0)
    if any(b.scale_keys is not None for b in bones):
        scale = sample_many([b.scale for b in bones], [b.scale_keys for b in bones], frames)
        sx, sy, sz = np.moveaxis(scale, 2, 0)  # each (B, F)
    else:
        sx, sy, sz = np.array([b.scale for b in bones], dtype=float).T[:, :, None]
    # T @ R @ S: the rotation matrix of (w, x, y, z) with column j scaled by scale[j].
    cm[0, 0] = (1 - 2 * (y * y + z * z)) * sx
    cm[0, 1] = 2 * (x * y - w * z) * sy
    cm[0, 2] = 2 * (x * z + w * y) * sz
    cm[1, 0] = 2 * (x * y + w * z) * sx
    cm[1, 1] = (1 - 2 * (x * x + z * z)) * sy
    cm[1, 2] = 2 * (y * z - w * x) * sz
    cm[2, 0] = 2 * (x * z - w * y) * sx
    cm[2, 1] = 2 * (y * z + w * x) * sy
    cm[2, 2] = (1 - 2 * (x * x + y * y)) * sz
    cm[3, 3] = 1.0
    return np.moveaxis(cm, (0, 1, 2, 3), (2, 3, 1, 0))


def _component_major(m: np.ndarray) -> np.ndarray:
    """``(F, B, 4, 4)`` as ``(4, 4, B, F)``; a free view for arrays made here."""
    return np.moveaxis(m, (2, 3, 1, 0), (0, 1, 2, 3))


def _compose_affine(a, b, out):
    """``out = a @ b`` for affine transforms stored component-major ``(4, 4, ...)``."""
    for i in range(3):
        for j in range(4):
            out[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
        out[i, 3] += a[i, 3]
    out[3, :3] = 0.0
    out[3, 3] = 1.0


def forward_kinematics(skeleton: Skeleton, bone_to_parent) -> np.ndarray:
    """World transforms from local ones.

    Works one depth level at a time on component-major arrays ``(4, 4, B, F)``: each matrix
    entry of a level is one vectorized expression over its bones and every frame, which
    numpy does far faster than a batched ``matmul`` of many 4x4 matrices.

    Parameters
    ----------
    skeleton : Skeleton
    bone_to_parent : ndarray, shape (F, B, 4, 4)
        Affine transforms (last row ``[0, 0, 0, 1]``).

    Returns
    -------
    bone_to_world : ndarray, shape (F, B, 4, 4)
    """
    local = _component_major(np.asarray(bone_to_parent, dtype=float))
    world = np.empty(local.shape)
    for d, level in enumerate(skeleton.levels):
        if d == 0:
            world[:, :, level] = local[:, :, level]
        else:
            out = np.empty(local.shape[:2] + (len(level),) + local.shape[3:])
            _compose_affine(world[:, :, skeleton.parents[level]], local[:, :, level], out)
            world[:, :, level] = out
    return np.moveaxis(world, (0, 1, 2, 3), (2, 3, 1, 0))


def propagate(skeleton: Skeleton, bone_to_parent, bone_to_world, bone: int) -> None:
    """Recompute, in place, the world transforms below ``bone`` after it was changed.

    Descendants keep their local transforms, so they follow the driven bone.
    """
    for child in skeleton.descendants(bone):
        parent = skeleton.parents[child]
        bone_to_world[:, child] = bone_to_world[:, parent] @ bone_to_parent[:, child]


def a_to_b(a_to_world, b_to_world) -> np.ndarray:
    """Transforms taking frame ``a`` coordinates to frame ``b``: ``inv(b_to_world) @ a_to_world``.

    Parameters
    ----------
    a_to_world, b_to_world : ndarray, shape (..., 4, 4)

    Returns
    -------
    ndarray, shape (..., 4, 4)
    """
    return inverse(b_to_world) @ a_to_world


def point_in_bone(point_in_a, a_to_world, b_to_world) -> np.ndarray:
    """Coordinates in bone ``b`` of a point given in bone ``a`` (``ankle_in_calf``)."""
    return transform_points(a_to_b(a_to_world, b_to_world), point_in_a)


def heads_and_tails(scene: Scene, bone_to_world) -> tuple[np.ndarray, np.ndarray]:
    """World heads and tails, each shaped ``(F, B, 3)``."""
    # scene.tail_of's default (the first child's translation), for every bone in one pass:
    # asking tail_of bone by bone scans the bones for each, B^2 on 10^5 bones.
    first_child: dict = {}
    for b in scene.bones:
        if b.parent is not None:
            first_child.setdefault(b.parent, b.translation)
    tails_in_bone = np.array([b.tail if b.tail is not None else first_child.get(b.name, (0.0,) * 3)
                              for b in scene.bones], dtype=float).reshape(-1, 3)  # fmt: skip
    heads = bone_to_world[..., :3, 3].copy()
    tails = transform_points(bone_to_world, tails_in_bone)
    return heads, tails
