"""Helpers of the journeys through what landed with issues 19 and 20 (the follow kinds, the
foot-roll rig, refused cycles): pick bones in the outliner as a person does, open Shift+A."""

from __future__ import annotations

from PySide6 import QtWidgets
from PySide6.QtTest import QTest

from app.scene.rig.refs import Ref
from tests.helpers.gui import CTRL, LEFT, NO_MODS, SHIFT, key
from tests.journeys._steps_a import pick_from_menu


def outliner_pick(win, qtbot, *bones: str) -> None:
    """Click the first bone's row in the outliner, Ctrl+click the others (the last one is
    the active bone: select the target, then the bone)."""
    outliner = win.outliner
    for k, bone in enumerate(bones):
        item = outliner.item_for(Ref.bone(bone))
        outliner.scrollToItem(item)
        QTest.mouseClick(
            outliner.viewport(),
            LEFT,
            CTRL if k else NO_MODS,
            outliner.visualItemRect(item).center(),
        )
    qtbot.waitUntil(lambda: win.document.active == Ref.bone(bones[-1]))


def add_menu_texts(win, qtbot) -> dict[str, bool]:
    """Shift+A over the viewport: the add menu's entries (text -> enabled); it stays open."""
    vp = win.viewport
    vp.setFocus()
    QTest.mouseMove(vp, vp.rect().center())
    key(vp, "A", SHIFT)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    return {a.text(): a.isEnabled() for a in menu.actions() if a.text()}


def add_from_menu(win, qtbot, text: str) -> None:
    """Shift+A over the viewport and choose ``text`` with the arrow keys and Return."""
    entries = add_menu_texts(win, qtbot)
    assert text in entries, list(entries)
    pick_from_menu(qtbot, text)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is None)
