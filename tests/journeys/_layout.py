"""Helpers for the layout journeys: a window that keeps its settings as the editor does, the
View menu clicked as a person clicks it, a dock's close button, and what the person sees of
the viewport (measured from the window's bars, not from the editor's own bookkeeping)."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.editor import settings

SCENE = Path(__file__).resolve().parents[2] / "resources" / "scenes" / "foot_roll.json"
LEFT = QtCore.Qt.MouseButton.LeftButton
SIZE = (1280, 800)


def start(qtbot, size=SIZE, restore=True):
    """The main window on the demo scene as ``main.py`` makes it (saved settings restored and
    saved on close), ``size`` when no geometry was restored, shown and active."""
    from app.editor.document import Document
    from app.window.main_window import MainWindow

    window = MainWindow(Document.from_file(SCENE), restore_settings=restore)
    if not window.restored_geometry:
        window.resize(*size)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitActive(window)
    qtbot.wait(60)
    return window


def clear_settings() -> None:
    settings.settings().clear()
    settings.settings().sync()


def plain(text: str) -> str:
    return text.replace("&", "")


def choose(qtbot, window, menu_title: str, item: str, dock: bool = False) -> None:
    """Click ``menu_title`` in the menu bar, then ``item`` in the menu that opens (with
    ``dock``, the entry that shows or hides the dock of that name: the View menu has a Step
    Through mode and a Step Through dock)."""
    bar = window.menuBar()
    entry = next(a for a in bar.actions() if plain(a.text()) == menu_title)
    QTest.mouseClick(bar, LEFT, pos=bar.actionGeometry(entry).center())
    menu = entry.menu()
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    toggles = [d.toggleViewAction() for d in window.findChildren(QtWidgets.QDockWidget)]
    action = next(
        a for a in menu.actions() if plain(a.text()) == item and (not dock or a in toggles)
    )
    QTest.mouseClick(menu, LEFT, pos=menu.actionGeometry(action).center())
    qtbot.waitUntil(lambda: not menu.isVisible(), timeout=2000)
    qtbot.wait(60)


def view_items(window) -> list[str]:
    """The View menu's entries that open and close a dock (checkable, named after their
    dock), as a person reads them."""
    bar = window.menuBar()
    view = next(a for a in bar.actions() if plain(a.text()) == "View").menu()
    docks = {d.windowTitle() for d in window.findChildren(QtWidgets.QDockWidget)}
    return [
        plain(a.text())
        for a in view.actions()
        if a.isCheckable() and a.text() in docks and a.isEnabled()  # (the timeline stays)
    ]


def dock_titled(window, title: str) -> QtWidgets.QDockWidget:
    return next(d for d in window.findChildren(QtWidgets.QDockWidget) if d.windowTitle() == title)


def close_button(dock) -> QtWidgets.QAbstractButton:
    return dock.findChild(QtWidgets.QAbstractButton, "qt_dockwidget_closebutton")


def click_close(qtbot, dock) -> None:
    button = close_button(dock)
    QTest.mouseClick(button, LEFT, pos=button.rect().center())
    qtbot.wait(60)


def central_rect(window) -> QtCore.QRect:
    """The window between its menu bar and toolbars above and its status bar below: where the
    viewport and the docked panels are."""
    top = window.menuBar().geometry().bottom() + 1
    for bar in window.findChildren(QtWidgets.QToolBar):
        if bar.isVisible() and not bar.isFloating():
            top = max(top, bar.geometry().bottom() + 1)
    bottom = window.statusBar().geometry().top()
    return QtCore.QRect(0, top, window.width(), bottom - top)


def seen_viewport(window) -> QtCore.QRect:
    """The part of the viewport a person sees: its rectangle inside the window's central
    area and the screen, empty when it is hidden."""
    viewport = window.viewport
    if not viewport.isVisible():
        return QtCore.QRect()
    rect = QtCore.QRect(viewport.mapTo(window, QtCore.QPoint(0, 0)), viewport.size())
    seen = rect.intersected(central_rect(window))
    screen = window.screen().availableGeometry().translated(-window.geometry().topLeft())
    return seen.intersected(screen)


def height_share(window) -> float:
    return seen_viewport(window).height() / central_rect(window).height()
