"""A character's humanoid map: canonical bones (:mod:`.canonical`) -> its own bones.

:func:`automatic_map` fills it in from the names (:mod:`.names`, the one table of
conventions) and, where the names say nothing, from the shape of the hierarchy
(:mod:`.shape`). The names are kept only where the hierarchy agrees:

- a leg's shin is the best-read shin below its thigh, the foot the best below the shin
  (or, failing that, anywhere: three.js's RobotExpressive keeps its feet under an IK bone),
  the toes the best below the foot; an arm the same way from its upper arm, and the
  shoulder above the upper arm (so Mixamo's ``LeftShoulder`` is the clavicle and
  Biovision's, above ``LeftElbow``, the upper arm);
- the hips are the best-read hips above both thighs, else the lowest bone above both
  (RobotExpressive's ``Body``, whose child ``Hips`` does not carry the legs);
- the neck is the highest-read neck above the head; the spine chain is the bones between
  the hips and the neck: its first ``spine``, its last (where the arms branch) ``upper_chest``
  and its middle ``chest``;
- a leaf that only carries a rigid mesh, and any helper (an end, a twist, an IK or control
  bone), is never mapped.

The map a scene saves (``"humanoid"``, :mod:`.map_file`) replaces the automatic one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from app.scene.retarget import names, shape
from app.scene.retarget.canonical import ARM, BONES, FINGERS, LEG, PARENT, SIDES, label, side_of
from app.scene.retarget.rest import UP, Rest
from app.scene.rig.model import Scene


@dataclass(frozen=True)
class HumanoidMap:
    """Canonical bone -> the character's bone (only the mapped ones, in canonical order)."""

    bones: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self):
        ordered = {c: self.bones[c] for c in BONES if self.bones.get(c)}
        object.__setattr__(self, "bones", ordered)

    def get(self, canonical: str) -> str | None:
        return self.bones.get(canonical)

    def canonical_of(self, bone: str) -> str | None:
        """The canonical bone ``bone`` is mapped to, or ``None``."""
        return next((c for c, b in self.bones.items() if b == bone), None)

    def with_bone(self, canonical: str, bone: str | None) -> HumanoidMap:
        """The map with ``canonical`` on ``bone`` (``None`` unmaps it); another canonical
        bone on the same bone lets go of it (a bone is mapped once)."""
        out = {c: b for c, b in self.bones.items() if c != canonical and b != bone}
        if bone is not None:
            out[canonical] = bone
        return HumanoidMap(out)

    def renamed(self, old: str, new: str) -> HumanoidMap:
        return HumanoidMap({c: (new if b == old else b) for c, b in self.bones.items()})

    def without(self, gone) -> HumanoidMap:
        gone = set(gone)
        return HumanoidMap({c: b for c, b in self.bones.items() if b not in gone})

    def leg(self, side: str) -> tuple[str | None, ...]:
        """``(thigh, shin, foot, toes)`` of ``side`` (``None`` where unmapped)."""
        return tuple(self.bones.get(f"{side}_{p}") for p in LEG)

    def __len__(self):
        return len(self.bones)


def _key(rest: Rest, bone: int, reading: names.Reading, joints: set):
    """How strongly ``bone`` is the reading's bone: a main segment, the word's usual sense,
    a skin joint, nearer the root, earlier in the file."""
    return (reading.segment == 0, reading.strength, bone in joints, -int(rest.depth[bone]), -bone)


def _candidates(scene: Scene, rest: Rest) -> dict[str, list[int]]:
    """Canonical bone (``spine`` for the chain) -> bones whose names read as it, best first."""
    joints = {
        rest.index(j)
        for m in scene.meshes
        if len(m.joints) > 1
        for j in m.joints
        if j in rest.names
    }
    found: dict[str, list] = {}
    for i, name in enumerate(rest.names):
        if i in rest.rigid_leaves:
            continue
        for reading in names.read(name):
            found.setdefault(reading.canonical(), []).append((_key(rest, i, reading, joints), i))
    return {c: [b for _, b in sorted(v, reverse=True)] for c, v in found.items()}


class _Chooser:
    """The map being filled: bones taken once, choices checked against the hierarchy."""

    def __init__(self, rest: Rest, candidates: dict):
        self.rest = rest
        self.candidates = candidates
        self.chosen: dict[str, int] = {}

    def taken(self) -> set:
        return set(self.chosen.values())

    def pick(
        self,
        canonical: str,
        below: int | None = None,
        above: int | None = None,
        anywhere: bool = True,
    ) -> int | None:
        """Choose ``canonical``'s best candidate below ``below`` and above ``above`` (each
        excluded), else (with ``anywhere``) its best candidate."""
        free = [b for b in self.candidates.get(canonical, ()) if b not in self.taken()]
        rest = self.rest
        fits = [
            b
            for b in free
            if (below is None or (b != below and rest.is_ancestor(below, b)))
            and (above is None or (b != above and rest.is_ancestor(b, above)))
        ]
        choice = fits[0] if fits else (free[0] if free and anywhere else None)
        if choice is not None:
            self.chosen[canonical] = choice
        return choice


def automatic_map(scene: Scene, rest: Rest | None = None) -> HumanoidMap:
    """The map read from ``scene``'s bone names and, where they say nothing, its shape."""
    rest = rest or Rest.of(scene)
    pick = _Chooser(rest, _candidates(scene, rest))
    for side in SIDES:
        _limb(pick, side, LEG, loose=("foot",))
        _limb(pick, side, ARM[1:], loose=())
        upper = pick.chosen.get(f"{side}_upper_arm")
        if upper is not None:
            pick.pick(f"{side}_shoulder", above=upper, anywhere=False)
    _body(pick)
    _by_shape(pick)
    _fingers(pick)
    return HumanoidMap({c: rest.names[b] for c, b in pick.chosen.items()})


def _limb(pick: _Chooser, side: str, parts, loose) -> None:
    """Each part below the one before it; a part in ``loose`` may sit anywhere."""
    previous = None
    for part in parts:
        canonical = f"{side}_{part}"
        if previous is None:
            previous = pick.pick(canonical)
            continue
        found = pick.pick(canonical, below=previous, anywhere=part in loose)
        if found is None:
            return
        previous = found


def _body(pick: _Chooser) -> None:
    rest, chosen = pick.rest, pick.chosen
    thighs = [chosen[f"{s}_thigh"] for s in SIDES if f"{s}_thigh" in chosen]
    hips = None
    for b in pick.candidates.get("hips", ()):
        if b not in pick.taken() and all(rest.is_ancestor(b, t) and b != t for t in thighs):
            hips = b
            break
    if hips is None and len(thighs) == 2:
        hips = rest.common_ancestor(thighs)
    if hips is None:
        return
    chosen["hips"] = hips
    head = pick.pick("head", below=hips, anywhere=False)
    neck = None
    if head is not None:
        necks = [
            b
            for b in pick.candidates.get("neck", ())
            if b not in pick.taken()
            and b != hips
            and rest.is_ancestor(hips, b)
            and rest.is_ancestor(b, head)
            and b != head
        ]
        if necks:
            neck = min(necks, key=lambda b: rest.depth[b])
            chosen["neck"] = neck
    _spine(pick, hips, neck if neck is not None else head)


def _branch(pick: _Chooser, hips: int) -> int | None:
    """Where the arms branch off the body: the lowest bone above both arms' first bones."""
    rest, chosen = pick.rest, pick.chosen
    firsts = [chosen.get(f"{s}_shoulder", chosen.get(f"{s}_upper_arm")) for s in SIDES]
    if None in firsts:
        return None
    branch = rest.common_ancestor(firsts)
    if branch is None or branch == hips or not rest.is_ancestor(hips, branch):
        return None
    while branch in firsts:
        branch = int(rest.parents[branch])
    return branch


def _spine(pick: _Chooser, hips: int, top: int | None) -> None:
    """``spine``, ``chest``, ``upper_chest`` along the bones from the hips up to the arms'
    branch (below ``top``, the neck or head); the neck by shape when unnamed."""
    rest, chosen = pick.rest, pick.chosen
    branch = _branch(pick, hips)
    if top is not None:
        between = rest.path(hips, top)[1:-1]
        if branch is not None and branch in between:
            chain = between[: between.index(branch) + 1]
            after = between[between.index(branch) + 1 :]
            if "neck" not in chosen and after and chosen.get("head") == top:
                chosen["neck"] = after[0]
        else:
            chain = between
    elif branch is not None:
        chain = rest.path(hips, branch)[1:]
    else:
        return
    chain = [b for b in chain if b not in pick.taken()]
    if not chain:
        return
    chosen["spine"] = chain[0]
    if len(chain) >= 2:
        chosen["upper_chest" if len(chain) >= 3 else "chest"] = chain[-1]
    if len(chain) >= 3:
        chosen["chest"] = chain[len(chain) // 2]


def _by_shape(pick: _Chooser) -> None:
    """Legs, hips, spine, neck, head and arms from the shape where the names left them out."""
    rest, chosen = pick.rest, pick.chosen
    legs_named = all(f"{s}_{p}" in chosen for s in SIDES for p in ("thigh", "shin"))
    if not legs_named:
        found = shape.find_legs(rest, skip=pick.taken())
        if found is None:
            return
        hips, chains = found
        forward = shape.facing_from_legs(rest, chains)
        left = np.cross(UP, forward)
        parts = [shape.leg_parts(rest, c) for c in chains]
        if not all(p.get("thigh") is not None for p in parts):
            return
        sides = [float((rest.heads[p["thigh"]] - rest.heads[hips]) @ left) for p in parts]
        order = ("left", "right") if sides[0] >= sides[1] else ("right", "left")
        for side, found_parts in zip(order, parts):
            for part, bone in found_parts.items():
                chosen.setdefault(f"{side}_{part}", bone)
        chosen.setdefault("hips", hips)
    hips = chosen.get("hips")
    if hips is None:
        return
    arms_named = all(f"{s}_upper_arm" in chosen for s in SIDES)
    if arms_named and "head" in chosen:
        return
    thighs = [[chosen[f"{s}_thigh"]] for s in SIDES if f"{s}_thigh" in chosen]
    legs = [[chosen.get(f"{s}_{p}") for p in ("thigh", "shin", "foot", "toes")] for s in SIDES]
    legs = [[b for b in leg if b is not None] for leg in legs]
    forward = shape.facing_from_sides(rest, *thighs) if len(thighs) == 2 else None
    if forward is None:
        forward = shape.facing_from_legs(rest, legs)
    leg_bones = {b for leg in legs for b in leg}
    limbs = {b for c, b in chosen.items() if side_of(c) is not None}
    helpers = {i for i, n in enumerate(rest.names) if names.is_helper(n)}
    central = shape.climb(rest, hips, skip=leg_bones | limbs | helpers)
    if not arms_named:
        found = shape.find_arms(rest, central[1:], np.cross(UP, forward), skip=leg_bones | helpers)
        if found is None:
            return
        _, arms = found
        for side, chain in arms.items():
            for part, bone in shape.arm_parts(rest, chain).items():
                chosen.setdefault(f"{side}_{part}", bone)
    if "head" not in chosen and len(central) > 1 and central[-1] not in pick.taken():
        chosen["head"] = central[-1]
    if "spine" not in chosen:
        _spine(pick, hips, chosen.get("neck", chosen.get("head")))
    branch = _branch(pick, hips)
    head = chosen.get("head")
    if "neck" not in chosen and head is not None and branch is not None:
        if rest.is_ancestor(branch, head):
            between = rest.path(branch, head)[1:-1]
            if between and between[0] not in pick.taken():
                chosen["neck"] = between[0]


def _fingers(pick: _Chooser) -> None:
    """Finger joints below their hand (and each below the joint before it)."""
    chosen = pick.chosen
    for side in SIDES:
        hand = chosen.get(f"{side}_hand")
        if hand is None:
            continue
        for finger in FINGERS:
            above = hand
            for k in (1, 2, 3):
                found = pick.pick(f"{side}_{finger}_{k}", below=above, anywhere=False)
                if found is None:
                    break
                above = found


def notes(scene: Scene, mapping: HumanoidMap) -> list[str]:
    """What a map is missing or does that the animator should know, in words: no hips; a
    limb without its middle; a bone not below the bone of its canonical parent (the retarget
    then places it from that bone, as for an IK rig's feet)."""
    out = []
    if mapping.get("hips") is None:
        out.append("No hips: nothing carries the motion. Choose the hips.")
    rest = Rest.of(scene)
    index = {n: i for i, n in enumerate(rest.names)}
    for canonical, bone in mapping.bones.items():
        parent = PARENT[canonical]
        while parent is not None and mapping.get(parent) is None:
            parent = PARENT[parent]
        if parent is None or bone not in index or mapping.get(parent) not in index:
            continue
        above = mapping.get(parent)
        if not rest.is_ancestor(index[above], index[bone]):
            out.append(
                f"{label(canonical)} {bone} is not below the {label(parent).lower()} "
                f"{above}: the retarget places it from there."
            )
    return out
