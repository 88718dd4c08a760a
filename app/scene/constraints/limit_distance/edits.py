"""Pure edits of a ``limit_distance`` (the editor's operations push them as one undo step
each): a new one on a bone, its target, its mode, its distance."""

from __future__ import annotations

import dataclasses

from app.scene.constraints.limit_distance.model import MODES, LimitDistance
from app.scene.rig.model import Scene, Target
from app.scene.rig.refs import new_constraint_name


def new_limit_distance(scene: Scene, bone: str, target: str) -> LimitDistance:
    """A limit distance (not added) keeping ``bone``'s head inside the sphere about
    ``target``'s head that it is on at ``frame_start`` (Blender's new constraint: nothing
    moves until the distance or the mode is changed), in world space as Blender's."""
    return LimitDistance(
        name=new_constraint_name(scene, LimitDistance, bone),
        space="world",
        bone=bone,
        target=Target(bone=target, at="head"),
    )


def with_target(c: LimitDistance, bone: str | None = None, at: str | None = None):
    """``c`` aimed at another bone or at its other end (``ValueError`` with the reason)."""
    bone = c.target.bone if bone is None else bone
    at = c.target.at if at is None else at
    if bone == c.bone:
        raise ValueError(f"{c.bone} cannot keep a distance from itself; choose another bone")
    if at not in ("head", "tail"):
        raise ValueError(f'A target is a bone\'s "head" or "tail", not {at!r}')
    return c.with_target("target", dataclasses.replace(c.target, bone=bone, at=at))


def with_mode(c: LimitDistance, mode: str) -> LimitDistance:
    if mode not in MODES:
        raise ValueError(f"A mode is one of {', '.join(MODES)}, not {mode!r}")
    return dataclasses.replace(c, mode=mode)


def with_distance(c: LimitDistance, distance: float | None) -> LimitDistance:
    """``distance=None``: measured at ``frame_start`` again (Blender's Reset Distance)."""
    if distance is not None and not distance >= 0:
        raise ValueError(f"A distance is 0 or more, not {distance:g}")
    return dataclasses.replace(c, distance=None if distance is None else float(distance))
