"""Which bones are the legs: name recognition for the foot-roll rig (contract §F4).

A bone name is read as an optional namespace (``mixamorig:``), a side (``Left``/``Right``
or ``L``/``R`` as a prefix or suffix, with ``.``, ``_``, ``-`` or nothing between) and a
part word (``thigh``, ``UpLeg``, ``calf``, ``Leg``, ``foot``, ``toes``, ``ToeBase``...).
``thigh.L``, ``Thigh_R``, ``LeftFoot``, ``right_calf``, ``mixamorig:LeftUpLeg`` all read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.scene.rig.model import Scene

SIDES = ("left", "right")

#: part words (lower case, separators removed) -> part of the leg
PARTS = {
    "thigh": "thigh", "upleg": "thigh", "upperleg": "thigh", "legupper": "thigh",
    "calf": "calf", "shin": "calf", "leg": "calf", "lowerleg": "calf", "leglower": "calf",
    "knee": "calf",
    "foot": "foot", "ankle": "foot",
    "toes": "toes", "toe": "toes", "toebase": "toes", "ball": "toes",
}  # fmt: skip

_SIDE_WORDS = {"left": "left", "right": "right", "l": "left", "r": "right"}
_SUFFIX = re.compile(
    r"^(?P<base>.+?)[._\- ]?(?P<side>left|right)$|^(?P<b2>.+?)[._\- ](?P<s2>[lr])$", re.IGNORECASE
)
_PREFIX = re.compile(
    r"^(?P<side>left|right)[._\- ]?(?P<base>.+)$|^(?P<s2>[lr])[._\- ](?P<b2>.+)$", re.IGNORECASE
)


def read_name(name: str) -> tuple[str, str] | None:
    """``(side, part)`` of a leg bone's name (``("left", "foot")``), or ``None``."""
    bare = name.rsplit(":", 1)[-1].strip()
    for pattern in (_SUFFIX, _PREFIX):
        m = pattern.match(bare)
        if not m:
            continue
        side = m.group("side") or m.group("s2")
        base = m.group("base") or m.group("b2")
        part = PARTS.get(re.sub(r"[._\- ]", "", base).lower())
        if part is not None:
            return _SIDE_WORDS[side.lower()], part
    return None


@dataclass(frozen=True)
class Leg:
    """A leg chain by bone names: each the parent of the next; ``toes`` may be ``None``."""

    thigh: str
    calf: str
    foot: str
    toes: str | None = None

    def bones(self) -> tuple[str, ...]:
        return (self.thigh, self.calf, self.foot) + ((self.toes,) if self.toes else ())


def recognised_legs(scene: Scene) -> dict[str, Leg]:
    """The legs whose bone names read (:func:`read_name`) as one side's thigh, calf and foot
    (toes when there are) and that form a parent→child chain; keyed by side."""
    parents = {b.name: b.parent for b in scene.bones}
    found: dict[tuple[str, str], list[str]] = {}
    for b in scene.bones:
        read = read_name(b.name)
        if read is not None:
            found.setdefault(read, []).append(b.name)
    legs = {}
    for side in SIDES:
        for foot in found.get((side, "foot"), []):
            calf = parents.get(foot)
            thigh = parents.get(calf) if calf else None
            if calf is None or thigh is None:
                continue
            if read_name(calf) != (side, "calf") or read_name(thigh) != (side, "thigh"):
                continue
            toes = [t for t in found.get((side, "toes"), []) if parents.get(t) == foot]
            legs[side] = Leg(thigh, calf, foot, toes[0] if toes else None)
            break
    return legs


def leg_for_selection(scene: Scene, selected, fallback: bool = True) -> Leg | None:
    """The leg the selection points at: a recognised leg holding a selected bone, else the
    selected bones themselves when they make a thigh → calf → foot (→ toes) chain, else
    (with ``fallback``) the first recognised leg (left before right); ``None`` when there is
    nothing to offer."""
    legs = recognised_legs(scene)
    selected = [s for s in selected if s in {b.name for b in scene.bones}]
    for name in reversed(selected):
        for side in SIDES:
            if side in legs and name in legs[side].bones():
                return legs[side]
    chain = _chain(scene, selected)
    if chain is not None or not fallback:
        return chain
    return next((legs[s] for s in SIDES if s in legs), None)


def _chain(scene: Scene, names) -> Leg | None:
    if len(set(names)) not in (3, 4):
        return None
    parents = {b.name: b.parent for b in scene.bones}
    members = set(names)
    tops = [n for n in members if parents[n] not in members]
    if len(tops) != 1:
        return None
    order = [tops[0]]
    while len(order) < len(members):
        children = [n for n in members if parents[n] == order[-1]]
        if len(children) != 1:
            return None
        order.append(children[0])
    return Leg(*order)
