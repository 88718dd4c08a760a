"""The 3D viewport: pyqtgraph's camera and items in a window of their own
(:class:`~app.widgets.viewport.gpu.surface.GLView`, outside Qt's composition of the widgets),
showing and editing the document's pose.

Pivotal's world is Y-up (the BVH convention). pyqtgraph's camera orbits about +Z, so every
scene item hangs under one root item whose transform turns world Y-up into the view's Z-up.

Mouse: a press on a handle (pivot, target) selects it and drags it in the plane through it
facing the camera (Shift: along the ground), and so does a press on a selected bone's tail
(its rest tail), and one on a shown limit's cone rim or hinge ends (its angles). Ctrl+drag
on a pivot or bone turns it with an arcball (keyed when animated, as the gizmos). A press
on a bone selects it (Shift adds to the selection). Anything else orbits, pans and zooms as
pyqtgraph does; a click on empty space clears the selection.
The rotate and move gizmos (:mod:`~app.widgets.viewport.gizmo_items`) take a press on their
rings and arrows first; G and R start a modal transform
(:mod:`~app.widgets.viewport.interaction.transform_mode`) that takes every key and click until it
ends.
Picking projects points on the CPU (:mod:`app.scene.analysis.projection`), never with GL_SELECT.

One idea: the viewport widget, where the camera, the drawn items and the mouse meet.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from PySide6 import QtCore, QtGui

from app.scene.analysis import projection
from app.scene.analysis.camera_framing import bounding_sphere, framing_distance
from app.scene.rig.refs import POINT, Ref
from app.widgets.add_menu import build_add_menu
from app.widgets.viewport import framing
from app.widgets.viewport.gizmo_items import GizmoLayer
from app.widgets.viewport.gpu.surface import GLView
from app.widgets.viewport.interaction.drag import HANDLE_RADIUS_PX, Drag, start_drag
from app.widgets.viewport.interaction.limit_drag import limit_under, start_limit_drag
from app.widgets.viewport.interaction.tail_drag import start_tail_drag, tail_under
from app.widgets.viewport.interaction.transform_mode import TransformMode
from app.widgets.viewport.mesh_item import DISPLAYS
from app.widgets.viewport.overlays import circle_points
from app.widgets.viewport.scene_drawing import WORLD_TO_VIEW, SceneDrawing, handle_at
from app.widgets.viewport.teaching_drawing import TrailSettings

#: The viewport's clear colour, RGB 0..255.
BACKGROUND = (46, 48, 54)
BONE_PICK_RADIUS_PX = 7.0
#: The radius of a handle's drawn dot (its sprite is 10 pixels across, a selected one 13): a
#: click on it picks the handle even where it sits on a bone.
HANDLE_DOT_PX = 6.0
CLICK_SLOP_PX = 4.0


class Viewport(GLView):
    """Shows the document's pose and lets the user drag pivots, targets and rotations."""

    #: Emitted after each paint with the time it finished (for latency measurements).
    painted = QtCore.Signal(float)
    #: Follow (the centre following the selection or the root) turned on or off.
    follow_changed = QtCore.Signal(bool)

    def __init__(self, document, parent=None):
        super().__init__(parent=parent)
        self.setObjectName("viewport")
        # paintGL clears every pixel: the window need not paint its background (and what
        # lies behind) under the viewport each time another widget repaints with it.
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        self._document = document
        self._show_axes = False
        self._drag: Drag | None = None
        self._press: QtCore.QPointF | None = None
        self._press_hit: Ref | None = None
        self._press_under: list[Ref] = []  # everything under the press, first pick first
        self._press_selection: tuple = ()  # the selection before the press
        self._last_click: QtCore.QPointF | None = None  # where the last click was
        self._press_extend = False
        self._hover: Ref | None = None
        self._first_paint_exit = bool(os.environ.get("PIVOTAL_EXIT_AFTER_FIRST_PAINT"))
        self.setMouseTracking(True)
        self.setBackgroundColor(BACKGROUND)
        self._drawing = SceneDrawing(self)
        self.gizmo = GizmoLayer(self, document)  # rotate rings and move arrows
        self.transform_mode = TransformMode(self, document, self.gizmo)  # G / R
        self._fitted: tuple[float, float] | None = None  # (radius, distance) of the framing
        self.follow = framing.Follow(self, document)
        self._made = framing.made(self)
        document.pose_changed.connect(self.refresh)
        document.selection_changed.connect(self.refresh)
        document.structure_changed.connect(self._show_new)
        document.scene_replaced.connect(self.frame_opened)
        document.space_changed.connect(self.keep_action)
        document.compare_changed.connect(self.keep_action)
        document.reference.changed.connect(self.refresh)
        self.refresh()
        self.frame_opened()

    @property
    def document(self):
        """The document this viewport shows."""
        return self._document

    @property
    def drawing(self) -> SceneDrawing:
        """The items the viewport draws (bones, meshes, teaching aids, ground)."""
        return self._drawing

    # --- camera and projection -----------------------------------------------------------

    def world_to_eye(self) -> np.ndarray:
        """World (Y-up) to the camera's eye coordinates, (4, 4)."""
        view = projection.matrix_from_column_major(self.viewMatrix().data())
        return view @ WORLD_TO_VIEW

    def world_to_clip(self) -> np.ndarray:
        """World to clip coordinates, (4, 4): the matrix the GPU draws with."""
        viewport = (0, 0, self.width(), self.height())
        proj = projection.matrix_from_column_major(self.projectionMatrix(viewport, viewport).data())
        return proj @ self.world_to_eye()

    def project(self, points_in_world) -> np.ndarray:
        """Widget pixel coordinates ``(N, 2)`` (logical pixels, y down) of world points."""
        return projection.project(
            points_in_world, self.world_to_clip(), self.width(), self.height()
        )

    def ray(self, pixel):
        """World ray ``(origin, direction)`` under a widget pixel."""
        return projection.pixel_ray(pixel, self.world_to_clip(), self.width(), self.height())

    def frame_points(self, points) -> None:
        """Point the camera at the bounding sphere of world ``points`` (N, 3)."""
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        if np.isfinite(points).all(axis=1).any():
            self.frame_sphere(*bounding_sphere(points))

    def frame_sphere(self, center, radius: float) -> None:
        """Point the camera at world ``center`` from where a sphere of ``radius`` fits the
        view's width and height with a margin (the view angle stays)."""
        aspect = self.width() / max(self.height(), 1)
        distance = framing_distance(radius, self.opts["fov"], aspect)
        center = WORLD_TO_VIEW[:3, :3] @ np.asarray(center, dtype=float)
        self.setCameraPosition(pos=QtGui.QVector3D(*center), distance=distance)
        self._fitted = (float(radius), float(self.opts["distance"]))

    def resizeEvent(self, ev):
        """Until the user zooms, a framing keeps fitting as the view changes shape."""
        super().resizeEvent(ev)
        if self._fitted is not None and self.opts["distance"] == self._fitted[1]:
            self.frame_sphere(framing.center_in_world(self), self._fitted[0])

    def frame_all(self) -> None:
        """Frame the skeleton and its handles at the current frame (Blender's View All),
        lay the ground grid under everything the timeline reaches, reset the view angle."""
        framing.frame_all(self)
        self.refresh()

    def frame_animation(self) -> None:
        """Frame every joint and mesh over the whole timeline (while following: around the
        followed point at each frame), reset the view angle."""
        framing.frame_animation(self)
        self.refresh()

    def frame_opened(self) -> None:
        """A scene was opened: Follow as its motion asks, and frame the whole animation."""
        framing.frame_opened(self)
        self.refresh()

    def keep_action(self, *_) -> None:
        """The space or Compare changed: the animation (and Compare's ghost) stays in view,
        framed again as opening a scene does when it would leave it."""
        if framing.keep_action(self):
            self.refresh()

    def frame_selection(self) -> None:
        """F: frame the selection (everything when nothing is selected)."""
        points = framing.selection_points(self)
        if len(points) == 0:
            self.frame_all()
        else:
            self.frame_points(points)

    def set_follow(self, on: bool) -> None:
        """Follow: the centre follows the selection (else the root) as the frame changes."""
        on = bool(on)
        if on != self.follow.enabled:
            self.follow.set_enabled(on)
            self.follow_changed.emit(on)

    def _show_new(self) -> None:  # Shift+A, E, an undone delete: brought into view
        self._made = framing.show_new(self, self._made)

    # --- what is drawn -------------------------------------------------------------------

    @property
    def show_axes(self) -> bool:
        return self._show_axes

    @property
    def show_labels(self) -> bool:
        """View ▸ Labels: the names beside pivots, targets and poles, and what limits and
        teaching views say."""
        return self._drawing.labels.enabled

    def set_show_labels(self, on: bool) -> None:
        self._drawing.labels.enabled = bool(on)
        self.update()

    def set_show_axes(self, on: bool) -> None:
        """Draw each bone's frame axes (x red, y green, z blue): the bases of the seed."""
        self._show_axes = bool(on)
        self.refresh()

    @property
    def mesh_display(self) -> str:
        """What is drawn when the scene has skinned meshes: ``"mesh"``, ``"bones"``, ``"both"``."""
        return self._drawing.meshes.display

    def set_mesh_display(self, display: str) -> None:
        if display not in DISPLAYS:
            raise ValueError(f"display must be one of {DISPLAYS}, not {display!r}")
        self._drawing.meshes.display = display
        self.refresh()

    @property
    def xray(self) -> bool:
        """Bones drawn over the skinned meshes."""
        return self._drawing.meshes.xray

    def set_xray(self, on: bool) -> None:
        self._drawing.meshes.xray = bool(on)
        self.refresh()

    @property
    def trails(self) -> TrailSettings:
        return self._drawing.layers["trails"].settings

    def set_trails(self, settings: TrailSettings) -> None:
        """Motion trails and onion-skin ghosts around the current frame."""
        self._drawing.layers["trails"].settings = settings
        self.refresh()

    @property
    def teaching(self):
        """The registered layers (trails, ghosts, step-through, tutorials): what they show
        (``teaching.trail_paths``, ``teaching["basis_change"]``)."""
        return self._drawing.layers

    def set_step_through(self, model) -> None:
        """Draw the passes of a :class:`~app.editor.step_through.StepThrough` as it moves."""
        self._drawing.layers["step_through"].model = model
        model.changed.connect(self.refresh)
        self.refresh()

    def handles(self) -> list[tuple[Ref, np.ndarray]]:
        """Every handle at the current frame, the layers' (a tutorial's point) first, then
        every pivot, target and pole: ``(ref, world position)``."""
        return self._drawing.handles(self._document)

    def refresh(self) -> None:
        """Rebuild what is drawn from the document (pose, ghost, handles, labels, layers)."""
        self._drawing.draw(self._document, self._show_axes, self._hover)
        self.gizmo.sync()  # redrawn if the pose, the camera or the selection moved it
        self.update()

    def show_ring(self, center, radius_px: float | None) -> None:
        """Draw the arcball circle around world ``center`` (``None`` hides it)."""
        if radius_px is None:
            self._drawing.show_ring(None)
        else:
            right, up, _ = projection.camera_axes(self.world_to_eye())
            world_per_px = self.pixelSize(QtGui.QVector3D(*(WORLD_TO_VIEW[:3, :3] @ center)))
            self._drawing.show_ring(circle_points(center, right, up, radius_px * world_per_px))
        self.update()

    def handle_position(self, ref: Ref) -> np.ndarray:
        """Where handle ``ref`` is now (world, (3,)): a constraint's part placed alone, or
        a layer's handle."""
        doc = self._document
        try:
            return handle_at(doc, ref)
        except KeyError:  # no constraint's part: a layer's handle, or none
            pass
        for handle in self._drawing.layers.handles(doc, doc.pose()):
            if handle.ref == ref:
                return handle.world
        raise KeyError(f"no handle for {ref.label()}")

    # --- picking -------------------------------------------------------------------------

    def pick(self, pixel) -> Ref | None:
        """What a click at a widget pixel picks, or ``None`` (:meth:`under`'s first)."""
        under = self.under(pixel)
        return under[0] if under else None

    def under(self, pixel) -> list[Ref]:
        """Everything under a widget pixel, what a click picks first: a handle's own dot,
        then the bone whose body is under it, then a handle near it
        (:func:`app.scene.analysis.projection.pick_order`)."""
        handles = self.handles()
        screen = self.project(np.array([p for _, p in handles]).reshape(-1, 3))
        selected = set(self._document.selection)
        dots = np.array(
            [
                HANDLE_DOT_PX
                + (1.5 if r in selected or Ref.constraint(r.name) in selected else 0.0)
                for r, _ in handles
            ]
        )
        pose = self._document.pose()
        heads, tails = pose.heads[0], pose.tails[0]
        heads_px, tails_px = self.project(heads), self.project(tails)
        d, along = projection.segment_closest(pixel, heads_px, tails_px)
        eye = projection.eye_position(self.world_to_eye())
        depth = np.linalg.norm(heads + along[:, None] * (tails - heads) - eye, axis=1)
        order = projection.pick_order(
            pixel,
            screen,
            dots,
            HANDLE_RADIUS_PX,
            d,
            along,
            np.linalg.norm(tails_px - heads_px, axis=1),
            depth,
            BONE_PICK_RADIUS_PX,
        )
        names = pose.bone_names
        return [handles[i][0] if kind == "handle" else Ref.bone(str(names[i])) for kind, i in order]

    @staticmethod
    def _selectable(ref: Ref) -> Ref:
        """What selecting ``ref`` selects (a tutorial's point: its bone)."""
        return Ref.bone(ref.name) if ref.kind == POINT else ref

    def _next_under(self, hit: Ref) -> Ref:
        """What a click that first hits ``hit`` picks: on the spot of the click before, where
        what was selected before the press (one thing) is under the cursor too, the next
        thing under it (Blender's way to reach a bone under another, or under a handle), else
        ``hit``."""
        under, before = self._press_under, self._press_selection
        picks = [self._selectable(r) for r in under]
        again = (
            self._last_click is not None
            and self._press is not None
            and ((self._press - self._last_click).manhattanLength() <= CLICK_SLOP_PX)
        )
        if not again or len(before) != 1 or before[0] not in picks or len(under) < 2:
            return hit
        return under[(picks.index(before[0]) + 1) % len(under)]

    # --- mouse ---------------------------------------------------------------------------

    def mousePressEvent(self, ev):
        pos = ev.position()
        pixel = np.array([pos.x(), pos.y()])
        mods = ev.modifiers()
        if self._drag is not None and ev.button() == QtCore.Qt.MouseButton.RightButton:
            drag, self._drag = self._drag, None  # right-click cancels, as Esc (Blender)
            drag.cancel()
            self._press = None  # its release opens no menu
            ev.accept()
            return
        self._press = pos
        self._press_hit = None
        if ev.button() != QtCore.Qt.MouseButton.LeftButton:
            super().mousePressEvent(ev)
            return
        self._drag = self.gizmo.start_drag(pixel)
        if self._drag is not None:
            ev.accept()
            return
        under = self.under(pixel)
        hit = under[0] if under else None
        ctrl = bool(mods & QtCore.Qt.KeyboardModifier.ControlModifier)
        shift = bool(mods & QtCore.Qt.KeyboardModifier.ShiftModifier)
        doc = self._document
        self._press_under = under
        self._press_selection = doc.selection
        if not ctrl and (hit is None or not hit.is_handle):  # a limit, a tail
            self._drag = start_limit_drag(self, doc, pixel) or start_tail_drag(
                self, doc, pixel, shift
            )
            if self._drag is not None:
                ev.accept()
                return
        if hit is not None and (hit.is_handle or ctrl):
            doc.set_selection([Ref.bone(hit.name) if hit.kind == POINT else hit])
            self._drag = start_drag(self, doc, hit, pixel, ctrl=ctrl, shift=shift)
            if self._drag is not None:
                self._press_hit = None if ctrl else hit  # a click on it may pick the next
                ev.accept()
                return
        self._press_hit = hit
        self._press_extend = shift
        super().mousePressEvent(ev)

    def mouseMoveEvent(self, ev):
        pos = ev.position()
        pixel = np.array([pos.x(), pos.y()])
        if self._drag is not None:
            self._drag.move(pixel, ev.modifiers())
            ev.accept()
            return
        if ev.buttons() == QtCore.Qt.MouseButton.NoButton:
            self.gizmo.hover(pixel)
            self._set_hover(self.pick(pixel))
            if self._hover is None:  # a selected tail or a limit's rim or end: grabbable
                doc = self._document
                grab = limit_under(self, doc, pixel) or tail_under(self, doc, pixel)
                self.setCursor(
                    QtCore.Qt.CursorShape.OpenHandCursor
                    if grab
                    else QtCore.Qt.CursorShape.ArrowCursor
                )
            return
        super().mouseMoveEvent(ev)

    def mouseReleaseEvent(self, ev):
        press = self._press
        clicked = press is not None and (ev.position() - press).manhattanLength() <= CLICK_SLOP_PX
        try:
            self._release(ev, press, clicked)
        finally:
            self._press = None
            if clicked and ev.button() == QtCore.Qt.MouseButton.LeftButton:
                self._last_click = press

    def _release(self, ev, press, clicked: bool) -> None:
        if self._drag is not None:
            drag, self._drag = self._drag, None
            drag.finish()
            hit, self._press_hit = self._press_hit, None
            if clicked and hit is not None:  # a click again: the next thing under the handle
                picked = self._next_under(hit)
                if picked != hit:
                    self._document.set_selection([self._selectable(picked)])
            ev.accept()
            return
        if clicked and ev.button() == QtCore.Qt.MouseButton.LeftButton:
            self._click(self._press_hit, self._press_extend)
        elif clicked and ev.button() == QtCore.Qt.MouseButton.RightButton:
            self._context_menu(ev.position())
        super().mouseReleaseEvent(ev)

    def _context_menu(self, pos) -> None:
        """Right-click: what can be added to, removed from or retargeted on the thing
        under the cursor (it becomes the selection unless it is part of it)."""
        doc = self._document
        hit = self.pick(np.array([pos.x(), pos.y()]))
        if hit is not None and hit not in doc.selection:
            doc.set_selection([hit])
        menu = build_add_menu(doc, self, hit)
        if not menu.isEmpty():
            self.exec_menu(menu, self.mapToGlobal(pos.toPoint()))

    def exec_menu(self, menu, at) -> None:
        """Show ``menu`` modally at global position ``at`` (tests replace this)."""
        menu.exec(at)

    def _click(self, hit: Ref | None, extend: bool) -> None:
        doc = self._document
        if not extend and hit is not None:
            hit = self._next_under(hit)
        if hit is not None:
            hit = self._selectable(hit)
        if hit is None:
            if not extend:
                doc.set_selection([])
            return
        if extend:
            refs = [r for r in doc.selection if r != hit]
            if len(refs) == len(doc.selection):
                refs.append(hit)
            doc.set_selection(refs)
        else:
            doc.set_selection([hit])

    def keyPressEvent(self, ev):
        if ev.key() == QtCore.Qt.Key.Key_Escape and self._drag is not None:
            drag, self._drag = self._drag, None
            drag.cancel()
            ev.accept()
            return
        super().keyPressEvent(ev)

    def _set_hover(self, ref: Ref | None) -> None:
        hover = ref if ref is not None and ref.is_handle else None
        if hover != self._hover:
            self._hover = hover
            cursor = (
                QtCore.Qt.CursorShape.OpenHandCursor if hover else QtCore.Qt.CursorShape.ArrowCursor
            )
            self.setCursor(cursor)
            self._drawing.draw_handles(self._document, self.handles(), hover)
            self.update()

    def leaveEvent(self, ev):
        self._set_hover(None)
        super().leaveEvent(ev)

    # --- painting ------------------------------------------------------------------------

    def update(self) -> None:
        """Repaint, labels included (pyqtgraph calls this after every camera move)."""
        super().update()
        drawing = getattr(self, "_drawing", None)  # pyqtgraph updates before it exists
        if drawing is not None:
            drawing.labels.refresh()
        gizmo = getattr(self, "gizmo", None)
        if gizmo is not None:
            gizmo.sync()  # the rings keep their size on screen as the camera moves

    def labels(self) -> list[str]:
        """The texts of the labels drawn over the viewport (pivots, targets, limits)."""
        return self._drawing.labels.texts

    def paintGL(self):
        super().paintGL()
        done = time.perf_counter()
        self.painted.emit(done)
        if self._first_paint_exit:
            self._first_paint_exit = False
            print(f"first-paint {time.time():.6f}", flush=True)
            sys.stdout.flush()
            QtCore.QTimer.singleShot(0, QtCore.QCoreApplication.quit)
