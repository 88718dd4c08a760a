"""The QApplication as every Pivotal entry point needs it, and whether a screen is there.

Imports only Qt and the theme, so anything may import it without an import circle.
"""

from __future__ import annotations

import os
import sys

from PySide6 import QtCore, QtWidgets

from app.window import theme


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
