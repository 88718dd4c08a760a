"""The scrub bar: a frame ruler with the selection's keys, where dragging moves the frame.

A diamond stands for the selection's keys at its frame. Dragging a diamond moves those keys
in time (Alt+drag: copies them), dropping onto another key replaces it; T or the right-click
menu sets their interpolation (the diamond under the mouse, else the current frame's keys).
Each is one undo step.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.operations import key_operations
from app.editor.operations.base import OperationError
from app.editor.playback import key_frames_of_selection
from app.widgets.interpolation_menu import interpolation_menu, pop_up

MARGIN = 14
#: How near (pixels) a press must be to a diamond to grab it.
GRAB_PX = 7
KEY_COLOR = QtGui.QColor(240, 196, 60)
PLAYHEAD_COLOR = QtGui.QColor(90, 150, 255)


def tick_step(pixels_per_frame: float, min_gap_px: float = 48.0) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50... frames whose labels are ``min_gap_px`` apart."""
    step = 1
    if pixels_per_frame <= 0:
        return step
    while step * pixels_per_frame < min_gap_px:
        digits = 10 ** int(math.log10(step) + 1e-9)
        step = {1: 2, 2: 5, 5: 10}[step // digits] * digits
    return step


class ScrubBar(QtWidgets.QWidget):
    """Shows ``frame_start..frame_end``, ticks, key diamonds and the playhead.

    Press or drag anywhere to move the document's frame (whole frames).
    """

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("scrubBar")
        self._document = document
        self._keys = np.zeros(0)
        self.setMinimumHeight(44)
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed
        )
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        # paintEvent covers every pixel (the cached background): the dock and the window
        # need not paint under the playhead's rectangles on each frame change.
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        #: The last popup menu (the T menu or the context menu), for tests and the window.
        self.menu: QtWidgets.QMenu | None = None
        self._grab = None  # (frame, duplicate, KeyMove or None) while a diamond is dragged
        self.setToolTip("Drag to scrub · Left/Right step · Up/Down jump to keys · Space plays")
        document.frame_changed.connect(self._move_playhead)
        self._playhead_x = None
        document.scene_changed.connect(self._update_keys)
        document.selection_changed.connect(self._update_keys)
        self._update_keys()

    def _move_playhead(self, frame: float) -> None:
        """Repaint only around the old and the new playhead (a scrub step's whole cost)."""
        x = self.x_of(frame)
        for at in (self._playhead_x, x):
            if at is not None:
                self.update(QtCore.QRect(int(at) - 22, 0, 44, self.height()))
        self._playhead_x = x

    def sizeHint(self):
        return QtCore.QSize(600, 44)

    def _update_keys(self) -> None:
        self._keys = (
            key_frames_of_selection(self._document) if self._document.selection else np.zeros(0)
        )
        self.update()

    @property
    def keys(self) -> np.ndarray:
        """Frames of the key ticks shown (the selection's keys)."""
        return self._keys

    def x_of(self, frame: float) -> float:
        """The widget x coordinate of ``frame``."""
        s = self._document.scene
        span = max(s.frame_end - s.frame_start, 1)
        return MARGIN + (frame - s.frame_start) / span * (self.width() - 2 * MARGIN)

    def frame_at(self, x: float) -> int:
        """The whole frame nearest widget x coordinate ``x``, within the range."""
        s = self._document.scene
        span = max(s.frame_end - s.frame_start, 1)
        frame = s.frame_start + (x - MARGIN) / max(self.width() - 2 * MARGIN, 1) * span
        return int(min(max(round(frame), s.frame_start), s.frame_end))

    def key_at(self, x: float, y: float) -> float | None:
        """The frame of the diamond under ``(x, y)``, or ``None``."""
        if len(self._keys) == 0 or y < self.height() - 12 - GRAB_PX - 6:
            return None
        xs = np.array([self.x_of(float(f)) for f in self._keys])
        i = int(np.argmin(np.abs(xs - x)))
        return float(self._keys[i]) if abs(xs[i] - x) <= GRAB_PX else None

    def mousePressEvent(self, ev):
        if ev.button() == QtCore.Qt.MouseButton.RightButton:
            self._context_menu(ev.position().toPoint(), ev.globalPosition().toPoint())
            return
        if ev.button() != QtCore.Qt.MouseButton.LeftButton:
            return
        pos = ev.position()
        frame = self.key_at(pos.x(), pos.y())
        if frame is not None:
            alt = bool(ev.modifiers() & QtCore.Qt.KeyboardModifier.AltModifier)
            self._grab = [frame, alt, None]
            self._document.set_frame(frame)
            return
        self._document.set_frame(self.frame_at(pos.x()))

    def mouseMoveEvent(self, ev):
        if not ev.buttons() & QtCore.Qt.MouseButton.LeftButton:
            return
        if self._grab is None:
            self._document.set_frame(self.frame_at(ev.position().x()))
            return
        frame, duplicate, gesture = self._grab
        offset = float(self.frame_at(ev.position().x()) - frame)
        if gesture is None:
            if offset == 0:
                return
            selected = key_operations.keys_at_frame(self._document, frame)
            gesture = key_operations.KeyMove(self._document, selected, duplicate)
            self._grab[2] = gesture
        if offset != gesture.offset:
            gesture.to(offset)

    def mouseReleaseEvent(self, ev):
        grab, self._grab = self._grab, None
        if grab is not None and grab[2] is not None and grab[2].commit():
            self._document.notify(grab[2].text)

    # --- interpolation -------------------------------------------------------------------

    def event(self, ev):
        if (
            ev.type() == QtCore.QEvent.Type.ShortcutOverride
            and ev.key() == QtCore.Qt.Key.Key_T
            and not ev.modifiers()
        ):
            ev.accept()  # T here is the interpolation menu, not the window's Motion Trails
            return True
        return super().event(ev)

    def keyPressEvent(self, ev):
        if ev.key() == QtCore.Qt.Key.Key_T and not ev.modifiers():
            frame = float(self._document.frame)
            at = self.mapToGlobal(QtCore.QPoint(int(self.x_of(frame)), self.height() // 2))
            self.menu = pop_up(self, lambda kind: self._interpolate(kind, frame), at)
            return
        super().keyPressEvent(ev)

    def _context_menu(self, pos: QtCore.QPoint, global_pos: QtCore.QPoint) -> None:
        """The right-click menu (on press, as Blender opens it)."""
        key = self.key_at(pos.x(), pos.y())
        frame = float(self._document.frame) if key is None else key
        menu = QtWidgets.QMenu(self)
        menu.setObjectName("timelineMenu")
        menu.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        sub = interpolation_menu(menu, lambda kind: self._interpolate(kind, frame))
        sub.setTitle(f"Interpolation of the keys at frame {frame:g}")
        menu.addMenu(sub)
        self.menu = menu
        menu.popup(global_pos)

    def _interpolate(self, kind: str, frame: float) -> None:
        try:
            selected = key_operations.keys_at_frame(self._document, frame)
            if not selected:
                raise OperationError(f"No keys at frame {frame:g} to set the interpolation of")
            key_operations.set_interpolation(self._document, selected, kind)
        except OperationError as e:
            self._document.notify(str(e))

    def _background(self) -> QtGui.QPixmap:
        """Ruler, ticks and key diamonds, drawn once per size, range and keys; each frame
        change then only draws the playhead over it."""
        s = self._document.scene
        key = (self.width(), self.height(), s.frame_start, s.frame_end, self._keys.tobytes())
        if getattr(self, "_cache_key", None) == key:
            return self._cache
        ratio = self.devicePixelRatioF()
        pixmap = QtGui.QPixmap(int(self.width() * ratio), int(self.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        p = QtGui.QPainter(pixmap)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        p.fillRect(QtCore.QRectF(0, 0, w, h), QtGui.QColor(34, 35, 40))
        x0, x1 = self.x_of(s.frame_start), self.x_of(s.frame_end)
        p.fillRect(QtCore.QRectF(x0, 0, x1 - x0, h), QtGui.QColor(44, 46, 52))
        span = max(s.frame_end - s.frame_start, 1)
        step = tick_step((w - 2 * MARGIN) / span)
        minor = max(step // 5, 1) if step >= 5 else step
        font = p.font()
        font.setPointSizeF(8.5)
        p.setFont(font)
        first = int(math.ceil(s.frame_start / minor) * minor)
        for f in range(first, s.frame_end + 1, minor):
            x = self.x_of(f)
            major = f % step == 0
            p.setPen(QtGui.QColor(110, 112, 120) if major else QtGui.QColor(70, 72, 80))
            p.drawLine(QtCore.QPointF(x, 16 if major else 22), QtCore.QPointF(x, h))
            if major:
                p.setPen(QtGui.QColor(170, 172, 180))
                p.drawText(
                    QtCore.QRectF(x - 30, 1, 60, 14), QtCore.Qt.AlignmentFlag.AlignCenter, str(f)
                )
        # keys of the selection: diamonds along the lower half
        p.setPen(QtGui.QPen(QtGui.QColor(30, 30, 30), 1))
        p.setBrush(KEY_COLOR)
        y = h - 12
        for f in self._keys:
            x = self.x_of(float(f))
            p.drawPolygon(
                QtGui.QPolygonF(
                    [
                        QtCore.QPointF(x, y - 6),
                        QtCore.QPointF(x + 5, y),
                        QtCore.QPointF(x, y + 6),
                        QtCore.QPointF(x - 5, y),
                    ]
                )
            )
        p.end()
        self._cache_key, self._cache = key, pixmap
        return pixmap

    def paintEvent(self, ev):
        doc = self._document
        p = QtGui.QPainter(self)
        p.drawPixmap(0, 0, self._background())
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        x = self.x_of(doc.frame)
        p.setPen(QtGui.QPen(PLAYHEAD_COLOR, 2))
        p.drawLine(QtCore.QPointF(x, 14), QtCore.QPointF(x, self.height()))
        box = QtCore.QRectF(x - 18, 0, 36, 15)
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(PLAYHEAD_COLOR)
        p.drawRoundedRect(box, 3, 3)
        p.setPen(QtGui.QColor(255, 255, 255))
        font = p.font()
        font.setPointSizeF(8.5)
        p.setFont(font)
        p.drawText(box, QtCore.Qt.AlignmentFlag.AlignCenter, f"{doc.frame:g}")
        p.end()
