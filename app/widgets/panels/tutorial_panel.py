"""The tutorial panel: the open tutorial's text, and for the basis-change tutorial the point's
coordinates in each basis, live.

Help ▸ Tutorials opens a tutorial's scene and shows its Markdown here (what to try, what to
notice). In the basis-change scene the point (Einstein Bros Bagels) can be dragged in the
viewport; the table follows it, and says whether the numbers still are the ones the text
quotes.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor import tutorials
from app.editor.document import new_scene
from app.editor.throttle import Throttle


def _coords(v) -> str:
    return "(" + ", ".join(f"{x:.2f}" for x in np.asarray(v, float)) + ")"


class TutorialPanel(QtWidgets.QWidget):
    """Takes the document.

    Signals
    -------
    closed()
        Another scene was opened: the tutorial no longer applies (File ▸ New does not
        close a tutorial that starts from it).
    """

    closed = QtCore.Signal()

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("tutorialPanel")
        self._document = document
        self.tutorial: tutorials.Tutorial | None = None
        self._opening = False
        self.text = QtWidgets.QTextBrowser()
        self.text.setObjectName("tutorialText")
        self.text.setOpenExternalLinks(True)
        self.coordinates = QtWidgets.QTableWidget(0, 3)
        self.coordinates.setObjectName("tutorialCoordinates")
        self.coordinates.setHorizontalHeaderLabels(["basis", "the point in it", "the text says"])
        self.coordinates.verticalHeader().setVisible(False)
        self.coordinates.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.coordinates.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        self.coordinates.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.coordinates.horizontalHeader().setStretchLastSection(True)
        self.caption = QtWidgets.QLabel()
        self.caption.setObjectName("tutorialCaption")
        self.caption.setWordWrap(True)
        self._box = QtWidgets.QWidget()
        box = QtWidgets.QVBoxLayout(self._box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.caption)
        box.addWidget(self.coordinates)
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self._box)
        splitter.addWidget(self.text)
        splitter.setSizes([150, 500])
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        self._throttled = Throttle(self.refresh_coordinates, 60, self)
        document.pose_changed.connect(self._throttled)
        document.scene_replaced.connect(self._on_replaced)
        self.show_tutorial(None)

    def open(self, tutorial: tutorials.Tutorial, scene) -> None:
        """Put ``tutorial``'s scene in the document and show its text. The document names
        the scene's file, which ships with Pivotal: it is read-only, Save asks where to keep
        the copy (:mod:`app.editor.files`), so the bundled file is never overwritten."""
        self._opening = True
        try:
            self._document.replace_scene(scene, str(tutorial.scene))
        finally:
            self._opening = False
        self.show_tutorial(tutorial)

    def show_tutorial(self, tutorial: tutorials.Tutorial | None) -> None:
        self.tutorial = tutorial
        if tutorial is None:
            self.text.setMarkdown(
                "No tutorial is open. **Help ▸ Tutorials** opens one: a scene and a text "
                "that says what to try."
            )
        else:
            self.text.setMarkdown(tutorial.markdown())
        self.refresh_coordinates()

    def _on_replaced(self) -> None:
        doc = self._document
        if self.tutorial is not None and self.tutorial.starts_from_new:
            if doc.path is None and doc.scene == new_scene():
                return  # File ▸ New is the tutorial's first step: its text stays
        if not self._opening and self.tutorial is not None:
            self.show_tutorial(None)
            self.closed.emit()

    def markdown(self) -> str:
        """The text shown (Markdown, as the panel has it)."""
        return self.text.toMarkdown()

    def rows(self) -> list[tuple[str, np.ndarray]]:
        """``(basis, the point's coordinates in it)`` as the table shows them, world first."""
        return list(self._rows)

    def refresh_coordinates(self) -> None:
        doc = self._document
        tutorial = tutorials.basis_change_of(doc.scene)
        self._rows: list[tuple[str, np.ndarray]] = []
        self._box.setVisible(tutorial is not None)
        if tutorial is None:
            return
        pose = doc.pose()
        if len(pose.bone_names) != len(doc.scene.bones):
            return
        world, coords = tutorials.point_in_frames(tutorial, doc.scene, pose.bone_to_world[0])
        self.caption.setText(
            f"<b>{tutorial.point_label}</b> in each basis, live: drag the yellow point in "
            "the viewport, or turn a basis (Ctrl+drag it)."
        )
        self._rows = [("world", world)] + [(bone, coords[bone]) for bone, _ in tutorial.frames]
        labels = {bone: label for bone, label in tutorial.frames}
        table = self.coordinates
        table.setRowCount(len(self._rows))
        for r, (bone, value) in enumerate(self._rows):
            quoted = tutorial.quoted.get(bone)
            if quoted is None:
                said = ""
            elif np.allclose(value, quoted, atol=5e-3):
                said = f"{_coords(quoted)} ✓"
            else:
                said = f"{_coords(quoted)} (moved)"
            name = QtWidgets.QTableWidgetItem(bone)
            name.setToolTip(labels.get(bone, "world coordinates"))
            table.setItem(r, 0, name)
            table.setItem(r, 1, QtWidgets.QTableWidgetItem(_coords(value)))
            table.setItem(r, 2, QtWidgets.QTableWidgetItem(said))
        table.resizeColumnsToContents()
