"""Viewport overlays drawn over the skeleton: handles, guide lines and text labels.

Handles (pivots, targets) ignore depth, so a pivot inside the foot or behind the shin stays
visible and grabbable, as Blender draws its gizmos; labels sit in a raster overlay on top.
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL
from PySide6 import QtCore, QtGui, QtWidgets

from app.widgets.viewport.gl_batches import PointSprites

#: Drawn over everything, blended.
OVERLAY = {
    GL.GL_DEPTH_TEST: False,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: False,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}

#: Depth-tested but blended: guide lines that the bones may hide.
BLENDED = {
    GL.GL_DEPTH_TEST: True,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: False,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}


class HandlesItem(PointSprites):
    """Round screen-space handles with a dark outline, drawn over everything: one sprite
    per handle (fill and outline) in one draw call."""

    def __init__(self, parentItem=None, size: float = 10.0):
        super().__init__(parentItem=parentItem, glOptions=OVERLAY, size=size, outline=2.0)
        self._handle_size = size

    def set_handles(self, positions, colors, selected=None) -> None:
        """Handles at world ``positions`` (N, 3) with RGBA ``colors`` (N, 4).

        ``selected`` (N,) bool draws those larger, with a white outline.
        """
        positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        n = len(positions)
        selected = np.zeros(n, bool) if selected is None else np.asarray(selected, bool)
        size = np.where(selected, self._handle_size + 3, self._handle_size)
        outline = np.where(selected[:, None], [1.0, 1.0, 1.0, 1.0], [0.06, 0.06, 0.08, 0.95])
        self.setData(pos=positions, color=np.asarray(colors, float).reshape(-1, 4), size=size,
                     edge=outline)  # fmt: skip


class LabelsOverlay(QtWidgets.QWidget):
    """Text labels at world points, painted by the raster engine in a transparent child
    widget over the viewport, with a dark halo. Each label is drawn once into a cached
    image; a frame only places the images.

    A QPainter inside ``paintGL`` would set up OpenGL's paint engine on every frame, which
    costs more under llvmpipe than drawing the whole skeleton; this overlay is composed
    over the GL image in the same pass instead. ``project`` maps world points (N, 3) to
    widget pixels with the camera of the frame being drawn.
    """

    def __init__(self, parent, project):
        super().__init__(parent)
        self.setObjectName("viewportLabels")
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TranslucentBackground)
        self._project = project
        self._positions = np.zeros((0, 3))
        self._texts: list[str] = []
        self._colors: list[QtGui.QColor] = []
        self.font = QtGui.QFont()
        self.font.setPointSizeF(9.5)
        self._sprites: dict = {}
        parent.installEventFilter(self)
        self.setGeometry(parent.rect())

    def eventFilter(self, obj, ev) -> bool:
        if ev.type() == QtCore.QEvent.Type.Resize:
            self.setGeometry(obj.rect())
        return False

    def set_labels(self, positions, texts, colors) -> None:
        """Labels ``texts`` at world ``positions`` (N, 3); ``colors`` RGBA 0..1 (N, 4)."""
        self._positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        self._texts = list(texts)
        self._colors = [QtGui.QColor.fromRgbF(*map(float, c)) for c in colors]
        self.refresh()

    @property
    def texts(self) -> list[str]:
        return list(self._texts)

    def _layout(self) -> list[tuple[QtCore.QRectF, QtCore.QPointF, str, QtGui.QColor]]:
        """Where each label goes: its box, its baseline point, text and colour."""
        at = self._project(self._positions) if len(self._positions) else np.zeros((0, 2))
        placed = []
        taken = np.zeros((len(at), 4))  # left, top, right, bottom of the boxes placed
        count = 0
        for (x, y), text, color in zip(at, self._texts, self._colors):
            if not np.isfinite(x):
                continue  # behind the camera
            # Nearby handles (heel, ball, toe) would print over each other: step a label
            # down until it is clear of those already placed.
            bounds = self._sprite(text, color)[1]  # relative to the baseline
            box = bounds.translated(x + 10, y - 6)
            if box.right() > self.width() - 4:  # no room on the right: the left side
                box.translate(-box.width() - 20, 0)
            t = taken[:count]
            while True:
                hits = ((t[:, 0] < box.right()) & (t[:, 2] > box.left())
                        & (t[:, 1] < box.bottom()) & (t[:, 3] > box.top()))  # fmt: skip
                if not hits.any():
                    break
                box.translate(0, box.height() + 1)
            taken[count] = (box.left(), box.top(), box.right(), box.bottom())
            count += 1
            spot = QtCore.QPointF(box.left() - bounds.left(), box.top() - bounds.top())
            placed.append((box, spot, text, color))
        return placed

    def _sprite(self, text: str, color: QtGui.QColor) -> tuple[QtGui.QImage, QtCore.QRectF]:
        """The label drawn once (halo and text) into an image, and its bounds relative to
        the baseline; kept while the text and colour stay (playback redraws the same
        labels every frame)."""
        key = (text, color.rgba())
        sprite = self._sprites.get(key)
        if sprite is None:
            if len(self._sprites) > 1024:
                self._sprites.clear()
            bounds = QtCore.QRectF(QtGui.QFontMetrics(self.font).boundingRect(text))
            ratio = self.devicePixelRatioF()
            size = QtCore.QSize(int(np.ceil((bounds.width() + 2) * ratio)),
                                int(np.ceil((bounds.height() + 2) * ratio)))  # fmt: skip
            image = QtGui.QImage(size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
            image.setDevicePixelRatio(ratio)
            image.fill(QtCore.Qt.GlobalColor.transparent)
            painter = QtGui.QPainter(image)
            painter.setRenderHints(QtGui.QPainter.RenderHint.Antialiasing
                                   | QtGui.QPainter.RenderHint.TextAntialiasing)  # fmt: skip
            painter.setFont(self.font)
            spot = QtCore.QPointF(1 - bounds.left(), 1 - bounds.top())
            painter.setPen(QtGui.QColor(20, 20, 24, 200))  # a dark halo
            for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                painter.drawText(spot + QtCore.QPointF(dx, dy), text)
            painter.setPen(color)
            painter.drawText(spot, text)
            painter.end()
            sprite = self._sprites[key] = (image, bounds)
        return sprite

    def refresh(self) -> None:
        """Repaint the labels (the whole overlay: measured faster here than repainting only
        the labels' rectangles, which makes Qt compose many small regions)."""
        self.update()

    def paintEvent(self, ev):
        if not self._texts:
            return
        painter = QtGui.QPainter(self)
        for box, _, text, color in self._layout():
            painter.drawImage(box.topLeft() - QtCore.QPointF(1, 1), self._sprite(text, color)[0])
        painter.end()


def axes_lines(bone_to_world, lengths) -> tuple[np.ndarray, np.ndarray]:
    """Line segments of each bone's frame axes (x red, y green, z blue).

    Parameters
    ----------
    bone_to_world : ndarray, shape (B, 4, 4)
    lengths : ndarray, shape (B,)
        Drawn length of the axes per bone.

    Returns
    -------
    positions : ndarray, shape (6 B, 3)
        Pairs of points for ``mode="lines"``.
    colors : ndarray, shape (6 B, 4)
    """
    m = np.asarray(bone_to_world, dtype=float)
    origin = m[:, :3, 3]
    axes = m[:, :3, :3]
    axes = axes / np.maximum(np.linalg.norm(axes, axis=1, keepdims=True), 1e-12)
    ends = origin[:, None, :] + np.moveaxis(axes, 2, 1) * np.asarray(lengths)[:, None, None]
    pos = np.empty((len(m), 3, 2, 3))
    pos[:, :, 0] = origin[:, None, :]
    pos[:, :, 1] = ends
    rgb = np.array([[0.95, 0.25, 0.25, 1], [0.35, 0.9, 0.3, 1], [0.3, 0.5, 1.0, 1]])
    colors = np.broadcast_to(rgb[None, :, None, :], (len(m), 3, 2, 4))
    return pos.reshape(-1, 3), colors.reshape(-1, 4).copy()


def circle_points(center, right, up, radius: float, segments: int = 64) -> np.ndarray:
    """A closed circle (segments + 1, 3) around ``center`` in the plane of ``right``, ``up``."""
    t = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    return np.asarray(center)[None] + radius * (
        np.cos(t)[:, None] * np.asarray(right)[None] + np.sin(t)[:, None] * np.asarray(up)[None]
    )


def arrow_lines(starts, ends, head: float = 0.22) -> np.ndarray:
    """Line segments ``(6 N, 3)`` (pairs, for ``mode="lines"``) of arrows from ``starts`` to
    ``ends`` ``(N, 3)``: the shaft and two barbs ``head`` of its length long, in a plane
    holding the shaft (arrows of no length are points)."""
    starts = np.asarray(starts, dtype=float).reshape(-1, 3)
    ends = np.asarray(ends, dtype=float).reshape(-1, 3)
    shaft = ends - starts
    length = np.linalg.norm(shaft, axis=1, keepdims=True)
    d = shaft / np.where(length > 0, length, 1.0)
    # A side direction: across the shaft, from the world axis least along it.
    least = np.eye(3)[np.argmin(np.abs(d), axis=1)]
    side = np.cross(d, least)
    side /= np.maximum(np.linalg.norm(side, axis=1, keepdims=True), 1e-12)
    back = ends - head * shaft
    spread = 0.45 * head * length * side
    pos = np.stack([starts, ends, ends, back + spread, ends, back - spread], axis=1)
    return pos.reshape(-1, 3)
