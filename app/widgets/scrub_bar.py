"""The scrub bar: a frame ruler with the selection's keys, where dragging moves the frame."""

from __future__ import annotations

import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.playback import key_frames_of_selection

MARGIN = 14
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

    def mousePressEvent(self, ev):
        if ev.button() == QtCore.Qt.MouseButton.LeftButton:
            self._document.set_frame(self.frame_at(ev.position().x()))

    def mouseMoveEvent(self, ev):
        if ev.buttons() & QtCore.Qt.MouseButton.LeftButton:
            self._document.set_frame(self.frame_at(ev.position().x()))

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
