"""What the viewport draws of a document: ground, skeleton, ghost, handles, guides, labels.

:class:`SceneDrawing` owns the pyqtgraph items (under one root that turns Pivotal's Y-up
world into pyqtgraph's Z-up view) and rebuilds them from the document on demand, then
draws the registered layers (:mod:`app.widgets.viewport.layers`: trails, step-through,
tutorials); the viewport owns the camera and the mouse. :func:`handles_of` lists the
constraints' draggable points (pivots, targets, poles) with their world positions at the
current frame, :func:`handle_at` one of them.

One idea: the scene as the viewport draws it, each item rebuilt from the document.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from PySide6 import QtGui

from app.editor.operations.constraint_operations import target_world
from app.scene.analysis import compare
from app.scene.rig import key_edits
from app.scene.rig.model import same_items
from app.scene.rig.prepared import prepare
from app.scene.rig.refs import POINT, Ref, follows_a_bone, part_refs
from app.widgets.kinds.registry import segments_of
from app.widgets.viewport.bone_frames import TimelineShapes
from app.widgets.viewport.gl_batches import SegmentLines
from app.widgets.viewport.handle_frames import TimelineHandles
from app.widgets.viewport.label_sprites import LabelSprites
from app.widgets.viewport.layers.registry import LayerStack
from app.widgets.viewport.limit_items import LimitItems, shown_shapes
from app.widgets.viewport.mesh_item import MeshLayer
from app.widgets.viewport.overlays import (
    BLENDED,
    OVERLAY,
    HandlesItem,
    axes_lines,
)
from app.widgets.viewport.skeleton_item import BONE_COLOR, JOINT_COLOR, SkeletonItem

#: World (Y-up) to pyqtgraph's view coordinates (Z-up): (x, y, z) -> (x, -z, y).
WORLD_TO_VIEW = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=float)

SELECTED_COLOR = np.array([0.42, 0.70, 1.0, 1.0])  # Blender's pose-mode blue
DRIVEN_COLOR = np.array([0.62, 0.82, 0.60, 1.0])  # bones a constraint drives, greenish
VIOLATION_COLOR = np.array([0.95, 0.18, 0.22, 1.0])
BONE_TARGET_COLOR = np.array([0.55, 0.70, 0.78, 1.0])  # a target that follows a bone
DIFF_LOW = np.array([0.80, 0.82, 0.86, 1.0])
DIFF_HIGH = np.array([1.0, 0.66, 0.10, 1.0])  # amber: apart (red is kept for limits)
GHOST_COLOR = np.array([0.55, 0.75, 1.0, 0.34])
GHOST_VIOLATION_COLOR = np.array([1.0, 0.25, 0.25, 0.45])
REFERENCE_COLOR = np.array([0.45, 0.95, 0.55, 0.5])  # a clip beside the scene (an import)
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


def _part_world(document, pose, index, c, ref: Ref) -> np.ndarray | None:
    """Where part ``ref`` of constraint ``c`` is at the current frame (world, (3,)), or
    ``None`` for a pivot whose body is not in the scene."""
    if ref.part.on_body:  # a point on the body, in its frame (a pivot)
        body = index.get(c.driven_bones()[0])
        if body is None:
            return None
        body_to_world = pose.bone_to_world[0, body]
        pivot = c.part_item(ref.kind, ref.part_name)
        pivot_in_body = key_edits.position_at(pivot, document.frame)
        return body_to_world[:3, :3] @ pivot_in_body + body_to_world[:3, 3]
    return np.asarray(target_world(document, c, ref.kind), float)


def handles_of(document) -> list[tuple[Ref, np.ndarray]]:
    """Every pivot, target and pole at the current frame: ``(ref, world position (3,))``."""
    scene = document.scene
    pose = document.pose()
    index = prepare(scene).index  # name -> bone, built once per edit
    out = []
    for c in scene.constraints:
        for ref in part_refs(c):
            world = _part_world(document, pose, index, c, ref)
            if world is not None:
                out.append((ref, world))
    return out


def handle_at(document, ref: Ref) -> np.ndarray:
    """The world position (3,) of one pivot, target or pole at the current frame, as
    :func:`handles_of` lists it, without placing the others.

    Raises
    ------
    KeyError
        ``ref`` is no part of a constraint of the scene, or a pivot on a missing body.
    """
    scene = document.scene
    c = next((c for c in scene.constraints if c.name == ref.name), None)
    world = None
    if c is not None and ref in part_refs(c):
        world = _part_world(document, document.pose(), prepare(scene).index, c, ref)
    if world is None:
        raise KeyError(f"no handle for {ref.label()}")
    return world


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


def _handle_color(scene, ref: Ref) -> np.ndarray:
    """A constraint part's handle colour: its type's (a target that follows a bone greyer)."""
    if follows_a_bone(scene, ref):
        return BONE_TARGET_COLOR
    return np.array(ref.part.color)


def _guide_of(c, ref: Ref, index) -> tuple[int, bool, tuple]:
    """Where the guide to handle ``ref`` of constraint ``c`` starts: (bone index, at its tail
    rather than its head, RGBA)."""
    bone, at = c.guide_of(ref.kind)  # the kind says (a pivot's body, a pole's middle joint)
    return index[bone], at != "head", ref.part.guide_color


#: Whose labels keep their place first where labels would overlap (lower first): the
#: selection's, a hovered handle's and what a teaching view or a limit says, the handles of
#: what the selected bones take part in, the other handles.
SELECTED, HOVERED, TOLD, NEAR_SELECTION, OTHER = range(5)


def label_priority(document, refs, hover: Ref | None) -> np.ndarray:
    """The label priority (:data:`SELECTED`...) of handles ``refs``, (N,)."""
    selected = set(document.selection)
    bones = set(document.selected_bones())
    scene = document.scene
    out = np.full(len(refs), OTHER, dtype=float)
    for k, r in enumerate(refs):
        if (
            r in selected
            or Ref.constraint(r.name) in selected
            or (r.kind == POINT and Ref.bone(r.name) in selected)
        ):
            out[k] = SELECTED
        elif r == hover:
            out[k] = HOVERED
        elif r.kind != POINT and bones & set(scene.constraint(r.name).referenced_bones()):
            out[k] = NEAR_SELECTION
    return out


class _HandleStyle:
    """What of the handles ``refs`` (pivots, targets, poles) does not move with the frame,
    as arrays, so a frame change draws them with a few gathers, not a loop per handle."""

    def __init__(self, document, refs, hover, index):
        scene = document.scene
        selected = set(document.selection)
        self.colors = np.array([_handle_color(scene, r) for r in refs]).reshape(-1, 4)
        self.hot = np.array(
            [r in selected or Ref.constraint(r.name) in selected or r == hover for r in refs],
            dtype=bool,
        )
        guides = [_guide_of(scene.constraint(r.name), r, index) for r in refs]
        self.bones = np.array([g[0] for g in guides], dtype=np.intp)
        self.at_tail = np.array([g[1] for g in guides], dtype=bool)
        self.guide_colors = np.repeat(np.array([g[2] for g in guides]).reshape(-1, 4), 2, axis=0)
        self.texts = [r.handle_text() for r in refs]
        self.priority = label_priority(document, refs, hover)
        self.label_colors = [np.array(r.part.color) for r in refs]


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
        self._world_axes = SegmentLines(
            parentItem=self._root, width=2, antialias=True, glOptions=BLENDED
        )
        self._skeleton = SkeletonItem(parentItem=self._root)
        self._ghost = SkeletonItem(parentItem=self._root, ghost=True)
        self._ghost.setDepthValue(5)  # after the solid skeleton: blended over it
        # a clip shown beside the scene (the motion being imported), translucent green
        self._reference = SkeletonItem(parentItem=self._root, ghost=True)
        self._reference.setDepthValue(6)
        # Each timeline's bone meshes, built once per edit (playback reads them).
        self.shapes = TimelineShapes()
        self._ghost_shapes = TimelineShapes()
        self.handle_frames = TimelineHandles()  # every handle at every frame, once per edit
        self.meshes = MeshLayer(self._root, bones=self._skeleton, ghost_bones=self._ghost)
        self._bone_axes = self._lines(8, width=2)
        self._guides = self._lines(9, width=1.5)
        self._kind_shapes = self._lines(9, width=1.5)  # what a kind's view draws (a sphere)
        self._ring = self._lines(9, width=2, mode="line_strip")
        self._ring.setVisible(False)
        self._handles = HandlesItem(parentItem=self._root)
        self._handles.setDepthValue(10)
        self.labels = LabelSprites(view, view.project)
        self.layers = LayerStack(self._root)  # the registered teaching layers
        self._layer_handles: dict = {}  # Ref -> LayerHandle, the layers' handles drawn
        self.limits = LimitItems(self._root)
        self.scale = 1.0  # the skeleton's size, for the length of frame axes
        self._kept_style = None  # (scene, prepared rig, constraints, key, _HandleStyle)

    def _lines(self, depth: int, width: float, mode: str = "lines") -> SegmentLines:
        item = SegmentLines(
            parentItem=self._root, mode=mode, width=width, antialias=True, glOptions=OVERLAY
        )
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

    def draw(self, document, show_axes: bool, hover: Ref | None) -> None:
        """Rebuild everything from the document's pose at the current frame, then the
        registered layers."""
        pose = document.pose()
        if len(pose.bone_names) != len(document.scene.bones):
            return  # a structural edit is halfway; the next pose_changed redraws
        ghost = document.ghost_pose() if document.compare else None
        heads, tails = pose.heads[0], pose.tails[0]
        joints = np.tile(JOINT_COLOR, (len(heads), 1))
        shapes = self.shapes.of_pose(document, document.space, pose)
        self._skeleton.set_pose(
            heads, tails, bone_colors(document, pose, ghost is not None), joints, shapes
        )
        self._ghost.setVisible(ghost is not None)
        if ghost is not None:
            shapes = self._ghost_shapes.of_pose(document, document.ghost_space(), ghost)
            self._ghost.set_pose(ghost.heads[0], ghost.tails[0], ghost_colors(ghost), shapes=shapes)
        reference = document.reference.at(document.frame)
        self._reference.setVisible(reference is not None)
        if reference is not None:
            heads, tails = reference
            self._reference.set_pose(heads, tails, np.tile(REFERENCE_COLOR, (len(heads), 1)))
        self.meshes.draw(document, pose, ghost)
        self._draw_axes(pose, show_axes)
        handles = self.handles(document, pose, timeline=True)
        self.draw_handles(document, handles, hover)
        self._draw_guides(document, pose, handles, hover)
        pos, colors = segments_of(document)  # what the kinds' views draw (a sphere)
        self._kind_shapes.setVisible(len(pos) > 0)
        if len(pos):
            self._kind_shapes.setData(pos=pos, color=colors)
        self.limits.draw(shown_shapes(document))
        extra = self.layers.draw(document, pose, self.scale)
        self._draw_labels(document, pose, handles, extra, hover)

    def handles(self, document, pose=None, timeline: bool = False):
        """The active layers' handles, then every pivot, target and pole at the current
        frame: ``[(ref, world position (3,))]``; ``timeline`` reads the constraints' from
        the cached timeline when the pose is one of its frames (a frame change)."""
        pose = document.pose() if pose is None else pose
        extra = self.layers.handles(document, pose)
        self._layer_handles = {h.ref: h for h in extra}
        parts = self.handle_frames.of_document(document) if timeline else None
        if parts is None:
            parts = handles_of(document)
        return [(h.ref, h.world) for h in extra] + parts

    def _draw_axes(self, pose, show: bool) -> None:
        self._bone_axes.setVisible(show)
        if not show:
            return
        lengths = np.linalg.norm(pose.tails[0] - pose.heads[0], axis=1)
        lengths = np.maximum(0.35 * lengths, 0.03 * self.scale)
        pos, colors = axes_lines(pose.bone_to_world[0], lengths)
        self._bone_axes.setData(pos=pos, color=colors)

    def _style(self, document, handles, hover: Ref | None):
        """What of the handles does not move with the frame: their colours and highlights,
        where each guide starts (bone, head or tail) and its colour, each label's text and
        colour (:class:`_HandleStyle`), kept while the handles, the constraints, the bones,
        the selection and the hover stay; ``None`` with a layer's handle (its colour and
        label are the layer's)."""
        refs = tuple(ref for ref, _ in handles)
        if any(ref in self._layer_handles for ref in refs):
            return None
        scene = document.scene
        prepared = prepare(scene)
        constraints = tuple(scene.constraints)  # immutable items: identity says unchanged
        key = (refs, document.selection, hover)
        kept = self._kept_style
        if (
            kept is not None
            and kept[0] is scene
            and kept[1] is prepared
            and kept[3] == key
            and same_items(kept[2], constraints)
        ):
            return kept[4]
        style = _HandleStyle(document, refs, hover, prepared.index)
        self._kept_style = (scene, prepared, constraints, key, style)
        return style

    def draw_handles(self, document, handles, hover: Ref | None) -> None:
        """Handles coloured by kind; the selected and the hovered ones larger."""
        style = self._style(document, handles, hover)
        if style is not None:
            positions = np.array([p for _, p in handles]).reshape(-1, 3)
            self._handles.set_handles(positions, style.colors, style.hot)
            return
        selected = set(document.selection)
        colors, flags = [], []
        for ref, _ in handles:
            layer_handle = self._layer_handles.get(ref)
            colors.append(
                _handle_color(document.scene, ref) if layer_handle is None else layer_handle.color
            )
            hot = ref in selected or Ref.constraint(ref.name) in selected
            hot = hot or (ref.kind == POINT and Ref.bone(ref.name) in selected)
            flags.append(hot or ref == hover)
        positions = np.array([p for _, p in handles]).reshape(-1, 3)
        self._handles.set_handles(positions, np.array(colors).reshape(-1, 4), np.array(flags))

    def _draw_guides(self, document, pose, handles, hover: Ref | None = None) -> None:
        """Thin lines from a body's head to its pivots, from a bone's tip to its target,
        from a chain's middle joint to its pole."""
        style = self._style(document, handles, hover)
        if style is not None:  # one gather: the starts of every guide at this frame
            self._guides.setVisible(bool(len(style.bones)))
            if len(style.bones):
                ends = np.array([p for _, p in handles]).reshape(-1, 3)
                starts = np.where(
                    style.at_tail[:, None], pose.tails[0, style.bones], pose.heads[0, style.bones]
                )
                pos = np.stack([starts, ends], axis=1).reshape(-1, 3)
                self._guides.setData(pos=pos, color=style.guide_colors)
            return
        scene = document.scene
        index = prepare(scene).index
        pos, colors = [], []
        for ref, world in handles:
            if ref in self._layer_handles:
                continue
            bone, at_tail, color = _guide_of(scene.constraint(ref.name), ref, index)
            pos += [(pose.tails if at_tail else pose.heads)[0, bone], world]
            colors += [color, color]
        self._guides.setVisible(bool(pos))
        if pos:
            self._guides.setData(pos=np.array(pos), color=np.array(colors))

    def _draw_labels(self, document, pose, handles, extra=(), hover=None) -> None:
        scene = document.scene
        positions, texts, colors = [], [], []
        style = self._style(document, handles, hover)
        if style is not None:
            positions = [p for _, p in handles]
            texts = list(style.texts)
            colors = list(style.label_colors)
            priority = list(style.priority)
            handles = ()
        else:
            priority = list(label_priority(document, [r for r, _ in handles], hover))
        for ref, world in handles:
            positions.append(world)
            layer_handle = self._layer_handles.get(ref)
            if layer_handle is not None:
                texts.append(layer_handle.text)
                colors.append(layer_handle.color)
            else:
                texts.append(ref.handle_text())
                colors.append(np.array(ref.part.color))
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
                priority.append(TOLD)
        for position, text, color in extra:
            positions.append(position)
            texts.append(text)
            colors.append(color)
            priority.append(TOLD)
        self.labels.set_labels(
            np.array(positions).reshape(-1, 3), texts, np.array(colors).reshape(-1, 4), priority
        )

    def show_ring(self, points) -> None:
        """Draw the arcball circle through world ``points`` (M, 3); ``None`` hides it."""
        self._ring.setVisible(points is not None)
        if points is not None:
            self._ring.setData(pos=points, color=(1.0, 1.0, 1.0, 0.7))
