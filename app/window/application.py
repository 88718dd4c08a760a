"""Creating the QApplication the way every Pivotal entry point needs it."""

from __future__ import annotations

import os
import sys

from PySide6 import QtCore, QtWidgets


def application() -> QtWidgets.QApplication:
    """The QApplication, created once with shared OpenGL contexts.

    pyqtgraph caches its shader programs per class, so every GL widget after the first
    draws nothing unless contexts are shared; the attribute must precede the application.
    """
    app = QtWidgets.QApplication.instance()
    if app is None:
        QtCore.QCoreApplication.setAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        app = QtWidgets.QApplication(sys.argv[:1])
        app.setOrganizationName("Pivotal")
        app.setApplicationName("Pivotal")
    from app.window import theme

    theme.apply(app)
    return app


def has_display() -> bool:
    """Whether a window can be shown (X11 or Wayland display, or a platform chosen)."""
    if sys.platform != "linux":
        return True
    return bool(
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM")
    )


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
    from app.window.main_window import MainWindow

    app = application()
    try:
        document = Document.from_file(path)
    except SceneError as e:
        print(f"main.py: {e}", file=sys.stderr)
        return 2
    window = MainWindow(document)
    if not window.restored_geometry:
        window.resize(1280, 800)
    window.show()
    if not os.environ.get("PIVOTAL_EXIT_AFTER_FIRST_PAINT"):
        # After the window is up, offer what a crash left behind.
        def recover():
            if window.files.offer_recovery():
                window.autosaver.autosave()

        QtCore.QTimer.singleShot(0, recover)
    if play:
        QtCore.QTimer.singleShot(300, document.player.play)
    return app.exec()
