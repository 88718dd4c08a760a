"""The fuzzer's input classes for issue 27 (``docs/reliability.md``): the follow kinds under
squashed and squashed-then-turned parents, FABRIK under and through squashed bones, and FBX
files with edited numbers.

- ``squashed_follow``: a bone scaled to 0 (or almost nothing) on one or two axes, statically or
  by a key, often then turned by a points-at (its world is then singular only up to
  rounding), and a follow kind (any offset, space and end) driving one of its descendants,
  or reading one;
- ``squashed_chain``: a FABRIK chain (the scene's, or a new one down the hierarchy, reaching
  for a bone) whose parent, an ancestor or one of its own bones is squashed the same ways, or
  whose parent a ``child_of`` makes take a squashed bone's whole transform (a chain whose
  bones have no scale of their own, squashed by an upstream write); sometimes with limits on
  its bones and a pole;
- ``fbx_number``: an FBX file (binary or ASCII, ``tests/helpers/fbx_numbers.py``) with one
  number of a vertex, a skin cluster's ``Transform``/``TransformLink`` or a node's local
  translation, rotation or scaling set to NaN, an infinity, ``±1e308``, 0, ``5e-324`` or
  ``1e-300`` (or the whole vector or matrix to one of them).

Each scene mutation edits a parsed JSON value in place (``tests/helpers/fuzzing.py`` writes it
back).
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.helpers import fbx_numbers

SCENE_KINDS = ("squashed_follow", "squashed_chain")
FBX_KINDS = ("fbx_number",)
#: Scales that squash a bone: 0 or almost nothing on one axis, or on two.
SQUASHES = (
    [1, 0, 1],
    [0, 1, 1],
    [1, 1, 0],
    [1, 1e-300, 1],
    [5e-324, 1, 1],
    [1, 1, 1e-310],
    [1, 0, 0],
    [0, 1, 0],
    [1e-300, 1e-300, 1],
    [1, 2.2250738585072014e-308, 1],
    [2, 0, 0.5],
)
FOLLOW_TYPES = ("child_of", "copy_rotation", "copy_location")
#: FBX files of assimp's test models (Debian's ``assimp-testmodels``) that Pivotal reads, as
#: further bases: rigid meshes on many nodes (``spider``), ASCII files (``cubes_*``, 7.7's
#: ``maxPbrMaterial``) and global settings.
ASSIMP_FBX = Path("/usr/share/assimp/models/FBX")
ASSIMP_BASES = (
    "spider.fbx",
    "global_settings.fbx",
    "cubes_with_names.fbx",
    "cubes_with_outofrange_float.fbx",
    "maxPbrMaterial_metalRough.fbx",
    "box.fbx",
)


def fbx_bases() -> dict[str, bytes]:
    """``assimp_<name>`` -> bytes of :data:`ASSIMP_BASES` found on this machine."""
    return {
        f"assimp_{n}": (ASSIMP_FBX / n).read_bytes()
        for n in ASSIMP_BASES
        if (ASSIMP_FBX / n).is_file()
    }


def edit_fbx(data: bytes, rng: random.Random) -> bytes:
    """One number (or one whole vector or matrix) of an FBX file set to a hostile value."""
    try:
        kinds = [w for w in fbx_numbers.WHAT if fbx_numbers.places(data, w)]
        if not kinds:
            return data
        what = rng.choice(kinds)
        value = rng.choice(fbx_numbers.VALUES)
        whole = rng.random() < 0.3
        return fbx_numbers.edit(
            data, what, rng.randrange(1 << 20), rng.randrange(1 << 20), value, whole
        )
    except Exception:  # an earlier mutation broke the file's structure: a byte flip instead
        out = bytearray(data)
        if out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)


# --- scenes ------------------------------------------------------------------------------


def _hierarchy(value):
    """``{name: bone dict}`` and ``{name: parent name or None}`` of a scene value, or None."""
    bones = value.get("bones") if isinstance(value, dict) else None
    if not isinstance(bones, list):
        return None
    by_name = {
        b["name"]: b for b in bones if isinstance(b, dict) and isinstance(b.get("name"), str)
    }
    if not by_name:
        return None
    parents = {
        n: (b["parent"] if isinstance(b.get("parent"), str) and b["parent"] in by_name else None)
        for n, b in by_name.items()
    }
    if not isinstance(value.get("constraints"), list):
        value["constraints"] = []
    return by_name, parents


def _descendants(parents, name) -> list[str]:
    children = {}
    for n, p in parents.items():
        children.setdefault(p, []).append(n)
    out, stack = [], list(children.get(name, []))
    while stack and len(out) < 200:
        n = stack.pop()
        out.append(n)
        stack.extend(children.get(n, []))
    return out


def _ancestors(parents, name) -> list[str]:
    out, seen = [], {name}
    p = parents.get(name)
    while p is not None and p not in seen and len(out) < 200:
        out.append(p)
        seen.add(p)
        p = parents.get(p)
    return out


def _frame_range(value) -> tuple[float, float]:
    f0, f1 = value.get("frame_start", 0), value.get("frame_end", 0)
    ok = all(
        isinstance(f, (int, float)) and not isinstance(f, bool) and abs(f) < 1e6 for f in (f0, f1)
    )
    return (f0, f1) if ok and f1 >= f0 else (0, 0)


def _squash(bone: dict, value, rng: random.Random) -> None:
    scale = list(rng.choice(SQUASHES))
    if rng.random() < 0.7:
        bone["scale"] = scale
        bone.pop("scale_keys", None)
        return
    f0, f1 = _frame_range(value)
    mid = f0 + rng.choice((1, max(1, (f1 - f0) // 2)))
    keys = [[f0, [1, 1, 1]], [mid, scale]]
    bone["scale_keys"] = keys if rng.random() < 0.5 else [[f0, scale], [mid, [1, 1, 1]]]


def _moving_target(value, rng: random.Random) -> dict:
    f0, f1 = _frame_range(value)
    points = [
        [round(rng.uniform(-2, 2), 3), round(rng.uniform(-1, 3), 3), round(rng.uniform(-2, 2), 3)]
        for _ in range(3)
    ]
    times = [f0, (f0 + f1) / 2, f1] if f1 > f0 else [f0, f0 + 1, f0 + 2]
    return {"position": points[0], "position_keys": [[t, p] for t, p in zip(times, points)]}


def _aim(bone: str, value, rng: random.Random) -> dict:
    """A points-at turning ``bone`` after its squash (its world then singular to rounding)."""
    return {
        "type": "points_at",
        "name": f"turn {rng.randrange(10**6)}",
        "bone": bone,
        "space": rng.choice(("world", "object")),
        "target": _moving_target(value, rng),
    }


def _follow(bone: str, target: str, rng: random.Random) -> dict:
    c = {
        "type": rng.choice(FOLLOW_TYPES),
        "name": f"follow {rng.randrange(10**6)}",
        "bone": bone,
        "target": {"bone": target},
    }
    if rng.random() < 0.5:
        c["target"]["at"] = rng.choice(("head", "tail"))
    c["offset"] = rng.choice(("frame_start", "frame_start", "none"))
    c["space"] = rng.choice(("world", "object"))
    return c


def squashed_follow(value, rng: random.Random) -> None:
    """See the module docstring."""
    found = _hierarchy(value)
    if found is None:
        return
    by_name, parents = found
    constraints = value["constraints"]
    with_children = [n for n in by_name if _descendants(parents, n)]
    if not with_children:
        return
    squashed = rng.choice(with_children)
    _squash(by_name[squashed], value, rng)
    if rng.random() < 0.6:  # then turned: the squashed frame's world is singular to rounding
        constraints.insert(0, _aim(squashed, value, rng))
    below = _descendants(parents, squashed)
    others = [n for n in by_name if n not in below and n != squashed] or [squashed]
    if rng.random() < 0.75:  # a follow driving a bone under the squash
        bone, target = rng.choice(below[:6]), rng.choice(others + below)
    else:  # a follow reading a bone under the squash
        target = rng.choice(below[:6] + [squashed])
        candidates = [
            n
            for n in by_name
            if n != target and n not in _ancestors(parents, target) and n != squashed
        ] or [n for n in by_name if n != target]
        if not candidates:
            return
        bone = rng.choice(candidates)
    if bone == target:
        return
    constraints.append(_follow(bone, target, rng))


def _limit(rng: random.Random) -> dict:
    if rng.random() < 0.6:
        limit = {"cone": rng.choice((10, 30, 60, 90, 150))}
        if rng.random() < 0.3:
            limit["twist"] = {"min": -20, "max": 30}
        return limit
    axis = rng.choice(([1, 0, 0], [0, 0, 1], [0.6, 0, 0.8]))
    return {"hinge": {"axis": axis, "min": rng.choice((-90, 0, 10)), "max": rng.choice((45, 120))}}


def _a_chain(by_name, parents, rng: random.Random) -> list[str] | None:
    """A new chain of one to three bones, each the parent of the next."""
    starts = [n for n in by_name if parents.get(n) is not None] or list(by_name)
    start = rng.choice(starts)
    chain = [start]
    for _ in range(rng.randint(0, 2)):
        kids = [n for n, p in parents.items() if p == chain[-1]]
        if not kids:
            break
        chain.append(rng.choice(kids))
    return chain


def squashed_chain(value, rng: random.Random) -> None:
    """See the module docstring."""
    found = _hierarchy(value)
    if found is None:
        return
    by_name, parents = found
    constraints = value["constraints"]
    chains = [
        c
        for c in constraints
        if isinstance(c, dict)
        and c.get("type") == "fabrik"
        and isinstance(c.get("chain"), list)
        and c["chain"]
        and all(isinstance(b, str) and b in by_name for b in c["chain"])
    ]
    if chains and rng.random() < 0.6:
        fabrik = rng.choice(chains)
        chain = fabrik["chain"]
    else:
        chain = _a_chain(by_name, parents, rng)
        outside = [n for n in by_name if n not in chain]
        target = (
            {"bone": rng.choice(outside)}
            if outside and rng.random() < 0.5
            else (_moving_target(value, rng))
        )
        fabrik = {
            "type": "fabrik",
            "name": f"reach {rng.randrange(10**6)}",
            "chain": chain,
            "target": target,
            "space": rng.choice(("world", "object")),
        }
        constraints.append(fabrik)
    if rng.random() < 0.5:
        fabrik["limits"] = {b: _limit(rng) for b in chain if rng.random() < 0.7}
    if rng.random() < 0.2:
        fabrik["pole"] = _moving_target(value, rng)
    if rng.random() < 0.5:
        fabrik["space"] = rng.choice(("world", "object"))
    above = _ancestors(parents, chain[0])
    where = rng.random()
    if where < 0.4 and above:  # under: the chain's parent or an ancestor
        _squash(by_name[rng.choice(above[:3])], value, rng)
    elif where < 0.75:  # through: one of its own bones
        _squash(by_name[rng.choice(chain)], value, rng)
    elif above:  # an upstream write: the parent takes a squashed bone's whole transform
        outside = [
            n
            for n in by_name
            if n not in chain and n not in above and n not in _descendants(parents, chain[0])
        ]
        if not outside:
            return
        flat = rng.choice(outside)
        _squash(by_name[flat], value, rng)
        constraints.insert(
            0,
            {
                "type": "child_of",
                "name": f"squash {rng.randrange(10**6)}",
                "bone": above[0],
                "target": {"bone": flat},
                "offset": "none",
            },
        )
    if rng.random() < 0.4 and above:  # and the parent turned after its squash
        constraints.insert(0, _aim(above[0], value, rng))


def mutate_scene(value, kind: str, rng: random.Random) -> None:
    """One of :data:`SCENE_KINDS` on the scene ``value`` (nothing when it is no scene)."""
    if kind == "squashed_follow":
        squashed_follow(value, rng)
    elif kind == "squashed_chain":
        squashed_chain(value, rng)
