"""The parts of the foot-roll rigs already in a scene, read back from their structure.

:func:`foot_rolls` finds every leg that carries the reverse foot of contract §F4, whatever the
items are called now (renames keep the structure): a constraint on the foot that follows a
bone ``B`` (the copy rotation), a multi-parent whose body is ``B`` (the roll), and a FABRIK on
the foot's calf and thigh reaching for ``B``'s head (the leg IK, its pole bone the knee's).
The control is ``B``'s parent when that parent is not above the leg (the rig of this
version: ``B`` is the roll body, the control's child); otherwise ``B`` is the control itself
(a rig built before the roll body existed, whose multi-parent drives the control).

Kinds are told apart by what they hold (``pivots``, ``chain``, a ``target``), never by name,
as everything outside the kind registries does (``docs/architecture.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scene.builders.leg_names import Leg, read_name
from app.scene.rig.model import Scene


@dataclass(frozen=True)
class FootRollParts:
    """The names of one leg's foot-roll rig in a scene.

    ``body`` is the bone the multi-parent rolls; on a rig built before the roll body it is
    the control itself (:attr:`rolls_the_control`). ``pole`` is ``None`` when the leg IK has
    no pole bone.
    """

    leg: Leg
    control: str
    body: str
    pole: str | None
    roll: str
    leg_ik: str
    follow: str

    @property
    def rolls_the_control(self) -> bool:
        """Whether this is a rig built before the roll body (the control rolls)."""
        return self.body == self.control


def _target_bone(constraint, field: str = "target") -> str | None:
    target = getattr(constraint, field, None)
    return None if target is None else target.bone


def _toes(scene: Scene, foot: str) -> str | None:
    """The foot's toes: its only child, else the child whose name reads as toes."""
    children = [b.name for b in scene.bones if b.parent == foot]
    if len(children) == 1:
        return children[0]
    named = [c for c in children if (read_name(c) or ("", ""))[1] == "toes"]
    return named[0] if named else None


def foot_rolls(scene: Scene) -> list[FootRollParts]:
    """Every foot-roll rig in ``scene`` (module docstring), in the order of their feet's
    copy rotations in the file."""
    parents = {b.name: b.parent for b in scene.bones}
    found = []
    for follow in scene.constraints:
        body = _target_bone(follow)
        driven = follow.driven_bones()
        if body is None or len(driven) != 1 or follow.is_chain:
            continue
        foot = driven[0]
        calf = parents.get(foot)
        thigh = parents.get(calf) if calf is not None else None
        if thigh is None:
            continue
        roll = next(
            (c for c in scene.constraints if c.has_pivots and c.driven_bones() == (body,)),
            None,
        )
        leg_ik = next(
            (
                c
                for c in scene.constraints
                if c.is_chain
                and tuple(c.driven_bones()) == (thigh, calf)
                and _target_bone(c) == body
            ),
            None,
        )
        if roll is None or leg_ik is None:
            continue
        above = set()
        bone = thigh
        while bone is not None:
            above.add(bone)
            bone = parents.get(bone)
        parent = parents.get(body)
        control = parent if parent is not None and parent not in above else body
        leg = Leg(thigh, calf, foot, _toes(scene, foot))
        found.append(
            FootRollParts(
                leg,
                control,
                body,
                _target_bone(leg_ik, "pole"),
                roll.name,
                leg_ik.name,
                follow.name,
            )
        )
    return found


def foot_roll_of(scene: Scene, foot: str) -> FootRollParts | None:
    """The rig on the leg whose foot is ``foot``, or ``None``."""
    return next((p for p in foot_rolls(scene) if p.leg.foot == foot), None)
