"""A new points-at constraint, as the editor adds it (named as Blender names it; not
added: the editor refuses one the scene has already and pushes one undo command)."""

from __future__ import annotations

from app.scene.rig.model import PointsAt, Scene, Target
from app.scene.rig.refs import new_constraint_name


def new_points_at(scene: Scene, bone: str, target: Target) -> PointsAt:
    """A points-at constraint turning ``bone`` towards ``target``."""
    scene.bone(bone)
    return PointsAt(name=new_constraint_name(scene, PointsAt, bone), bone=bone, target=target)
