"""glTF meshes as :class:`~app.scene.rig.mesh.SkinnedMesh` (``docs/scene-format.md``, "glTF 2.0").

Every triangle primitive of a mesh on a skinned node becomes one skinned mesh: positions and
normals in bind space, triangles, ``JOINTS_0``/``WEIGHTS_0`` and, when present,
``JOINTS_1``/``WEIGHTS_1`` (up to eight influences; weights normalized per vertex),
the skin's joints by bone name and its ``inverseBindMatrices`` (identity when absent). A mesh
on a node without a skin (a rigid mesh, also one on a root node) rides on its own node's bone
through the same skinning: its vertices stay in the node's frame, bound to that bone alone
with weight 1 and an identity inverse bind matrix, so nothing is inverted (a node scaled to 0
collapses its mesh, and the mesh comes back when the scale does). Other primitive modes
(points, lines) are skipped with a message. Refusals name their JSON pointer.
"""

from __future__ import annotations

import numpy as np

from app.scene.errors import SceneError
from app.scene.formats.gltf.buffers import index, obj, pointer
from app.scene.rig.mesh import SkinnedMesh


def read_meshes(doc, acc, order, names):
    """Skinned meshes of the scene's nodes ``order`` and messages about what was skipped;
    ``names`` maps a bone node to its bone's name."""
    meshes, messages = [], []
    for n in order:
        node = doc["nodes"][n]
        if "mesh" not in node:
            continue
        nw = pointer("nodes", n)
        m = index(doc, "meshes", node["mesh"], nw + "/mesh")
        mesh = obj(doc["meshes"][m], pointer("meshes", m))
        prims = mesh.get("primitives")
        if not isinstance(prims, list) or not prims:
            raise SceneError(
                "primitives must be a non-empty array", pointer("meshes", m, "primitives")
            )
        if "skin" in node:
            s = index(doc, "skins", node["skin"], nw + "/skin")
            joints, inverse_bind = _skin(doc, acc, s, names)
            rigid = False
        else:  # the importer makes every node carrying an unskinned mesh a bone
            joints, inverse_bind, rigid = (names[n],), np.eye(4)[None], True
        base = mesh.get("name") if isinstance(mesh.get("name"), str) else f"mesh_{m}"
        for p, prim in enumerate(prims):
            pw = pointer("meshes", m, "primitives", p)
            made = _primitive(doc, acc, obj(prim, pw), pw, len(joints), rigid)
            if made is None:
                messages.append(f"{pw}: only triangles are drawn; this primitive is skipped")
                continue
            name = base if len(prims) == 1 else f"{base}.{p}"
            meshes.append(
                SkinnedMesh(
                    name=name,
                    joints=joints,
                    inverse_bind=inverse_bind,
                    extra={"gltf_node": n},
                    **made,
                )
            )
    return meshes, messages


def _skin(doc, acc, s, names):
    where = pointer("skins", s)
    skin = doc["skins"][s]
    joints = []
    for k, j in enumerate(skin["joints"]):
        if j not in names:
            raise SceneError(f"joint node {j} is not a bone of the scene", f"{where}/joints/{k}")
        joints.append(names[j])
    if "inverseBindMatrices" in skin:
        a = index(doc, "accessors", skin["inverseBindMatrices"], where + "/inverseBindMatrices")
        raw = acc.read(a)
        if raw.shape[1] != 16 or len(raw) < len(joints):
            raise SceneError(
                "inverseBindMatrices must be MAT4, one per joint", pointer("accessors", a)
            )
        inverse_bind = raw[: len(joints)].reshape(-1, 4, 4).transpose(0, 2, 1)
    else:
        inverse_bind = np.broadcast_to(np.eye(4), (len(joints), 4, 4))
    return tuple(joints), inverse_bind


def _attribute(doc, acc, attributes, key, pw, width):
    a = index(doc, "accessors", attributes[key], f"{pw}/attributes/{key}")
    values = acc.read(a)
    if values.shape[1] != width:
        raise SceneError(f"{key} must have {width} components", pointer("accessors", a))
    return values


def _primitive(doc, acc, prim, pw, n_joints, rigid):
    mode = prim.get("mode", 4)
    if mode != 4:
        return None
    attributes = obj(prim.get("attributes"), pw + "/attributes")
    if "POSITION" not in attributes:
        raise SceneError("a primitive needs POSITION", pw + "/attributes")
    positions = _attribute(doc, acc, attributes, "POSITION", pw, 3)
    v = len(positions)
    normals = _attribute(doc, acc, attributes, "NORMAL", pw, 3) if "NORMAL" in attributes else None
    if normals is not None and len(normals) != v:
        raise SceneError("NORMAL needs one row per vertex", pw + "/attributes/NORMAL")
    if "indices" in prim:
        a = index(doc, "accessors", prim["indices"], pw + "/indices")
        indices = acc.read(a).reshape(-1)
        if indices.dtype.kind == "f":
            raise SceneError("indices must be integers", pointer("accessors", a))
    else:
        indices = np.arange(v)
    if len(indices) % 3 or (len(indices) and (indices.min() < 0 or indices.max() >= v)):
        raise SceneError(f"indices must be triangles of vertices 0..{v - 1}", pw + "/indices")
    if not rigid:
        for key in ("JOINTS_0", "WEIGHTS_0"):
            if key not in attributes:
                raise SceneError(f"a skinned primitive needs {key}", pw + "/attributes")
        joint_indices = _attribute(doc, acc, attributes, "JOINTS_0", pw, 4)
        weights = _attribute(doc, acc, attributes, "WEIGHTS_0", pw, 4)
        if len(joint_indices) != v or len(weights) != v:
            raise SceneError("JOINTS_0 and WEIGHTS_0 need one row per vertex", pw + "/attributes")
        if ("JOINTS_1" in attributes) != ("WEIGHTS_1" in attributes):
            raise SceneError("JOINTS_1 and WEIGHTS_1 come together", pw + "/attributes")
        if "JOINTS_1" in attributes:  # influences 5 to 8
            more = _attribute(doc, acc, attributes, "JOINTS_1", pw, 4)
            more_weights = _attribute(doc, acc, attributes, "WEIGHTS_1", pw, 4)
            if len(more) != v or len(more_weights) != v:
                raise SceneError(
                    "JOINTS_1 and WEIGHTS_1 need one row per vertex", pw + "/attributes"
                )
            if more.dtype.kind == "f" or more.min() < 0 or more.max() >= n_joints:
                raise SceneError(
                    f"JOINTS_1 must index the skin's {n_joints} joints", pw + "/attributes/JOINTS_1"
                )
            joint_indices = np.concatenate([joint_indices, more], axis=1)
            weights = np.concatenate([weights, more_weights], axis=1)
        if (
            joint_indices.dtype.kind == "f"
            or joint_indices.min() < 0
            or (joint_indices.max() >= n_joints)
        ):
            raise SceneError(
                f"JOINTS_0 must index the skin's {n_joints} joints", pw + "/attributes/JOINTS_0"
            )
        total = weights.sum(axis=1, keepdims=True)
        if np.any(weights < 0) or np.any(total <= 0):
            named = "WEIGHTS_0 and WEIGHTS_1" if "WEIGHTS_1" in attributes else "WEIGHTS_0"
            raise SceneError(
                f"{named} must be >= 0 with a positive sum per vertex", pw + "/attributes/WEIGHTS_0"
            )
        weights = weights / total
    else:
        joint_indices = np.zeros((v, 4), np.int64)
        weights = np.zeros((v, 4))
        weights[:, 0] = 1.0
    return {
        "positions": positions,
        "normals": normals,
        "indices": indices.reshape(-1, 3),
        "joint_indices": joint_indices,
        "weights": weights,
    }
