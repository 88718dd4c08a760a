"""File handling for the main window: New, Open, Save, Save As, recent files, recovery.

Opening loads and validates the whole file *before* anything else happens: a file that
fails shows its reason and location and leaves the open document exactly as it was (no
prompt, no half-loaded scene). Only a file that loaded asks about unsaved changes.

What ships with Pivotal (anything under ``resources/``: the demo, the examples, the
tutorials' scenes) is never written to. Such a scene opens read-only, as a program opens a
read-only file: the window title says it is a shipped example, and Save asks where to keep
the user's copy (Save As, in the Documents folder); Save As refuses a shipped file. The
document keeps the shipped path, so recent files and crash recovery name what it came from
and stay read-only too.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from app.editor import settings
from app.editor.document import new_scene
from app.editor.recovery import orphans
from app.scene.errors import SceneError
from app.scene.io import animation_names, load_scene, save_scene

OPEN_FILTER = (
    "Scenes, motion capture, glTF and FBX (*.json *.bvh *.gltf *.glb *.fbx *.FBX);;"
    "Pivotal scenes (*.json);;BVH motion capture (*.bvh);;glTF 2.0 characters (*.gltf *.glb);;"
    "FBX characters (*.fbx *.FBX);;All files (*)"
)
SAVE_FILTER = "Pivotal scenes (*.json)"
#: Where what ships with Pivotal is (the demo, examples, tutorial scenes): never written to.
SHIPPED = Path(__file__).resolve().parents[2] / "resources"


def is_shipped(path) -> bool:
    """Whether ``path`` is a file that ships with Pivotal (under ``resources/``)."""
    try:
        return Path(path).resolve().is_relative_to(SHIPPED)
    except (OSError, ValueError):
        return False


def user_folder() -> Path:
    """Where a copy of a shipped or untitled scene is offered to go: the user's Documents
    folder (their home when there is none)."""
    documents = QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.DocumentsLocation
    )
    if documents and Path(documents).is_dir():
        return Path(documents)
    return Path.home()


def refused_text(path) -> str:
    """Why a shipped file is not written to, and what to do instead."""
    return (
        f"<b>{Path(path).name}</b> ships with Pivotal and is never overwritten, so the "
        "demo and the tutorials stay as they are.<br><br>Save your copy under another name "
        "or in another folder."
    )


#: Places that say nothing more than "the file" (a JSON pointer's root, the top level).
_NO_PLACE = ("", "/", "(top level)")


def error_text(e: SceneError, verb: str = "opened") -> str:
    """A dialog's text for a refused file, as one sentence: the file, why, and where when
    there is a place ("notes.glb could not be opened: it is a text file, not a glTF binary
    … (at line 3 column 5)."); what another program said word for word below it, as
    details; the file's folder in grey."""
    name = escape(Path(e.file).name) if e.file else "The file"
    reason = e.reason.rstrip(". ")
    where = f" (at {escape(e.path)})" if e.path not in _NO_PLACE else ""
    details = (
        f"<br><br><span style='color:gray'>Details: {escape(e.details)}</span>" if e.details else ""
    )
    return f"<b>{name}</b> could not be {verb}: {escape(reason)}{where}.{details}" + (
        f"<br><br><span style='color:gray'>{escape(e.file)}</span>" if e.file else ""
    )


def choose_animation(parent, path, names: list[str]) -> int | None:
    """Ask which of the file's animations (or takes) to open: its index, or ``None`` when
    the person cancels."""
    dialog = QtWidgets.QDialog(parent)
    dialog.setObjectName("animationDialog")
    dialog.setWindowTitle("Open Animation")
    text = QtWidgets.QLabel(
        f"{Path(path).name} holds {len(names)} animations. Open which? "
        "(Another one later: open the file again, or File ▸ Import "
        "Motion onto Character… to put it on another character.)",
        wordWrap=True,
    )
    choices = QtWidgets.QListWidget(objectName="animations")
    choices.addItems(names)
    choices.setCurrentRow(0)
    buttons = QtWidgets.QDialogButtonBox(
        QtWidgets.QDialogButtonBox.StandardButton.Open
        | QtWidgets.QDialogButtonBox.StandardButton.Cancel
    )
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    choices.itemActivated.connect(lambda _item: dialog.accept())
    layout = QtWidgets.QVBoxLayout(dialog)
    for widget in (text, choices, buttons):
        layout.addWidget(widget)
    if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
        return None
    return choices.currentRow()


class FileController(QtCore.QObject):
    """File operations of one main window and its document."""

    recent_changed = QtCore.Signal()

    def __init__(self, window, document):
        super().__init__(window)
        self.window = window
        self.document = document

    # --- asking --------------------------------------------------------------------------

    def display_name(self) -> str:
        """The open scene's name as the prompts say it."""
        if self.document.path is None:
            return "untitled"
        name = Path(self.document.path).name
        return f"{name} (a shipped example: you choose where)" if self.shipped() else name

    def shipped(self) -> bool:
        """Whether the open scene is one that ships with Pivotal (read-only: Save asks
        where to keep the copy)."""
        return self.document.path is not None and is_shipped(self.document.path)

    def asks_where(self) -> bool:
        """Whether Save asks where (untitled, shipped, or not a Pivotal scene file)."""
        path = self.document.path
        return path is None or Path(path).suffix.lower() != ".json" or is_shipped(path)

    def opened_note(self) -> str:
        """What the status bar adds when a shipped scene opens ("" otherwise)."""
        if not self.shipped():
            return ""
        return "a shipped example, read-only: Save asks where to keep your copy"

    def maybe_save(self, doing: str = "closing") -> bool:
        """Whether it is fine to drop the document (saved, discarded, or unchanged)."""
        if not self.document.dirty:
            return True
        buttons = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.question(
            self.window,
            "Unsaved changes",
            f"Save the changes to {self.display_name()} before {doing}?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            buttons.Save,
        )
        if answer == buttons.Save:
            return self.save()
        return answer == buttons.Discard

    # --- commands ------------------------------------------------------------------------

    def new(self) -> bool:
        if not self.maybe_save("starting a new scene"):
            return False
        self.document.replace_scene(new_scene(), None)
        self.document.notify("New scene")
        return True

    def open(self, path=None, animation=None) -> bool:
        """Open ``path`` (or ask for one). A glTF or FBX file with several animations or
        takes asks which (unless ``animation`` names one, or is its index). Returns whether
        a new scene is now open."""
        if path is None:
            start = str(Path(self.document.path).parent) if self.document.path else ""
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self.window, "Open", start, OPEN_FILTER)
            if not path:
                return False
        try:
            if animation is None:
                names = animation_names(path)
                if len(names) > 1:
                    animation = choose_animation(self.window, path, names)
                    if animation is None:
                        return False
            scene = load_scene(path, animation=animation, leaf_bones=settings.leaf_bones())
        except SceneError as e:
            if not e.file:
                e = e.with_file(str(path))
            QtWidgets.QMessageBox.critical(self.window, "Cannot open file", error_text(e))
            return False
        if not self.maybe_save("opening another file"):
            return False
        self.document.replace_scene(scene, str(Path(path).resolve()))
        settings.add_recent(path)
        self.recent_changed.emit()
        notes = [str(m) for m in scene.messages] + [self.opened_note()]
        notes = "; ".join(n for n in notes if n)
        self.document.notify(f"Opened {Path(path).name}" + (f" — {notes}" if notes else ""))
        return True

    def save(self) -> bool:
        """Save to the open file; Save As where that is not the user's own scene file."""
        if self.asks_where():
            return self.save_as()
        return self._write(self.document.path)

    def suggested_path(self) -> Path:
        """Where Save As starts: beside the user's own file, else in their Documents."""
        current = self.document.path
        if current is None:
            return user_folder() / "untitled.json"
        if is_shipped(current):
            return user_folder() / f"{Path(current).stem}.json"
        return Path(current).with_suffix(".json")

    def save_as(self, path=None) -> bool:
        if path is None:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(
                self.window, "Save As", str(self.suggested_path()), SAVE_FILTER
            )
            if not path:
                return False
            if Path(path).suffix == "":
                path += ".json"
        return self._write(path)

    def _write(self, path) -> bool:
        if is_shipped(path):
            QtWidgets.QMessageBox.warning(self.window, "Not saved", refused_text(path))
            self.document.notify(f"Not saved: {Path(path).name} ships with Pivotal")
            return False
        try:
            save_scene(self.document.scene, path)
        except SceneError as e:
            QtWidgets.QMessageBox.critical(self.window, "Cannot save", error_text(e, "saved"))
            return False
        self.document.mark_saved(str(Path(path).resolve()))
        settings.add_recent(path)
        self.recent_changed.emit()
        self.document.notify(f"Saved {Path(path).name}")
        return True

    def open_recent(self, path: str) -> bool:
        if not Path(path).exists():
            settings.remove_recent(path)
            self.recent_changed.emit()
            self.document.notify(f"{path} no longer exists; removed from recent files")
            return False
        return self.open(path)

    # --- recovery ------------------------------------------------------------------------

    def offer_recovery(self) -> bool:
        """After a crash: offer the unsaved work it left. Returns whether it was recovered."""
        found = orphans()
        if not found:
            return False
        newest = found[0]
        buttons = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.question(
            self.window,
            "Recover unsaved work?",
            f"Pivotal did not close normally last time. Recover the {newest.describe()}?\n\n"
            "No discards it.",
            buttons.Yes | buttons.No,
            buttons.Yes,
        )
        if answer != buttons.Yes:
            for r in found:
                r.discard()
            return False
        try:
            scene = newest.load()
        except SceneError as e:
            QtWidgets.QMessageBox.critical(self.window, "Cannot recover", error_text(e))
            return False
        self.document.replace_scene(scene, newest.original_path, recovered=True)
        for r in found:
            r.discard()
        self.document.notify("Recovered unsaved work; save it to keep it")
        return True
