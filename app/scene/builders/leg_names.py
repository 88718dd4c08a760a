"""Which bones are the legs, for the foot-roll rig (contract §F4): read from the humanoid
map (:mod:`app.scene.retarget`), the one table of naming conventions shared with the
retarget.

A bone name is read as an optional namespace (``mixamorig:``), a side (``Left``/``Right``
or ``L``/``R`` as a prefix or suffix, with ``.``, ``_``, ``-``, a space or a change of case
between) and a part word (``thigh``, ``UpLeg``, ``UpperLeg``, ``calf``, ``Leg``, ``LowerLeg``,
``foot``, ``toes``, ``ToeBase``...): ``thigh.L``, ``Thigh_R``, ``LeftFoot``, ``right_calf``,
``mixamorig:LeftUpLeg``, ``UpperLegL``, ``upperleg.l`` all read. A scene's saved humanoid map
(the legs chosen bone by bone in the Foot Roll dialog, or corrected in the map's dialog) is
what the rig recognises first; without one, the automatic map (names, then the hierarchy's
shape for unnamed chains such as CesiumMan's ``node_7``).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scene.retarget import names
from app.scene.retarget.canonical import SIDES
from app.scene.retarget.map_file import map_of
from app.scene.rig.model import Scene

__all__ = ["SIDES", "Leg", "read_name", "recognised_legs", "leg_for_selection"]

#: The canonical leg parts -> the rig's words for them.
PARTS = {"thigh": "thigh", "shin": "calf", "foot": "foot", "toes": "toes"}


def read_name(name: str) -> tuple[str, str] | None:
    """``(side, part)`` of a leg bone's name (``("left", "foot")``; ``"calf"`` for the shin),
    or ``None``."""
    for reading in names.read(name):
        if reading.side is not None and reading.part in PARTS and reading.segment == 0:
            return reading.side, PARTS[reading.part]
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
    """The legs of ``scene``'s humanoid map (its saved map, else the automatic one) whose
    thigh, shin and foot form a parent → child chain (the toes when they are the foot's
    child); keyed by side."""
    mapping = map_of(scene)
    parents = {b.name: b.parent for b in scene.bones}
    legs = {}
    for side in SIDES:
        thigh, calf, foot, toes = mapping.leg(side)
        if thigh is None or calf is None or foot is None:
            continue
        if parents.get(calf) != thigh or parents.get(foot) != calf:
            continue
        legs[side] = Leg(thigh, calf, foot, toes if toes and parents.get(toes) == foot else None)
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


def side_of_leg(scene: Scene, leg: Leg) -> str:
    """Which side ``leg`` is on, by the shape: its thigh's head left or right of the bone it
    hangs from, the character's left being ``up × forward`` (forward from the way the foot
    and knee point)."""
    import numpy as np

    from app.scene.retarget.rest import UP, Rest
    from app.scene.retarget.shape import facing_from_legs

    rest = Rest.of(scene)
    chain = [rest.index(b) for b in leg.bones()]
    forward = facing_from_legs(rest, [chain])
    parent = rest.parents[chain[0]]
    top = rest.heads[parent] if parent >= 0 else np.zeros(3)
    return "left" if float((rest.heads[chain[0]] - top) @ np.cross(UP, forward)) >= 0 else "right"


def remembered(scene: Scene, leg: Leg, side: str) -> dict:
    """``scene``'s ``extra`` whose humanoid map (the saved one, else the automatic one) has
    ``leg`` as its ``side`` leg: a leg chosen bone by bone, kept in the scene."""
    from app.scene.retarget.map_file import with_map

    mapping = map_of(scene)
    for part, bone in zip(
        ("thigh", "shin", "foot", "toes"), (leg.thigh, leg.calf, leg.foot, leg.toes)
    ):
        mapping = mapping.with_bone(f"{side}_{part}", bone)
    return with_map(scene.extra, mapping)
