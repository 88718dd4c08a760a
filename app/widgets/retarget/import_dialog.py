"""File ▸ Import Motion onto Character…: a clip put on the open character, checked before
it is kept.

The dialog shows the clip (and, for a glTF or FBX file with several, which animation or
take), the humanoid map of both skeletons side by side, each row correctable, and what the
retarget did (frames, rate, bones moved, the hips' scale). While it is open the character
plays the motion and the clip plays as a ghost beside it (:class:`~app.editor.operations.
motion_import.MotionPreview`); a change of the map or the animation shows again at once.
Import keeps it as one undo step (the keys, the timeline, the character's map); Cancel puts
the scene back as it was.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from app.editor.operations.base import OperationError
from app.editor.operations.motion_import import MotionPreview
from app.scene.errors import SceneError
from app.scene.io import animation_names, load_scene
from app.scene.retarget.map_file import map_of
from app.scene.words import plural
from app.widgets.retarget.map_table import HumanoidTable

#: Milliseconds of quiet after an edit of the map before the preview is made again.
SETTLE_MS = 120
#: What the clip's file dialog lists.
MOTION_FILTER = (
    "Motion: BVH, glTF, FBX and scenes (*.bvh *.gltf *.glb *.fbx *.FBX *.json);;"
    "BVH motion capture (*.bvh);;glTF 2.0 (*.gltf *.glb);;FBX (*.fbx *.FBX);;"
    "Pivotal scenes (*.json);;All files (*)"
)


def import_motion(parent, document, path=None, frame=None) -> str:
    """Ask for a clip (unless ``path`` is given) and run the import dialog on it; what to
    say in the status bar ("" when nothing was imported). ``frame()`` is called once the
    motion first shows (the window frames the camera on it)."""
    if path is None:
        start = str(Path(document.path).parent) if document.path else ""
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            parent, "Import Motion onto Character", start, MOTION_FILTER
        )
        if not path:
            return ""
    try:
        dialog = MotionImportDialog(document, path, parent, frame)
    except SceneError as e:
        from app.editor.files import error_text

        e = e if e.file else e.with_file(str(path))
        QtWidgets.QMessageBox.critical(parent, "Cannot import motion", error_text(e, "read"))
        return ""
    if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
        return dialog.done_text
    return ""


class MotionImportDialog(QtWidgets.QDialog):
    """Import the clip at ``path`` onto the document's character.

    Raises
    ------
    SceneError
        When the clip cannot be read (the caller says so; nothing changed).
    """

    def __init__(self, document, path, parent=None, frame=None):
        super().__init__(parent)
        self._frame = frame
        self.setObjectName("motionImportDialog")
        self.setWindowTitle("Import Motion onto Character")
        self.document = document
        self.path = Path(path)
        self.names = animation_names(path)
        self.clip = load_scene(path, animation=0 if len(self.names) > 1 else None)
        self.preview = MotionPreview(document)
        self.done_text = ""
        character = document.scene
        form = QtWidgets.QFormLayout()
        form.addRow("Clip", QtWidgets.QLabel(self.path.name, objectName="clipName"))
        self.animation = QtWidgets.QComboBox(objectName="animation")
        self.animation.addItems(self.names)
        self.animation.setEnabled(len(self.names) > 1)
        self.animation.currentIndexChanged.connect(self._animation_chosen)
        if self.names:
            form.addRow("Animation", self.animation)
        self.table = HumanoidTable(
            [
                ("character", "Character", character.bone_names()),
                ("clip", "Clip", self.clip.bone_names()),
            ]
        )
        self.table.set_mapping("character", map_of(character))
        self.table.set_mapping("clip", map_of(self.clip))
        self.table.changed.connect(lambda _key: self._settle.start())
        self.summary = QtWidgets.QLabel(objectName="summary", wordWrap=True)
        self.problem = QtWidgets.QLabel(objectName="problem", wordWrap=True)
        self.problem.setStyleSheet("color: #d04040")
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.import_button = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        self.import_button.setText("Import")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(620, 700)
        self._settle = QtCore.QTimer(self, singleShot=True, interval=SETTLE_MS)
        self._settle.timeout.connect(self.show_preview)
        self.show_preview()

    def _animation_chosen(self, index: int) -> None:
        try:
            self.clip = load_scene(self.path, animation=index)
        except SceneError as e:
            self.problem.setText(f"Cannot read that animation: {e.reason}")
            return
        self.show_preview()

    def show_preview(self) -> None:
        """Retarget with the maps the table shows, play it, and say what it did."""
        document = self.document
        try:
            done = self.preview.show(
                self.clip,
                self.table.mapping("clip"),
                self.table.mapping("character"),
                label=self.path.name,
            )
        except OperationError as e:
            self.summary.setText("")
            self.problem.setText(f"{e} Choose it in the table.")
            self.import_button.setEnabled(False)
            return
        self.problem.setText("")
        self.import_button.setEnabled(True)
        frames = done.scene.frame_end - done.scene.frame_start + 1
        self.summary.setText(
            f"{plural(frames, 'frame')} at {done.scene.fps:g} fps; "
            f"{plural(len(done.pairs), 'bone')} mapped on both move, the others keep the "
            f"character's rest; the hips travel × {done.scale:.3g}. The clip plays as a ghost "
            "beside the character." + "".join(f" Note: {m}." for m in done.messages)
        )
        if not document.player.playing:
            document.player.play()
        if self._frame is not None:  # the camera on the motion and the ghost, once
            frame, self._frame = self._frame, None
            frame()

    def accept(self) -> None:
        if self._settle.isActive():  # an edit of the map not yet shown: show it first
            self._settle.stop()
            self.show_preview()
        if self.preview.after is None:
            return  # nothing to import (the problem line says why)
        self.document.player.pause()
        animation = f" ({self.animation.currentText()})" if len(self.names) > 1 else ""
        text = f"Import motion {self.path.name}{animation}"
        self.preview.commit(text)
        self.done_text = (
            f"{text}: {plural(len(self.preview.done.pairs), 'bone')} keyed at "
            "every frame; Ctrl+Z undoes"
        )
        super().accept()

    def reject(self) -> None:
        self._settle.stop()
        self.document.player.pause()
        self.preview.cancel()
        super().reject()
