"""File ▸ Export in the editor: BVH, CSV, the baked arrays, glTF, USD, the viewport as PNG, the
animation as a PNG sequence.

Each export evaluates the whole timeline in the current space (the toggle), exactly as
``main.py export`` does, through the same writers (:data:`app.editor.export.FORMATS`). Anything that
takes longer than a moment shows a progress dialog whose Cancel stops it with nothing
written; a refused export says where and why and leaves any old file as it was.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from app.editor.export import FORMATS, ExportCancelled, ExportRequest, run_export
from app.editor.files import error_text, is_shipped, user_folder
from app.scene.errors import SceneError
from app.scene.evaluate import default_frames
from app.scene.words import plural
from app.window.render import (
    register_formats,
    render_at,
    viewport_image,
    write_png,
    write_sequence,
)

#: The progress dialog appears only for exports that take longer than this.
MIN_DURATION_MS = 400

FILTERS = {
    "bvh": "BVH motion capture (*.bvh)",
    "csv": "CSV table (*.csv)",
    "npz": "NumPy arrays (*.npz)",
    "png": "PNG image (*.png)",
    "glb": "glTF 2.0 binary (*.glb)",
    "gltf": "glTF 2.0 (*.gltf)",
    "usda": "USD text (*.usda)",
    "usdc": "USD binary (*.usdc)",
}
TITLES = {
    "bvh": "Export BVH",
    "csv": "Export CSV",
    "npz": "Export Baked Arrays",
    "png": "Export Viewport Image",
    "png-sequence": "Export PNG Sequence",
    "glb": "Export glTF Binary",
    "gltf": "Export glTF",
    "usda": "Export USD",
    "usdc": "Export USD Binary",
}


class ExportController(QtCore.QObject):
    """The exports of one main window."""

    def __init__(self, window, document):
        super().__init__(window)
        self.window = window
        self.document = document
        register_formats()  # the viewport's PNG writers, for anything that lists FORMATS

    def _ask_path(self, name: str) -> Path | None:
        doc = self.document
        stem = Path(doc.path).stem if doc.path else "untitled"
        # Beside the user's own file; never into the folder of what ships with Pivotal.
        start = Path(doc.path).parent if doc.path and not is_shipped(doc.path) else user_folder()
        if name == "png-sequence":
            path = QtWidgets.QFileDialog.getExistingDirectory(
                self.window, f"{TITLES[name]}: choose a folder", str(start)
            )
            return Path(path) / f"{stem}_frames" if path else None
        suffix = FORMATS[name].suffix
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self.window, TITLES[name], str(start / f"{stem}{suffix}"), FILTERS[name]
        )
        if not path:
            return None
        path = Path(path)
        return path if path.suffix else path.with_suffix(suffix)

    def _dialog(self, label: str) -> QtWidgets.QProgressDialog:
        dialog = QtWidgets.QProgressDialog(label, "Cancel", 0, 100, self.window)
        dialog.setObjectName("exportProgress")
        dialog.setWindowTitle("Exporting")
        dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(MIN_DURATION_MS)
        dialog.setAutoReset(False)
        dialog.setValue(0)
        return dialog

    @staticmethod
    def _progress(dialog):
        def progress(done: int, total: int) -> bool:
            dialog.setMaximum(max(total, 1))
            dialog.setValue(done)
            QtWidgets.QApplication.processEvents()
            return not dialog.wasCanceled()

        return progress

    def export(self, name: str, path=None) -> bool:
        """Export in format ``name`` to ``path`` (or ask for one). Returns whether a file
        (or a folder of images) was written."""
        path = self._ask_path(name) if path is None else Path(path)
        if path is None:
            return False
        doc = self.document
        dialog = self._dialog(f"{TITLES[name]} to {path.name}…")
        progress = self._progress(dialog)
        try:
            if name == "png":
                write_png(viewport_image(self.window.viewport), path)
                notes = []
            elif name == "png-sequence":
                notes = [plural(len(self._sequence(path, progress)), "image")]
            else:
                request = ExportRequest(doc.scene.copy(), path, None, doc.space, {}, progress)
                notes = run_export(FORMATS[name], request)
        except ExportCancelled:
            doc.notify(f"{TITLES[name]} cancelled; nothing was written")
            return False
        except SceneError as e:
            e = e if e.file else e.with_file(str(path))
            QtWidgets.QMessageBox.critical(self.window, "Cannot export", error_text(e, "exported"))
            return False
        except ValueError as e:
            QtWidgets.QMessageBox.critical(self.window, "Cannot export", str(e))
            return False
        finally:
            dialog.close()
            dialog.deleteLater()
        extra = f" ({'; '.join(notes)})" if notes else ""
        doc.notify(f"Exported {path.name}{extra}")
        return True

    def _sequence(self, folder: Path, progress) -> list:
        """Every frame of the timeline through the live viewport (its camera, its overlays);
        the current frame comes back afterwards."""
        doc = self.document
        viewport = self.window.viewport
        before = doc.frame
        try:
            return write_sequence(
                lambda f: render_at(viewport, doc, f), default_frames(doc.scene), folder, progress
            )
        finally:
            doc.set_frame(before)
