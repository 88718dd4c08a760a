"""An FBX file as a scene (``docs/scene-format.md``, "FBX"), read by assimp (:mod:`.assimp`).

- Every node below assimp's root becomes a bone named as in the file (a repeated name gets
  ``.001``, ...), parents before children, except a leaf that carries only a light, a camera
  or skinned meshes. Pre- and post-rotations, pivots and offsets, which assimp puts on helper
  nodes, are multiplied back into each node's transform and keys (:mod:`.pivots`), so a
  bone's rest values and keys put its head where Blender's importer and ufbx do.
- The file's axes (``UpAxis``, ``FrontAxis``, ``CoordAxis`` and their signs) become
  Pivotal's (+Y up, the front towards +Z, +X to the side) and its ``UnitScaleFactor``
  (centimetres per unit) becomes metres: the root bones get the axis rotation, and every
  translation, key and vertex is scaled.
- The first take (or the one named) becomes keys at the file's frame rate (``TimeMode``).
- Skinned meshes come in as glTF's do (:class:`~app.scene.rig.mesh.SkinnedMesh`), with the
  eight largest influences of each vertex; a mesh on a node without skin rides on that
  node's bone.

Refusals are :class:`~app.scene.errors.SceneError` naming the file (and the node) and why;
a mesh's numbers are checked where they enter (its vertices, its skin clusters' bind
matrices, its node's transform), naming the mesh and the array.

One idea: assimp's reading of an FBX file (nodes, take, meshes) as a Pivotal scene.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.scene import bounds
from app.scene.errors import SceneError
from app.scene.formats import leaf_bones as leaves
from app.scene.formats.fbx import assimp, messages, pivots
from app.scene.math import quat, transforms
from app.scene.rig.keys import Keys
from app.scene.rig.mesh import MAX_INFLUENCES, SkinnedMesh
from app.scene.rig.model import Bone, Scene
from app.scene.rig.refs import unique_name

#: FBX ``TimeMode`` -> frames per second (14 is the file's ``CustomFrameRate``).
_TIME_MODES = {
    1: 120.0,
    2: 100.0,
    3: 60.0,
    4: 50.0,
    5: 48.0,
    6: 30.0,
    7: 30.0,
    8: 30000 / 1001,
    9: 30000 / 1001,
    10: 25.0,
    11: 24.0,
    12: 1000.0,
    13: 24000 / 1001,
    15: 96.0,
    16: 72.0,
    17: 60000 / 1001,
    18: 120000 / 1001,
}
_DEFAULT_FPS = 24.0


def load_fbx(path, animation=None, leaf_bones: str = "auto") -> Scene:
    """Read an ``.fbx`` file as a scene (see the module docstring); ``animation`` names the
    take to import (or is its index; default: the first); ``leaf_bones``: the bones Blender
    adds at the ends of chains, ignored as :mod:`..leaf_bones` says.

    Raises
    ------
    SceneError
        Naming the file and why: not there, assimp missing, a file assimp cannot read (its
        reason), no take of that name, a mirrored node, or what the scene bounds refuse.
    """
    path = Path(path)
    if not path.is_file():
        raise SceneError("no such file", file=str(path))
    take = 0 if animation is None else animation
    try:
        read = assimp.read_guarded(path, take=take)
    except assimp.ReadError as e:  # assimp's words, translated (they stay in the details)
        with open(path, "rb") as f:
            raise messages.refusal(str(e), f.read(64)).with_file(str(path)) from None
    if read.take < 0:
        raise SceneError(f"no take {animation!r} (the file has {read.takes})", "takes", str(path))
    try:
        _check_transforms_and_keys(read)
        scene = _scene(pivots.collapse(read))
    except SceneError as e:
        raise e.with_file(str(path)) from None
    return leaves.apply(scene, read.settings.get("SourceAsset_Generator"), leaf_bones)


def _check_transforms_and_keys(read: assimp.File) -> None:
    """Refuse a node transform or a key that is not finite (a number past float32, which
    assimp reads as infinity, or NaN) where it enters, before any product of them: assimp's
    helper nodes (pre-rotations, pivots, geometric transforms) are named as their node."""
    for n in read.nodes:
        if not np.all(np.isfinite(n.matrix)):
            name, _, part = n.name.partition(pivots.MARK)
            what = f"its {part}" if part else "its transform"
            raise SceneError(f"{what} is not finite", f"node {name!r}")
    where = f"take {read.takes[read.take]!r}" if read.takes else "the take"
    for c in read.channels:
        for kind, (t, v) in zip(
            ("translation", "rotation", "scale"), (c.position, c.rotation, c.scale)
        ):
            if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
                name = c.node.partition(pivots.MARK)[0]
                raise SceneError(f"a {kind} key is not finite", f"{where}, node {name!r}")


# --- axes and units -----------------------------------------------------------------------


def axis_conversion(settings: dict) -> tuple[np.ndarray, str]:
    """The rotation taking the file's axes to Pivotal's (+Y up, front +Z, coord +X) and a
    message ("" when the file's axes are used as they are)."""

    def axis(name, default, sign_default=1):
        a = settings.get(name, default)
        s = settings.get(name + "Sign", sign_default)
        if not isinstance(a, int) or a not in (0, 1, 2):
            a = default
        v = np.zeros(3)
        v[a] = -1.0 if s == -1 else 1.0
        return v

    coord, up, front = axis("CoordAxis", 0), axis("UpAxis", 1), axis("FrontAxis", 2)
    m = np.array([coord, up, front])
    if abs(np.linalg.det(m) - 1.0) > 1e-9:  # not a right-handed basis: Blender's axes instead
        return np.array([[1.0, 0, 0], [0, 0, 1], [0, -1, 0]]), (
            "the file's axes are not a right-handed system; read as Z up, -Y forward"
        )
    return m, ""


def frame_rate(settings: dict, ticks: float) -> float:
    mode = settings.get("FrameRate")
    if mode == 14:
        custom = settings.get("CustomFrameRate")
        if isinstance(custom, float) and np.isfinite(custom) and custom > 0:
            return float(custom)
    if mode in _TIME_MODES:
        return _TIME_MODES[mode]
    return ticks if np.isfinite(ticks) and ticks > 0 else _DEFAULT_FPS


# --- the scene ----------------------------------------------------------------------------


def _scene(read: assimp.File) -> Scene:
    nodes = read.nodes
    settings = read.settings
    turn, message = axis_conversion(settings)
    unit = settings.get("UnitScaleFactor", 1.0)
    if not isinstance(unit, float | int) or not np.isfinite(unit) or unit <= 0:
        raise SceneError(
            f"UnitScaleFactor must be a positive number (is {unit!r})", "GlobalSettings"
        )
    metres = float(unit) / 100.0
    children = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        if n.parent >= 0:
            children[n.parent].append(i)
    skinned = {m for m, mesh in enumerate(read.meshes) if mesh.bones}
    joints = {b[0] for mesh in read.meshes for b in mesh.bones}
    animated = {c.node for c in read.channels}

    def is_bone(i):
        n = nodes[i]
        if i == 0:
            return False  # assimp's root: its children are the file's roots
        if children[i] or n.name in joints or n.name in animated:
            return True
        if n.meshes:
            return any(m not in skinned for m in n.meshes)
        return n.name not in read.lights_and_cameras

    order = [i for i in range(len(nodes)) if is_bone(i)]  # assimp's order is depth first
    if not order:
        raise SceneError("the file has no node that can be a bone", "nodes")
    bounds.check_bone_count(len(order), "nodes")
    names = _names(nodes, order)
    by_file_name = {}
    for i in order:
        by_file_name.setdefault(nodes[i].name, i)
    world = _worlds(nodes)
    depth = {0: 0}
    for i in order:
        depth[i] = depth.get(nodes[i].parent, 0) + 1
        bounds.check_depth(depth[i], f"node {nodes[i].name!r}")
    turn_q = quat.quat_from_matrix(turn)
    fps = frame_rate(settings, read.ticks_per_second)
    matrices = np.array(
        [
            nodes[i].matrix if nodes[i].parent != 0 else nodes[0].matrix @ nodes[i].matrix
            for i in order
        ]
    )
    rest = _decompose(matrices, [nodes[i].name for i in order])
    file_rest = {i: (rest[0][k], rest[1][k], rest[2][k]) for k, i in enumerate(order)}
    keys, span, key_messages = _take(
        read, fps, by_file_name, order, turn, turn_q, metres, nodes, file_rest
    )
    bones = []
    for k, i in enumerate(order):
        node = nodes[i]
        t, q, s = (a[k] for a in rest)
        t = t * metres
        if node.parent <= 0:  # a root: the axis conversion
            t, q = turn @ t, quat.mul(turn_q, q)
        kw = keys.get(i, {})
        bones.append(
            Bone(
                name=names[i],
                parent=names[node.parent] if node.parent > 0 else None,
                translation=tuple(map(float, t)),
                rotation=tuple(map(float, q)),
                scale=tuple(map(float, s)),
                **kw,
            )
        )
    meshes, mesh_messages = _meshes(read, order, names, world, turn, metres)
    scene = Scene(
        bones=bones, fps=fps, frame_start=span[0], frame_end=span[1], meshes=tuple(meshes)
    )
    scene.messages.extend(([message] if message else []) + key_messages + mesh_messages)
    if len(read.takes) > 1:
        others = ", ".join(repr(t) for k, t in enumerate(read.takes) if k != read.take)
        scene.messages.append(
            f"the file has {len(read.takes)} takes; {read.takes[read.take]!r} "
            f"is imported (the others: {others}; choose one with "
            "--animation NAME, or in File ▸ Open)"
        )
    return scene


def _names(nodes, order) -> dict:
    names, used = {}, set()
    for i in order:
        names[i] = unique_name(nodes[i].name or f"node_{i}", used)
        used.add(names[i])
    return names


def _worlds(nodes) -> list[np.ndarray]:
    """Each node's rest transform relative to the file (assimp's root included)."""
    world = []
    for n in nodes:
        world.append(n.matrix if n.parent < 0 else world[n.parent] @ n.matrix)
    return world


def _decompose(matrices, names):
    """Translations, ``[w, x, y, z]`` rotations and scales of affine matrices (N, 4, 4); a
    mirror is refused, naming its node."""
    for k in np.flatnonzero(~np.all(np.isfinite(matrices), axis=(1, 2))):
        raise SceneError("its transform is not finite", f"node {names[k]!r}")
    linear = matrices[:, :3, :3]
    for k in np.flatnonzero(np.linalg.det(linear) < 0):
        raise SceneError(
            "its transform mirrors (a negative scale); bones cannot mirror", f"node {names[k]!r}"
        )
    s = np.linalg.norm(linear, axis=1)  # the columns' lengths
    hidden = s == 0
    q = transforms.rotation_from_matrix(linear / np.where(hidden, 1.0, s)[:, None, :])
    q[hidden.all(axis=1)] = (1.0, 0.0, 0.0, 0.0)
    return matrices[:, :3, 3].copy(), q, s


# --- the take ----------------------------------------------------------------------------


def _take(read, fps, by_file_name, order, turn, turn_q, metres, nodes, rest):
    """``{node: {"translation_keys": Keys, ...}}``, ``(frame_start, frame_end)``, messages.

    ``rest`` maps a node to its file-space translation, rotation and scale: a channel whose
    every key is that value (within float32's precision, which the file holds) changes
    nothing and is left out.
    """
    if not read.channels:
        return {}, (0, 0), []
    ticks = read.ticks_per_second if read.ticks_per_second > 0 else fps
    found, messages = [], []
    for c in read.channels:
        i = by_file_name.get(c.node)
        if i is None:
            messages.append(f"the take moves {c.node!r}, which is not a bone; ignored")
            continue
        found.append((i, c))
    kinds = ("translation", "rotation", "scale")
    channels = [
        (i, c, kind, k)
        for i, c in found
        for kind, k in zip(kinds, (c.position, c.rotation, c.scale))
        if len(k[0])
    ]
    if not channels:
        return {}, (0, 0), messages
    where = f"take {read.takes[read.take]!r}"
    times = np.concatenate([k[0] for *_, k in channels])
    values = np.concatenate([k[1].reshape(-1) for *_, k in channels])
    if not (np.all(np.isfinite(times)) and np.all(np.isfinite(values))) or (
        np.abs(values).max() * max(metres, 1.0) > bounds.MAX_MAGNITUDE
    ):
        for _, c, kind, (t, v) in channels:  # name the first channel at fault
            if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
                raise SceneError(f"a {kind} key is not finite", f"{where}, node {c.node!r}")
            if np.abs(v).max() * max(metres, 1.0) > bounds.MAX_MAGNITUDE:
                raise SceneError(
                    f"a {kind} key lies beyond the bound of +-{bounds.MAX_MAGNITUDE:g} on numbers",
                    f"{where}, node {c.node!r}",
                )
    first, last = float(times.min()) * fps / ticks, float(times.max()) * fps / ticks
    bounds.check_fps(fps, where)
    bounds.check_frame_number(first, where)
    bounds.check_frame_number(last, where)
    count = bounds.frame_count(round(first), round(last))
    bounds.check_frame_count(count, where)
    bounds.check_poses(count, len(order), where)
    out = {}
    frames_of = {}  # the key times' bytes -> (frames, which keys to keep): channels share them
    for i, c, kind, (t, v) in channels:
        t0, q0, s0 = rest[i]
        if kind == "translation":
            same = np.abs(v - t0).max() <= 1e-6 * (1.0 + np.abs(t0).max())
        elif kind == "rotation":
            same = np.abs(np.abs(v @ q0) - 1.0).max() <= 1e-6  # q and -q turn alike
        else:
            same = np.abs(v - s0).max() <= 1e-6 * (1.0 + np.abs(s0).max())
        if same:
            continue
        made = frames_of.get(t.tobytes())
        if made is None:
            frames = t * (fps / ticks)
            nearest = np.round(frames)
            frames = np.where(np.abs(frames - nearest) < 1e-4, nearest, frames)
            keep = np.concatenate([[True], np.diff(frames) > 1e-9])  # one key per time
            made = frames_of[t.tobytes()] = (frames[keep], keep)
        frames, keep = made
        v = v[keep]
        root = nodes[i].parent <= 0
        if kind == "translation":
            v = v * metres
            if root:
                v = v @ turn.T
        elif kind == "rotation":
            norm = np.linalg.norm(v, axis=1, keepdims=True)
            if np.any(norm < 1e-6):
                raise SceneError(
                    "a rotation key is not a unit quaternion", f"{where}, node {c.node!r}"
                )
            v = v / norm
            if root:
                v = quat.mul(turn_q, v)
        elif np.any(v < 0):
            raise SceneError(
                "a scale key is negative (bones cannot mirror)", f"{where}, node {c.node!r}"
            )
        out.setdefault(i, {})[f"{kind}_keys"] = Keys(frames, v)
    return out, (int(round(first)), int(round(last))), messages


# --- meshes -------------------------------------------------------------------------------


def _check_finite(values, what: str, where: str) -> None:
    """Refuse a non-finite number among ``values`` (rows of three), naming the array
    ``what`` and the first such row. (Assimp numbers vertices its own way, by triangle
    corner: the row's values say which vertex, its index would not.)"""
    bad = ~np.isfinite(values)
    if np.any(bad):
        row = values[int(np.argwhere(bad)[0][0])]
        raise SceneError(
            f"its {what} hold a number that is not finite (the first: "
            f"{', '.join(f'{x:g}' for x in row)})",
            where,
        )


def _check_bound(values, what: str, where: str) -> None:
    """Refuse a number of ``values`` (made from finite ones) beyond the bound on numbers, or
    one that overflowed on the way."""
    far = ~(np.abs(values) <= bounds.MAX_MAGNITUDE)  # NaN (inf - inf) too
    if np.any(far):
        raise SceneError(
            f"its {what} hold a number beyond the bound of +-{bounds.MAX_MAGNITUDE:g} on numbers",
            where,
        )


def _finite_normals(normals, label: str, messages: list):
    """The file's normals, or None (they are then computed from the triangles) with a
    message when one of them is not finite: the mesh's shape does not depend on them."""
    if normals is None or np.all(np.isfinite(normals)):
        return normals
    messages.append(
        f"mesh {label!r}: a normal is not finite; the normals are computed from the triangles"
    )
    return None


def _meshes(read, order, names, world, turn, metres):
    """Skinned meshes (bind-space vertices in Pivotal's world) and rigid ones (in their node's
    frame), with messages about what was skipped or cut."""
    meshes, messages = [], []
    bone_set = set(order)
    first_of = {}
    for i in order:
        first_of.setdefault(read.nodes[i].name, i)
    convert = np.eye(4)
    convert[:3, :3] = turn * metres
    for i, node in enumerate(read.nodes):
        for k, m in enumerate(node.meshes):
            mesh = read.meshes[m]
            # Named as the node (the object in Maya or Blender), as Blender names it.
            label = node.name or mesh.name or f"mesh_{m}"
            if len(node.meshes) > 1:
                label = f"{label}.{k}"
            if mesh.triangles is None or not len(mesh.triangles):
                messages.append(f"mesh {label!r} has no triangles; it is skipped")
                continue
            where = f"mesh {label!r}"
            _check_finite(mesh.positions, "vertex positions", where)
            normals = _finite_normals(mesh.normals, label, messages)
            if mesh.bones:
                made = _skinned(
                    mesh,
                    first_of,
                    names,
                    world[i],
                    convert,
                    metres,
                    normals,
                    node.name,
                    label,
                    messages,
                )
            elif i in bone_set:
                v = len(mesh.positions)
                positions = mesh.positions
                if node.geometry is not None:  # FBX's geometric transform: the mesh alone
                    g = node.geometry
                    if not np.all(np.isfinite(g)):
                        raise SceneError(
                            "its geometric transform is not finite", f"node {node.name!r}"
                        )
                    with np.errstate(all="ignore"):  # an overflow is refused below
                        positions = positions @ g[:3, :3].T + g[:3, 3]
                    if normals is not None:  # a geometry squashed to 0: as far as it goes
                        normals = normals @ transforms.inverse(g)[:3, :3]
                with np.errstate(all="ignore"):
                    positions = positions * metres
                _check_bound(positions, "vertex positions", where)
                made = dict(
                    positions=positions,
                    normals=normals,
                    joints=(names[i],),
                    inverse_bind=np.eye(4)[None],
                    joint_indices=np.zeros((v, 1), np.int64),
                    weights=np.ones((v, 1)),
                )
            else:  # pragma: no cover - every node with an unskinned mesh is a bone
                continue
            meshes.append(
                SkinnedMesh(
                    name=label, indices=mesh.triangles, extra={"fbx_node": node.name}, **made
                )
            )
    return meshes, messages


def _skinned(mesh, first_of, names, mesh_world, convert, metres, normals, node, label, messages):
    """A skinned mesh's arrays: vertices at their rest place in Pivotal's world, and inverse
    binds ``S · offset · G⁻¹ · C⁻¹`` (``S`` the unit scale, ``G`` the mesh node's rest
    transform, ``C`` the axis and unit conversion), so the skinning draws what assimp's
    offset matrices say.

    ``G⁻¹`` is :func:`~app.scene.math.transforms.inverse`: a mesh node scaled to 0 on an
    axis (an object hidden by scaling it away, which exporters write) is inverted as far as
    it can be, so the mesh loads collapsed as the file's rest pose shows it, instead of being
    refused; every other node gets its plain inverse."""
    where = f"mesh {label!r}"
    to_world = convert @ mesh_world
    if not np.all(np.isfinite(to_world)):
        raise SceneError("its transform is not finite", f"node {node!r}")
    with np.errstate(all="ignore"):  # an overflow is refused below
        positions = mesh.positions @ to_world[:3, :3].T + to_world[:3, 3]
    _check_bound(positions, "vertex positions", where)
    back = transforms.inverse(to_world)
    if normals is not None:
        normals = normals @ back[:3, :3]
        length = np.linalg.norm(normals, axis=1, keepdims=True)
        normals = normals / np.where(length > 0, length, 1.0)
    v = len(mesh.positions)
    scale = np.diag([metres, metres, metres, 1.0])
    joints, binds, vertex, joint, weight = [], [], [], [], []
    for k, (name, ids, w, offset) in enumerate(mesh.bones):
        if name not in first_of:
            raise SceneError(f"mesh {mesh.name!r} is bound to {name!r}, which is no node")
        joints.append(names[first_of[name]])
        if not np.all(np.isfinite(offset)):  # assimp's offset: a cluster's Transform and
            # TransformLink (a TransformLink scaled to 0 has no inverse: assimp gives NaN)
            raise SceneError(
                f"the skin cluster of bone {name!r} has a bind matrix that is "
                "not finite (its Transform or TransformLink is not finite or "
                "cannot be inverted)",
                where,
            )
        with np.errstate(all="ignore"):  # an overflow is refused below
            bind = scale @ offset @ back
        if not np.all(np.abs(bind) <= bounds.MAX_MAGNITUDE):
            raise SceneError(
                f"the skin cluster of bone {name!r} has a bind matrix beyond the "
                f"bound of +-{bounds.MAX_MAGNITUDE:g} on numbers (a bone scaled "
                "to almost nothing when the mesh was bound)",
                where,
            )
        binds.append(bind)
        if len(ids) and (ids.max() >= v):
            raise SceneError(
                f"bone {name!r} weighs vertex {int(ids.max())}; the mesh has {v}",
                f"mesh {mesh.name!r}",
            )
        vertex.append(ids)
        joint.append(np.full(len(ids), k))
        weight.append(w)
    vertex, joint, weight = (np.concatenate(a) for a in (vertex, joint, weight))
    if not np.all(np.isfinite(weight)) or np.any(weight < 0):
        raise SceneError("a skin weight is negative or not finite", f"mesh {mesh.name!r}")
    keep = weight > 0
    vertex, joint, weight = vertex[keep], joint[keep], weight[keep]
    order = np.lexsort((-weight, vertex))  # by vertex, the heaviest first
    vertex, joint, weight = vertex[order], joint[order], weight[order]
    starts = np.searchsorted(vertex, vertex, side="left")
    rank = np.arange(len(vertex)) - starts
    counts = np.bincount(vertex, minlength=v)
    over = int(np.count_nonzero(counts > MAX_INFLUENCES))
    if over:
        most = MAX_INFLUENCES
        messages.append(
            f"mesh {mesh.name!r}: {over} vertices have more than {most} "
            f"influences; the {most} largest are kept"
        )
    width = int(min(max(counts.max(initial=1), 1), MAX_INFLUENCES))
    fit = rank < width
    joint_indices = np.zeros((v, width), np.int64)
    weights = np.zeros((v, width))
    joint_indices[vertex[fit], rank[fit]] = joint[fit]
    weights[vertex[fit], rank[fit]] = weight[fit]
    total = weights.sum(axis=1, keepdims=True)
    weights = np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
    return dict(
        positions=positions,
        normals=normals,
        joints=tuple(joints),
        inverse_bind=np.array(binds),
        joint_indices=joint_indices,
        weights=weights,
    )
