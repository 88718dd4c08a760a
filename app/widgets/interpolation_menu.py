"""The T menu (Blender's "Set Keyframe Interpolation"): Constant, Linear, Ease.

The curve view and the timeline pop it up for their keys; each choice is one undo step.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.editor.operations.key_operations import INTERPOLATION_WORDS

ORDER = ("constant", "linear", "ease")
TIPS = {
    "constant": "Hold each key's value until the next key (a step)",
    "linear": "Straight from key to key (slerp for rotations)",
    "ease": "The same path, slow out of the key and slow into the next",
}


def interpolation_menu(parent: QtWidgets.QWidget, choose) -> QtWidgets.QMenu:
    """A menu whose actions call ``choose(kind)``; named ``interpolationMenu`` with actions
    ``interpolation_constant``, ``interpolation_linear``, ``interpolation_ease``."""
    menu = QtWidgets.QMenu("Interpolation", parent)
    menu.setObjectName("interpolationMenu")
    menu.setToolTipsVisible(True)
    for kind in ORDER:
        action = menu.addAction(INTERPOLATION_WORDS[kind])
        action.setObjectName(f"interpolation_{kind}")
        action.setToolTip(TIPS[kind])
        action.triggered.connect(lambda _=False, k=kind: choose(k))
    return menu


def pop_up(parent: QtWidgets.QWidget, choose, at: QtCore.QPoint) -> QtWidgets.QMenu:
    """Show the menu at ``at`` (global) without blocking; returns it (it deletes itself)."""
    menu = interpolation_menu(parent, choose)
    menu.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    menu.popup(at)
    return menu
