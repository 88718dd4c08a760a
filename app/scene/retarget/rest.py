"""A skeleton at rest: its bones' world transforms from their static values, and the
hierarchy questions the map and the retarget ask (ancestors, paths, the floor, facing).

The rest pose is each bone's static ``translation``, ``rotation`` and ``scale`` (a BVH's
OFFSETs with no rotation, a glTF node's TRS, an FBX node's default transform), keys left
out: what the retarget aligns the two characters in, and what an unmapped bone keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.scene.rig.model import Scene
from app.scene.rig.skeleton import Skeleton, compose_local, forward_kinematics

#: World up: the editor's +Y (the XZ plane is the ground).
UP = np.array([0.0, 1.0, 0.0])


@dataclass(frozen=True, eq=False)
class Rest:
    """The rest pose of ``scene`` and its hierarchy.

    Attributes
    ----------
    names : tuple of str, (B,)
    parents : ndarray of int, (B,)
        ``-1`` for a root.
    bone_to_world : ndarray, (B, 4, 4)
        Each bone's world transform from its static values.
    heads : ndarray, (B, 3)
        World heads at rest.
    depth : ndarray of int, (B,)
        0 for a root.
    """

    names: tuple
    parents: np.ndarray
    bone_to_world: np.ndarray
    depth: np.ndarray
    children: tuple = field(repr=False)
    rigid_leaves: frozenset = field(repr=False)

    @classmethod
    def of(cls, scene: Scene) -> Rest:
        skeleton = Skeleton.from_scene(scene)
        bones = scene.bones
        translation = np.array([b.translation for b in bones], float).reshape(-1, 1, 3)
        rotation = np.array([b.rotation for b in bones], float).reshape(-1, 1, 4)
        scale = np.array([b.scale for b in bones], float).reshape(-1, 3).T[:, :, None]
        local = compose_local(translation, rotation, scale)
        world = forward_kinematics(skeleton, local)[0]
        depth = np.zeros(len(bones), dtype=int)
        for d, level in enumerate(skeleton.levels):
            depth[level] = d
        children = [[] for _ in bones]
        for i, p in enumerate(skeleton.parents):
            if p >= 0:
                children[p].append(i)
        # A leaf that only carries a rigid mesh (a glTF node with a mesh and no skin, made a
        # bone): a prop or a body part of a segmented character, never a joint of the map.
        skinned = {j for m in scene.meshes if len(m.joints) > 1 for j in m.joints}
        rigid = {m.joints[0] for m in scene.meshes if len(m.joints) == 1}
        index = {n: i for i, n in enumerate(skeleton.names)}
        leaves = frozenset(
            index[n] for n in rigid - skinned if n in index and not children[index[n]]
        )
        return cls(
            skeleton.names,
            skeleton.parents,
            world,
            depth,
            tuple(tuple(c) for c in children),
            leaves,
        )

    @property
    def heads(self) -> np.ndarray:
        return self.bone_to_world[:, :3, 3]

    def index(self, name: str) -> int:
        return self.names.index(name)

    def chain_to_root(self, bone: int) -> list[int]:
        """``[bone, parent, ..., root]``."""
        chain = [bone]
        while self.parents[chain[-1]] >= 0:
            chain.append(int(self.parents[chain[-1]]))
        return chain

    def is_ancestor(self, a: int, b: int) -> bool:
        """Whether ``a`` is ``b`` or above it."""
        while b >= 0:
            if b == a:
                return True
            b = int(self.parents[b])
        return False

    def common_ancestor(self, bones) -> int | None:
        """The deepest bone above (or equal to) every one of ``bones`` (``None`` when they
        sit in different trees)."""
        bones = list(bones)
        if not bones:
            return None
        common = self.chain_to_root(bones[0])
        for b in bones[1:]:
            above = set(self.chain_to_root(b))
            common = [c for c in common if c in above]
        return common[0] if common else None

    def path(self, top: int, bottom: int) -> list[int]:
        """The bones from ``top`` down to ``bottom``, both included (``top`` must be an
        ancestor of ``bottom``)."""
        chain = self.chain_to_root(bottom)
        return chain[: chain.index(top) + 1][::-1]

    def subtree(self, bone: int) -> list[int]:
        """``bone`` and every bone below it."""
        out, todo = [], [bone]
        while todo:
            b = todo.pop()
            out.append(b)
            todo.extend(self.children[b])
        return out

    def height(self) -> float:
        """The skeleton's vertical extent at rest (at least a tiny positive number)."""
        y = self.heads[:, 1]
        return max(float(y.max() - y.min()), 1e-9)
