"""Every key a person presses reaches one thing: no two actions share a shortcut, and no
menu's Alt+letter is an action's shortcut (Qt then does neither and warns "Ambiguous
shortcut overload")."""

from collections import Counter

from PySide6 import QtGui, QtWidgets


def _mnemonic(title: str) -> str | None:
    i = title.replace("&&", "").find("&")
    return None if i < 0 else f"Alt+{title.replace('&&', '')[i + 1].upper()}"


def test_no_key_reaches_two_things(win):
    keys = Counter()
    for action in win.findChildren(QtGui.QAction):
        for shortcut in action.shortcuts():
            keys[shortcut.toString()] += 1
    for menu in win.menuBar().findChildren(QtWidgets.QMenu):
        if menu.menuAction() in win.menuBar().actions() and _mnemonic(menu.title()):
            keys[_mnemonic(menu.title())] += 1
    assert "Alt+I" in keys and "Alt+F" in keys  # the Rig and File menus are counted
    assert {k: n for k, n in keys.items() if n > 1} == {}
