"""The 3D viewport: a pyqtgraph ``GLViewWidget`` showing and editing the document's pose.

Pivotal's world is Y-up (the BVH convention). pyqtgraph's camera orbits about +Z, so every
scene item hangs under one root item whose transform turns world Y-up into the view's Z-up.

Mouse: a press on a handle (pivot, target) selects it and drags it in the plane through it
facing the camera (Shift: along the ground); Ctrl+drag on a pivot or bone turns it with an
arcball and keys it. A press on a bone selects it (Shift adds to the selection). Anything
else orbits, pans and zooms as pyqtgraph does; a click on empty space clears the selection.
Picking projects points on the CPU (:mod:`app.scene.projection`), never with GL_SELECT.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pyqtgraph.opengl as gl
from PySide6 import QtCore, QtGui

from app.operations import target_world
from app.scene import compare, editing, projection
from app.scene.editing import PIVOT, POLE, TARGET_KINDS, Ref
from app.scene.gizmo import broadside_direction, framing_distance
from app.scene.model import Fabrik, MultiParent, PointsAt
from app.widgets.overlays import (
    BLENDED,
    OVERLAY,
    HandlesItem,
    LabelsOverlay,
    axes_lines,
    circle_points,
)
from app.widgets.skeleton_item import BONE_COLOR, JOINT_COLOR, SkeletonItem
from app.widgets.viewport_drag import HANDLE_RADIUS_PX, Drag, start_drag

#: World (Y-up) to pyqtgraph's view coordinates (Z-up): (x, y, z) -> (x, -z, y).
WORLD_TO_VIEW = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=float)

#: The viewport's clear colour, RGB 0..255.
BACKGROUND = (46, 48, 54)
SELECTED_COLOR = np.array([0.42, 0.70, 1.0, 1.0])  # Blender's pose-mode blue
DRIVEN_COLOR = np.array([0.62, 0.82, 0.60, 1.0])  # bones a constraint drives, greenish
VIOLATION_COLOR = np.array([0.95, 0.18, 0.22, 1.0])
PIVOT_COLOR = np.array([1.0, 0.58, 0.12, 1.0])
TARGET_COLOR = np.array([0.25, 0.88, 1.0, 1.0])
POLE_COLOR = np.array([0.78, 0.55, 1.0, 1.0])
BONE_TARGET_COLOR = np.array([0.55, 0.70, 0.78, 1.0])  # a target that follows a bone
DIFF_LOW = np.array([0.80, 0.82, 0.86, 1.0])
DIFF_HIGH = np.array([1.0, 0.66, 0.10, 1.0])  # amber: apart (red is kept for limits)
GHOST_COLOR = np.array([0.55, 0.75, 1.0, 0.34])
GHOST_VIOLATION_COLOR = np.array([1.0, 0.25, 0.25, 0.45])
BONE_PICK_RADIUS_PX = 7.0
CLICK_SLOP_PX = 4.0


class Viewport(gl.GLViewWidget):
    """Shows the document's pose and lets the user drag pivots, targets and rotations."""

    #: Emitted after each paint with the time it finished (for latency measurements).
    painted = QtCore.Signal(float)

    def __init__(self, document, parent=None):
        super().__init__(parent=parent)
        self.setObjectName("viewport")
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        self._document = document
        self._show_axes = False
        self._drag: Drag | None = None
        self._press: QtCore.QPointF | None = None
        self._press_hit: Ref | None = None
        self._press_extend = False
        self._hover: Ref | None = None
        self._first_paint_exit = bool(os.environ.get("PIVOTAL_EXIT_AFTER_FIRST_PAINT"))
        self.setMouseTracking(True)
        self.setBackgroundColor(BACKGROUND)
        self._build_items()
        document.pose_changed.connect(self.refresh)
        document.selection_changed.connect(self.refresh)
        document.scene_replaced.connect(self.frame_all)
        self.refresh()
        self.frame_all()

    def _build_items(self) -> None:
        self._root = gl.GLGraphicsItem.GLGraphicsItem()
        self._root.setTransform(QtGui.QMatrix4x4(*WORLD_TO_VIEW.reshape(-1)))
        self.addItem(self._root)
        self._grid = gl.GLGridItem(color=(150, 150, 160, 50))
        self._grid.setParentItem(self._root)
        self._grid.rotate(90, 1, 0, 0)  # the grid item lies in XY; the ground is XZ
        self._world_axes = gl.GLLinePlotItem(
            parentItem=self._root, mode="lines", width=2, antialias=True, glOptions=BLENDED
        )
        self._skeleton = SkeletonItem(parentItem=self._root)
        self._ghost = SkeletonItem(parentItem=self._root, ghost=True)
        self._ghost.setDepthValue(5)
        self._bone_axes = gl.GLLinePlotItem(
            parentItem=self._root, mode="lines", width=2, antialias=True, glOptions=OVERLAY
        )
        self._bone_axes.setDepthValue(8)
        self._guides = gl.GLLinePlotItem(
            parentItem=self._root, mode="lines", width=1.5, antialias=True, glOptions=OVERLAY
        )
        self._guides.setDepthValue(9)
        self._ring = gl.GLLinePlotItem(
            parentItem=self._root, mode="line_strip", width=2, antialias=True, glOptions=OVERLAY
        )
        self._ring.setDepthValue(9)
        self._ring.setVisible(False)
        self._handles = HandlesItem(parentItem=self._root)
        self._handles.setDepthValue(10)
        self._labels = LabelsOverlay(self, self.project)

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
        points = points[np.all(np.isfinite(points), axis=1)]
        if len(points) == 0:
            return
        lo, hi = points.min(axis=0), points.max(axis=0)
        center = (lo + hi) / 2
        radius = max(float(np.linalg.norm(hi - lo)) / 2, 0.05)
        aspect = self.width() / max(self.height(), 1)
        distance = framing_distance(radius, self.opts["fov"], aspect)
        self.setCameraPosition(
            pos=QtGui.QVector3D(*(WORLD_TO_VIEW[:3, :3] @ center)), distance=distance
        )

    def frame_all(self) -> None:
        """Frame the skeleton and its handles at the current frame (Blender's View All),
        lay the ground grid under everything the timeline reaches, reset the view angle."""
        doc = self._document
        frames = np.linspace(doc.scene.frame_start, doc.scene.frame_end, 9)
        path = doc.evaluate(
            frames, None
        )  # as authored: the camera angle stays when the space flips
        reach = np.concatenate([path.heads.reshape(-1, 3), path.tails.reshape(-1, 3)])
        pose = doc.pose()
        shown = [pose.heads[0], pose.tails[0]] + [p[None] for _, p in self.handles()]
        if doc.compare:  # the ghost is part of the picture
            ghost = doc.ghost_pose()
            shown += [ghost.heads[0], ghost.tails[0]]
        points = np.concatenate(shown)
        lo, hi = points.min(axis=0), points.max(axis=0)
        radius = max(float(np.linalg.norm(hi - lo)) / 2, 0.05)
        self._radius = radius
        spacing = float(10 ** np.floor(np.log10(radius / 2)))
        r_lo, r_hi = reach.min(axis=0), reach.max(axis=0)
        ground = (r_lo + r_hi) / 2
        extent = max(0.6 * float(np.linalg.norm(r_hi - r_lo)) + radius, 8 * spacing)
        extent = spacing * min(np.ceil(extent / spacing), 200)
        self._grid.setSpacing(x=spacing, y=spacing)
        self._grid.setSize(x=2 * extent, y=2 * extent)
        self._grid.resetTransform()
        self._grid.rotate(90, 1, 0, 0)
        self._grid.translate(
            spacing * round(ground[0] / spacing), 0, spacing * round(ground[2] / spacing)
        )
        self._update_world_axes(extent, ground, spacing)
        toward = WORLD_TO_VIEW[:3, :3] @ broadside_direction(reach)
        self.opts["elevation"] = 15
        self.opts["azimuth"] = float(np.degrees(np.arctan2(toward[1], toward[0])))
        self.frame_points(points)
        self.refresh()

    def _update_world_axes(self, extent, ground, spacing) -> None:
        cx = spacing * round(ground[0] / spacing)
        cz = spacing * round(ground[2] / spacing)
        x = [[cx - extent, 0, 0], [cx + extent, 0, 0]]
        z = [[0, 0, cz - extent], [0, 0, cz + extent]]
        y = [[0, 0, 0], [0, 0.5 * spacing, 0]]
        pos = np.array(x + z + y, dtype=float)
        colors = np.array(
            [[0.85, 0.3, 0.3, 0.75]] * 2
            + [[0.3, 0.45, 0.95, 0.75]] * 2
            + [[0.35, 0.85, 0.35, 0.9]] * 2
        )
        self._world_axes.setData(pos=pos, color=colors)

    def frame_selection(self) -> None:
        """F: frame the selection (everything when nothing is selected)."""
        points = self._selection_points()
        if len(points) == 0:
            self.frame_all()
        else:
            self.frame_points(points)

    def _selection_points(self) -> np.ndarray:
        doc = self._document
        pose = doc.pose()
        points = []
        for ref in doc.selection:
            if ref.kind == editing.BONE:
                i = doc.scene.bone_index(ref.name)
                points += [pose.heads[0, i], pose.tails[0, i]]
            elif ref.kind == editing.CONSTRAINT:
                c = doc.scene.constraint(ref.name)
                for name in c.referenced_bones():
                    i = doc.scene.bone_index(name)
                    points += [pose.heads[0, i], pose.tails[0, i]]
                points += [p for r, p in self.handles() if r.name == ref.name]
            else:
                points += [p for r, p in self.handles() if r == ref]
        return np.array(points).reshape(-1, 3)

    # --- what is drawn -------------------------------------------------------------------

    @property
    def show_axes(self) -> bool:
        return self._show_axes

    def set_show_axes(self, on: bool) -> None:
        """Draw each bone's frame axes (x red, y green, z blue): the bases of the seed."""
        self._show_axes = bool(on)
        self.refresh()

    def handles(self) -> list[tuple[Ref, np.ndarray]]:
        """Every pivot and target at the current frame: ``(ref, world position (3,))``."""
        doc = self._document
        scene = doc.scene
        pose = doc.pose()
        out = []
        for c in scene.constraints:
            if isinstance(c, MultiParent):
                try:
                    body = scene.bone_index(c.body)
                except KeyError:
                    continue
                body_to_world = pose.bone_to_world[0, body]
                for p in c.pivots:
                    pivot_in_body = editing.position_at(p, doc.frame)
                    world = body_to_world[:3, :3] @ pivot_in_body + body_to_world[:3, 3]
                    out.append((Ref.pivot_of(c.name, p.name), world))
            elif isinstance(c, (PointsAt, Fabrik)):
                out.append((Ref.target_of(c.name), np.asarray(target_world(doc, c), float)))
                if getattr(c, "pole", None) is not None:
                    pole = np.asarray(target_world(doc, c, "pole"), float)
                    out.append((Ref.pole_of(c.name), pole))
        return out

    def handle_position(self, ref: Ref) -> np.ndarray:
        for r, p in self.handles():
            if r == ref:
                return p
        raise KeyError(f"no handle for {ref.label()}")

    def _bone_colors(self, pose, ghost_pose) -> np.ndarray:
        doc = self._document
        scene = doc.scene
        n = len(scene.bones)
        colors = np.tile(BONE_COLOR, (n, 1))
        driven = {b for c in scene.constraints for b in c.driven_bones()}
        for name in driven:
            if name in pose.bone_names:
                colors[scene.bone_index(name)] = DRIVEN_COLOR
        if ghost_pose is not None:
            dist, angle = doc.differences()
            radius = compare.skeleton_radius(pose.heads[0], pose.tails[0])
            level = compare.difference_level(dist, angle, radius)
            colors = DIFF_LOW + level[:, None] * (DIFF_HIGH - DIFF_LOW)
        violated = pose.limit_violation_deg[0] > 0.05
        colors[violated] = VIOLATION_COLOR
        selected = [scene.bone_index(n) for n in doc.selected_bones()]
        if selected:
            colors[selected] = 0.35 * colors[selected] + 0.65 * SELECTED_COLOR
        return colors

    def refresh(self) -> None:
        """Rebuild what is drawn from the document (pose, ghost, handles, labels)."""
        doc = self._document
        scene = doc.scene
        pose = doc.pose()
        if len(pose.bone_names) != len(scene.bones):
            return  # a structural edit is halfway; the next pose_changed redraws
        ghost = doc.ghost_pose() if doc.compare else None
        heads, tails = pose.heads[0], pose.tails[0]
        joints = np.tile(JOINT_COLOR, (len(heads), 1))
        self._skeleton.set_pose(heads, tails, self._bone_colors(pose, ghost), joints)
        self._ghost.setVisible(ghost is not None)
        if ghost is not None:
            self._ghost.set_pose(ghost.heads[0], ghost.tails[0], self._ghost_colors(ghost))
        self._refresh_axes(pose)
        handles = self.handles()
        self._refresh_handles(handles)
        self._refresh_guides(pose, handles)
        self._refresh_labels(pose, handles)
        self.update()

    def _refresh_axes(self, pose) -> None:
        self._bone_axes.setVisible(self._show_axes)
        if not self._show_axes:
            return
        lengths = np.linalg.norm(pose.tails[0] - pose.heads[0], axis=1)
        lengths = np.maximum(0.35 * lengths, 0.03 * getattr(self, "_radius", 1.0))
        pos, colors = axes_lines(pose.bone_to_world[0], lengths)
        self._bone_axes.setData(pos=pos, color=colors)

    def _refresh_handles(self, handles) -> None:
        doc = self._document
        selected = set(doc.selection)
        colors, flags = [], []
        for ref, _ in handles:
            target = None if ref.kind == PIVOT else editing.resolve(doc.scene, ref)
            if ref.kind == PIVOT:
                colors.append(PIVOT_COLOR)
            elif target.bone is not None:
                colors.append(BONE_TARGET_COLOR)
            else:
                colors.append(POLE_COLOR if ref.kind == POLE else TARGET_COLOR)
            hot = ref in selected or Ref.constraint(ref.name) in selected
            flags.append(hot or ref == self._hover)
        positions = np.array([p for _, p in handles]).reshape(-1, 3)
        self._handles.set_handles(positions, np.array(colors).reshape(-1, 4), np.array(flags))

    def _refresh_guides(self, pose, handles) -> None:
        """Thin lines from a body's head to its pivots, and from a bone's tip to its target."""
        doc = self._document
        scene = doc.scene
        pos, colors = [], []
        for ref, world in handles:
            c = scene.constraint(ref.name)
            if ref.kind == PIVOT:
                start = pose.heads[0, scene.bone_index(c.body)]
                color = (1.0, 0.6, 0.15, 0.55)
            elif ref.kind == POLE:  # from the chain's middle joint, which bends towards it
                start = pose.heads[0, scene.bone_index(c.chain[len(c.chain) // 2])]
                color = (0.78, 0.55, 1.0, 0.5)
            else:
                tip = c.bone if isinstance(c, PointsAt) else c.chain[-1]
                start = pose.tails[0, scene.bone_index(tip)]
                color = (0.3, 0.9, 1.0, 0.55)
            pos += [start, world]
            colors += [color, color]
        self._guides.setVisible(bool(pos))
        if pos:
            self._guides.setData(pos=np.array(pos), color=np.array(colors))

    @staticmethod
    def _ghost_colors(ghost) -> np.ndarray:
        """Translucent blue, and translucent red where the ghost (world space, say) leaves
        a limit."""
        colors = np.tile(GHOST_COLOR, (len(ghost.bone_names), 1))
        colors[ghost.limit_violation_deg[0] > 0.05] = GHOST_VIOLATION_COLOR
        return colors

    def _refresh_labels(self, pose, handles) -> None:
        doc = self._document
        scene = doc.scene
        positions, texts, colors = [], [], []
        for ref, world in handles:
            positions.append(world)
            if ref.kind == PIVOT:
                texts.append(ref.pivot)
                colors.append(PIVOT_COLOR)
            else:
                texts.append(f"{ref.kind} · {ref.name}")
                colors.append(POLE_COLOR if ref.kind == POLE else TARGET_COLOR)
        # Limit violations (world space only has them) on the bone that has them: the
        # solid pose, or the ghost in Compare mode.
        shown = [(pose, "")]
        if doc.compare:
            shown.append((doc.ghost_pose(), f" ({doc.ghost_space()})"))
        for p, words in shown:
            violation = p.limit_violation_deg[0]
            for i in np.flatnonzero(violation > 0.05):
                positions.append(0.5 * (p.heads[0, i] + p.tails[0, i]))
                texts.append(f"{scene.bones[i].name} +{violation[i]:.1f}° past limit{words}")
                colors.append(VIOLATION_COLOR)
        self._labels.set_labels(
            np.array(positions).reshape(-1, 3), texts, np.array(colors).reshape(-1, 4)
        )

    def show_ring(self, center, radius_px: float | None) -> None:
        """Draw the arcball circle around world ``center`` (``None`` hides it)."""
        if radius_px is None:
            self._ring.setVisible(False)
            self.update()
            return
        right, up, _ = projection.camera_axes(self.world_to_eye())
        world_per_px = self.pixelSize(QtGui.QVector3D(*(WORLD_TO_VIEW[:3, :3] @ center)))
        points = circle_points(center, right, up, radius_px * world_per_px)
        self._ring.setData(pos=points, color=(1.0, 1.0, 1.0, 0.7))
        self._ring.setVisible(True)
        self.update()

    # --- picking -------------------------------------------------------------------------

    def pick(self, pixel) -> Ref | None:
        """What is under a widget pixel: a handle first, then the nearest bone, or ``None``."""
        handles = self.handles()
        if handles:
            screen = self.project(np.array([p for _, p in handles]))
            i = projection.nearest_within(screen, pixel, HANDLE_RADIUS_PX)
            if i >= 0:
                return handles[i][0]
        pose = self._document.pose()
        heads = self.project(pose.heads[0])
        tails = self.project(pose.tails[0])
        d = projection.segment_distances(pixel, heads, tails)
        if len(d) and d.min() <= BONE_PICK_RADIUS_PX:
            return Ref.bone(str(pose.bone_names[int(np.argmin(d))]))
        return None

    # --- mouse ---------------------------------------------------------------------------

    def mousePressEvent(self, ev):
        pos = ev.position()
        pixel = np.array([pos.x(), pos.y()])
        mods = ev.modifiers()
        self._press = pos
        self._press_hit = None
        if ev.button() != QtCore.Qt.MouseButton.LeftButton:
            super().mousePressEvent(ev)
            return
        hit = self.pick(pixel)
        ctrl = bool(mods & QtCore.Qt.KeyboardModifier.ControlModifier)
        shift = bool(mods & QtCore.Qt.KeyboardModifier.ShiftModifier)
        doc = self._document
        if hit is not None and (hit.kind in (PIVOT, *TARGET_KINDS) or ctrl):
            doc.set_selection([hit])
            self._drag = start_drag(self, doc, hit, pixel, ctrl=ctrl, shift=shift)
            if self._drag is not None:
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
            self._set_hover(self.pick(pixel))
            return
        super().mouseMoveEvent(ev)

    def mouseReleaseEvent(self, ev):
        if self._drag is not None:
            drag, self._drag = self._drag, None
            drag.finish()
            ev.accept()
            return
        press, self._press = self._press, None
        if press is not None and ev.button() == QtCore.Qt.MouseButton.LeftButton:
            moved = (ev.position() - press).manhattanLength()
            if moved <= CLICK_SLOP_PX:
                self._click(self._press_hit, self._press_extend)
        super().mouseReleaseEvent(ev)

    def _click(self, hit: Ref | None, extend: bool) -> None:
        doc = self._document
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
        hover = ref if ref is not None and ref.kind in (PIVOT, *TARGET_KINDS) else None
        if hover != self._hover:
            self._hover = hover
            cursor = (
                QtCore.Qt.CursorShape.OpenHandCursor if hover else QtCore.Qt.CursorShape.ArrowCursor
            )
            self.setCursor(cursor)
            self._refresh_handles(self.handles())
            self.update()

    def leaveEvent(self, ev):
        self._set_hover(None)
        super().leaveEvent(ev)

    # --- painting ------------------------------------------------------------------------

    def update(self) -> None:
        """Repaint, labels included (pyqtgraph calls this after every camera move)."""
        super().update()
        labels = getattr(self, "_labels", None)  # pyqtgraph updates before it exists
        if labels is not None:
            labels.refresh()

    def labels(self) -> list[str]:
        """The texts of the labels drawn over the viewport (pivots, targets, limits)."""
        return self._labels.texts

    def paintGL(self):
        super().paintGL()
        done = time.perf_counter()
        self.painted.emit(done)
        if self._first_paint_exit:
            self._first_paint_exit = False
            print(f"first-paint {time.time():.6f}", flush=True)
            sys.stdout.flush()
            QtCore.QTimer.singleShot(0, QtCore.QCoreApplication.quit)
