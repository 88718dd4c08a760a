"""Helpers for performing a tutorial's steps with real events (issue 18, item 6): open it from
Help ▸ Tutorials, type into fields, click outliner rows and list rows, read the figures the
text quotes."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from tests.helpers.gui import LEFT, NO_MODS, click, settle_layout
from tests.helpers.gui import enter_text as type_into

ALT = QtCore.Qt.KeyboardModifier.AltModifier


def open_tutorial(win, qtbot, tutorial_id: str) -> str:
    """Help ▸ Tutorials ▸ the entry (its menu action, as a click on it does); returns the
    text the panel shows, line breaks as spaces."""
    win.actions_by_name[f"tutorial_{tutorial_id}"].trigger()
    qtbot.waitUntil(lambda: win.tutorial_dock.isVisible())
    settle_layout(win, qtbot)  # as a person sees it: the panel has made its room
    assert win.tutorial_panel.tutorial.id == tutorial_id
    return shown_text(win)


def shown_text(win) -> str:
    """The tutorial panel's text as a person reads it (no Markdown marks, one line)."""
    return " ".join(win.tutorial_panel.text.toPlainText().split())


def figure(text: str, pattern: str) -> float:
    """The number the text quotes where ``pattern`` (a regex with one group) matches."""
    found = re.search(pattern, text)
    assert found, f"the text should quote {pattern!r}"
    return float(found.group(1))


def field(win, kind, name):
    widget = win.inspector.findChild(kind, name)
    assert widget is not None and widget.isVisible(), name
    return widget


def go_to_frame(win, frame: int) -> None:
    type_into(win.timeline.findChild(QtWidgets.QSpinBox, "frameSpin"), str(frame))
    assert win.document.frame == frame


def outliner_click(win, qtbot, ref, button=LEFT) -> None:
    """Click ``ref``'s row in the outliner (scrolled into view first)."""
    outliner = win.outliner
    item = outliner.item_for(ref)
    outliner.scrollToItem(item)
    QTest.mouseClick(outliner.viewport(), button, NO_MODS, outliner.visualItemRect(item).center())
    if button == LEFT:
        qtbot.waitUntil(lambda: win.document.active == ref)


def outliner_rows(win, parent_ref) -> list[str]:
    """The texts of ``parent_ref``'s child rows in the outliner, top to bottom."""
    item = win.outliner.item_for(parent_ref)
    return [item.child(k).text(0) for k in range(item.childCount())]


def list_click(widget: QtWidgets.QListWidget, text: str) -> None:
    (item,) = widget.findItems(text, QtCore.Qt.MatchFlag.MatchExactly)
    widget.scrollToItem(item)
    click(widget.viewport(), widget.visualItemRect(item).center())
    assert widget.currentItem() is item


def list_texts(widget: QtWidgets.QListWidget) -> list[str]:
    return [widget.item(k).text() for k in range(widget.count())]


def press(win, name: str) -> None:
    """Click the inspector's push button ``name``."""
    button = field(win, QtWidgets.QPushButton, name)
    assert button.isEnabled(), name
    QTest.mouseClick(button, LEFT)


def pick_from_menu(qtbot, text: str) -> None:
    """In the pop-up menu that is open, go down to ``text`` with the arrow keys, press Return."""
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    for _ in range(len(menu.actions()) + 1):
        if menu.activeAction() is not None and menu.activeAction().text() == text:
            break
        QTest.keyClick(menu, QtCore.Qt.Key.Key_Down)
    assert menu.activeAction().text() == text
    QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)


def changed_pixels(before: np.ndarray, after: np.ndarray) -> int:
    return int((np.abs(before - after).max(axis=2) > 40).sum())


def tool(name: str):
    """``tools/<name>.py`` imported as a module (the tools are scripts, not a package)."""
    path = Path(__file__).resolve().parents[2] / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
