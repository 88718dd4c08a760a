"""Starting the editor: the window on a scene, or the error that stops it."""

from __future__ import annotations

import os
import sys

from PySide6 import QtCore

from app.window.qt_app import application, has_display


def first_window(document):
    """The main window on ``document``, shown: with the saved layout and geometry, else
    fitted to the screen's available area (frame included)."""
    from app.window.layout import fit_to_screen
    from app.window.main_window import MainWindow

    window = MainWindow(document)
    if not window.restored_geometry:
        fit_to_screen(window)
    window.show()
    return window


def run_editor(path: str, play: bool = False) -> int:
    """Open the editor on ``path``; exit status of the event loop (2 on bad input).

    ``play`` starts playback (looping) once the window is up: the demo scene plays.
    """
    if not has_display():
        print(
            "main.py: no display (DISPLAY is not set). To see the demo without a screen, run "
            "'xvfb-run -a python main.py screenshot --out demo.png', or 'make run', which "
            "does that for you.",
            file=sys.stderr,
        )
        return 2
    from app.editor.document import Document
    from app.scene.errors import SceneError

    app = application()
    try:
        document = Document.from_file(path)
    except SceneError as e:
        print(f"main.py: {e}", file=sys.stderr)
        return 2
    window = first_window(document)
    if window.files.shipped():  # the demo: say that Save keeps it as it is
        document.notify(f"{os.path.basename(path)}: {window.files.opened_note()}")
    if not os.environ.get("PIVOTAL_EXIT_AFTER_FIRST_PAINT"):
        # After the window is up, offer what a crash left behind.
        def recover():
            if window.files.offer_recovery():
                window.autosaver.autosave()

        QtCore.QTimer.singleShot(0, recover)
    if play:
        QtCore.QTimer.singleShot(300, document.player.play)
    return app.exec()
