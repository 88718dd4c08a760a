"""Dragging a selected bone's tail: its rest ``tail`` (its own frame) follows the cursor in
the plane through the tail facing the camera (Shift: along the ground), like moving a
tail in Blender's edit mode. One undo command on release; Escape puts it back.
"""

from __future__ import annotations

import numpy as np

from app.editor.operations.bone_operations import tail_edit
from app.scene.analysis import projection
from app.scene.rig import bone_edits
from app.widgets.viewport.interaction.drag import HANDLE_RADIUS_PX, MoveDrag


def _with_tail(bone, frame, tail_in_bone):
    return bone_edits.with_bone_rest(bone, tail=tail_in_bone)


def tail_under(viewport, document, pixel) -> str | None:
    """The selected bone whose tail is within a handle's reach of ``pixel``, or ``None``."""
    names = document.selected_bones()
    if not names:
        return None
    pose = document.pose()
    index = [document.scene.bone_index(n) for n in names]
    screen = viewport.project(pose.tails[0, index])
    i = projection.nearest_within(screen, np.asarray(pixel, float), HANDLE_RADIUS_PX)
    return names[i] if i >= 0 else None


def start_tail_drag(viewport, document, pixel, shift: bool) -> MoveDrag | None:
    """A drag of the tail under ``pixel`` (of a selected bone), or ``None``."""
    name = tail_under(viewport, document, pixel)
    if name is None:
        return None
    pose = document.pose()
    i = document.scene.bone_index(name)
    bone_to_world = pose.bone_to_world[0, i]
    return MoveDrag(
        viewport,
        document,
        tail_edit(document, name),
        pose.tails[0, i],
        pixel,
        shift,
        np.linalg.inv(bone_to_world),
        _with_tail,
    )
