"""A new follow constraint (Child Of, Copy Rotation, Copy Location), as the editor adds it
(named as Blender names it; not added: the editor refuses one the scene has already and
pushes one undo command)."""

from __future__ import annotations

from app.scene.rig.model import Target
from app.scene.rig.refs import new_constraint_name


def new_follow(scene, cls, bone: str, target: str):
    """A ``cls`` constraint (not added) on ``bone`` following the head of ``target``."""
    return cls(
        name=new_constraint_name(scene, cls, bone), bone=bone, target=Target(bone=target, at="head")
    )
