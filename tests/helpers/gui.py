"""Helpers for driving the editor with real Qt events in tests."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest


def open_window(qtbot, path, frame=None, size=(1100, 760)):
    """The main window on the scene at ``path``, shown, exposed and active (window shortcuts
    need the active window); ``frame`` is the current frame to start at."""
    from app.editor.document import Document
    from app.window.main_window import MainWindow

    document = Document.from_file(path)
    if frame is not None:
        document.set_frame(frame)
    win = MainWindow(document, restore_settings=False)
    win.resize(*size)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    qtbot.waitActive(win)
    qtbot.wait(20)
    return win


LEFT = QtCore.Qt.MouseButton.LeftButton
NO_MODS = QtCore.Qt.KeyboardModifier.NoModifier
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier


def point(xy) -> QtCore.QPoint:
    if isinstance(xy, (QtCore.QPoint, QtCore.QPointF)):
        return QtCore.QPoint(round(xy.x()), round(xy.y()))
    return QtCore.QPoint(int(round(float(xy[0]))), int(round(float(xy[1]))))


def framebuffer(viewport, qtbot) -> np.ndarray:
    """The viewport's rendered image, (H, W, 3) int BGR (device pixels)."""
    qtbot.waitExposed(viewport)
    image = viewport.grabFramebuffer()
    width, height = image.width(), image.height()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.bytesPerLine() * height)
    rows = data.reshape(height, image.bytesPerLine())[:, : width * 4]
    return rows.reshape(height, width, 4)[..., :3].astype(int)


def drag(widget, start, end, modifiers=NO_MODS, steps: int = 8, qtbot=None) -> None:
    """Press at ``start``, move in ``steps`` to ``end``, release: a real mouse drag."""
    QTest.mousePress(widget, LEFT, modifiers, point(start))
    for t in np.linspace(0, 1, steps + 1)[1:]:
        QTest.mouseMove(widget, point(np.asarray(start) + t * (np.asarray(end) - start)))
        if qtbot is not None:
            qtbot.wait(5)
    QTest.mouseRelease(widget, LEFT, modifiers, point(end))


def click(widget, at, modifiers=NO_MODS) -> None:
    QTest.mouseClick(widget, LEFT, modifiers, point(at))


def key(widget, key_name: str, modifiers=NO_MODS) -> None:
    """Press and release a key (``"Right"``, ``"K"``, ``"Space"``...) on ``widget``."""
    QTest.keyClick(widget, getattr(QtCore.Qt.Key, f"Key_{key_name}"), modifiers)


def answer_modal(answer) -> None:
    """Run ``answer(dialog)`` on the next modal dialog, once it shows (a modal dialog's
    ``exec`` blocks the test, so the answer is queued before the key that opens it)."""

    def check():
        dialog = QtWidgets.QApplication.activeModalWidget()
        if dialog is None:
            QtCore.QTimer.singleShot(10, check)
            return
        answer(dialog)

    QtCore.QTimer.singleShot(0, check)


def settle_layout(window, qtbot, timeout: int = 2000) -> None:
    """Wait, as a person does, until the docks have settled: the layout keeper has given the
    viewport its share and the window's layout has stopped moving."""
    keeper = window.layout_keeper
    sizes = []

    def still():
        sizes.append(window.viewport.size().toTuple())
        return (
            not keeper._timer.isActive()
            and keeper.keeps_rule()
            and len(sizes) > 2
            and sizes[-1] == sizes[-2] == sizes[-3]
        )

    qtbot.waitUntil(still, timeout=timeout)


def rename_with_f2(viewport, name: str) -> None:
    """F2 on the viewport, then type ``name`` into the rename dialog and press Enter."""

    def type_name(dialog):
        line = dialog.findChild(QtWidgets.QLineEdit)
        line.selectAll()
        QTest.keyClicks(line, name)
        QTest.keyClick(line, QtCore.Qt.Key.Key_Return)

    answer_modal(type_name)
    viewport.setFocus()
    key(viewport, "F2")


def drop_file(window, path) -> None:
    """Drop ``path`` on ``window``'s viewport as a file manager does (drag enter, then drop);
    the window must accept the drag."""
    from PySide6 import QtGui

    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(path))])
    at = QtCore.QPointF(window.viewport.mapTo(window, QtCore.QPoint(50, 50)))
    actions = QtCore.Qt.DropAction.CopyAction
    buttons, mods = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    enter = QtGui.QDragEnterEvent(at.toPoint(), actions, mime, buttons, mods)
    QtWidgets.QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    QtWidgets.QApplication.sendEvent(window, QtGui.QDropEvent(at, actions, mime, buttons, mods))


def enter_text(field, text: str) -> None:
    """Click into ``field``, select all (Ctrl+A), type ``text`` and press Return."""
    field.setFocus()
    QTest.keyClick(field, QtCore.Qt.Key.Key_A, QtCore.Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(field, text)
    QTest.keyClick(field, QtCore.Qt.Key.Key_Return)
