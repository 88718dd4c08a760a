"""Rig ▸ Foot Roll Rig…: the reverse foot (contract §F4) added as one undo step.

The pure builder (:mod:`app.scene.builders.foot_roll`) makes the items; one
:class:`~app.editor.authoring.bone_commands.SetRig` puts them in the scene, so a single undo
takes the whole rig away and redo puts back the same items.
"""

from __future__ import annotations

from app.editor.authoring.bone_commands import SetRig
from app.editor.operations import OperationError
from app.scene.builders.foot_roll import FootRoll, FootRollError, build_foot_roll
from app.scene.builders.leg_names import Leg, leg_for_selection, recognised_legs
from app.scene.rig.editing import Ref


def suggested_leg(document, side: str | None = None) -> Leg | None:
    """The leg to offer: ``side``'s recognised leg (``"left"``/``"right"``) when given and
    found, else the one the selection points at."""
    if side is not None and side in (legs := recognised_legs(document.scene)):
        return legs[side]
    return leg_for_selection(document.scene, document.selected_bones())


def add_foot_roll_rig(document, leg: Leg | None = None) -> FootRoll:
    """Build the foot-roll rig on ``leg`` (the suggested one when ``None``) as one command;
    selects the new control."""
    leg = leg or suggested_leg(document)
    if leg is None:
        raise OperationError("Select the leg first: its thigh, calf and foot (and the toes)")
    try:
        built = build_foot_roll(document.scene, leg)
    except FootRollError as e:
        raise OperationError(str(e)) from None
    text = f"Add foot-roll rig on {leg.foot}"
    document.push(SetRig(document, built.rig, text, [Ref.bone(built.control)]))
    document.notify(f"{text}: key the pivots of {built.roll} to roll the foot (Ctrl+Z undoes)")
    return built
