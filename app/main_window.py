"""The main window: the viewport in the centre of the document's editor."""

from __future__ import annotations

from PySide6 import QtWidgets

from app.document import Document
from app.widgets.viewport import Viewport


class MainWindow(QtWidgets.QMainWindow):
    """Pivotal's main window for one document."""

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self.viewport = Viewport(document)
        self.setCentralWidget(self.viewport)
        self.setWindowTitle(f"Pivotal — {document.path or 'untitled'}")
        self.statusBar().showMessage(
            f"{len(document.scene.bones)} bones · frame {document.frame:g}"
        )
