"""Fields behave as in every desktop program, and keep their editing keys.

One event filter, installed on every field by :func:`keep_keys` (a spin box, a line edit, a
combo box), does both; nothing else in the application pays for an event filter.

- **Esc** puts back the value the field shows for the document and changes nothing: a spin
  box returns to its value (with keyboard tracking off, typing does not change it until a
  commit), a line edit to its text when it took the focus. Leaving the field afterwards
  commits nothing.
- **Enter** commits, as leaving the field does, and then hands the keyboard back to the
  window's central widget (the viewport), so K keys, Space plays and E extrudes at once.
  Esc hands it back too. In a dialog Enter and an Esc with nothing to undo do what a dialog
  does with them (press the default button, close).
- **Editing keys**: the timeline's keys (Left/Right, Home/End, Space, Up/Down...) and the
  single letters (K, F, C, L, T, X) are window shortcuts. Qt already lets a line edit keep
  Left/Right/Home/End/Space and typed text, but a spin box's Up/Down (step the value) would
  go to the shortcuts, and so would the letters a combo box uses to jump to an item by
  typing; the filter claims those keys for the field.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

KEYS = {
    QtCore.Qt.Key.Key_Up,
    QtCore.Qt.Key.Key_Down,
    QtCore.Qt.Key.Key_Left,
    QtCore.Qt.Key.Key_Right,
    QtCore.Qt.Key.Key_Home,
    QtCore.Qt.Key.Key_End,
    QtCore.Qt.Key.Key_Space,
    QtCore.Qt.Key.Key_Delete,
    QtCore.Qt.Key.Key_PageUp,
    QtCore.Qt.Key.Key_PageDown,
}
ENTER = {QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter}
ESCAPE = QtCore.Qt.Key.Key_Escape
#: The property a line edit keeps its shown text in while it has the focus.
SHOWN = "pivotal_shown_text"

_COMMAND_MODIFIERS = (
    QtCore.Qt.KeyboardModifier.ControlModifier
    | QtCore.Qt.KeyboardModifier.AltModifier
    | QtCore.Qt.KeyboardModifier.MetaModifier
)


def _is_typed_text(ev) -> bool:
    """A printable character typed without Ctrl/Alt/Meta (Shift is part of the text)."""
    return bool(ev.text()) and ev.text().isprintable() and not ev.modifiers() & _COMMAND_MODIFIERS


def _line_edit(field) -> QtWidgets.QLineEdit | None:
    """The line edit of ``field`` (itself, or an editable combo box's); else ``None``."""
    if isinstance(field, QtWidgets.QLineEdit):
        return field
    if isinstance(field, QtWidgets.QComboBox) and field.isEditable():
        return field.lineEdit()
    return None


def restore(field: QtWidgets.QWidget) -> bool:
    """Put back the value ``field`` shows for the document, dropping what was typed.

    Returns whether anything typed was dropped. Emits nothing: it is not an edit.
    """
    if isinstance(field, (QtWidgets.QSpinBox, QtWidgets.QDoubleSpinBox)):
        shown = field.textFromValue(field.value())
        typed = field.cleanText() != shown
        # The value has not changed (no keyboard tracking): setting it again rewrites the
        # text from it and forgets the pending edit, so leaving the field commits nothing.
        with QtCore.QSignalBlocker(field):
            field.setValue(field.value())
        return typed
    edit = _line_edit(field)
    if edit is None:
        return False
    if isinstance(field, QtWidgets.QComboBox):
        shown = field.itemText(field.currentIndex())
    else:
        shown = edit.property(SHOWN)
        shown = edit.text() if shown is None else shown
    typed = edit.text() != shown
    edit.setText(shown)
    edit.setModified(False)
    return typed


def main_window(field: QtWidgets.QWidget) -> QtWidgets.QMainWindow | None:
    """The main window ``field`` is in (also from a floating dock), or ``None`` (a dialog)."""
    widget = field
    while widget is not None:
        if isinstance(widget, QtWidgets.QMainWindow):
            return widget
        if isinstance(widget, QtWidgets.QDialog):
            return None
        widget = widget.parentWidget()
    return None


def hand_back(field: QtWidgets.QWidget, window: QtWidgets.QMainWindow | None = None) -> bool:
    """Give the keyboard to the central widget of ``field``'s main window (the viewport).

    Returns whether it did (not for a field in a dialog, or a window without one).
    """
    window = window or main_window(field)
    home = window.centralWidget() if window is not None else None
    if home is None or home.focusPolicy() == QtCore.Qt.FocusPolicy.NoFocus:
        return False
    if not window.isActiveWindow():  # the field was in a floating dock
        window.activateWindow()
    home.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
    return True


class _FieldKeys(QtCore.QObject):
    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        kind = ev.type()
        if kind == QtCore.QEvent.Type.ShortcutOverride:
            if ev.key() in KEYS or (isinstance(obj, QtWidgets.QComboBox) and _is_typed_text(ev)):
                ev.accept()  # the field's keyPressEvent gets the key; no shortcut fires
                return True
            return False
        if kind == QtCore.QEvent.Type.FocusIn:
            edit = _line_edit(obj)
            if edit is not None and not isinstance(obj, QtWidgets.QComboBox):
                edit.setProperty(SHOWN, edit.text())
            return False
        if kind != QtCore.QEvent.Type.KeyPress or ev.modifiers() & _COMMAND_MODIFIERS:
            return False
        if ev.key() == ESCAPE:
            if isinstance(obj, QtWidgets.QComboBox) and obj.view().isVisible():
                return False  # Esc closes the open list first, as everywhere
            typed = restore(obj)
            return hand_back(obj) or typed
        window = main_window(obj) if ev.key() in ENTER else None
        if window is not None:
            if isinstance(obj, QtWidgets.QComboBox) and obj.view().isVisible():
                return False  # Enter picks the item of the open list
            # The field commits, as it does on Enter (a commit may rebuild the form the
            # field is in: the window was found before)...
            obj.event(ev)
            edit = _line_edit(obj)
            if edit is not None:
                edit.setProperty(SHOWN, edit.text())  # what Esc puts back from now on
            hand_back(obj, window)  # ...and the window's keys work again
            return True
        return False


_FILTER: _FieldKeys | None = None


def keep_keys(field: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """Make ``field`` (a spin box, line edit or combo box) behave as a desktop field: keep
    its editing keys, Esc restores, Enter commits and gives the keys back; returns it."""
    global _FILTER
    if _FILTER is None:
        _FILTER = _FieldKeys(QtCore.QCoreApplication.instance())
    field.installEventFilter(_FILTER)
    return field
