"""Rig ▸ Foot Roll Rig…: the reverse foot (contract §F4) added as one undo step.

The pure builder (:mod:`app.scene.builders.foot_roll`) makes the items; one
:class:`~app.editor.operations.bone_commands.SetRig` puts them in the scene, so a single undo
takes the whole rig away and redo puts back the same items. What a leg lacks that the dialog
can mend (a foot without length) is one more undoable edit, :func:`give_foot_length`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.editor.operations.base import OperationError, replace
from app.editor.operations.bone_commands import SetRig
from app.scene.builders.foot_roll import (
    MOTION,
    FootRoll,
    FootRollError,
    build_foot_roll,
    check_leg,
)
from app.scene.builders.foot_sole import foot_tail
from app.scene.builders.leg_names import (
    SIDES,
    Leg,
    leg_for_selection,
    recognised_legs,
    remembered,
)
from app.scene.evaluate import bake
from app.scene.rig import bone_edits
from app.scene.rig.refs import Ref


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


def leg_moves(scene, leg: Leg) -> bool:
    """Whether the leg is animated: one of its bones, or a bone above it, has keys that
    change (what the dialog says before building; the builder measures the motion itself)."""
    parents = {b.name: b.parent for b in scene.bones}
    names, bone = set(leg.bones()), parents.get(leg.thigh)
    while bone is not None:
        names.add(bone)
        bone = parents.get(bone)
    for b in scene.bones:
        if b.name not in names:
            continue
        for keys in (b.translation_keys, b.rotation_keys, b.scale_keys):
            if keys is not None and len(keys.values) > 1 and np.ptp(keys.values, axis=0).max() > 0:
                return True
    return False


def add_foot_roll_rig(
    document, leg: Leg | None = None, keyed: str = MOTION, remember: str | None = None
) -> FootRoll:
    """Build the foot-roll rig on ``leg`` (the suggested one when ``None``) as one command,
    keyed from the leg's motion (``"motion"``) or at rest (``"rest"``); selects the new
    control. ``remember`` (``"left"``/``"right"``) keeps the leg in the scene's humanoid map
    as that side's, in the same undo step (a leg chosen bone by bone)."""
    leg = leg or suggested_leg(document)
    if leg is None:
        raise OperationError("Select the leg first: its thigh, calf and foot (and the toes)")
    try:
        built = build_foot_roll(document.scene, leg, keyed)
    except FootRollError as e:
        raise OperationError(str(e)) from None
    text = f"Add foot-roll rig on {leg.foot}"
    rig = built.rig
    if remember is not None:
        rig = dataclasses.replace(rig, extra=remembered(document.scene, leg, remember))
    document.push(SetRig(document, rig, text, [Ref.bone(built.control)]))
    document.notify(f"{text}: {next_steps(built)} (Ctrl+Z undoes)")
    return built


def next_steps(built: FootRoll) -> str:
    """What comes after building, in the status bar's words."""
    if built.keyed == MOTION:
        return (
            f"{built.control} and {built.pole} carry the leg's motion, keyed on every "
            f"frame; key the pivots of {built.roll} to roll the foot"
        )
    return f"move and key {built.control} to step, key the pivots of {built.roll} to roll the foot"


def give_foot_length(document, leg: Leg) -> None:
    """Give the foot a tail to the ball of the foot (:func:`~app.scene.builders.foot_sole.
    foot_tail`), one undo step: what the dialog offers for "the foot has no length"."""
    scene = document.scene
    pose = bake(scene, np.array([float(scene.frame_start)]))
    tail = foot_tail(scene, leg, pose)
    new = bone_edits.with_bone_rest(scene.bone(leg.foot), tail=tail)
    replace(document, Ref.bone(leg.foot), new, f"Give {leg.foot} a length")
    document.notify(f"{leg.foot} reaches the ball of its foot now (its tail; Ctrl+Z undoes)")
