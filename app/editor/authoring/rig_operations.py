"""Rig ▸ Foot Roll Rig…: the reverse foot (contract §F4) added as one undo step.

The pure builder (:mod:`app.scene.builders.foot_roll`) makes the items; one
:class:`~app.editor.authoring.bone_commands.SetRig` puts them in the scene, so a single undo
takes the whole rig away and redo puts back the same items.
"""

from __future__ import annotations

import dataclasses

from app.editor.authoring.bone_commands import SetRig
from app.editor.operations import OperationError
from app.scene.builders.foot_roll import FootRoll, FootRollError, build_foot_roll, check_leg
from app.scene.builders.leg_names import (
    SIDES,
    Leg,
    leg_for_selection,
    recognised_legs,
    remembered,
)
from app.scene.rig.editing import Ref


def suggested_leg(document, side: str | None = None) -> Leg | None:
    """The leg to offer: ``side``'s recognised leg (``"left"``/``"right"``) when given and
    found, else the one the selection points at, else the first recognised leg that has no
    rig yet (left before right), else the first recognised one."""
    scene = document.scene
    legs = recognised_legs(scene)
    if side is not None and side in legs:
        return legs[side]
    selected = leg_for_selection(scene, document.selected_bones(), fallback=False)
    if selected is not None:
        return selected
    found = [legs[s] for s in SIDES if s in legs]
    for leg in found:
        try:
            check_leg(scene, leg)
        except FootRollError:
            continue
        return leg
    return found[0] if found else None


def add_foot_roll_rig(document, leg: Leg | None = None, remember: str | None = None) -> FootRoll:
    """Build the foot-roll rig on ``leg`` (the suggested one when ``None``) as one command;
    selects the new control. ``remember`` (``"left"``/``"right"``) keeps the leg in the
    scene's humanoid map as that side's, in the same undo step (a leg chosen bone by bone)."""
    leg = leg or suggested_leg(document)
    if leg is None:
        raise OperationError("Select the leg first: its thigh, calf and foot (and the toes)")
    try:
        built = build_foot_roll(document.scene, leg)
    except FootRollError as e:
        raise OperationError(str(e)) from None
    text = f"Add foot-roll rig on {leg.foot}"
    rig = built.rig
    if remember is not None:
        rig = dataclasses.replace(rig, extra=remembered(document.scene, leg, remember))
    document.push(SetRig(document, rig, text, [Ref.bone(built.control)]))
    document.notify(f"{text}: key the pivots of {built.roll} to roll the foot (Ctrl+Z undoes)")
    return built
