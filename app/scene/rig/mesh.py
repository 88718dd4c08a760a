"""Skinned meshes carried by a scene (imported from glTF), deformed by the bones.

A vertex ``v`` (bind space: where the mesh sat when it was bound to its joints) is drawn at
``sum_k weights[k] * joint_to_world[j_k] @ inverse_bind[j_k] @ v`` (linear blend skinning, as
glTF 2.0 defines it: the mesh node's own transform does not apply to a skinned mesh).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

_ARRAYS = ("positions", "normals", "indices", "joint_indices", "weights", "inverse_bind")


@dataclass(frozen=True, eq=False)
class SkinnedMesh:
    """One mesh bound to bones.

    Attributes
    ----------
    name : str
    positions : ndarray, shape (V, 3)
        Vertices in bind space.
    indices : ndarray, shape (T, 3), int
        Triangles, indices into ``positions``.
    joints : tuple of str, length J
        The bones the mesh is bound to, by name (the skin's joint order).
    joint_indices : ndarray, shape (V, 4), int
        Up to four influences per vertex, indices into ``joints``.
    weights : ndarray, shape (V, 4)
        Their weights; each row sums to 1.
    inverse_bind : ndarray, shape (J, 4, 4)
        ``world_to_joint`` at bind time, per joint.
    normals : ndarray, shape (V, 3), or None
        Bind-space normals; computed from the triangles when absent.
    extra : Mapping
        Format-specific data kept for export (material, ...).
    """

    name: str
    positions: np.ndarray
    indices: np.ndarray
    joints: tuple[str, ...]
    joint_indices: np.ndarray
    weights: np.ndarray
    inverse_bind: np.ndarray
    normals: np.ndarray | None = None
    extra: Mapping = field(default_factory=dict)

    def __post_init__(self):
        conv = {
            "positions": (float, (-1, 3)),
            "indices": (np.int64, (-1, 3)),
            "joint_indices": (np.int64, (-1, 4)),
            "weights": (float, (-1, 4)),
            "inverse_bind": (float, (-1, 4, 4)),
            "normals": (float, (-1, 3)),
        }
        for name, (dtype, shape) in conv.items():
            value = getattr(self, name)
            if value is None:
                continue
            array = np.array(value, dtype=dtype).reshape(shape)
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        object.__setattr__(self, "joints", tuple(self.joints))
        v, j = len(self.positions), len(self.joints)
        if len(self.joint_indices) != v or len(self.weights) != v:
            raise ValueError("joint_indices and weights need one row per vertex")
        if len(self.inverse_bind) != j:
            raise ValueError("inverse_bind needs one matrix per joint")
        if self.normals is not None and len(self.normals) != v:
            raise ValueError("normals need one row per vertex")

    def __eq__(self, other):
        if not isinstance(other, SkinnedMesh):
            return NotImplemented
        if (self.name, self.joints, dict(self.extra)) != (other.name, other.joints,
                                                          dict(other.extra)):  # fmt: skip
            return False
        return all(
            (a is None and b is None)
            or (a is not None and b is not None and np.array_equal(a, b))
            for a, b in ((getattr(self, n), getattr(other, n)) for n in _ARRAYS)
        )

    __hash__ = None
