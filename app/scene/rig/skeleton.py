"""Skeleton topology and forward kinematics over many frames at once.

``bone_to_parent = T(translation) @ R(rotation) @ S(scale)`` and
``bone_to_world = parent_to_world @ bone_to_parent``. Forward kinematics runs one depth
level of the hierarchy at a time, each level a single batched matrix product over every
frame and every bone of that depth: the Python loop is over depth, never over frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    #: Descendants by depth, per bone, computed on first use (see :meth:`descendant_levels`).
    _below: dict = field(default_factory=dict, repr=False, compare=False)

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
        levels = self.descendant_levels(bone)
        return np.concatenate(levels) if levels else np.zeros(0, dtype=np.intp)

    def descendant_levels(self, bone: int) -> tuple:
        """The bones below ``bone`` grouped by depth (children, grandchildren, ...): a tuple
        of index arrays, computed once per bone."""
        levels = self._below.get(bone)
        if levels is None:
            out, frontier = [], {bone}
            for level in self.levels:
                hits = [int(b) for b in level if self.parents[b] in frontier]
                if hits:
                    out.append(np.array(hits, dtype=np.intp))
                frontier.update(hits)
            levels = self._below[bone] = tuple(out)
        return levels

    def descendant_levels_of(self, bones: tuple) -> tuple:
        """The bones below any of ``bones`` grouped by depth, shallowest first (a tuple of
        index arrays, computed once per tuple): one product per level carries them all."""
        key = ("many", bones)
        levels = self._below.get(key)
        if levels is None:
            below = set()
            for b in bones:
                below.update(int(d) for d in self.descendants(b))
            levels = tuple(
                lv
                for lv in (
                    np.array([b for b in level if b in below], dtype=np.intp)
                    for level in self.levels
                )
                if len(lv)
            )
            self._below[key] = levels
        return levels

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
    bones = scene.bones
    translation = sample_many(
        [b.translation for b in bones], [b.translation_keys for b in bones], frames
    )
    rotation = sample_many(
        [b.rotation for b in bones], [b.rotation_keys for b in bones], frames, rotation=True
    )
    if any(b.scale_keys is not None for b in bones):
        scale = np.moveaxis(
            sample_many([b.scale for b in bones], [b.scale_keys for b in bones], frames), 2, 0
        )
    else:
        scale = np.array([b.scale for b in bones], dtype=float).reshape(-1, 3).T[:, :, None]
    return compose_local(translation, rotation, scale)


def compose_local(translation, rotation, scale) -> np.ndarray:
    """``T @ R @ S`` per bone and frame from sampled ``translation`` (B, F, 3), ``rotation``
    (B, F, 4) and ``scale`` (3, B, 1) or, when scale is keyed, (3, B, F); shape (F, B, 4, 4),
    a view of a component-major buffer."""
    B, F = translation.shape[:2]
    if B * F <= FEW_MATRICES:
        return _compose_local_few(translation, rotation, scale)
    cm = np.zeros((4, 4, B, F))  # component-major: cm[i, j] is entry (i, j) of every matrix
    cm[:3, 3] = np.moveaxis(translation, 2, 0)
    w, x, y, z = np.moveaxis(rotation, 2, 0)
    sx, sy, sz = scale
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


#: Up to this many local transforms (bones times frames) :func:`compose_local` builds them
#: from the products of quaternion components gathered in a few whole-array operations (one
#: frame of a small rig: numpy's cost per call is the bulk); beyond it, one expression per
#: matrix entry over component-major arrays (the gathers' copies grow with the count).
FEW_MATRICES = 128

#: Index pairs ``4 a + b`` into the products ``q_a q_b`` of ``(w, x, y, z)``: the diagonal
#: ``1 - 2 (A + B)`` at entries 00, 11, 22, and ``2 (A - B)``, ``2 (A + B)`` off it.
_DIAGONAL = (np.array([10, 5, 5]), np.array([15, 15, 10]))  # yy+zz, xx+zz, xx+yy
_MINUS = (np.array([6, 11, 7]), np.array([3, 1, 2]))  # 01: xy-wz, 12: yz-wx, 20: xz-wy
_PLUS = (np.array([7, 6, 11]), np.array([2, 3, 1]))  # 02: xz+wy, 10: xy+wz, 21: yz+wx


def _compose_local_few(translation, rotation, scale) -> np.ndarray:
    """:func:`compose_local` for few matrices, the same arithmetic entry by entry (bit for
    bit), shape (F, B, 4, 4)."""
    B, F = translation.shape[:2]
    q = rotation.swapaxes(0, 1).reshape(-1, 4)  # (F B, 4), frame-major
    p = (q[:, :, None] * q[:, None, :]).reshape(-1, 16)
    m = np.empty((F * B, 9))  # row-major 3x3
    m[:, [0, 4, 8]] = 1 - 2 * (p[:, _DIAGONAL[0]] + p[:, _DIAGONAL[1]])
    m[:, [1, 5, 6]] = 2 * (p[:, _MINUS[0]] - p[:, _MINUS[1]])
    m[:, [2, 3, 7]] = 2 * (p[:, _PLUS[0]] + p[:, _PLUS[1]])
    out = np.zeros((F * B, 4, 4))
    # Column j scaled by scale[j], as T @ R @ S does.
    out[:, :3, :3] = m.reshape(-1, 3, 3) * np.broadcast_to(scale, (3, B, F)).T.reshape(-1, 1, 3)
    out[:, :3, 3] = translation.swapaxes(0, 1).reshape(-1, 3)
    out[:, 3, 3] = 1.0
    return out.reshape(F, B, 4, 4)


#: Up to this many frames forward kinematics multiplies 4x4 matrices level by level;
#: beyond it the component-major expressions (one per matrix entry) are faster.
SMALL_BATCH = 2


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


def _as_slice(index):
    """``index`` (sorted bone indices) as a slice when they are consecutive, else as is."""
    index = np.asarray(index)
    if len(index) and index[-1] - index[0] == len(index) - 1 and np.all(np.diff(index) == 1):
        return slice(int(index[0]), int(index[-1]) + 1)
    return index


def forward_kinematics(skeleton: Skeleton, bone_to_parent, out=None) -> np.ndarray:
    """World transforms from local ones.

    Works one depth level at a time on component-major arrays ``(4, 4, B, F)``: each matrix
    entry of a level is one vectorized expression over its bones and every frame, which
    numpy does far faster than a batched ``matmul`` of many 4x4 matrices.

    Parameters
    ----------
    skeleton : Skeleton
    bone_to_parent : ndarray, shape (F, B, 4, 4)
        Affine transforms (last row ``[0, 0, 0, 1]``).

    out : ndarray, shape (4, 4, B, F), optional
        Where to write the result, component-major (a chunk of a longer bake's result); for
        more than :data:`SMALL_BATCH` frames only.

    Returns
    -------
    bone_to_world : ndarray, shape (F, B, 4, 4)
        A view of ``out`` when given.
    """
    bone_to_parent = np.asarray(bone_to_parent, dtype=float)
    if len(bone_to_parent) <= SMALL_BATCH and out is None:
        # A frame or two (the editor's current frame): the component-major form costs ~60
        # numpy calls per level whatever their size, a batched matmul three.
        world = np.empty(bone_to_parent.shape)
        for d, level in enumerate(skeleton.levels):
            if d == 0:
                world[:, level] = bone_to_parent[:, level]
            else:
                world[:, level] = world[:, skeleton.parents[level]] @ bone_to_parent[:, level]
        return world
    local = _component_major(bone_to_parent)
    world = np.empty(local.shape) if out is None else out
    for d, level in enumerate(skeleton.levels):
        if d == 0:
            roots = _as_slice(level)  # consecutive roots (the usual order): one plain copy
            world[:, :, roots] = local[:, :, roots]
        else:
            out = np.empty(local.shape[:2] + (len(level),) + local.shape[3:])
            _compose_affine(world[:, :, skeleton.parents[level]], local[:, :, level], out)
            world[:, :, level] = out
    return np.moveaxis(world, (0, 1, 2, 3), (2, 3, 1, 0))


def propagate(skeleton: Skeleton, bone_to_parent, bone_to_world, bone: int) -> None:
    """Recompute, in place, the world transforms below ``bone`` after it was changed.

    Descendants keep their local transforms, so they follow the driven bone. One batched
    product per depth level below ``bone``.
    """
    for level in skeleton.descendant_levels(bone):
        parents = skeleton.parents[level]
        bone_to_world[:, level] = bone_to_world[:, parents] @ bone_to_parent[:, level]


def propagate_many(skeleton: Skeleton, bone_to_parent, bone_to_world, bones: tuple) -> None:
    """:func:`propagate` below several changed bones at once (none below another)."""
    for level in skeleton.descendant_levels_of(bones):
        parents = skeleton.parents[level]
        bone_to_world[:, level] = bone_to_world[:, parents] @ bone_to_parent[:, level]


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


def tails_in_bones(scene: Scene) -> np.ndarray:
    """Every bone's tail in its own frame, shape ``(B, 3)``: :meth:`Scene.tail_of` for all
    bones in one pass (asking ``tail_of`` bone by bone scans the bones for each: B² on 10⁵
    bones)."""
    first_child: dict = {}
    for b in scene.bones:
        if b.parent is not None:
            first_child.setdefault(b.parent, b.translation)
    return np.array(
        [
            b.tail if b.tail is not None else first_child.get(b.name, (0.0,) * 3)
            for b in scene.bones
        ],
        dtype=float,
    ).reshape(-1, 3)


def heads_and_tails(scene: Scene, bone_to_world) -> tuple[np.ndarray, np.ndarray]:
    """World heads and tails, each shaped ``(F, B, 3)``."""
    heads = bone_to_world[..., :3, 3].copy()
    tails = transform_points(bone_to_world, tails_in_bones(scene))
    return heads, tails
