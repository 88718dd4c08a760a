"""The fuzzer's input classes for what issues 19 and 20 added (``docs/reliability.md``): scenes
with the follow kinds (``child_of``, ``copy_rotation``, ``copy_location``), valid and broken;
``multi_parent.relative_to``; constraint cycles and per-bone stacks against FABRIK chains;
degenerate geometry under the copy kinds; glTF with five to eight influences per vertex and
broken ``JOINTS_1``/``WEIGHTS_1``; and the bases these start from.

Each mutation edits a parsed JSON value in place (``tests/helpers/fuzzing.py`` writes it back).
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import numpy as np

from tests.helpers.gltf_files import FLOAT, UBYTE, USHORT, Builder

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "resources" / "scenes"
FBX_FILES = sorted((ROOT / "tests" / "data" / "fbx").glob("*.fbx"))

FOLLOW_TYPES = ("child_of", "copy_rotation", "copy_location")
SCENE_KINDS = ("follows", "relative_to", "cycle", "stack", "degenerate_follow")
#: glTF JSON takes the generic JSON mutations and its own: broken influences.
GLTF_KINDS = (
    "delete_key",
    "duplicate_item",
    "delete_item",
    "swap_type",
    "huge_number",
    "truncate",
    "flip_bytes",
    "influences",
    "influences",
    "influences",
)
#: Scales of almost nothing, for a target (or the driven bone's parent) of a copy kind.
DEGENERATE_SCALES = (
    [0, 0, 0],
    [1e-300] * 3,
    [5e-324, 1, 1],
    [1e-310] * 3,
    [1, 0, 1],
    [1e-300, 1, 1],
    [5e-324] * 3,
    [2.2250738585072014e-308] * 3,
)
BROKEN_FOLLOWS = (
    "unknown_bone",
    "unknown_target",
    "itself",
    "offset",
    "no_target_bone",
    "position_target",
    "both_targets",
    "at",
    "space",
    "no_bone",
    "extra_key",
    "bone_type",
    "no_target",
)
BAD_OFFSETS = ("start", "None", "", 0, None, ["none"], "FRAME_START", 1.5, {"none": 1})
RELATIVE_TO = ("world", "parent", "parent", "world", "object", "Parent", "", None, 1, ["parent"])


# --- bases ---------------------------------------------------------------------------------


def _with(name: str, constraints: list, **extra) -> bytes:
    value = json.loads((SCENES / name).read_text())
    value.setdefault("constraints", []).extend(constraints)
    for i, c in extra.pop("changes", {}).items():
        value["constraints"][i].update(c)
    return json.dumps(value).encode()


def _follow(kind, bone, to, at=None, **fields) -> dict:
    target = {"bone": to} if at is None else {"bone": to, "at": at}
    return {"type": kind, "name": f"{bone} follows {to}", "bone": bone, "target": target, **fields}


def scene_bases() -> dict[str, bytes]:
    """Shipped scenes with the new kinds added, each accepted as it is."""
    return {
        "legs_follows.json": _with(
            "legs.json",
            [
                _follow("child_of", "foot.l", "foot.r", space="world"),
                _follow("copy_rotation", "calf.r", "hip", space="object", offset="none"),
                _follow("copy_location", "thigh.r", "calf.l", at="tail"),
            ],
        ),
        "arm_follows.json": _with(
            "fabrik_arm.json",
            [
                _follow("copy_rotation", "fingers", "chest", space="world"),
                _follow("child_of", "hand", "chest", offset="none"),
            ],
        ),
        "foot_roll_relative.json": _with(
            "foot_roll.json",
            [
                _follow("copy_rotation", "thigh", "heel", space="object"),
                _follow("copy_location", "toes", "calf", offset="none", space="object"),
            ],
            changes={0: {"relative_to": "parent"}},
        ),
    }


def _influence_gltf(k: int) -> bytes:
    """A ``.gltf``: a chain of eight joints, a mesh of 16 vertices, each weighed by ``k``
    (5 to 8) of them through ``JOINTS_0``/``WEIGHTS_0`` and ``JOINTS_1``/``WEIGHTS_1``, and a
    turning joint."""
    b = Builder()
    b.doc["nodes"] = [{"name": f"j{i}", "translation": [0, 0.25 if i else 0, 0]} for i in range(8)]
    for i in range(7):
        b.doc["nodes"][i]["children"] = [i + 1]
    v = 16
    rng = np.random.default_rng(k)
    positions = np.column_stack(
        [rng.uniform(-0.1, 0.1, v), np.linspace(0, 1.75, v), rng.uniform(-0.1, 0.1, v)]
    )
    joints = np.array([rng.permutation(8) for _ in range(v)])
    weights = rng.uniform(0.05, 1.0, (v, 8))
    weights[:, k:] = 0
    weights /= weights.sum(axis=1, keepdims=True)
    ibm = np.stack([np.linalg.inv(_translation([0, 0.25 * i, 0])) for i in range(8)])
    attrs = {
        "POSITION": b.accessor(positions, minmax=True),
        "JOINTS_0": b.accessor(joints[:, :4], USHORT),
        "WEIGHTS_0": b.accessor(weights[:, :4]),
        "JOINTS_1": b.accessor(joints[:, 4:], USHORT if k % 2 else UBYTE),
        "WEIGHTS_1": b.accessor(weights[:, 4:]),
    }
    triangles = np.arange(v - 2).repeat(3).reshape(-1, 3) + [0, 1, 2]
    b.doc["meshes"] = [
        {
            "name": "skin",
            "primitives": [
                {"attributes": attrs, "indices": b.accessor(triangles.reshape(-1), USHORT)}
            ],
        }
    ]
    b.doc["skins"] = [
        {
            "joints": list(range(8)),
            "inverseBindMatrices": b.accessor(ibm.transpose(0, 2, 1).reshape(8, 16), FLOAT),
        }
    ]
    b.doc["nodes"].append({"name": "body", "mesh": 0, "skin": 0})
    b.doc["scenes"] = [{"nodes": [0, 8]}]
    b.doc["scene"] = 0
    times = b.accessor(np.array([0.0, 0.5, 1.0]), minmax=True)
    turn = [[0, 0, 0, 1], [0, 0, np.sin(0.4), np.cos(0.4)], [np.sin(0.3), 0, 0, np.cos(0.3)]]
    b.doc["animations"] = [
        {
            "samplers": [{"input": times, "output": b.accessor(np.array(turn))}],
            "channels": [{"sampler": 0, "target": {"node": 3, "path": "rotation"}}],
        }
    ]
    return b.gltf_bytes()


def _translation(v) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v
    return m


def gltf_bases() -> dict[str, bytes]:
    return {f"influences_{k}.gltf": _influence_gltf(k) for k in (5, 6, 8)}


def fbx_bases() -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in FBX_FILES}


# --- scene mutations ---------------------------------------------------------------------


def _parts(value):
    """The bone names and the constraint list of a scene value (created when absent), or
    ``None`` when the value is not a scene with named bones."""
    if not isinstance(value, dict) or not isinstance(value.get("bones"), list):
        return None
    names = [
        b["name"] for b in value["bones"] if isinstance(b, dict) and isinstance(b.get("name"), str)
    ]
    if not names:
        return None
    if not isinstance(value.get("constraints"), list):
        value["constraints"] = []
    return names, value["constraints"]


def _a_follow(rng: random.Random, bone: str, target: str, kind: str | None = None) -> dict:
    kind = kind or rng.choice(FOLLOW_TYPES)
    c = {
        "type": kind,
        "name": f"{kind} {rng.randrange(10**6)}",
        "bone": bone,
        "target": {"bone": target},
    }
    if rng.random() < 0.5:
        c["target"]["at"] = rng.choice(("head", "tail"))
    if rng.random() < 0.7:
        c["offset"] = rng.choice(("frame_start", "none"))
    if rng.random() < 0.7:
        c["space"] = rng.choice(("world", "object"))
    return c


def _break(c: dict, rng: random.Random) -> None:
    how = rng.choice(BROKEN_FOLLOWS)
    if how == "unknown_bone":
        c["bone"] = "nobody"
    elif how == "unknown_target":
        c["target"]["bone"] = "nobody"
    elif how == "itself":
        c["target"]["bone"] = c["bone"]
    elif how == "offset":
        c["offset"] = rng.choice(BAD_OFFSETS)
    elif how == "no_target_bone":
        c["target"] = rng.choice(({"at": "tail"}, {}, {"bone": None}, {"bone": ""}))
    elif how == "position_target":
        c["target"] = rng.choice(
            ({"position": [0, 1, 0]}, {"position": [0, 1, 0], "position_keys": [[0, [0, 1, 0]]]})
        )
    elif how == "both_targets":
        c["target"]["position"] = [0, 1, 0]
    elif how == "at":
        c["target"]["at"] = rng.choice(("middle", "", None, 1))
    elif how == "space":
        c["space"] = rng.choice(("local", "parent", None, 0))
    elif how == "no_bone":
        del c["bone"]
    elif how == "extra_key":
        c[rng.choice(("influence", "pole", "chain", "relative_to"))] = 0.5
    elif how == "bone_type":
        c["bone"] = rng.choice((3, None, ["a"], {"bone": "x"}))
    elif how == "no_target":
        del c["target"]


def _insert(constraints: list, c: dict, rng: random.Random) -> None:
    constraints.insert(rng.randrange(len(constraints) + 1), c)


def _chains(constraints) -> list[list[str]]:
    return [
        c["chain"]
        for c in constraints
        if isinstance(c, dict)
        and c.get("type") == "fabrik"
        and isinstance(c.get("chain"), list)
        and c["chain"]
        and all(isinstance(b, str) for b in c["chain"])
    ]


def mutate_scene(value, kind: str, rng: random.Random) -> None:
    """One of :data:`SCENE_KINDS` on the scene ``value`` (nothing when it is no scene)."""
    parts = _parts(value)
    if parts is None:
        return
    names, constraints = parts
    if kind == "follows":
        bone = rng.choice(names)
        others = [n for n in names if n != bone] or names
        c = _a_follow(rng, bone, rng.choice(others))
        if rng.random() < 0.5:
            _break(c, rng)
        _insert(constraints, c, rng)
    elif kind == "relative_to":
        mps = [c for c in constraints if isinstance(c, dict) and c.get("type") == "multi_parent"]
        targets = (
            mps if mps and rng.random() < 0.9 else [c for c in constraints if isinstance(c, dict)]
        )
        if targets:
            rng.choice(targets)["relative_to"] = rng.choice(RELATIVE_TO)
    elif kind == "cycle":
        parents = {
            b["name"]: b.get("parent")
            for b in value["bones"]
            if isinstance(b, dict) and isinstance(b.get("name"), str)
        }
        _cycle(names, parents, constraints, rng)
    elif kind == "stack":
        _stack(names, constraints, rng)
    elif kind == "degenerate_follow":
        _degenerate(value, names, constraints, rng)


def _cycle(names, parents: dict, constraints, rng: random.Random) -> None:
    """Two or three constraints each reading what the next drives (a cycle), or a follow
    whose target is driven by a FABRIK chain that reads the follow's bone."""
    chains = _chains(constraints)
    if chains and rng.random() < 0.4:
        chain = rng.choice(chains)
        parent = parents.get(chain[0])
        # The chain reads its root's parent, and the follow drives it.
        if isinstance(parent, str) and parent in names:
            _insert(constraints, _a_follow(rng, parent, rng.choice(chain)), rng)
            return
    k = min(len(names), rng.choice((2, 3)))
    if k < 2:
        return
    ring = rng.sample(names, k)
    for i, bone in enumerate(ring):
        target = ring[(i + 1) % k]
        _insert(constraints, _aim_or_follow(rng, bone, target, 0.2), rng)


def _aim_or_follow(rng: random.Random, bone: str, target: str, aim: float) -> dict:
    """A points-at on ``bone`` at ``target`` (with probability ``aim``), else a follow kind."""
    if rng.random() < aim:
        return {
            "type": "points_at",
            "name": f"aim {rng.randrange(10**6)}",
            "bone": bone,
            "target": {"bone": target},
        }
    return _a_follow(rng, bone, target)


def _stack(names, constraints, rng: random.Random) -> None:
    """A follow (or points-at) on a bone another constraint drives: a FABRIK chain's bone
    when there is one, else a bone a second follow drives too."""
    chains = _chains(constraints)
    if chains:
        chain = rng.choice(chains)
        bone = rng.choice(chain)
        others = [n for n in names if n != bone] or names
        target = rng.choice(others)
        _insert(constraints, _aim_or_follow(rng, bone, target, 0.25), rng)
        return
    bone = rng.choice(names)
    others = [n for n in names if n != bone]
    if not others:
        return
    for _ in range(rng.choice((2, 3))):
        _insert(constraints, _a_follow(rng, bone, rng.choice(others)), rng)


def _degenerate(value, names, constraints, rng: random.Random) -> None:
    """A valid follow whose target (or whose bone's parent, or bone) is scaled to almost
    nothing, statically or by a key."""
    bone = rng.choice(names)
    others = [n for n in names if n != bone]
    if not others:
        return
    target = rng.choice(others)
    _insert(constraints, _a_follow(rng, bone, target), rng)
    bones = {
        b["name"]: b
        for b in value["bones"]
        if isinstance(b, dict) and isinstance(b.get("name"), str)
    }
    parent = bones[bone].get("parent") if isinstance(bones[bone], dict) else None
    choice = rng.random()
    squashed = (
        bones.get(parent)
        if choice < 0.25 and parent in bones
        else (bones[bone] if choice < 0.35 else bones[target])
    )
    scale = list(rng.choice(DEGENERATE_SCALES))
    if rng.random() < 0.7:
        squashed["scale"] = scale
    else:
        start = value.get("frame_start", 0)
        start = start if isinstance(start, (int, float)) and abs(start) < 1e6 else 0
        squashed["scale_keys"] = [[start, [1, 1, 1]], [start + rng.choice((1, 5)), scale]]


# --- glTF influences ---------------------------------------------------------------------


def break_influences(doc, rng: random.Random) -> None:
    """``JOINTS_1``/``WEIGHTS_1`` of a glTF document, broken: one without the other, an
    accessor of the wrong type, component type, count or index, or bad values written into
    the buffer (negative, NaN, huge weights; joints past the skin)."""
    try:
        attrs = doc["meshes"][0]["primitives"][0]["attributes"]
        accessors = doc["accessors"]
    except (KeyError, IndexError, TypeError):
        return
    if not isinstance(attrs, dict) or not isinstance(accessors, list):
        return
    key = rng.choice(("JOINTS_1", "WEIGHTS_1"))
    how = rng.randrange(9)
    if how == 0:
        attrs.pop(key, None)
    elif how == 1:
        attrs[key] = attrs.get("POSITION", 0)  # VEC3
    elif how == 2:
        attrs[key] = rng.choice((len(accessors), -1, 10**6, "1", 1.5, None))
    elif how == 3 and isinstance(attrs.get(key), int) and 0 <= attrs[key] < len(accessors):
        acc = accessors[attrs[key]]
        acc["componentType"] = rng.choice((5120, 5121, 5122, 5123, 5125, 5126, 1, None))
    elif how == 4 and isinstance(attrs.get(key), int) and 0 <= attrs[key] < len(accessors):
        acc = accessors[attrs[key]]
        acc["count"] = rng.choice((0, 1, acc.get("count", 1) - 1, acc.get("count", 1) + 1, 10**9))
    elif how == 5:
        attrs["JOINTS_1"], attrs["WEIGHTS_1"] = attrs.get("WEIGHTS_1"), attrs.get("JOINTS_1")
    elif how == 6:
        attrs["JOINTS_2"], attrs["WEIGHTS_2"] = attrs.get("JOINTS_1"), attrs.get("WEIGHTS_1")
    else:
        _poke_buffer(doc, attrs, key, rng)


def _poke_buffer(doc, attrs, key, rng: random.Random) -> None:
    """Bad values written into the buffer at ``key``'s accessor (a data-URI buffer)."""
    try:
        acc = doc["accessors"][attrs[key]]
        view = doc["bufferViews"][acc["bufferView"]]
        buffer = doc["buffers"][view["buffer"]]
        head, data = buffer["uri"].split(",", 1)
        raw = bytearray(base64.b64decode(data))
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        ctype, count = acc["componentType"], acc["count"]
    except (KeyError, IndexError, TypeError, ValueError):
        return
    size = {5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4}.get(ctype)
    if size is None or not count:
        return
    item = rng.randrange(count * 4)
    if ctype == 5126:
        value = rng.choice((-0.5, float("nan"), float("inf"), 1e38, 3e38, 1e-45, -0.0, 2.0))
        packed = np.array([value], "<f4").tobytes()
    else:
        packed = (rng.choice((8, 255, 65535, 7)) % (256**size)).to_bytes(size, "little")
    at = start + item * size
    if at + size <= len(raw):
        raw[at : at + size] = packed
        buffer["uri"] = head + "," + base64.b64encode(bytes(raw)).decode()
