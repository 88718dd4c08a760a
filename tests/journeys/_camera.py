"""What the camera journeys check: whether joints lie inside the viewport as the user sees it.

Every check projects world points with the viewport's own view and projection matrices
(``Viewport.world_to_clip``, what the GPU draws with) and asks for them inside the widget's
rectangle; the pixel check reads the rendered framebuffer.
"""

from __future__ import annotations

import numpy as np

from app.widgets.viewport.viewport import BACKGROUND
from tests.helpers.gui import framebuffer


def joints(result) -> np.ndarray:
    """Heads and tails of every bone at every frame of a bake, (F, 2B, 3)."""
    return np.concatenate([result.heads, result.tails], axis=1)


def outside(viewport, points) -> np.ndarray:
    """Which world points ``(..., 3)`` project outside the viewport's rectangle (or behind
    the camera), shape ``(...)``."""
    points = np.asarray(points, dtype=float)
    xy = viewport.project(points.reshape(-1, 3))
    with np.errstate(invalid="ignore"):
        inside = (
            (xy[:, 0] >= 0)
            & (xy[:, 0] <= viewport.width())
            & (xy[:, 1] >= 0)
            & (xy[:, 1] <= viewport.height())
        )
    return ~inside.reshape(points.shape[:-1])


def frames_out_of_view(viewport, result, shift=None) -> list[float]:
    """Frames of ``result`` with a joint outside the view, when the camera's centre is moved
    by ``shift`` ``(F, 3)`` at each frame from where it is now (``None``: a still camera).

    Moving the centre by ``s`` shows a point ``p`` where the camera of now shows ``p - s``:
    one projection holds every frame.
    """
    points = joints(result)
    if shift is not None:
        points = points - np.asarray(shift)[:, None, :]
    out = outside(viewport, points).any(axis=1)
    return [float(f) for f in np.asarray(result.frames)[out]]


def drawn_near_bones(viewport, qtbot, pose) -> float:
    """Share of the pose's bones with drawn (not background) pixels within 3 px of the middle
    of their projection, from the rendered framebuffer."""
    image = framebuffer(viewport, qtbot)
    ratio = image.shape[1] / viewport.width()  # device pixels per logical pixel
    middles = viewport.project(0.5 * (pose.heads[0] + pose.tails[0])) * ratio
    background = np.array(BACKGROUND[::-1])  # the framebuffer is BGR
    hits = 0
    for x, y in middles:
        if not np.isfinite(x + y):
            continue
        x0, y0 = int(round(x)), int(round(y))
        patch = image[max(y0 - 3, 0) : y0 + 4, max(x0 - 3, 0) : x0 + 4].reshape(-1, 3)
        if len(patch) and (np.abs(patch - background).sum(axis=1) > 60).any():
            hits += 1
    return hits / max(len(middles), 1)


def camera_center(viewport) -> np.ndarray:
    """The point the viewport's camera looks at, world coordinates (3,)."""
    from app.widgets.viewport.scene_drawing import WORLD_TO_VIEW

    c = viewport.opts["center"]
    return WORLD_TO_VIEW[:3, :3].T @ np.array([c.x(), c.y(), c.z()])


def project_with(world_to_clip, size, points) -> np.ndarray:
    """Pixels of world points ``(N, 3)`` through a recorded ``world_to_clip`` and widget
    ``size`` ``(w, h)``: whether each lies inside the rectangle, (N,)."""
    from app.scene.analysis import projection

    w, h = size
    xy = projection.project(points, world_to_clip, w, h)
    with np.errstate(invalid="ignore"):
        return (xy[:, 0] >= 0) & (xy[:, 0] <= w) & (xy[:, 1] >= 0) & (xy[:, 1] <= h)


def mouse_drag(widget, start, end, modifiers, steps: int = 8) -> None:
    """A left-button drag from ``start`` to ``end`` with the button held in every move event
    (``QTest.mouseMove`` sends moves with no button down, which orbit and pan ignore)."""
    from PySide6 import QtCore, QtGui, QtWidgets
    from PySide6.QtTest import QTest

    left = QtCore.Qt.MouseButton.LeftButton
    start, end = np.asarray(start, float), np.asarray(end, float)
    QTest.mousePress(widget, left, modifiers, QtCore.QPoint(*np.round(start).astype(int)))
    for t in np.linspace(0, 1, steps + 1)[1:]:
        at = QtCore.QPointF(*(start + t * (end - start)))
        move = QtGui.QMouseEvent(
            QtCore.QEvent.Type.MouseMove,
            at,
            widget.mapToGlobal(at),
            QtCore.Qt.MouseButton.NoButton,
            left,
            modifiers,
        )
        QtWidgets.QApplication.sendEvent(widget, move)
    QTest.mouseRelease(widget, left, modifiers, QtCore.QPoint(*np.round(end).astype(int)))
