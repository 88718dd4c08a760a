"""The rotate and move gizmos on the active bone, pivot or target, and their drags.

Rotate: rings about X (red), Y (green), Z (blue) — world axes, or the item's own with
Local — and a white ring facing the camera; only the half of an axis ring facing the
camera is drawn (and grabbed), as Blender does. Move: arrows along X, Y, Z. The gizmo keeps
its size on screen; it is drawn over the skeleton with a dark outline so it reads over the
bones. Dragging a part turns or moves the item
(:mod:`app.widgets.viewport.interaction.transform_edit`),
one undo command per drag; Ctrl snaps to 5° / 0.1 units; Esc cancels.

While a modal transform (G/R) locks an axis, the layer draws that axis as a long line
through the item instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyqtgraph.opengl as gl
from PySide6 import QtCore, QtGui, QtWidgets

from app.scene.analysis import projection
from app.scene.analysis.transform_math import (
    ANGLE_STEP,
    DISTANCE_STEP,
    facing_mask,
    nearest_part,
    polyline_distance,
    ring_points,
    snapped,
)
from app.widgets.viewport.gl_batches import SegmentLines
from app.widgets.viewport.interaction.drag import Drag
from app.widgets.viewport.interaction.transform_edit import MOVE, ROTATE, Dial, Slide, subject_for
from app.widgets.viewport.overlays import OVERLAY, arrow_lines
from app.widgets.viewport.scene_drawing import WORLD_TO_VIEW

OFF = "off"
#: Screen sizes (pixels): the axis rings, the view ring, the arrows.
RING_RADIUS_PX = 72.0
VIEW_RING_RADIUS_PX = 86.0
ARROW_LENGTH_PX = 85.0
#: A ring seen face-on lies in the plane that hides the back halves: keep points this far
#: (a fraction of the radius) behind it, so it shows whole (Blender offsets its clip plane).
RING_MARGIN = 0.05
#: How near (pixels) the cursor must be to a ring or an arrow to grab it.
PICK_RADIUS_PX = 8.0
AXIS_COLORS = np.array([[1.0, 0.30, 0.36, 1.0], [0.52, 0.90, 0.20, 1.0], [0.26, 0.56, 1.0, 1.0]])
VIEW_COLOR = np.array([0.93, 0.93, 0.93, 1.0])
HOVER_COLOR = np.array([1.0, 0.90, 0.35, 1.0])
OUTLINE_COLOR = np.array([0.04, 0.04, 0.06, 0.85])


@dataclass
class Part:
    """One grabbable part of the gizmo.

    ``points`` (M, 3) world polyline; ``mask`` (M,) which points are drawn and grabbed;
    ``axis`` (3,) world direction it turns about or moves along; ``name`` ``"x"``, ``"y"``,
    ``"z"`` or ``"view"``.
    """

    name: str
    axis: np.ndarray
    points: np.ndarray
    mask: np.ndarray
    color: np.ndarray
    radius: float = 0.0  # world radius of a ring


class _Identity:
    """Compares its object by identity (a pose: arrays that ``==`` cannot compare)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.obj is self.obj

    __hash__ = None


class GizmoLayer:
    """The gizmo's state (which gizmo, which orientation), its drawing and its picking."""

    def __init__(self, view, document):
        self._view = view
        self._document = document
        self.mode = OFF
        self.local = False
        self.hovered: str | None = None
        self.suspended = False  # hidden (a modal transform runs)
        self._axis_line = None  # (center, axis, color) while a modal transform locks one
        self._key = None  # what the lines were drawn for: _state(), the hover, the axis line
        self._syncing = False
        self._parts_key = None  # what parts() were built for: _state()
        self._parts: list[Part] = []
        self._screen: list[np.ndarray] = []
        self._root = gl.GLGraphicsItem.GLGraphicsItem()
        self._root.setTransform(QtGui.QMatrix4x4(*WORLD_TO_VIEW.reshape(-1)))
        self._root.setDepthValue(20)  # after the scene: over the skeleton and handles
        view.addItem(self._root)
        # own-buffer line batches: a pose change rewrites their arrays in place
        self._outline = SegmentLines(
            parentItem=self._root, width=5.5, antialias=True, glOptions=OVERLAY
        )
        self._lines = SegmentLines(
            parentItem=self._root, width=3, antialias=True, glOptions=OVERLAY
        )
        self._lines.setDepthValue(1)
        self._outline.setVisible(False)
        self._lines.setVisible(False)

    # --- state ---------------------------------------------------------------------------

    def set_mode(self, mode: str) -> None:
        """``"off"``, ``"move"`` or ``"rotate"``."""
        self.mode = mode
        self.sync(force=True)

    def set_local(self, local: bool) -> None:
        """Rings and arrows along the item's own axes (else the world's)."""
        self.local = bool(local)
        self.sync(force=True)

    def show_axis_line(self, center=None, axis=None, color=None) -> None:
        """Draw a locked axis through ``center`` (``None``: no line)."""
        self._axis_line = (
            None if center is None else (np.asarray(center, float), np.asarray(axis, float), color)
        )
        self.sync(force=True)

    # --- geometry ------------------------------------------------------------------------

    def _subject(self):
        if self.mode == OFF or self.suspended:
            return None
        subject, _ = subject_for(self._document, self.mode)
        return subject

    def _state(self) -> tuple:
        """What the gizmo's geometry depends on: the camera and the viewport's size, the
        selection, the frame, the mode and the pose (the document's cached pose object: a
        new one whenever anything moved, a live drag's preview included), compared by
        identity."""
        view, doc = self._view, self._document
        return (
            view.world_to_clip().tobytes(),
            view.width(),
            view.height(),
            doc.selection,
            doc.frame,
            self.mode,
            self.local,
            self.suspended,
            _Identity(doc.pose()),
        )

    def parts(self) -> list[Part]:
        """The parts of the gizmo for the active item, as drawn now ([] when none)."""
        key = self._state()
        if key != self._parts_key:
            self._parts = self._build_parts()
            self._screen = [self._view.project(p.points) for p in self._parts]
            self._parts_key = key
        return self._parts

    def _build_parts(self) -> list[Part]:
        subject = self._subject()
        if subject is None:
            return []
        view = self._view
        center = subject.center
        per_px = float(view.pixelSize(QtGui.QVector3D(*(WORLD_TO_VIEW[:3, :3] @ center))))
        eye = projection.eye_position(view.world_to_eye())
        axes = subject.axes(self.local)
        parts = []
        if self.mode == ROTATE:
            radius = RING_RADIUS_PX * per_px
            for k, name in enumerate("xyz"):
                ring = ring_points(center, axes[:, k], radius)
                front = facing_mask(ring, center, eye, margin=RING_MARGIN * radius)
                parts.append(Part(name, axes[:, k], ring, front, AXIS_COLORS[k], radius))
            right, up, forward = projection.camera_axes(view.world_to_eye())
            view_radius = VIEW_RING_RADIUS_PX * per_px
            ring = ring_points(center, -forward, view_radius)
            parts.append(
                Part("view", -forward, ring, np.ones(len(ring), bool), VIEW_COLOR, view_radius)
            )
        else:
            length = ARROW_LENGTH_PX * per_px
            for k, name in enumerate("xyz"):
                a = axes[:, k]
                shaft = np.array([center + 0.3 * length * a, center + length * a])
                parts.append(Part(name, a, shaft, np.ones(2, bool), AXIS_COLORS[k]))
        return parts

    def pick(self, pixel) -> Part | None:
        """The part under a widget pixel, or ``None`` (picked on the CPU)."""
        parts = self.parts()
        distances = [
            polyline_distance(pixel, screen, p.mask) for p, screen in zip(parts, self._screen)
        ]
        i = nearest_part(distances, PICK_RADIUS_PX)
        return parts[i] if i >= 0 else None

    # --- drawing -------------------------------------------------------------------------

    def sync(self, force: bool = False) -> None:
        """Redraw the lines when the camera, the pose or the state changed (``force``: also
        when none did, after a change the state does not see)."""
        if self._syncing:
            return
        if self.mode == OFF and self._axis_line is None and not self._lines.visible():
            return  # nothing drawn and nothing to draw: costs the viewport nothing
        key = (self._state(), self.hovered, self._axis_line is not None)
        if not force and key == self._key:
            return
        self._syncing = True
        try:
            self._draw()
            self._key = key
        finally:
            self._syncing = False

    def _draw(self) -> None:
        pos, colors = [], []
        if self._axis_line is not None:
            center, axis, color = self._axis_line
            reach = 1e3 * float(
                self._view.pixelSize(QtGui.QVector3D(*(WORLD_TO_VIEW[:3, :3] @ center)))
            )
            pos.append(np.array([center - reach * axis, center + reach * axis]))
            colors.append(np.tile(color, (2, 1)))
        else:
            for part in self.parts():
                color = HOVER_COLOR if part.name == self.hovered else part.color
                if len(part.points) == 2:  # an arrow: shaft and barbs
                    segments = arrow_lines(part.points[:1], part.points[1:], head=0.25)
                else:
                    keep = part.mask[:-1] & part.mask[1:]
                    segments = np.stack(
                        [part.points[:-1][keep], part.points[1:][keep]], axis=1
                    ).reshape(-1, 3)
                pos.append(segments)
                colors.append(np.tile(color, (len(segments), 1)))
        visible = bool(pos) and sum(len(p) for p in pos) > 0
        if visible != self._lines.visible():  # each call repaints the view
            self._outline.setVisible(visible)
            self._lines.setVisible(visible)
        if visible:
            points = np.concatenate(pos)
            self._outline.setData(pos=points, color=OUTLINE_COLOR)
            self._lines.setData(pos=points, color=np.concatenate(colors))

    def hover(self, pixel) -> None:
        """Highlight the part under the cursor."""
        part = self.pick(pixel) if self.mode != OFF else None
        name = None if part is None else part.name
        if name != self.hovered:
            self.hovered = name
            self.sync(force=True)

    # --- dragging ------------------------------------------------------------------------

    def start_drag(self, pixel) -> Drag | None:
        """The drag a press on a part begins, or ``None`` when the press misses the gizmo."""
        part = self.pick(pixel)
        if part is None:
            return None
        subject, why = subject_for(self._document, self.mode)
        if subject is None:
            self._document.notify(why)
            return None
        if subject.note:
            self._document.notify(subject.note)
        if self.mode == ROTATE:
            dial = Dial(self._view, subject.center, part.axis, pixel, part.radius)
            return RingDrag(self._view, self._document, subject, dial, self._axis_index(part))
        slide = Slide(self._view, subject.center, pixel, part.axis)
        return ArrowDrag(self._view, self._document, subject, slide, self._axis_index(part))

    def _axis_index(self, part: Part) -> int | None:
        """0, 1, 2 for a Local X, Y, Z part (each item then uses its own axis), else None."""
        return "xyz".index(part.name) if self.local and part.name in "xyz" else None


class _GizmoDrag(Drag):
    def __init__(self, viewport, document, subject, k):
        super().__init__(viewport, document, subject)  # previews, commits and cancels
        self.subject = subject
        self.k = k  # the local axis each item uses, or None: the part's world axis


class RingDrag(_GizmoDrag):
    """Turn the item about a ring's axis; Ctrl snaps to 5°."""

    def __init__(self, viewport, document, subject, dial: Dial, k=None):
        super().__init__(viewport, document, subject, k)
        self.dial = dial

    def move(self, pixel, modifiers) -> None:
        angle = self.dial.angle(pixel)
        if modifiers & QtCore.Qt.KeyboardModifier.ControlModifier:
            angle = float(snapped(angle, ANGLE_STEP))
        self.subject.rotate_about(self.dial.axis, angle, self.k, self.k is not None)
        self.document.notify(f"{self.subject.text}: {np.degrees(angle):.1f}°")


class ArrowDrag(_GizmoDrag):
    """Move the item along an arrow's axis; Ctrl snaps to 0.1 units."""

    def __init__(self, viewport, document, subject, slide: Slide, k=None):
        super().__init__(viewport, document, subject, k)
        self.slide = slide

    def move(self, pixel, modifiers) -> None:
        offset = self.slide.offset(pixel)
        if offset is None:
            return
        distance = float(offset @ self.slide.axis)
        if modifiers & QtCore.Qt.KeyboardModifier.ControlModifier:
            distance = float(snapped(distance, DISTANCE_STEP))
        self.subject.move(distance * self.slide.axis, self.k, self.k is not None)
        self.document.notify(f"{self.subject.text}: {distance:+.3f}")


class GizmoToolbar(QtWidgets.QWidget):
    """Toolbar buttons: Move / Rotate gizmo (exclusive, both off hides it) and Local axes."""

    def __init__(self, gizmo: GizmoLayer, parent=None):
        super().__init__(parent)
        self.setObjectName("gizmoToolbar")
        self._gizmo = gizmo
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.buttons = {}
        for name, text, tip in (
            (MOVE, "Move", "Arrows along X, Y, Z on the selected bone, pivot or target"),
            (ROTATE, "Rotate", "Rings about X, Y, Z and the view on the selected bone or pivot"),
        ):
            button = QtWidgets.QToolButton(text=text, checkable=True, toolTip=tip)
            button.setObjectName(f"gizmo{text}")
            button.toggled.connect(lambda on, n=name: self._choose(n, on))
            layout.addWidget(button)
            self.buttons[name] = button
        self.local_button = QtWidgets.QToolButton(text="Local", checkable=True)
        self.local_button.setObjectName("gizmoLocal")
        self.local_button.setToolTip("Gizmo axes: the item's own (on) or the world's (off)")
        self.local_button.toggled.connect(gizmo.set_local)
        layout.addWidget(self.local_button)
        self.setStyleSheet(  # as the space toggle: a checked button is plainly on
            "QToolButton { padding: 3px 9px; border: 1px solid #1c1d21; background: #3a3c42; }"
            "QToolButton:checked { background: #4270be; color: white; }"
            "QToolButton:hover:!checked { background: #474a52; }"
        )

    def _choose(self, name: str, on: bool) -> None:
        if on:
            for other, button in self.buttons.items():
                if other != name:
                    button.setChecked(False)
            self._gizmo.set_mode(name)
        elif self._gizmo.mode == name:
            self._gizmo.set_mode(OFF)
