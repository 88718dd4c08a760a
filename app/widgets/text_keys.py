"""Fields keep their editing keys even where the window has shortcuts for them.

The timeline's keys (Left/Right, Home/End, Space, Up/Down...) and the single letters (K, F,
C, L, T, X) are window shortcuts. Qt already lets a line edit keep Left/Right/Home/End/Space
and typed text, but a spin box's Up/Down (step the value) would go to the shortcuts, and so
would the letters a combo box uses to jump to an item by typing. :func:`keep_keys` installs a
filter on a field that claims those keys for it; nothing else in the application pays for an
event filter.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

KEYS = {
    QtCore.Qt.Key.Key_Up, QtCore.Qt.Key.Key_Down, QtCore.Qt.Key.Key_Left,
    QtCore.Qt.Key.Key_Right, QtCore.Qt.Key.Key_Home, QtCore.Qt.Key.Key_End,
    QtCore.Qt.Key.Key_Space, QtCore.Qt.Key.Key_Delete, QtCore.Qt.Key.Key_PageUp,
    QtCore.Qt.Key.Key_PageDown,
}  # fmt: skip


_COMMAND_MODIFIERS = (
    QtCore.Qt.KeyboardModifier.ControlModifier
    | QtCore.Qt.KeyboardModifier.AltModifier
    | QtCore.Qt.KeyboardModifier.MetaModifier
)


def _is_typed_text(ev) -> bool:
    """A printable character typed without Ctrl/Alt/Meta (Shift is part of the text)."""
    return bool(ev.text()) and ev.text().isprintable() and not ev.modifiers() & _COMMAND_MODIFIERS


class _KeepKeys(QtCore.QObject):
    def eventFilter(self, obj, ev) -> bool:
        if ev.type() != QtCore.QEvent.Type.ShortcutOverride:
            return False
        if ev.key() in KEYS or (isinstance(obj, QtWidgets.QComboBox) and _is_typed_text(ev)):
            ev.accept()  # the field's keyPressEvent gets the key; no shortcut fires
            return True
        return False


_FILTER: _KeepKeys | None = None


def keep_keys(field: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """Let ``field`` (a spin box, line edit or combo box) keep its editing keys; returns it."""
    global _FILTER
    if _FILTER is None:
        _FILTER = _KeepKeys(QtCore.QCoreApplication.instance())
    field.installEventFilter(_FILTER)
    return field
