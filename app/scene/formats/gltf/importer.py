"""A glTF 2.0 file (``.gltf`` with its buffers, or ``.glb``) as a scene (``docs/scene-format.md``,
"glTF 2.0").

- Nodes of the default scene (``scene``, else scene 0, else every root node) become bones,
  parents before children. Every node with children, every skin joint, every node an
  animation channel moves and every node carrying a mesh without a skin is a bone (a rigid
  mesh rides on its own node's bone); only a leaf that carries nothing but a camera, or a
  skinned mesh (whose node transform glTF ignores) and is not animated, becomes no bone.
  Names: the node's name, else ``node_<index>``; a repeated name gets ``.001``, ``.002``.
- ``matrix`` or ``translation``/``rotation``/``scale`` become the static transform (glTF's
  ``[x, y, z, w]`` becomes our ``[w, x, y, z]``).
- The first animation, or the one named, becomes keys (:mod:`.animation` for the frame
  rate, frames and sampler evaluation).
- Meshes come along as :class:`~app.scene.rig.mesh.SkinnedMesh` (:mod:`.meshes`).

Every refusal is a :class:`~app.scene.errors.SceneError` naming the JSON pointer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.scene import bounds
from app.scene.errors import SceneError
from app.scene.formats import leaf_bones as leaves
from app.scene.formats.gltf import animation as anim
from app.scene.formats.gltf.buffers import (
    Accessors,
    explained,
    index,
    items,
    numbers,
    obj,
    pointer,
    read_document,
)
from app.scene.formats.gltf.clips import animation_titles, chosen_animation
from app.scene.formats.gltf.meshes import read_meshes
from app.scene.math import transforms
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene
from app.scene.rig.refs import unique_name
from app.scene.words import plural

_WIDTH = {"translation": 3, "rotation": 4, "scale": 3}


def load_gltf(path, animation: str | None = None, leaf_bones: str = "auto") -> Scene:
    """Read a ``.gltf`` or ``.glb`` file as a scene (see the module docstring); ``leaf_bones``:
    bones that only mark where a chain ends, ignored as :mod:`..leaf_bones` says.

    Raises
    ------
    SceneError
        Naming the file, the JSON pointer and the reason.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SceneError("no such file", file=str(path)) from None
    except OSError as e:
        raise SceneError(e.strerror or str(e), file=str(path)) from None
    try:
        return parse_gltf(data, path.parent, animation, leaf_bones)
    except SceneError as e:
        raise explained(e, path, data) from None
    except RecursionError:  # pragma: no cover - json limits nesting before we recurse
        raise SceneError("nesting too deep", "/", str(path)) from None


def parse_gltf(
    data: bytes, base: Path | None = None, animation: str | None = None, leaf_bones: str = "keep"
) -> Scene:
    """Parse glTF bytes (JSON or GLB); external buffers are looked up in ``base``;
    ``leaf_bones`` as :func:`app.scene.formats.leaf_bones.apply` takes it."""
    doc, blob = read_document(data)
    scene = _parse(doc, blob, base, animation)
    return leaves.apply(scene, doc["asset"].get("generator"), leaf_bones)


def _parse(doc: dict, blob, base: Path | None, animation: str | None) -> Scene:
    acc = Accessors(doc, blob, base)
    nodes = items(doc, "nodes")
    parents, children = _hierarchy(doc, nodes)
    order = _scene_order(doc, nodes, parents, children)
    joints = _skin_joints(doc)
    animated = _animated_nodes(doc, len(nodes))
    is_bone = {
        n: bool(children[n]) or n in joints or n in animated or _bone_alone(nodes[n]) for n in order
    }
    bone_nodes = [n for n in order if is_bone[n]]
    if not bone_nodes:
        raise SceneError("the scene has no node that can be a bone", "/nodes")
    bounds.check_bone_count(len(bone_nodes), "/nodes")
    names = _names(nodes, bone_nodes)
    local = {n: _local(nodes[n], pointer("nodes", n)) for n in order}
    keys, fps, span = _animation(doc, acc, animation, names, len(bone_nodes))
    bones = []
    for n in bone_nodes:
        t, q, s = local[n]
        kw = dict(keys.get(n, {}))
        scale_keys = kw.get("scale_keys")
        if scale_keys is not None and np.all(scale_keys.values == s.astype(np.float32)):
            del kw["scale_keys"]  # a constant channel at the node's own scale changes nothing
        parent = parents[n] if parents[n] >= 0 else None
        bones.append(
            Bone(
                name=names[n],
                parent=None if parent is None else names[parent],
                translation=tuple(t),
                rotation=tuple(q),
                scale=tuple(s),
                **kw,
            )
        )
    meshes, messages = read_meshes(doc, acc, order, names)
    scene = Scene(
        bones=bones, fps=fps, frame_start=span[0], frame_end=span[1], meshes=tuple(meshes)
    )
    scene.messages.extend(messages + keys.get("messages", []))
    titles = animation_titles(doc)
    if len(titles) > 1:
        chosen = chosen_animation(doc, animation)
        others = ", ".join(repr(t) for k, t in enumerate(titles) if k != chosen)
        scene.messages.append(
            f"the file has {len(titles)} animations; {titles[chosen]!r} is "
            f"imported (the others: {others}; choose one with --animation "
            "NAME, or in File ▸ Open)"
        )
    return scene


# --- nodes --------------------------------------------------------------------------------


def _hierarchy(doc, nodes):
    """Parent index per node (``-1`` for roots) and child lists; refuses cycles."""
    parents = [-1] * len(nodes)
    children = [[] for _ in nodes]
    for i, node in enumerate(nodes):
        node = obj(node, pointer("nodes", i))
        kids = node.get("children", [])
        if not isinstance(kids, list):
            raise SceneError("children must be an array", pointer("nodes", i, "children"))
        for k, c in enumerate(kids):
            where = pointer("nodes", i, "children", k)
            c = index(doc, "nodes", c, where)
            if c == i:
                raise SceneError(f"node cycle: node {i} is its own child", where)
            if parents[c] >= 0:
                raise SceneError(
                    f"node {c} already has parent {parents[c]} (glTF nodes form trees)", where
                )
            parents[c] = i
            children[i].append(c)
    # Each node has one parent at most, so following parents either reaches a root or
    # comes back to a node of the same walk: a cycle. Depths are filled in on the way back.
    depth = [-1] * len(nodes)
    for i in range(len(nodes)):
        chain, in_chain, n = [], set(), i
        while n >= 0 and depth[n] < 0:
            if n in in_chain:
                p = parents[n]
                raise SceneError(
                    f"node cycle through node {n}",
                    pointer("nodes", p, "children", children[p].index(n)),
                )
            chain.append(n)
            in_chain.add(n)
            n = parents[n]
        d = depth[n] if n >= 0 else -1
        for m in reversed(chain):
            d += 1
            depth[m] = d
            bounds.check_depth(d + 1, pointer("nodes", m))  # a root counts as 1
    return parents, children


def _scene_order(doc, nodes, parents, children) -> list[int]:
    """The default scene's nodes, depth first, parents before children."""
    scenes = items(doc, "scenes")
    if "scene" in doc:
        s = index(doc, "scenes", doc["scene"], "/scene")
    else:
        s = 0 if scenes else None
    if s is None:
        roots = [i for i in range(len(nodes)) if parents[i] < 0]
    else:
        where = pointer("scenes", s)
        scene = obj(scenes[s], where)
        roots = scene.get("nodes", [])
        if not isinstance(roots, list):
            raise SceneError("nodes must be an array", where + "/nodes")
        for k, r in enumerate(roots):
            index(doc, "nodes", r, f"{where}/nodes/{k}")
            if parents[r] >= 0:
                raise SceneError(
                    f"node {r} is not a root (its parent is node {parents[r]})",
                    f"{where}/nodes/{k}",
                )
        if len(set(roots)) != len(roots):
            raise SceneError("a root node is listed twice", where + "/nodes")
    order, stack = [], list(reversed(roots))
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(reversed(children[n]))
    return order


def _skin_joints(doc) -> set:
    joints = set()
    for s, skin in enumerate(items(doc, "skins")):
        skin = obj(skin, pointer("skins", s))
        js = skin.get("joints")
        if not isinstance(js, list) or not js:
            raise SceneError("joints must be a non-empty array", pointer("skins", s, "joints"))
        for k, j in enumerate(js):
            joints.add(index(doc, "nodes", j, pointer("skins", s, "joints", k)))
    return joints


def _bone_alone(node) -> bool:
    """Whether a leaf node that is neither joint nor animated still becomes a bone: an empty
    node or a rigid mesh does, a camera or a skinned mesh does not."""
    if "mesh" in node:
        return "skin" not in node
    return "camera" not in node


def _animated_nodes(doc, count) -> set:
    """Nodes a ``translation``, ``rotation`` or ``scale`` channel of any animation targets
    (malformed channels are left to :func:`_animation` to refuse, naming them)."""
    found = set()
    animations = doc.get("animations")
    for a in animations if isinstance(animations, list) else ():
        channels = a.get("channels") if isinstance(a, dict) else None
        for c in channels if isinstance(channels, list) else ():
            target = c.get("target") if isinstance(c, dict) else None
            if (
                not isinstance(target, dict)
                or not isinstance(target.get("path"), str)
                or (target["path"] not in _WIDTH)
            ):
                continue
            n = target.get("node")
            if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < count:
                found.add(n)
    return found


def _names(nodes, bone_nodes) -> dict:
    names, used = {}, set()
    for n in bone_nodes:
        name = nodes[n].get("name")
        names[n] = unique_name(name if isinstance(name, str) and name else f"node_{n}", used)
        used.add(names[n])
    return names


def _local(node, where):
    """Translation, ``[w, x, y, z]`` rotation and scale."""
    if "matrix" in node:
        m = numbers(node["matrix"], where + "/matrix", 16).reshape(4, 4).T  # column-major
        if np.abs(m[3] - (0, 0, 0, 1)).max() > 1e-6:
            raise SceneError("matrix is not affine (last row must be 0 0 0 1)", where + "/matrix")
        linear = m[:3, :3]
        s = np.linalg.norm(linear, axis=0)
        hidden = s == 0  # a column of 0: scaled to nothing along that axis (allowed)
        if np.linalg.det(linear) < 0 or (np.linalg.det(linear) <= 0 and not hidden.any()):
            raise SceneError(
                "matrix must have positive scale (bones cannot mirror)", where + "/matrix"
            )
        # The rotation of the columns that are left (the identity when none is).
        q = transforms.rotation_from_matrix(linear / np.where(hidden, 1.0, s))
        if hidden.all():
            q = np.array([1.0, 0.0, 0.0, 0.0])
        t = m[:3, 3]
    else:
        t = numbers(node.get("translation", [0, 0, 0]), where + "/translation", 3)
        xyzw = numbers(node.get("rotation", [0, 0, 0, 1]), where + "/rotation", 4)
        norm = np.linalg.norm(xyzw)
        if norm < 1e-6:
            raise SceneError("rotation must be a unit quaternion", where + "/rotation")
        q = np.roll(xyzw / norm, 1)
        s = numbers(node.get("scale", [1, 1, 1]), where + "/scale", 3)
        if np.any(s < 0):  # 0 is allowed: glTF hides props that way
            raise SceneError(
                "every scale factor must be 0 or more (bones cannot mirror)", where + "/scale"
            )
    return t, q, s


# --- animation ----------------------------------------------------------------------------


def _animation(doc, acc, name, names, n_bones):
    """``{node: {"translation_keys": Keys, ...}}``, fps and ``(frame_start, frame_end)``."""
    animations = items(doc, "animations")
    a = chosen_animation(doc, name)
    if a is None:
        return {}, anim.FALLBACK_FPS, (0, 0)
    where = pointer("animations", a)
    animation = obj(animations[a], where)
    samplers = animation.get("samplers")
    channels = animation.get("channels")
    if not isinstance(samplers, list) or not isinstance(channels, list):
        raise SceneError("an animation needs samplers and channels arrays", where)
    read = []  # (node, path, kind, times, values, pointer)
    inputs: dict = {}  # accessor -> key times
    messages = []
    for c, channel in enumerate(channels):
        cw = f"{where}/channels/{c}"
        channel = obj(channel, cw)
        target = obj(channel.get("target"), cw + "/target")
        path = target.get("path")
        if path not in ("translation", "rotation", "scale", "weights"):
            raise SceneError(f"unknown target path {path!r}", cw + "/target/path")
        s = channel.get("sampler")
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < len(samplers):
            raise SceneError(
                f"index {s!r} out of range (the animation has {len(samplers)} samplers)",
                cw + "/sampler",
            )
        if "node" not in target:
            continue
        node = index(doc, "nodes", target["node"], cw + "/target/node")
        sw = f"{where}/samplers/{s}"
        sampler = obj(samplers[s], sw)
        kind = sampler.get("interpolation", "LINEAR")
        if kind not in ("LINEAR", "STEP", "CUBICSPLINE"):
            raise SceneError(f"unknown interpolation {kind!r}", sw + "/interpolation")
        i = index(doc, "accessors", sampler.get("input"), sw + "/input")
        o = index(doc, "accessors", sampler.get("output"), sw + "/output")
        if i not in inputs:  # channels usually share their inputs: read each once
            times = acc.read(i)
            if times.shape[1] != 1 or not np.all(np.isfinite(times)):
                raise SceneError("key times must be finite scalars", pointer("accessors", i))
            times = times[:, 0]
            if np.any(np.diff(times) <= 0):
                raise SceneError("key times must increase strictly", pointer("accessors", i))
            inputs[i] = times
        times = inputs[i]
        if path == "weights":
            messages.append(f"{cw}: morph target weights are not evaluated (ignored)")
            continue
        if node not in names:
            messages.append(f"{cw}: node {node} is not a bone; its animation is ignored")
            continue
        values = acc.read(o)
        per_key = 3 if kind == "CUBICSPLINE" else 1
        if values.shape != (per_key * len(times), _WIDTH[path]):
            keys = plural(len(times), "key")
            raise SceneError(
                f"output needs {per_key * len(times)} values of {_WIDTH[path]} "
                f"components for {keys}, has {values.shape[0]} of "
                f"{values.shape[1]}",
                pointer("accessors", o),
            )
        read.append((node, path, kind, times, values, pointer("accessors", i)))
    if not read:
        return {"messages": messages}, anim.FALLBACK_FPS, (0, 0)
    fps = anim.clip_rate(np.concatenate([inputs[i] for i in sorted(inputs)]))
    first = min(float(r[3][0]) for r in read) * fps
    last = max(float(r[3][-1]) for r in read) * fps
    where = read[int(np.argmax([r[3][-1] for r in read]))][5]
    bounds.check_fps(fps, where)
    bounds.check_frame_number(first, where)
    bounds.check_frame_number(last, where)
    count = bounds.frame_count(round(first), round(last))
    bounds.check_frame_count(count, where)
    bounds.check_poses(count, n_bones, where)  # what bake would refuse, refused at load
    span = (int(round(first)), int(round(last)))
    out: dict = {"messages": messages}
    frames_of = {}  # id(times) -> frames, once per input accessor
    for node, path, kind, times, values, _ in read:
        if id(times) not in frames_of:
            frames_of[id(times)] = anim.frames_of(times, fps)
        frames, values = _keys(kind, times, frames_of[id(times)], values, fps)
        if path == "rotation":
            values = np.roll(values, 1, axis=1)  # [x, y, z, w] -> [w, x, y, z]
            norm = np.linalg.norm(values, axis=1, keepdims=True)
            if np.any(norm < 1e-6):
                raise SceneError("a rotation key is not a unit quaternion", _where_out(read, node))
            values = values / norm
        if path == "scale":
            if np.any(values < 0):  # a key of 0 hides the node (and its children): allowed
                raise SceneError(
                    "scale keys must be 0 or more (bones cannot mirror)", _where_out(read, node)
                )
        interpolation = ("constant",) * len(frames) if kind == "STEP" else None
        out.setdefault(node, {})[f"{path}_keys"] = Keys(frames, values, interpolation)
    return out, fps, span


def _where_out(read, node):
    return next(r[5] for r in read if r[0] == node)


def _keys(kind, times, frames, values, fps):
    """Key frames and values: LINEAR and STEP keys as they are (STEP becomes constant keys),
    CUBICSPLINE sampled at every frame from the first key to the last."""
    if kind != "CUBICSPLINE":
        return frames, values
    every = np.arange(np.round(frames[0]), np.round(frames[-1]) + 1.0)
    return every, anim.sample_cubic(times, values, every / fps)
