"""The ``limit_distance`` constraint as data: a bone's head kept inside, outside or on a
sphere about a target bone's head or tail (``docs/scene-format.md``, "limit_distance")."""

from __future__ import annotations

from dataclasses import dataclass

from app.scene.rig.model import OneBoneOneTarget

#: ``mode`` values: where the head may be relative to the sphere.
MODES = ("inside", "outside", "surface")
#: Words for each mode (the inspector's choices and the undo names), Blender's.
MODE_WORDS = {"inside": "Inside", "outside": "Outside", "surface": "On Surface"}


@dataclass(frozen=True, kw_only=True)
class LimitDistance(OneBoneOneTarget):
    """The bone's head ``p`` kept at a distance from the target point ``c`` (a bone's head or
    tail): ``inside`` (``|p - c| <= distance``), ``outside`` (``>=``) or on the ``surface``
    (``=``). ``distance=None``: the distance at ``frame_start`` on the pose the constraints
    before it leave (Blender's "Reset Distance"). Only the head moves: the bone keeps its
    rotation and scale, its descendants follow."""

    type = "limit_distance"
    label = "limit distance"
    mode: str = "inside"
    distance: float | None = None

    def target_bones(self):
        return (self.target.bone,) if self.target.bone else ()

    def trail_point(self):
        return self.bone, "head"  # the point it limits
