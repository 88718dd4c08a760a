"""A points-at's edits: a new one as the editor adds it (named as Blender names it; not
added: the editor refuses one the scene has already and pushes one undo command), and its up
vector set or removed."""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.constraints.points_at.model import PointsAt, UpVector
from app.scene.rig.keys import floats
from app.scene.rig.model import Scene, Target
from app.scene.rig.refs import new_constraint_name


def new_points_at(scene: Scene, bone: str, target: Target) -> PointsAt:
    """A points-at constraint turning ``bone`` towards ``target``."""
    scene.bone(bone)
    return PointsAt(name=new_constraint_name(scene, PointsAt, bone), bone=bone, target=target)


def with_up(constraint: PointsAt, axis=None, toward=None) -> PointsAt:
    """A points-at with ``up`` set (``axis`` in the bone's frame, ``toward`` in the world),
    or removed when both are ``None``."""
    if not constraint.has_up_vector:
        raise ValueError(f"{constraint.name!r} has no up vector")
    if axis is None and toward is None:
        return dataclasses.replace(constraint, up=None)
    axis, toward = floats(axis), floats(toward)
    for what, v in (("axis", axis), ("toward", toward)):
        if len(v) != 3 or not np.all(np.isfinite(v)) or np.linalg.norm(v) == 0:
            raise ValueError(f"the up vector's {what} needs three finite numbers, not all zero")
    extra = constraint.up.extra if constraint.up is not None else {}
    return dataclasses.replace(constraint, up=UpVector(axis=axis, toward=toward, extra=extra))
