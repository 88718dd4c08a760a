"""The undo command of a skeleton-structure edit: both item lists at once.

Adding, deleting, renaming and reparenting bones replace several items (a rename rewrites
every constraint that names the bone, and the skinned meshes and tutorial data that do), so
the command keeps the scene's old and new ``bones`` and ``constraints`` (tuples of frozen
items: cheap and safe to hold), its ``meshes`` and ``extra`` when the edit changes them, and
the selection before and after.
"""

from __future__ import annotations

from PySide6 import QtGui

from app.scene.rig.bone_edits import Rig


class SetRig(QtGui.QUndoCommand):
    """Replace the scene's bones and constraints by those of ``rig`` (and its meshes and
    ``extra`` when ``rig`` has them); select ``selection`` afterwards (``None``: keep what
    still exists)."""

    def __init__(self, document, rig: Rig, text: str, selection=None):
        super().__init__(text)
        scene = document.scene
        self.document = document
        self.old = Rig(
            tuple(scene.bones),
            tuple(scene.constraints),
            tuple(scene.meshes),
            dict(scene.extra),
            (scene.plant,),
        )
        self.old_selection = document.selection
        self.new = rig
        self.new_selection = None if selection is None else tuple(selection)

    def _apply(self, rig: Rig, selection) -> None:
        scene = self.document.scene
        meshes = rig.meshes is not None and not _same_items(scene.meshes, rig.meshes)
        extra = rig.extra is not None and scene.extra != rig.extra
        plant = rig.plant is not None and scene.plant is not rig.plant[0]
        if (
            tuple(scene.bones) == rig.bones
            and tuple(scene.constraints) == rig.constraints
            and not meshes
            and not extra
            and not plant
        ):
            return
        scene.bones[:] = rig.bones
        scene.constraints[:] = rig.constraints
        if meshes:
            scene.meshes = rig.meshes
        if extra:
            scene.extra = dict(rig.extra)
        if plant:
            scene.plant = rig.plant[0]
        self.document.scene_edited()
        if selection is not None:
            self.document.set_selection(selection)

    def redo(self):
        self._apply(self.new, self.new_selection)

    def lists_after(self, scene):
        """The ``(bones, constraints)`` :meth:`redo` puts in place (the document checks them
        before pushing, see :meth:`~app.editor.document.Document.push`)."""
        return self.new.bones, self.new.constraints

    def undo(self):
        self._apply(self.old, self.old_selection)


def _same_items(a, b) -> bool:
    """Whether two mesh tuples hold the same objects (meshes are immutable; comparing their
    arrays would cost more than it tells)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
