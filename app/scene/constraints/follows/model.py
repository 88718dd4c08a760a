"""The kinds that follow a bone as data: ``child_of``, ``copy_rotation`` and ``copy_location``
(``docs/scene-format.md``, contract §F2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.scene.rig.model import OneBoneOneTarget

#: ``offset`` values of the copy kinds (contract §F2).
OFFSETS = ("frame_start", "none")


@dataclass(frozen=True, kw_only=True)
class _BoneFollows(OneBoneOneTarget):
    """A bone that follows one target bone (the kinds of contract §F2).

    ``offset="frame_start"`` keeps the relation between bone and target at ``frame_start``
    (both as the constraints this one depends on leave them there); ``"none"`` takes the
    target's value as it is.
    """

    follows_a_bone = True
    #: Whether it goes to the target's head or tail (copy location), not the whole bone.
    follows_point: ClassVar[bool] = False
    offset: str = "frame_start"

    def target_bones(self):
        return (self.target.bone,) if self.target.bone else ()


@dataclass(frozen=True, kw_only=True)
class ChildOf(_BoneFollows):
    """The bone moves as if it were the target bone's child (``space`` changes nothing)."""

    type = "child_of"
    label = "child of"
    space_matters: ClassVar[bool] = False


@dataclass(frozen=True, kw_only=True)
class CopyRotation(_BoneFollows):
    """The bone's head stays where the hierarchy puts it; its rotation follows the target's."""

    type = "copy_rotation"
    label = "copy rotation"


@dataclass(frozen=True, kw_only=True)
class CopyLocation(_BoneFollows):
    """The bone's head goes to the target point; its rotation and scale are kept."""

    type = "copy_location"
    label = "copy location"
    follows_point = True

    def trail_point(self):
        return self.bone, "head"  # the point it places
