"""Rig ▸ Humanoid Map…: the character's humanoid map, corrected bone by bone and kept in
the scene (one undo step)."""

from __future__ import annotations

from PySide6 import QtWidgets

from app.editor.operations.motion_import import set_humanoid_map
from app.scene.retarget.humanoid import automatic_map, notes
from app.scene.retarget.map_file import map_of, saved_map
from app.widgets.retarget.map_table import HumanoidTable

INTRO = (
    "Which of this character's bones is each humanoid bone: read from the bones' names "
    "(Mixamo, Blender and Rigify, Unreal, Godot, CMU…) and, where they say nothing, from the "
    "skeleton's shape. Correct any row; the retarget (File ▸ Import Motion onto Character…) "
    "and the foot-roll rig read this map, and Keep in Scene writes it into the scene file."
)


class HumanoidMapDialog(QtWidgets.QDialog):
    """The map of the document's scene, one drop-down list per canonical bone."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("humanoidMapDialog")
        self.setWindowTitle("Humanoid Map")
        self.document = document
        scene = document.scene
        intro = QtWidgets.QLabel(INTRO, wordWrap=True, objectName="intro")
        self.table = HumanoidTable([("character", "Bone", scene.bone_names())])
        self.table.set_mapping("character", map_of(scene))
        self.table.changed.connect(self._describe)
        self.summary = QtWidgets.QLabel(objectName="summary", wordWrap=True)
        self.problem = QtWidgets.QLabel(objectName="problem", wordWrap=True)
        self.problem.setStyleSheet("color: #d08030")
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.keep = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        self.keep.setText("Keep in Scene")
        automatic = buttons.addButton(
            "Fill In Automatically", QtWidgets.QDialogButtonBox.ButtonRole.ResetRole
        )
        automatic.setObjectName("automatic")
        automatic.clicked.connect(self.fill_in)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(520, 640)
        self._describe()

    def fill_in(self) -> None:
        """Every row as the names and the shape give it (what the scene had is replaced)."""
        self.table.set_mapping("character", automatic_map(self.document.scene))
        self._describe()

    def _describe(self, *_) -> None:
        mapping = self.table.mapping("character")
        kept = saved_map(self.document.scene) is not None
        self.summary.setText(
            f"{len(mapping)} humanoid bones mapped"
            + (
                " (the scene keeps this map)"
                if kept
                else " (read from the names and the shape; not yet kept in the scene)"
            )
        )
        self.problem.setText("\n".join(notes(self.document.scene, mapping)))

    def accept(self) -> None:
        set_humanoid_map(self.document, self.table.mapping("character"))
        super().accept()


def edit_map(parent, document) -> None:
    """Open the map of ``document``'s character (its edit is pushed when kept)."""
    HumanoidMapDialog(document, parent).exec()
