"""Skinned meshes carried by a scene (imported from glTF), deformed by the bones.

A vertex ``v`` (bind space: where the mesh sat when it was bound to its joints) is drawn at
``sum_k weights[k] * joint_to_world[j_k] @ inverse_bind[j_k] @ v`` (linear blend skinning, as
glTF 2.0 defines it: the mesh node's own transform does not apply to a skinned mesh).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

#: The most influences a vertex may have (glTF's ``JOINTS_0`` and ``JOINTS_1``, FBX's largest).
MAX_INFLUENCES = 8

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
    joint_indices : ndarray, shape (V, K), int
        Up to ``K`` influences per vertex (``1 <= K <=`` :data:`MAX_INFLUENCES`), indices
        into ``joints``.
    weights : ndarray, shape (V, K)
        Their weights; each row sums to 1 (a slot of weight 0 is unused).
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
            "joint_indices": (np.int64, None),
            "weights": (float, None),
            "inverse_bind": (float, (-1, 4, 4)),
            "normals": (float, (-1, 3)),
        }
        for name, (dtype, shape) in conv.items():
            value = getattr(self, name)
            if value is None:
                continue
            array = np.array(value, dtype=dtype)
            if shape is None:  # influences: (V, K), K of 1..8 (a flat array: 4 per vertex)
                array = array.reshape(-1, 4) if array.ndim == 1 else array
                if array.ndim != 2 or not 1 <= array.shape[1] <= MAX_INFLUENCES:
                    raise ValueError(
                        f"{name} needs shape (V, K) with K of 1 to "
                        f"{MAX_INFLUENCES}, has {array.shape}"
                    )
            else:
                array = array.reshape(shape)
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        object.__setattr__(self, "joints", tuple(self.joints))
        v, j = len(self.positions), len(self.joints)
        if len(self.joint_indices) != v or len(self.weights) != v:
            raise ValueError("joint_indices and weights need one row per vertex")
        if self.joint_indices.shape != self.weights.shape:
            raise ValueError("joint_indices and weights need the same number of columns")
        if len(self.inverse_bind) != j:
            raise ValueError("inverse_bind needs one matrix per joint")
        if self.normals is not None and len(self.normals) != v:
            raise ValueError("normals need one row per vertex")

    def __eq__(self, other):
        if not isinstance(other, SkinnedMesh):
            return NotImplemented
        if (self.name, self.joints, dict(self.extra)) != (
            other.name,
            other.joints,
            dict(other.extra),
        ):
            return False
        return all(
            (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
            for a, b in ((getattr(self, n), getattr(other, n)) for n in _ARRAYS)
        )

    __hash__ = None
