"""Text labels drawn by the GL widget itself: one texture atlas, one draw call.

Each label (its text with a dark halo) is drawn once by QPainter into a cached image, as
before; the images of the labels shown are packed into one texture, uploaded when the set
of labels changes (a new text or colour), not per frame. Each paint lays the labels out in
widget pixels with the camera being drawn (nearby labels step down until clear of those
already placed), writes one quad per label into vertex arrays kept between frames, and
draws them all in one call, blended over the scene.

It replaces a transparent QWidget laid over the viewport. A translucent child of a GL widget
makes Qt repaint, on every frame of an orbit or playback, the main window's background
under it, the overlay, and compose that region of the window's raster backing store over
the GL image again: measured per frame on llvmpipe, more than the skeleton's own drawing
(docs/performance.md). Now the GL image is the whole viewport, labels included
(``grabFramebuffer`` shows them).

One idea: the viewport's text labels as one texture atlas and one draw call.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.opengl import shaders
from PySide6 import QtCore, QtGui

from app.widgets.viewport.gl_batches import VertexArray, _Context

_TEXTURED = shaders.ShaderProgram(
    "pivotal_labels",
    [
        shaders.VertexShader(
            """
            attribute vec4 a_position;
            attribute vec2 a_uv;
            varying vec2 v_uv;
            void main() {
                v_uv = a_uv;
                gl_Position = a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            uniform sampler2D u_atlas;
            varying vec2 v_uv;
            void main() {
                gl_FragColor = texture2D(u_atlas, v_uv);
            }
            """
        ),
    ],
)

#: Half the side of the square around a labelled point that no label covers (logical
#: pixels): a handle's disc with a little air.
HANDLE_CLEARANCE_PX = 8.0
#: How far a label's box keeps from its point (logical pixels): just clear of its disc.
GAP_PX = 9.0
#: Where a label may sit around its point, in the order tried: (x, y) of the box's corner
#: nearest the point, in units of the box's width and height, and the gap's direction. Right
#: of the point first (reading on from the handle), then left, above, below.
PLACES = (
    (0.0, -1.0, 1, 0),  # right, a little above the point (the baseline near it)
    (0.0, 0.0, 1, 0),  # right, below
    (-1.0, -1.0, -1, 0),  # left, above
    (-1.0, 0.0, -1, 0),  # left, below
    (-0.5, -1.0, 0, -1),  # above, centred
    (-0.5, 0.0, 0, 1),  # below, centred
    (0.0, -0.5, 1, 0),  # right, centred
    (-1.0, -0.5, -1, 0),  # left, centred
)


def _clear(box, others) -> bool:
    """Whether ``box`` (left, top, right, bottom) keeps a pixel from every box of ``others``."""
    left, top, right, bottom = box
    for o_left, o_top, o_right, o_bottom in others:
        if left < o_right + 1 and right + 1 > o_left and top < o_bottom + 1 and bottom + 1 > o_top:
            return False
    return True


def place_labels(at, extent, priority, size) -> tuple[np.ndarray, np.ndarray]:
    """Where labels go: beside their points, never over each other nor over a labelled
    point's disc; a label with no free place around its point is hidden.

    Parameters
    ----------
    at : ndarray, shape (N, 2)
        Each label's point, widget pixels (NaN: behind the camera, not drawn).
    extent : ndarray, shape (N, 6)
        Each label's left, top, right, bottom relative to its baseline, then its sprite's
        width and height (logical pixels).
    priority : ndarray, shape (N,)
        Lower places first (the selection's labels, a hovered handle's); ties keep their order.
        A label of priority 0 or less (the selection's) that finds no place clear of the
        other points' discs is drawn over one rather than hidden.
    size : (int, int)
        The widget's width and height: a place that leaves it is tried last.

    Returns
    -------
    shown : ndarray of int, shape (M,)
        The labels drawn, in their order.
    boxes : ndarray, shape (M, 4)
        Their boxes: left, top, right, bottom, logical pixels.

    A few dozen labels at most, placed one after another each paint: plain Python on floats,
    which is faster here than numpy on arrays of a handful of elements.
    """
    points = np.asarray(at, dtype=float).reshape(-1, 2)
    finite = np.isfinite(points).all(axis=1)
    r = HANDLE_CLEARANCE_PX
    discs = [(x - r, y - r, x + r, y + r) for x, y in points[finite].tolist()]
    sizes = (np.asarray(extent)[:, 2:4] - np.asarray(extent)[:, 0:2]).tolist()
    xy, ranks = points.tolist(), np.asarray(priority, dtype=float).tolist()
    width, height = size
    placed: list = []
    chosen: dict = {}
    for i in sorted(np.flatnonzero(finite).tolist(), key=lambda k: (ranks[k], k)):
        w, h = sizes[i]
        x, y = xy[i]
        fallback = None  # inside the view but over another point's disc (the selection's)
        outside = None  # clear, but leaving the view
        for fx, fy, gx, gy in PLACES:
            left, top = x + gx * GAP_PX + fx * w, y + gy * GAP_PX + fy * h
            box = (left, top, left + w, top + h)
            if not _clear(box, placed):
                continue
            inside = left >= 0 and top >= 0 and left + w <= width and top + h <= height
            if _clear(box, discs):
                if inside:
                    break
                outside = outside or box
            elif inside and ranks[i] <= 0:
                fallback = fallback or box
        else:
            box = outside or fallback
        if box is not None:
            chosen[i] = box
            placed.append(box)
    shown = np.array(sorted(chosen), dtype=np.intp)
    return shown, np.array([chosen[i] for i in shown]).reshape(-1, 4)


#: Widest row of the atlas, in device pixels.
ATLAS_WIDTH = 1024
#: The two triangles of a quad, as (right?, bottom?) corner flags.
_CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 0], [1, 1], [0, 1]], dtype=np.float32)


class LabelSprites(gl.GLGraphicsItem.GLGraphicsItem):
    """Labels at world points, drawn over everything by the view.

    Parameters
    ----------
    view : GLViewWidget
        The widget it is added to (as a top-level item drawn last).
    project : callable
        World points (N, 3) to widget pixels (N, 2) (logical pixels, y down; NaN behind
        the camera) with the camera of the frame being drawn.
    """

    def __init__(self, view, project):
        super().__init__()
        self.setDepthValue(1000)  # after every other item
        self._widget = view
        self._project = project
        self._positions = np.zeros((0, 3))
        self._priority = np.zeros(0)
        #: View ▸ Labels: off draws none.
        self.enabled = True
        self._texts: list[str] = []
        self._colors: list[QtGui.QColor] = []
        self._keys: list = []
        self._rgba = np.zeros((0, 4))  # the colours last given, as given
        self._extent = np.zeros((0, 6))
        self._uv = np.zeros((0, 4))
        self.font = QtGui.QFont()
        self.font.setPointSizeF(9.5)
        self._sprites: dict = {}
        self._atlas_keys: tuple = ()  # the sprites the atlas holds, in order
        self._atlas_boxes: dict = {}  # key -> (u0, v0, u1, v1)
        self._atlas_image = None  # waiting for upload
        self._texture = None
        self._capacity = 0
        self._vertices = np.zeros((0, 4), np.float32)  # x, y (clip), u, v per corner
        self._vbo = None
        self._held = 0  # bytes the GL buffer holds
        self._locations = None
        self._vao = VertexArray()
        #: Vertex array and buffer (re)allocations so far (tests: none in steady playback).
        self.allocations = 0
        #: Atlas uploads so far.
        self.uploads = 0
        view.addItem(self)

    # --- what is shown --------------------------------------------------------------------

    def set_labels(self, positions, texts, colors, priority=None) -> None:
        """Labels ``texts`` at world ``positions`` (N, 3); ``colors`` RGBA 0..1 (N, 4);
        ``priority`` (N,): lower first (it keeps its place where labels would overlap, the
        other one is hidden); default, in order.

        Each label's sprite, its box relative to its baseline and its place in the atlas are
        found here, once per change of the labels, not per frame."""
        self._positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        n = len(self._positions)
        self._priority = (
            np.zeros(n) if priority is None else np.asarray(priority, dtype=float).reshape(n)
        )
        texts = list(texts)
        rgba = np.asarray(colors, dtype=float).reshape(-1, 4)
        if texts == self._texts and np.array_equal(rgba, self._rgba):
            self.update()  # playback: the same labels elsewhere (no QColor per label)
            return
        self._rgba = rgba.copy()
        colors = [QtGui.QColor.fromRgbF(*map(float, c)) for c in rgba]
        keys = [(t, c.rgba()) for t, c in zip(texts, colors)]
        self.update()
        if keys == self._keys:  # playback: the same labels elsewhere
            return
        self._texts, self._colors, self._keys = texts, colors, keys
        ratio = self._widget.devicePixelRatioF()
        # left, top, right, bottom relative to the baseline; sprite width, height (logical)
        self._extent = np.zeros((len(self._keys), 6))
        for i, (text, color) in enumerate(zip(self._texts, self._colors)):
            image, b = self._sprite(text, color)
            self._extent[i] = (
                b.left(),
                b.top(),
                b.right(),
                b.bottom(),
                image.width() / ratio,
                image.height() / ratio,
            )
        keys = tuple(dict.fromkeys(self._keys))
        if not set(keys) <= set(self._atlas_keys):
            self._pack(keys)
        self._uv = np.array([self._atlas_boxes[k] for k in self._keys]).reshape(-1, 4)

    @property
    def texts(self) -> list[str]:
        return list(self._texts)

    def refresh(self) -> None:
        """Nothing to do: each paint lays the labels out with the camera it draws."""

    def _boxes(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the labels drawn and their boxes (M, 4): left, top, right, bottom in
        logical pixels (:func:`place_labels`); none while the labels are off."""
        if not len(self._positions) or not self.enabled:
            return np.zeros(0, np.intp), np.zeros((0, 4))
        at = self._project(self._positions)
        return place_labels(
            at, self._extent, self._priority, (self._widget.width(), self._widget.height())
        )

    def layout(self) -> list[tuple[QtCore.QRectF, QtCore.QPointF, str, QtGui.QColor]]:
        """Where each label goes: its box (logical pixels), its baseline point, text and
        colour."""
        shown, box = self._boxes()
        out = []
        for i, (left, top, right, bottom) in zip(shown.tolist(), box.tolist()):
            rect = QtCore.QRectF(left, top, right - left, bottom - top)
            spot = QtCore.QPointF(left - self._extent[i, 0], top - self._extent[i, 1])
            out.append((rect, spot, self._texts[i], self._colors[i]))
        return out

    def _sprite(self, text: str, color: QtGui.QColor) -> tuple[QtGui.QImage, QtCore.QRectF]:
        """The label drawn once (halo and text) into an image, and its bounds relative to
        the baseline; kept while the text and colour stay."""
        key = (text, color.rgba())
        sprite = self._sprites.get(key)
        if sprite is None:
            if len(self._sprites) > 1024:
                self._sprites.clear()
            bounds = QtCore.QRectF(QtGui.QFontMetrics(self.font).boundingRect(text))
            ratio = self._widget.devicePixelRatioF()
            size = QtCore.QSize(
                int(np.ceil((bounds.width() + 2) * ratio)),
                int(np.ceil((bounds.height() + 2) * ratio)),
            )
            image = QtGui.QImage(size, QtGui.QImage.Format.Format_RGBA8888_Premultiplied)
            image.setDevicePixelRatio(ratio)
            image.fill(QtCore.Qt.GlobalColor.transparent)
            painter = QtGui.QPainter(image)
            painter.setRenderHints(
                QtGui.QPainter.RenderHint.Antialiasing | QtGui.QPainter.RenderHint.TextAntialiasing
            )
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

    # --- the atlas ------------------------------------------------------------------------

    def _pack(self, keys: tuple) -> None:
        """One image holding the sprites of ``keys`` (rows left to right)."""
        # Through _sprite: the cache may have been cleared since (it keeps 1024 at most).
        images = [self._sprite(text, QtGui.QColor.fromRgba(rgba))[0] for text, rgba in keys]
        x = y = row = 0
        spots = []
        width = max([ATLAS_WIDTH] + [im.width() for im in images])
        for im in images:
            if x + im.width() > width:
                x, y, row = 0, y + row + 1, 0
            spots.append((x, y))
            x += im.width() + 1
            row = max(row, im.height())
        height = max(y + row, 1)
        atlas = QtGui.QImage(width, height, QtGui.QImage.Format.Format_RGBA8888_Premultiplied)
        atlas.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(atlas)
        painter.setCompositionMode(QtGui.QPainter.CompositionMode.CompositionMode_Source)
        boxes = {}
        for key, im, (sx, sy) in zip(keys, images, spots):
            plain = QtGui.QImage(im)
            plain.setDevicePixelRatio(1.0)  # device pixels into device pixels
            painter.drawImage(QtCore.QPoint(sx, sy), plain)
            boxes[key] = (
                sx / width,
                sy / height,
                (sx + im.width()) / width,
                (sy + im.height()) / height,
            )
        painter.end()
        self._atlas_keys, self._atlas_boxes, self._atlas_image = keys, boxes, atlas

    def _upload_atlas(self) -> None:
        image = self._atlas_image
        self._atlas_image = None
        if self._texture is None:
            self._texture = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._texture)
        for name in (GL.GL_TEXTURE_MIN_FILTER, GL.GL_TEXTURE_MAG_FILTER):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_NEAREST)  # pixel for pixel
        for name in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_CLAMP_TO_EDGE)
        w, h, stride = image.width(), image.height(), image.bytesPerLine()
        pixels = np.frombuffer(image.constBits(), np.uint8, count=stride * h)
        pixels = np.ascontiguousarray(pixels.reshape(h, stride)[:, : 4 * w])
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
        GL.glTexImage2D(
            GL.GL_TEXTURE_2D, 0, GL.GL_RGBA, w, h, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels
        )
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        self.uploads += 1

    # --- drawing --------------------------------------------------------------------------

    def _quads(self, shown, box) -> int:
        """Write one quad per label shown into the vertex array; returns the vertices."""
        n = len(shown)
        if n > self._capacity:
            self._capacity = max(n, 2 * self._capacity, 8)
            self._vertices = np.zeros((6 * self._capacity, 4), np.float32)
            self.allocations += 1
        w, h = max(self._widget.width(), 1), max(self._widget.height(), 1)
        size = self._extent[shown, 4:6]
        uv = self._uv[shown]
        left = np.round(box[:, 0] - 1)  # the sprite has a pixel of halo around its bounds
        top = np.round(box[:, 1] - 1)
        c = _CORNERS[None]  # (1, 6, 2)
        out = self._vertices[: 6 * n].reshape(n, 6, 4)
        out[..., 0] = 2.0 * (left[:, None] + c[..., 0] * size[:, 0:1]) / w - 1.0
        out[..., 1] = 1.0 - 2.0 * (top[:, None] + c[..., 1] * size[:, 1:2]) / h
        out[..., 2] = uv[:, 0:1] + c[..., 0] * (uv[:, 2:3] - uv[:, 0:1])
        out[..., 3] = uv[:, 1:2] + c[..., 1] * (uv[:, 3:4] - uv[:, 1:2])
        return 6 * n

    def paint(self):
        if not self._texts:
            return
        shown, box = self._boxes()
        if not len(shown):
            return
        count = self._quads(shown, box)
        if self._atlas_image is not None:
            self._upload_atlas()
        if self._vbo is None:
            self._vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo)
        nbytes = self._vertices.nbytes
        if self._held < nbytes:
            GL.glBufferData(GL.GL_ARRAY_BUFFER, nbytes, self._vertices, GL.GL_DYNAMIC_DRAW)
            self._held = nbytes
        else:  # the same buffer, only the quads drawn
            GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, count * 16, self._vertices)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        es2, _ = _Context.current()
        program = _TEXTURED.program(es2_compat=es2)
        if self._locations is None or self._locations[0] != program:
            self._locations = (
                program,
                GL.glGetAttribLocation(program, "a_position"),
                GL.glGetAttribLocation(program, "a_uv"),
                GL.glGetUniformLocation(program, "u_atlas"),
            )
            self._vao.forget()
        _, a_position, a_uv, u_atlas = self._locations
        GL.glDisable(GL.GL_DEPTH_TEST)
        GL.glEnable(GL.GL_BLEND)
        GL.glBlendFunc(GL.GL_ONE, GL.GL_ONE_MINUS_SRC_ALPHA)  # premultiplied sprites
        self._vao.bind(lambda: self._bind_attributes(a_position, a_uv))
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._texture)
        GL.glUseProgram(program)
        GL.glUniform1i(u_atlas, 0)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, count)
        GL.glUseProgram(0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        self._vao.release()

    def _bind_attributes(self, a_position: int, a_uv: int) -> list:
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo)
        GL.glVertexAttribPointer(a_position, 2, GL.GL_FLOAT, False, 16, None)
        GL.glVertexAttribPointer(a_uv, 2, GL.GL_FLOAT, False, 16, GL.GLvoidp(8))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        GL.glEnableVertexAttribArray(a_position)
        GL.glEnableVertexAttribArray(a_uv)
        return [a_position, a_uv]
