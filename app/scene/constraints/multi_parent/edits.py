"""A new multi-parent constraint, as the editor adds it (named as Blender names it:
:func:`app.scene.rig.refs.new_constraint_name`; not added: the editor refuses one the scene
has already and pushes one undo command)."""

from __future__ import annotations

from app.scene.rig.constraint_edits import numbered_pivot_name
from app.scene.rig.keys import floats
from app.scene.rig.model import MultiParent, Pivot, Scene
from app.scene.rig.refs import new_constraint_name


def new_multi_parent(scene: Scene, body: str, pivot_in_body=(0.0, 0.0, 0.0)) -> MultiParent:
    """A multi-parent constraint on ``body`` with one pivot (at its head by default).

    New constraints use the exact integrator (the equations' limit, no substeps to tune);
    files keep what they say, and one that says nothing keeps ``"seed"``.
    """
    scene.bone(body)
    return MultiParent(
        name=new_constraint_name(scene, MultiParent, body),
        body=body,
        pivots=(Pivot(name=numbered_pivot_name(()), position=floats(pivot_in_body)),),
        integrator="exact",
    )
