"""A person at the keyboard: click into a field, type, press keys that go where the focus is.

Helpers of the journey tests on fields and files (one window per module: opening it is the
slow part).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from tests.helpers.gui import CTRL, LEFT, NO_MODS, point

Key = QtCore.Qt.Key


def focused() -> QtWidgets.QWidget:
    return QtWidgets.QApplication.focusWidget()


def press(name: str, modifiers=NO_MODS) -> None:
    """Press and release a key (``"Escape"``, ``"Return"``, ``"K"``...): it goes to the widget
    with the keyboard focus, as a real key does (and window shortcuts see it first)."""
    widget = focused()
    assert widget is not None, "no widget has the keyboard focus"
    QTest.keyClick(widget, getattr(Key, f"Key_{name}"), modifiers)


def click_into(field: QtWidgets.QWidget) -> None:
    """Click into ``field`` (scrolled into view first, as a person would) and select its
    text."""
    scroll = field.parentWidget()
    while scroll is not None and not isinstance(scroll, QtWidgets.QScrollArea):
        scroll = scroll.parentWidget()
    if scroll is not None:
        scroll.ensureWidgetVisible(field)
    target = field.lineEdit() if hasattr(field, "lineEdit") and field.lineEdit() else field
    QTest.mouseClick(target, LEFT, NO_MODS, target.rect().center())
    assert field.hasFocus() or target.hasFocus(), f"{field.objectName()} did not take the focus"
    press("A", CTRL)


def type_into(field: QtWidgets.QWidget, text: str) -> None:
    """Click into ``field``, select what it shows and type ``text`` (not committed yet)."""
    click_into(field)
    QTest.keyClicks(focused(), text)


def shown(field: QtWidgets.QWidget) -> str:
    """The text a person reads in ``field``."""
    edit = field if isinstance(field, QtWidgets.QLineEdit) else field.lineEdit()
    return edit.text()


def click_at(widget: QtWidgets.QWidget, xy) -> None:
    QTest.mouseClick(widget, LEFT, NO_MODS, point(xy))


@contextmanager
def kept_bytes(*paths: Path):
    """Yield; afterwards put back any of ``paths`` whose bytes changed (so a failing test on
    old code does not leave the shipped scenes overwritten) and say which did."""
    before = {p: p.read_bytes() for p in paths}
    try:
        yield before
    finally:
        for p, data in before.items():
            if p.read_bytes() != data:
                p.write_bytes(data)


def module_window(path: Path, size=(1280, 800)):
    """The main window on ``path`` as ``main.py`` opens it, shown and active (window
    shortcuts need the active window). A generator for a module-scoped fixture: the window
    is closed without asking about unsaved changes afterwards."""
    from app.editor.document import Document
    from app.window.main_window import MainWindow

    window = MainWindow(Document.from_file(path), restore_settings=False)
    window.resize(*size)
    window.show()
    assert QTest.qWaitForWindowExposed(window)
    window.activateWindow()
    assert QTest.qWaitForWindowActive(window)
    yield window
    # Closing never asks (a field left with typed text commits as the window closes, and
    # the test's answering of message boxes is over by now).
    window.files.maybe_save = lambda *_: True
    window.close()
    window.deleteLater()
    QtWidgets.QApplication.processEvents()


def fresh(window, path: Path) -> None:
    """Start a test from ``path`` as just opened: no history, no selection, frame 0, the
    keyboard in the viewport."""
    from app.scene.io import load_scene

    window.document.replace_scene(load_scene(path), str(path))
    window.activateWindow()
    window.viewport.setFocus()
    QtWidgets.QApplication.processEvents()
