"""Blender's modal transforms: G (move) and R (rotate) in the viewport.

G or R starts a transform of the active bone, pivot or target that follows the mouse:
moving in the plane facing the camera, or turning about the line of sight by the angle the
cursor sweeps around the item. X, Y or Z locks an axis (the world's; the same key again the
item's own, a third time no lock); a typed number sets the amount (degrees or units:
``R Z 90 Enter``; ``-`` flips the sign, Backspace removes a character); Ctrl snaps to 5° or
0.1 units; G and R switch between moving and turning. Enter or a left click confirms (one
undo command), Esc or a right click cancels (the scene exactly as before, no undo entry).
A header over the viewport, and the status bar, show the mode, the axis and the amount.

While a transform runs, the viewport takes every key first (a ``ShortcutOverride`` it
accepts), so X locks an axis rather than deleting, digits are typed rather than switching
spaces, and Ctrl+Z waits for the transform to end.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.scene.analysis import projection
from app.scene.analysis.transform_math import ANGLE_STEP, DISTANCE_STEP, snapped
from app.scene.analysis.typed_number import TypedNumber
from app.widgets.viewport.gizmo_items import AXIS_COLORS
from app.widgets.viewport.interaction.transform_edit import MOVE, ROTATE, Dial, Slide, subject_for

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
AXIS_KEYS = {Key.Key_X: 0, Key.Key_Y: 1, Key.Key_Z: 2}
HINT = "X/Y/Z axis · type a number · Ctrl snap · Enter/click confirm · Esc/right-click cancel"


class TransformMode(QtCore.QObject):
    """The modal transform of one viewport (idle until :meth:`start`).

    Signals
    -------
    changed(str)
        The header's text after every update; ``""`` when the transform ends.
    """

    changed = QtCore.Signal(str)

    def __init__(self, viewport, document, gizmo):
        super().__init__(viewport)
        self._view = viewport
        self._document = document
        self._gizmo = gizmo
        self.subject = None
        self.mode = None
        self.axis: int | None = None
        self.local = False
        self.number = TypedNumber()
        self.amount = 0.0  # degrees or units, as shown
        self._ctrl_key = False
        self._ctrl = False
        self.header = QtWidgets.QLabel(viewport)
        self.header.setObjectName("transformHeader")
        self.header.setStyleSheet(
            "QLabel { background: rgba(18, 18, 22, 215); color: #f0f0f0;"
            " padding: 4px 8px; border-radius: 3px; }"
        )
        self.header.move(8, 8)
        self.header.hide()
        viewport.overlay(self.header)  # over the view's native window
        viewport.installEventFilter(self)
        # Anything else that changes the scene or the frame ends the transform first: its
        # preview was built on what they replace.
        document.undo_stack.indexChanged.connect(self._interrupted)
        document.frame_changed.connect(self._interrupted)
        document.scene_replaced.connect(self._interrupted)
        document.selection_changed.connect(self._interrupted)

    @property
    def active(self) -> bool:
        return self.subject is not None

    # --- starting and ending -------------------------------------------------------------

    def start(self, mode: str) -> bool:
        """Begin moving (``"move"``) or turning (``"rotate"``) the active item; returns
        whether it began (else the status bar says why)."""
        if self.active:
            self._switch(mode)
            return True
        if getattr(self._view, "_drag", None) is not None:
            return False  # a mouse drag is under way
        subject, why = subject_for(self._document, mode)
        if subject is None:
            self._document.notify(why)
            return False
        view = self._view
        cursor = view.mapFromGlobal(QtGui.QCursor.pos())
        center_px = view.project(subject.center[None])[0]
        if (
            view.rect().contains(cursor)
            and np.linalg.norm([cursor.x() - center_px[0], cursor.y() - center_px[1]]) > 4
        ):
            self.start_px = np.array([cursor.x(), cursor.y()], dtype=float)
        else:  # the cursor is elsewhere: start beside the item
            self.start_px = center_px + (80.0, -40.0)
        self.pixel = self.start_px.copy()
        self.subject, self.mode = subject, mode
        self.axis, self.local = None, False
        self.number.clear()
        self._ctrl_key = False
        self._gizmo.suspended = True  # Blender hides the gizmo while a transform runs
        view.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
        self._rebuild()
        return True

    def _switch(self, mode: str) -> None:
        if mode == self.mode:
            return
        self.subject.cancel()  # the new subject starts from the items as they were
        subject, why = subject_for(self._document, mode)
        if subject is None:
            self._document.notify(why)
            subject, mode = subject_for(self._document, self.mode)[0], self.mode
        self.subject, self.mode = subject, mode
        self.number.clear()
        self._rebuild()

    def confirm(self) -> None:
        subject = self._end()
        if subject.commit():
            self._document.notify(f"{subject.done_text} (Ctrl+Z undoes)")

    def cancel(self) -> None:
        self._end().cancel()
        self._document.notify("Cancelled")

    def _interrupted(self, *_) -> None:
        if self.active:
            self.cancel()

    def _end(self):
        subject, self.subject = self.subject, None
        self.header.hide()
        self._gizmo.suspended = False
        self._gizmo.show_axis_line(None)
        self.changed.emit("")
        return subject

    # --- the amount ----------------------------------------------------------------------

    def axis_vector(self) -> np.ndarray | None:
        """The locked axis in world coordinates (``None`` when none is locked)."""
        if self.axis is None:
            return None
        return self.subject.axes(self.local)[:, self.axis]

    def _rebuild(self) -> None:
        """New readers for the current axis (measured from where the transform began)."""
        axis = self.axis_vector()
        center = self.subject.center
        if self.mode == ROTATE:
            if axis is None:  # about the line of sight, towards the viewer
                axis = -projection.camera_axes(self._view.world_to_eye())[2]
            self._reader = Dial(self._view, center, axis, self.start_px)
        else:
            self._reader = Slide(self._view, center, self.start_px, axis)
        if self.axis is None:
            self._gizmo.show_axis_line(None)
        else:
            self._gizmo.show_axis_line(center, self.axis_vector(), AXIS_COLORS[self.axis])
        self._apply()

    def _apply(self) -> None:
        typed = self.number.value()
        subject = self.subject
        if self.mode == ROTATE:
            axis = self._reader.axis
            if typed is not None:
                angle = np.radians(typed)
            else:
                angle = self._reader.angle(self.pixel)
                if self._ctrl:
                    angle = float(snapped(angle, ANGLE_STEP))
            subject.rotate_about(axis, angle, self.axis, self.local)
            self.amount = float(np.degrees(angle))
        else:
            axis = self.axis_vector()
            if typed is not None:
                offset = typed * (axis if axis is not None else np.array([1.0, 0.0, 0.0]))
            else:
                offset = self._reader.offset(self.pixel)
                if offset is None:
                    return
                if axis is not None:
                    offset = axis * float(offset @ axis)
                if self._ctrl:
                    if axis is not None:
                        offset = axis * float(snapped(offset @ axis, DISTANCE_STEP))
                    else:
                        offset = snapped(offset, DISTANCE_STEP)
            subject.move(offset, self.axis, self.local)
            self.amount = (
                float(offset @ axis) if axis is not None else float(np.linalg.norm(offset))
            )
            self.offset = np.asarray(offset, dtype=float)
        self._show()

    def text(self) -> str:
        """``Rotate bone shin · Z local · 90°`` (the header without the hint)."""
        words = [self.subject.text]
        if self.axis is not None:
            words.append(f"{'XYZ'[self.axis]} {'local' if self.local else 'global'}")
        elif self.mode == ROTATE:
            words.append("view axis")
        unit = "°" if self.mode == ROTATE else ""
        if self.number.active:
            words.append(f"[{self.number.text()}|]{unit}")
        elif self.mode == MOVE and self.axis is None:
            x, y, z = self.offset
            words.append(f"D {x:.3f} {y:.3f} {z:.3f}")
        else:
            words.append(
                f"{self.amount:.1f}{unit}" if self.mode == ROTATE else f"{self.amount:.3f}"
            )
        if self._ctrl and not self.number.active:
            words.append("snap " + ("5°" if self.mode == ROTATE else "0.1"))
        return " · ".join(words)

    def _show(self) -> None:
        text = self.text()
        self.header.setText(f"<b>{text}</b><br><span style='color:#9aa0a8'>{HINT}</span>")
        self.header.adjustSize()
        self.header.show()
        self.header.raise_()
        self._document.notify(text)
        self.changed.emit(text)

    # --- events --------------------------------------------------------------------------

    def eventFilter(self, obj, ev) -> bool:
        if not self.active:
            return False
        kind = ev.type()
        T = QtCore.QEvent.Type
        if kind == T.ShortcutOverride:
            ev.accept()  # every key is the transform's while it runs
            return True
        if kind == T.KeyPress:
            self._key(ev)
            return True
        if kind == T.KeyRelease:
            if ev.key() == Key.Key_Control:
                self._ctrl_key = False
                self._ctrl = bool(ev.modifiers() & CTRL)
                self._apply()
            return True
        if kind == T.MouseMove:
            pos = ev.position()
            self.pixel = np.array([pos.x(), pos.y()])
            self._ctrl = self._ctrl_key or bool(ev.modifiers() & CTRL)
            if not self.number.active:
                self._apply()
            return True
        if kind == T.MouseButtonPress:
            if ev.button() == QtCore.Qt.MouseButton.LeftButton:
                self.confirm()
            elif ev.button() == QtCore.Qt.MouseButton.RightButton:
                self.cancel()
            return True
        if kind in (T.MouseButtonDblClick, T.Wheel):
            return True  # no zoom: the cursor's readings are measured in this camera
        return False

    def _key(self, ev) -> None:
        k = ev.key()
        if k == Key.Key_Escape:
            self.cancel()
        elif k in (Key.Key_Return, Key.Key_Enter):
            self.confirm()
        elif k in AXIS_KEYS and not ev.modifiers() & CTRL:
            self._lock(AXIS_KEYS[k])
        elif k == Key.Key_G:
            self._switch(MOVE)
        elif k == Key.Key_R:
            self._switch(ROTATE)
        elif k == Key.Key_Control:
            self._ctrl_key = self._ctrl = True
            self._apply()
        elif k == Key.Key_Backspace:
            if self.number.backspace():
                self._apply()
        elif ev.text() and self.number.type(ev.text()):
            self._apply()

    def _lock(self, axis: int) -> None:
        """X, Y, Z: the world axis, then the item's own, then none (Blender's cycle)."""
        if self.axis != axis:
            self.axis, self.local = axis, False
        elif not self.local:
            self.local = True
        else:
            self.axis, self.local = None, False
        self.subject.reset()
        self._rebuild()
