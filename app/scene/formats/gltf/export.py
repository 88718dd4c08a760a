"""The evaluated animation as a glTF 2.0 file (``.glb``, or ``.gltf`` with its buffer inside).

``docs/scene-format.md``, "glTF 2.0", export:

- Every bone is a node named exactly as the bone, in the scene's hierarchy (no node above the
  roots). Its ``translation``/``rotation``/``scale`` are its local transform at ``frame_start``.
- One animation samples every bone's local translation, rotation and scale at every exported
  frame, ``LINEAR``, time ``(frame - first exported frame) / fps``. The local transforms come
  from the bake (constraints included, in the chosen space): ``bone_to_parent =
  inv(parent_to_world) @ bone_to_world``, split into T, R (polar) and S.
- A skin per root tree whose joints are all its bones and whose inverse bind matrices come
  from the first exported frame's pose (one skin per tree: a glTF skin's joints must share a
  root, and no node may be added above the roots). A scene without meshes gets one small box
  per bone skinned to it through that skin; the scene's own meshes are written back with
  their own skins instead (their joints and inverse bind matrices, so they deform as they
  did), and the tree skins are then used by no mesh (the validator's info UNUSED_OBJECT).

Whatever the input, the validator finds nothing to warn about: an influence slot of weight 0
names joint 0, a joint named twice in a vertex keeps one slot with both weights, normals are
unit, and a bone scaled to 0 is written from its own keys where its parent's transform cannot
be inverted (:mod:`app.scene.formats.baked_locals`).

Keys are baked at every frame, so every sampler is ``LINEAR`` (a constant key is exact at the
frames written; nothing is exported unbaked). The container is built with ``pygltflib``; the
file is written atomically.
"""

from __future__ import annotations

import base64

import numpy as np
import pygltflib as gl

from app.scene.errors import SceneError
from app.scene.formats.baked_locals import bind_pose, checked_bake, keyed_trs, local_trs
from app.scene.rig.model import Scene
from app.scene.rig.skinning import vertex_normals

_F32 = np.float32
_F32_MAX = float(np.finfo(_F32).max)


def _f32(values, where: str) -> np.ndarray:
    """``values`` as float32, refused (naming ``where``) past the largest float32."""
    values = np.asarray(values, dtype=float)
    if np.abs(values).max(initial=0.0) > _F32_MAX:
        raise SceneError("a value is past the largest 32-bit float (3.4e38) glTF can hold", where)
    return values.astype(_F32)


class _Blob:
    """The binary buffer with its views and accessors, built in one pass."""

    def __init__(self, gltf: gl.GLTF2):
        self.gltf, self.parts, self.size = gltf, [], 0

    def view(self, array: np.ndarray, target: int | None = None) -> int:
        raw = np.ascontiguousarray(array).tobytes()
        pad = -self.size % 4
        if pad:
            self.parts.append(b"\0" * pad)
            self.size += pad
        self.gltf.bufferViews.append(
            gl.BufferView(buffer=0, byteOffset=self.size, byteLength=len(raw), target=target)
        )
        self.parts.append(raw)
        self.size += len(raw)
        return len(self.gltf.bufferViews) - 1

    def accessor(
        self, view: int, array: np.ndarray, kind: str, offset: int = 0, minmax: bool = False
    ) -> int:
        ctype = {
            np.dtype(_F32): gl.FLOAT,
            np.dtype(np.uint16): gl.UNSIGNED_SHORT,
            np.dtype(np.uint32): gl.UNSIGNED_INT,
        }[array.dtype]
        rows = array.reshape(len(array), -1)
        acc = gl.Accessor(
            bufferView=view, byteOffset=offset, componentType=ctype, count=len(array), type=kind
        )
        if minmax:
            acc.min = [float(v) for v in rows.min(axis=0)]
            acc.max = [float(v) for v in rows.max(axis=0)]
        self.gltf.accessors.append(acc)
        return len(self.gltf.accessors) - 1

    def bytes(self) -> bytes:
        return b"".join(self.parts)


def gltf_from_bake(scene: Scene, result, rest_result=None, animate: bool = True) -> gl.GLTF2:
    """The glTF document of a bake of ``scene`` (see the module docstring).

    Parameters
    ----------
    scene : Scene
    result : BakeResult
        ``bake(scene, frames, space)``; frames increasing.
    rest_result : BakeResult, optional
        The bake at ``frame_start`` (the nodes' rest transforms); default: ``result``'s
        first frame.
    animate : bool
        Write the animation (``False`` writes the rest pose and the skins only).

    Raises
    ------
    SceneError
        Frames not increasing, or a non-finite transform; naming where.
    """
    names, frames, world, parents = checked_bake(scene, result, "glTF")
    index = {n: i for i, n in enumerate(names)}
    t, q, s = local_trs(parents, world, lambda: keyed_trs(scene, frames))
    rest = (t[0], q[0], s[0])
    if rest_result is not None:
        rest_world = np.asarray(rest_result.bone_to_world, dtype=float)
        rt, rq, rs = local_trs(parents, rest_world, lambda: keyed_trs(scene, rest_result.frames))
        rest = (rt[0], rq[0], rs[0])

    gltf = gl.GLTF2(asset=gl.Asset(version="2.0", generator="Pivotal"))
    blob = _Blob(gltf)
    children = [[] for _ in names]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    for i, name in enumerate(names):
        node = gl.Node(name=name, children=children[i] or [])
        node.translation = [float(v) for v in rest[0][i]]
        node.rotation = [float(v) for v in np.roll(rest[1][i], -1)]  # [x, y, z, w]
        node.scale = [float(v) for v in rest[2][i]]
        gltf.nodes.append(node)
    roots = [i for i in range(len(names)) if parents[i] < 0]
    if scene.meshes:
        mesh_nodes = [_imported_mesh(gltf, blob, m, index) for m in scene.meshes]
        for r in roots:  # every bone in a skin, for tools that build armatures from skins
            tree = _tree(parents, r)
            _skin(gltf, blob, tree, bind_pose(world[0, tree])[1])
    else:
        mesh_nodes = [_boxes(gltf, blob, scene, world[0], parents, r) for r in roots]
    gltf.scenes = [gl.Scene(nodes=roots + mesh_nodes)]
    gltf.scene = 0
    if animate:
        _animation(gltf, blob, frames, scene.fps, t, q, s)
    gltf.buffers = [gl.Buffer(byteLength=blob.size)]
    gltf.set_binary_blob(blob.bytes())
    return gltf


def _animation(gltf, blob, frames, fps, t, q, s) -> None:
    n_frames, n_bones = t.shape[:2]
    times = ((frames - frames[0]) / fps).astype(_F32)
    if n_frames > 1 and np.any(np.diff(times) <= 0):
        raise SceneError("frames too close together for float32 key times", "frames")
    time_view = blob.view(times)
    time_acc = blob.accessor(time_view, times, "SCALAR", minmax=True)
    samplers, channels = [], []
    for path, values, kind in (
        ("translation", t, "VEC3"),
        ("rotation", np.roll(q, -1, axis=-1), "VEC4"),
        ("scale", s, "VEC3"),
    ):
        per_bone = np.ascontiguousarray(np.swapaxes(values, 0, 1).astype(_F32))  # (B, F, D)
        view = blob.view(per_bone)
        stride = per_bone[0].nbytes
        for b in range(n_bones):
            out = blob.accessor(view, per_bone[b], kind, offset=b * stride)
            samplers.append(gl.AnimationSampler(input=time_acc, output=out, interpolation="LINEAR"))
            channels.append(
                gl.AnimationChannel(
                    sampler=len(samplers) - 1, target=gl.AnimationChannelTarget(node=b, path=path)
                )
            )
    gltf.animations = [gl.Animation(name="Pivotal", samplers=samplers, channels=channels)]


def _skin(gltf, blob, joints: list[int], inverse_bind: np.ndarray) -> int:
    ibm = _f32(
        np.ascontiguousarray(np.swapaxes(inverse_bind, -1, -2)),  # column-major
        f"skin of {len(joints)} joints: inverse bind matrices",
    )
    ibm[:, :3, 3] = 0.0  # the bottom row [0 0 0 1] written exactly (transposed here)
    ibm[:, 3, 3] = 1.0
    view = blob.view(ibm)
    acc = blob.accessor(view, ibm.reshape(len(joints), 16), "MAT4")
    gltf.skins.append(gl.Skin(joints=joints, inverseBindMatrices=acc))
    return len(gltf.skins) - 1


def _primitive(gltf, blob, positions, indices, joints, weights, normals=None) -> gl.Primitive:
    positions = _f32(positions, "mesh positions")
    attributes = gl.Attributes()
    attributes.POSITION = blob.accessor(
        blob.view(positions, gl.ARRAY_BUFFER), positions, "VEC3", minmax=True
    )
    if normals is not None:
        normals = _unit_normals(normals, positions, indices).astype(_F32)
        attributes.NORMAL = blob.accessor(blob.view(normals, gl.ARRAY_BUFFER), normals, "VEC3")
    joints, weights = _influences(joints, weights)
    for k in range(joints.shape[1] // 4):  # JOINTS_0/WEIGHTS_0, and _1 for influences 5 to 8
        j = np.ascontiguousarray(joints[:, 4 * k : 4 * k + 4])
        w = np.ascontiguousarray(weights[:, 4 * k : 4 * k + 4])
        setattr(attributes, f"JOINTS_{k}", blob.accessor(blob.view(j, gl.ARRAY_BUFFER), j, "VEC4"))
        setattr(attributes, f"WEIGHTS_{k}", blob.accessor(blob.view(w, gl.ARRAY_BUFFER), w, "VEC4"))
    flat = indices.reshape(-1).astype(np.uint32)
    acc = blob.accessor(blob.view(flat, gl.ELEMENT_ARRAY_BUFFER), flat, "SCALAR")
    return gl.Primitive(attributes=attributes, indices=acc, mode=gl.TRIANGLES)


def _unit_normals(normals, positions, indices) -> np.ndarray:
    """The normals made unit, as the validator wants them (``ACCESSOR_VECTOR3_NON_UNIT``);
    where one has no length, the triangles' own vertex normal, else +z."""
    normals = np.asarray(normals, dtype=float)
    length = np.linalg.norm(normals, axis=1)
    fine = np.isfinite(length) & (length > 1e-12)
    out = np.zeros_like(normals)
    out[fine] = normals[fine] / length[fine, None]
    if not fine.all():
        fill = vertex_normals(positions, indices)[~fine]
        fill[~(np.linalg.norm(fill, axis=1) > 0)] = (0.0, 0.0, 1.0)
        out[~fine] = fill
    return out


def _influences(joints, weights):
    """``JOINTS_0`` (uint16) and ``WEIGHTS_0`` (float32) the validator accepts whatever the
    input: a joint named in two slots of a vertex keeps one, with both weights
    (``ACCESSOR_JOINTS_INDEX_DUPLICATE``), and a slot of weight 0 names joint 0
    (``ACCESSOR_JOINTS_USED_ZERO_WEIGHT``). Four columns, or eight when a vertex has more
    than four influences (``JOINTS_1``/``WEIGHTS_1``)."""
    joints = np.array(joints, dtype=np.int64)
    weights = np.array(weights, dtype=float)
    width = 4 if joints.shape[1] <= 4 else 8
    if joints.shape[1] < width:  # fewer slots (a rigid mesh): pad with unused ones
        pad = width - joints.shape[1]
        joints = np.pad(joints, ((0, 0), (0, pad)))
        weights = np.pad(weights, ((0, 0), (0, pad)))
    for a in range(width - 1):
        for b in range(a + 1, width):
            same = (joints[:, a] == joints[:, b]) & (weights[:, a] > 0) & (weights[:, b] > 0)
            weights[same, a] += weights[same, b]
            weights[same, b] = 0.0
    weights = weights.astype(_F32)
    return np.where(weights > 0, joints, 0).astype(np.uint16), weights


def _imported_mesh(gltf, blob, mesh, index) -> int:
    joints = [index[j] for j in mesh.joints]
    skin = _skin(gltf, blob, joints, mesh.inverse_bind)
    prim = _primitive(
        gltf, blob, mesh.positions, mesh.indices, mesh.joint_indices, mesh.weights, mesh.normals
    )
    gltf.meshes.append(gl.Mesh(name=mesh.name, primitives=[prim]))
    gltf.nodes.append(gl.Node(name=f"{mesh.name} (mesh)", mesh=len(gltf.meshes) - 1, skin=skin))
    return len(gltf.nodes) - 1


_CUBE = np.array([[x, y, z] for x in (0, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
_CUBE_TRIANGLES = np.array(
    [
        [0, 1, 3],
        [0, 3, 2],
        [4, 6, 7],
        [4, 7, 5],
        [0, 4, 5],
        [0, 5, 1],
        [2, 3, 7],
        [2, 7, 6],
        [0, 2, 6],
        [0, 6, 4],
        [1, 5, 7],
        [1, 7, 3],
    ]
)


def _tree(parents: np.ndarray, root: int) -> list[int]:
    """``root`` and every bone below it, parents first."""
    tree, stack = [], [root]
    while stack:
        b = stack.pop()
        tree.append(b)
        stack.extend(int(c) for c in np.flatnonzero(parents == b))
    return tree


def _boxes(gltf, blob, scene, first_world, parents, root) -> int:
    """One box per bone of ``root``'s tree (from head to tail in the first exported frame's
    pose, skinned to its bone alone), and the tree's skin."""
    tree = _tree(parents, root)
    bind, world_to_bind = bind_pose(first_world)  # a bone scaled to 0 is bound at its head
    heads = first_world[:, :3, 3]
    size = 0.02 * max(float(np.ptp(heads, axis=0).max()), 1.0)
    positions, triangles = [], []
    for k, b in enumerate(tree):
        tail = np.asarray(scene.tail_of(b), dtype=float)
        length = float(np.linalg.norm(tail))
        along = tail / length if length > 1e-9 else np.array([0.0, 1.0, 0.0])
        length = max(length, 2 * size)
        side = np.cross(along, [1.0, 0.0, 0.0] if abs(along[0]) < 0.9 else [0.0, 1.0, 0.0])
        side /= np.linalg.norm(side)
        up = np.cross(along, side)
        basis = np.stack([along * length, side * size, up * size], axis=1)  # bone frame
        corners = _CUBE @ basis.T
        positions.append(corners @ bind[b, :3, :3].T + bind[b, :3, 3])
        triangles.append(_CUBE_TRIANGLES + 8 * k)
    positions = np.concatenate(positions)
    joints = np.zeros((len(positions), 4), np.int64)
    joints[:, 0] = np.repeat(np.arange(len(tree)), 8)
    weights = np.zeros((len(positions), 4))
    weights[:, 0] = 1.0
    skin = _skin(gltf, blob, tree, world_to_bind[tree])
    prim = _primitive(gltf, blob, positions, np.concatenate(triangles), joints, weights)
    name = f"{scene.bones[root].name} boxes"
    gltf.meshes.append(gl.Mesh(name=name, primitives=[prim]))
    gltf.nodes.append(gl.Node(name=name, mesh=len(gltf.meshes) - 1, skin=skin))
    return len(gltf.nodes) - 1


def gltf_bytes(gltf: gl.GLTF2, binary: bool) -> bytes:
    """The file's bytes: a ``.glb``, or ``.gltf`` JSON with the buffer as a data URI."""
    if binary:
        return b"".join(gltf.save_to_bytes())
    data = gltf.binary_blob()
    gltf.buffers[0].uri = "data:application/octet-stream;base64," + base64.b64encode(data).decode(
        "ascii"
    )
    gltf.destroy_binary_blob()
    return gltf.gltf_to_json(separators=(",", ":"), indent=None).encode("utf-8")


def write_gltf(path, scene: Scene, result, rest_result=None) -> list[str]:
    """Write the bake as ``.glb`` or ``.gltf`` (by ``path``'s suffix), atomically."""
    from pathlib import Path

    from app.scene.formats.atomic import write_atomic

    gltf = gltf_from_bake(scene, result, rest_result)
    write_atomic(path, gltf_bytes(gltf, Path(path).suffix.lower() == ".glb"))
    notes = []
    if not scene.meshes:
        notes.append("the scene has no mesh: each bone is written with a small box skinned to it")
    return notes


def write_meshes_glb(scene: Scene, path) -> None:
    """The scene's meshes and skeleton at ``frame_start`` as a ``.glb`` (no animation)."""
    from app.scene.evaluate import bake
    from app.scene.formats.atomic import write_atomic

    result = bake(scene, [scene.frame_start])
    write_atomic(path, gltf_bytes(gltf_from_bake(scene, result, animate=False), True))
