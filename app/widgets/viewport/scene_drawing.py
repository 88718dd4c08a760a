"""What the viewport draws of a document: ground, skeleton, ghost, handles, guides, labels.

:class:`SceneDrawing` owns the pyqtgraph items (under one root that turns Pivotal's Y-up
world into pyqtgraph's Z-up view) and rebuilds them from the document on demand; the
viewport owns the camera and the mouse. :func:`handles_of` lists the draggable points
(pivots, targets, poles) with their world positions at the current frame.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from PySide6 import QtGui

from app.editor import tutorials
from app.editor.operations import target_world
from app.scene.analysis import compare
from app.scene.rig import editing
from app.scene.rig.editing import PIVOT, POINT, POLE, Ref
from app.scene.rig.prepared import prepare
from app.widgets.viewport.bone_frames import TimelineShapes
from app.widgets.viewport.gl_batches import SegmentLines
from app.widgets.viewport.handle_frames import TimelineHandles
from app.widgets.viewport.label_sprites import LabelSprites
from app.widgets.viewport.limit_items import LimitItems, shown_shapes
from app.widgets.viewport.mesh_item import MeshLayer
from app.widgets.viewport.overlays import (
    BLENDED,
    OVERLAY,
    HandlesItem,
    axes_lines,
)
from app.widgets.viewport.skeleton_item import BONE_COLOR, JOINT_COLOR, SkeletonItem
from app.widgets.viewport.teaching_drawing import POINT_COLOR, TeachingDrawing, TrailSettings

#: World (Y-up) to pyqtgraph's view coordinates (Z-up): (x, y, z) -> (x, -z, y).
WORLD_TO_VIEW = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=float)

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
GRID_COLOR = np.array([150, 150, 160, 50]) / 255.0
#: Degrees past a limit below which a bone counts as keeping it (rounding).
VIOLATION_EPS_DEG = 0.05


def grid_lines(cx: float, cz: float, extent: float, spacing: float) -> np.ndarray:
    """Vertex pairs ``(2 L, 3)`` of a ground grid (y = 0) of ``spacing`` reaching ``extent``
    around ``(cx, cz)``: the lines of pyqtgraph's ``GLGridItem`` of that size and spacing."""
    ticks = np.arange(-extent, extent + spacing * 0.001, spacing)
    lo, hi = ticks[0], ticks[-1]
    n = len(ticks)
    pos = np.zeros((2, n, 2, 3))
    pos[0, :, :, 0] = cx + ticks[:, None]  # lines along z at each x
    pos[0, :, 0, 2], pos[0, :, 1, 2] = cz + lo, cz + hi
    pos[1, :, :, 2] = cz + ticks[:, None]  # lines along x at each z
    pos[1, :, 0, 0], pos[1, :, 1, 0] = cx + lo, cx + hi
    return pos.reshape(-1, 3)


def handles_of(document) -> list[tuple[Ref, np.ndarray]]:
    """Every pivot, target and pole at the current frame, and a basis-change tutorial's
    point: ``(ref, world position (3,))``."""
    scene = document.scene
    pose = document.pose()
    index = prepare(scene).index  # name -> bone, built once per edit
    out = []
    tutorial = tutorials.basis_change_of(scene)
    if tutorial is not None and len(pose.bone_names) == len(scene.bones):
        world, _ = tutorials.point_in_frames(tutorial, scene, pose.bone_to_world[0])
        out.append((Ref(POINT, tutorial.point), world))
    for c in scene.constraints:
        for ref in editing.part_refs(c):
            if ref.kind == PIVOT:  # a point on the body, in its frame
                body = index.get(c.driven_bones()[0])
                if body is None:
                    continue
                body_to_world = pose.bone_to_world[0, body]
                pivot = editing.pivot_named(c, ref.pivot)
                pivot_in_body = editing.position_at(pivot, document.frame)
                world = body_to_world[:3, :3] @ pivot_in_body + body_to_world[:3, 3]
                out.append((ref, world))
            else:
                out.append((ref, np.asarray(target_world(document, c, ref.kind), float)))
    return out


def bone_colors(document, pose, compared: bool) -> np.ndarray:
    """RGBA per bone: grey, green if a constraint drives it, amber by how far the two
    spaces part (Compare), red past a limit, blended with blue when selected."""
    scene = document.scene
    index = prepare(scene).index
    colors = np.tile(BONE_COLOR, (len(scene.bones), 1))
    for c in scene.constraints:
        for name in c.driven_bones():
            colors[index[name]] = DRIVEN_COLOR
    if compared:
        dist, angle = document.differences()
        radius = compare.skeleton_radius(pose.heads[0], pose.tails[0])
        level = compare.difference_level(dist, angle, radius)
        colors = DIFF_LOW + level[:, None] * (DIFF_HIGH - DIFF_LOW)
    colors[pose.limit_violation_deg[0] > VIOLATION_EPS_DEG] = VIOLATION_COLOR
    selected = [index[n] for n in document.selected_bones()]
    if selected:
        colors[selected] = 0.35 * colors[selected] + 0.65 * SELECTED_COLOR
    return colors


def ghost_colors(ghost) -> np.ndarray:
    """Translucent blue, and translucent red where the ghost (world space, say) leaves a
    limit."""
    colors = np.tile(GHOST_COLOR, (len(ghost.bone_names), 1))
    colors[ghost.limit_violation_deg[0] > VIOLATION_EPS_DEG] = GHOST_VIOLATION_COLOR
    return colors


class SceneDrawing:
    """The viewport's items, rebuilt from the document by :meth:`draw`."""

    def __init__(self, view: gl.GLViewWidget):
        self._view = view
        self._root = gl.GLGraphicsItem.GLGraphicsItem()
        self._root.setTransform(QtGui.QMatrix4x4(*WORLD_TO_VIEW.reshape(-1)))
        view.addItem(self._root)
        # One aliased line batch: smooth lines across the whole view cost llvmpipe about
        # a millisecond a frame (docs/performance.md).
        self._grid = SegmentLines(parentItem=self._root, glOptions="translucent")
        self._world_axes = SegmentLines(parentItem=self._root, width=2, antialias=True,
                                        glOptions=BLENDED)  # fmt: skip
        self._skeleton = SkeletonItem(parentItem=self._root)
        self._ghost = SkeletonItem(parentItem=self._root, ghost=True)
        self._ghost.setDepthValue(5)  # after the solid skeleton: blended over it
        # Each timeline's bone meshes, built once per edit (playback reads them).
        self.shapes = TimelineShapes()
        self._ghost_shapes = TimelineShapes()
        self.handle_frames = TimelineHandles()  # every handle at every frame, once per edit
        self.meshes = MeshLayer(self._root, bones=self._skeleton, ghost_bones=self._ghost)
        self._bone_axes = self._lines(8, width=2)
        self._guides = self._lines(9, width=1.5)
        self._ring = self._lines(9, width=2, mode="line_strip")
        self._ring.setVisible(False)
        self._handles = HandlesItem(parentItem=self._root)
        self._handles.setDepthValue(10)
        self.labels = LabelSprites(view, view.project)
        self.teaching = TeachingDrawing(self._root)
        self.limits = LimitItems(self._root)
        self.scale = 1.0  # the skeleton's size, for the length of frame axes

    def _lines(self, depth: int, width: float, mode: str = "lines") -> SegmentLines:
        item = SegmentLines(parentItem=self._root, mode=mode, width=width, antialias=True,
                            glOptions=OVERLAY)  # fmt: skip
        item.setDepthValue(depth)
        return item

    # --- the ground ----------------------------------------------------------------------

    def lay_ground(self, center, extent: float, spacing: float) -> None:
        """A grid of ``spacing`` reaching ``extent`` around ``center`` (world, y ignored),
        with the world's X (red) and Z (blue) axes along it and a short Y (green)."""
        cx = spacing * round(float(center[0]) / spacing)
        cz = spacing * round(float(center[2]) / spacing)
        self._grid.setData(pos=grid_lines(cx, cz, extent, spacing), color=GRID_COLOR)
        x = [[cx - extent, 0, 0], [cx + extent, 0, 0]]
        z = [[0, 0, cz - extent], [0, 0, cz + extent]]
        y = [[0, 0, 0], [0, 0.5 * spacing, 0]]
        colors = np.array(
            [[0.85, 0.3, 0.3, 0.75]] * 2
            + [[0.3, 0.45, 0.95, 0.75]] * 2
            + [[0.35, 0.85, 0.35, 0.9]] * 2
        )
        self._world_axes.setData(pos=np.array(x + z + y, dtype=float), color=colors)

    # --- the document --------------------------------------------------------------------

    def draw(self, document, show_axes: bool, hover: Ref | None,
             trails: TrailSettings | None = None, steps=None) -> None:  # fmt: skip
        """Rebuild everything from the document's pose at the current frame, with the
        trails and the step-through state (:class:`~app.editor.step_through.StepThrough`)."""
        pose = document.pose()
        if len(pose.bone_names) != len(document.scene.bones):
            return  # a structural edit is halfway; the next pose_changed redraws
        ghost = document.ghost_pose() if document.compare else None
        heads, tails = pose.heads[0], pose.tails[0]
        joints = np.tile(JOINT_COLOR, (len(heads), 1))
        shapes = self.shapes.of_pose(document, document.space, pose)
        self._skeleton.set_pose(heads, tails, bone_colors(document, pose, ghost is not None),
                                joints, shapes)  # fmt: skip
        self._ghost.setVisible(ghost is not None)
        if ghost is not None:
            shapes = self._ghost_shapes.of_pose(document, document.ghost_space(), ghost)
            self._ghost.set_pose(ghost.heads[0], ghost.tails[0], ghost_colors(ghost),
                                 shapes=shapes)  # fmt: skip
        self.meshes.draw(document, pose, ghost)
        self._draw_axes(pose, show_axes)
        handles = self.handle_frames.of_document(document)
        if handles is None:
            handles = handles_of(document)
        self.draw_handles(document, handles, hover)
        self._draw_guides(document, pose, handles)
        self.limits.draw(shown_shapes(document))
        extra = self.teaching.draw_trails(document, trails or TrailSettings(),
                                          document.selected_bones())  # fmt: skip
        extra += self.teaching.draw_steps(steps, self.scale)
        extra += self.teaching.draw_tutorial(document, pose, self.scale)
        self._draw_labels(document, pose, handles, extra)

    def _draw_axes(self, pose, show: bool) -> None:
        self._bone_axes.setVisible(show)
        if not show:
            return
        lengths = np.linalg.norm(pose.tails[0] - pose.heads[0], axis=1)
        lengths = np.maximum(0.35 * lengths, 0.03 * self.scale)
        pos, colors = axes_lines(pose.bone_to_world[0], lengths)
        self._bone_axes.setData(pos=pos, color=colors)

    def draw_handles(self, document, handles, hover: Ref | None) -> None:
        """Handles coloured by kind; the selected and the hovered ones larger."""
        selected = set(document.selection)
        colors, flags = [], []
        for ref, _ in handles:
            if ref.kind == POINT:
                colors.append(POINT_COLOR)
            elif ref.kind == PIVOT:
                colors.append(PIVOT_COLOR)
            elif editing.resolve(document.scene, ref).bone is not None:
                colors.append(BONE_TARGET_COLOR)
            else:
                colors.append(POLE_COLOR if ref.kind == POLE else TARGET_COLOR)
            hot = ref in selected or Ref.constraint(ref.name) in selected
            hot = hot or (ref.kind == POINT and Ref.bone(ref.name) in selected)
            flags.append(hot or ref == hover)
        positions = np.array([p for _, p in handles]).reshape(-1, 3)
        self._handles.set_handles(positions, np.array(colors).reshape(-1, 4), np.array(flags))

    def _draw_guides(self, document, pose, handles) -> None:
        """Thin lines from a body's head to its pivots, from a bone's tip to its target,
        from a chain's middle joint to its pole."""
        scene = document.scene
        index = prepare(scene).index
        pos, colors = [], []
        for ref, world in handles:
            if ref.kind == POINT:
                continue
            c = scene.constraint(ref.name)
            driven = c.driven_bones()
            if ref.kind == PIVOT:  # from the body's head
                start = pose.heads[0, index[driven[0]]]
                color = (1.0, 0.6, 0.15, 0.55)
            elif ref.kind == POLE:  # the chain bends towards it at its middle joint
                start = pose.heads[0, index[driven[len(driven) // 2]]]
                color = (0.78, 0.55, 1.0, 0.5)
            else:  # from the point it moves (the tip it aims, the head it places)
                bone, at = c.trail_point()
                start = (pose.heads if at == "head" else pose.tails)[0, index[bone]]
                color = (0.3, 0.9, 1.0, 0.55)
            pos += [start, world]
            colors += [color, color]
        self._guides.setVisible(bool(pos))
        if pos:
            self._guides.setData(pos=np.array(pos), color=np.array(colors))

    def _draw_labels(self, document, pose, handles, extra=()) -> None:
        scene = document.scene
        positions, texts, colors = [], [], []
        for ref, world in handles:
            positions.append(world)
            if ref.kind == POINT:
                tutorial = tutorials.basis_change_of(scene)
                texts.append(tutorial.point_label if tutorial else ref.name)
                colors.append(POINT_COLOR)
            elif ref.kind == PIVOT:
                texts.append(ref.pivot)
                colors.append(PIVOT_COLOR)
            else:
                texts.append(f"{ref.kind} · {ref.name}")
                colors.append(POLE_COLOR if ref.kind == POLE else TARGET_COLOR)
        # Limit violations (world space only has them) on the bone that has them: the
        # solid pose, or the ghost in Compare mode.
        shown = [(pose, "")]
        if document.compare:
            shown.append((document.ghost_pose(), f" ({document.ghost_space()})"))
        for p, words in shown:
            violation = p.limit_violation_deg[0]
            for i in np.flatnonzero(violation > VIOLATION_EPS_DEG):
                positions.append(0.5 * (p.heads[0, i] + p.tails[0, i]))
                texts.append(f"{scene.bones[i].name} +{violation[i]:.1f}° past limit{words}")
                colors.append(VIOLATION_COLOR)
        for position, text, color in extra:
            positions.append(position)
            texts.append(text)
            colors.append(color)
        self.labels.set_labels(
            np.array(positions).reshape(-1, 3), texts, np.array(colors).reshape(-1, 4)
        )

    def show_ring(self, points) -> None:
        """Draw the arcball circle through world ``points`` (M, 3); ``None`` hides it."""
        self._ring.setVisible(points is not None)
        if points is not None:
            self._ring.setData(pos=points, color=(1.0, 1.0, 1.0, 0.7))
