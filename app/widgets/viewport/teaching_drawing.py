"""What the viewport draws for teaching and analysis: motion trails, onion-skin ghosts, and
the step-through's passes and arrows, as two layers (:mod:`app.widgets.viewport.layers`).

:class:`TrailsLayer` and :class:`StepThroughLayer` own their pyqtgraph items (under the
viewport's Y-up root) and rebuild them from the document, the trail settings and the
step-through state; they return the labels they want, which the scene drawing shows with
its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.analysis import trails
from app.scene.constraints.fabrik.trace import ChainTrace
from app.scene.constraints.multi_parent.steps import Steps
from app.scene.math.quat import axis_angle_from_quat, matrix_from_quat
from app.widgets.viewport.layers.base import Labels, Layer
from app.widgets.viewport.overlays import BLENDED, arrow_lines, axes_lines
from app.widgets.viewport.skeleton_item import SkeletonItem

BEFORE_COLOR = np.array([1.0, 0.55, 0.25])  # onion skin: the past warm
AFTER_COLOR = np.array([0.35, 0.85, 0.65])  # and the future cool, as Blender's
STAGE_COLOR = (1.0, 0.93, 0.35, 1.0)
PREVIOUS_STAGE_COLOR = (0.75, 0.75, 0.8, 0.45)
ROOT_OFF_COLOR = (1.0, 0.35, 0.3, 1.0)
SUM_COLOR = (1.0, 1.0, 1.0, 1.0)
AXIS_COLOR = (1.0, 0.9, 0.3, 1.0)
PIVOT_ARROW_COLORS = np.array(
    [
        [1.0, 0.58, 0.12, 1.0],
        [0.95, 0.35, 0.55, 1.0],
        [0.65, 0.5, 1.0, 1.0],
        [0.3, 0.8, 1.0, 1.0],
        [0.5, 0.95, 0.4, 1.0],
    ]
)


@dataclass
class TrailSettings:
    """Motion trails and ghosts around the current frame.

    Attributes
    ----------
    enabled : bool
        Draw the paths of what the constraints move (and of the selected bones' tips).
    before, after : int
        Frames of path before and after the current frame.
    ghosts : bool
        Draw onion-skin poses ...
    every : int
        ... every this many frames within the range.
    """

    enabled: bool = False
    before: int = 12
    after: int = 12
    ghosts: bool = False
    every: int = 4


def _fade(frames, frame, before, after) -> np.ndarray:
    """RGBA per frame: warm before ``frame``, cool after, fainter with distance."""
    frames = np.asarray(frames, float)
    span = np.where(frames < frame, max(before, 1), max(after, 1))
    closeness = 1.0 - np.clip(np.abs(frames - frame) / (span + 1), 0, 1)
    rgb = np.where((frames < frame)[:, None], BEFORE_COLOR, AFTER_COLOR)
    return np.concatenate([rgb, (0.25 + 0.7 * closeness)[:, None]], axis=1)


class TrailsLayer(Layer):
    """Motion trails and onion-skin ghosts around the current frame (:attr:`settings`)."""

    name = "trails"

    def __init__(self, root):
        self.settings = TrailSettings()
        self.ghosts = SkeletonItem(parentItem=root, ghost=True)
        self.ghosts.setDepthValue(4)
        self.ghosts.setVisible(False)
        self.trail_lines = self.lines(root, 6, 2.5, BLENDED)
        self.trail_dots = self.points(root, 7)
        #: What the trails show, for tests: ``{label: (frames (W,), positions (W, 3))}``.
        self.trail_paths: dict = {}
        #: The ghost poses' frames, and their heads and tails (for framing the view).
        self.ghost_frames = np.zeros(0)
        self.ghost_points = np.zeros((0, 3))

    def draw(self, document, pose, scale: float) -> Labels:
        return self.draw_trails(document, self.settings, document.selected_bones())

    # --- trails and ghosts ---------------------------------------------------------------

    def draw_trails(self, document, settings: TrailSettings, selected_bones) -> Labels:
        scene = document.scene
        frame = document.frame
        self.trail_paths = {}
        self.ghost_frames = np.zeros(0)
        self.ghost_points = np.zeros((0, 3))
        show = settings.enabled
        window = (
            trails.window(
                frame, settings.before, settings.after, scene.frame_start, scene.frame_end
            )
            if show
            else np.zeros(0)
        )
        ghost = (
            np.rint(
                trails.ghost_frames(
                    frame,
                    settings.before,
                    settings.after,
                    settings.every,
                    scene.frame_start,
                    scene.frame_end,
                )
            )
            if show and settings.ghosts
            else np.zeros(0)
        )
        points = trails.trail_points(scene, selected_bones) if show else []
        self.trail_lines.setVisible(bool(points) and len(window) > 1)
        self.trail_dots.setVisible(bool(points) and len(window) > 0)
        self.ghosts.setVisible(len(ghost) > 0)
        if not show or (not len(window) and not len(ghost)):
            return []
        frames = np.union1d(window, ghost)
        heads, tails, source = self._poses(document, frames)
        labels: Labels = []
        if points and len(window):
            rows = np.searchsorted(source, window)
            paths = trails.paths(points, heads, tails, source, source[rows])
            colors = _fade(window, frame, settings.before, settings.after)
            seg_pos, seg_col, dots, dot_col = [], [], [], []
            for p, path in zip(points, paths):
                self.trail_paths[p.label] = (window, path)
                if len(path) > 1:
                    seg_pos.append(np.stack([path[:-1], path[1:]], axis=1).reshape(-1, 3))
                    seg_col.append(np.repeat(colors[1:], 2, axis=0))
                dots.append(path)
                dot_col.append(colors)
                labels.append((path[-1], f"{p.label} path", (0.8, 0.85, 0.9, 0.8)))
            if seg_pos:
                self.trail_lines.setData(pos=np.concatenate(seg_pos), color=np.concatenate(seg_col))
            self.trail_dots.setData(
                pos=np.concatenate(dots), color=np.concatenate(dot_col), size=5.0
            )
        if len(ghost):
            rows = np.searchsorted(source, ghost)
            self.ghost_frames = ghost
            B = heads.shape[1]
            colors = np.repeat(_fade(ghost, frame, settings.before, settings.after), B, axis=0)
            colors[:, 3] *= 0.35
            self.ghosts.set_pose(heads[rows].reshape(-1, 3), tails[rows].reshape(-1, 3), colors)
            self.ghost_points = np.concatenate(
                [heads[rows].reshape(-1, 3), tails[rows].reshape(-1, 3)]
            )
        return labels

    @staticmethod
    def _poses(document, frames):
        """Heads and tails at whole ``frames``, from the whole-timeline cache when it is
        ready, else evaluated for these frames only (during a drag the cache is stale)."""
        timeline = document.evaluations.cached_timeline()
        if timeline is not None:
            rows = np.rint(frames - timeline.frames[0]).astype(np.intp)
            return timeline.heads[rows], timeline.tails[rows], frames
        result = document.evaluations.evaluate(frames)
        return result.heads, result.tails, frames

    def drawn_points(self) -> np.ndarray:
        """Trail and ghost points drawn now (N, 3): Frame All keeps them in view."""
        paths = [p for _, p in self.trail_paths.values()]
        return np.concatenate(paths + [self.ghost_points]) if paths else self.ghost_points


class StepThroughLayer(Layer):
    """The passes of a :class:`~app.editor.step_through.StepThrough` (:attr:`model`): a
    FABRIK stage's chain, or a multi-parent substep's arrows."""

    name = "step_through"

    def __init__(self, root):
        self.model = None
        self.step_lines = self.lines(root, 11, 3.0)
        self.step_points = self.points(root, 12)
        #: The step-through's arrow scale (drawn length / true length), 0 when none.
        self.arrow_scale = 0.0
        #: The joints of the FABRIK stage drawn (J, 3), or None.
        self.step_joints = None

    def draw(self, document, pose, scale: float) -> Labels:
        return self.draw_steps(self.model, scale)

    # --- step-through --------------------------------------------------------------------

    def draw_steps(self, model, scale: float) -> Labels:
        self.arrow_scale = 0.0
        self.step_joints = None
        trace = None if model is None or not model.active else model.trace
        if trace is None or len(trace) == 0:
            self.step_lines.setVisible(False)
            self.step_points.setVisible(False)
            return []
        if isinstance(trace, ChainTrace):
            return self._draw_fabrik(trace, model.index)
        if isinstance(trace, Steps):
            return self._draw_multi_parent(trace, model.index, scale)
        return []

    def _draw_fabrik(self, trace, index) -> Labels:
        stage = trace.stages[index]
        joints = self.step_joints = stage.joints
        pos = [np.stack([joints[:-1], joints[1:]], axis=1).reshape(-1, 3)]
        col = [np.tile(STAGE_COLOR, (2 * (len(joints) - 1), 1))]
        if index > 0:
            prev = trace.stages[index - 1].joints
            pos.append(np.stack([prev[:-1], prev[1:]], axis=1).reshape(-1, 3))
            col.append(np.tile(PREVIOUS_STAGE_COLOR, (2 * (len(prev) - 1), 1)))
        self.step_lines.setData(pos=np.concatenate(pos), color=np.concatenate(col))
        self.step_lines.setVisible(True)
        root = trace.stages[0].joints[0]
        dots = [joints, trace.target[None]]
        colors = [np.tile(STAGE_COLOR, (len(joints), 1)), [(0.25, 0.88, 1.0, 1.0)]]
        labels = [
            (joints[-1], f"{stage.name()}: tail → target {stage.tail_distance:.3g}", STAGE_COLOR)
        ]

        if stage.root_offset > 0:
            dots.append(root[None])
            colors.append([ROOT_OFF_COLOR])
            labels.append(
                (joints[0], f"root off its place by {stage.root_offset:.3g}", ROOT_OFF_COLOR)
            )
        self.step_points.setData(pos=np.concatenate(dots), color=np.concatenate(colors), size=9.0)
        self.step_points.setVisible(True)
        return labels

    def _draw_multi_parent(self, st, k, scale) -> Labels:
        p0 = st.position[k]
        pivots = st.pivot_positions[k]
        contributions = st.contributions[k]
        reach = max(float(np.linalg.norm(st.offsets, axis=-1).max()), 1e-9)
        biggest = float(np.linalg.norm(st.contributions, axis=-1).max())
        # Arrows are a step's worth of motion, tiny next to the body: drawn scaled so the
        # largest of the trace is 60% of the farthest pivot's distance.
        self.arrow_scale = 0.6 * reach / biggest if biggest > 0 else 0.0
        a = self.arrow_scale
        pos, col = [], []
        for i in range(len(pivots)):  # v_i: from the body's head to the pivot
            pos += [p0, pivots[i]]
            col += [(1.0, 0.6, 0.15, 0.5)] * 2
        arrows = arrow_lines(np.repeat(p0[None], len(pivots), 0), p0 + a * contributions)
        pos += list(arrows)
        for i in range(len(pivots)):
            col += [PIVOT_ARROW_COLORS[i % len(PIVOT_ARROW_COLORS)]] * 6
        total = contributions.sum(axis=0)
        pos += list(arrow_lines(p0[None], (p0 + a * total)[None]))
        col += [SUM_COLOR] * 6
        axis, angle = axis_angle_from_quat(st.combined[k])
        pos += [p0 - 0.5 * reach * axis, p0 + 0.5 * reach * axis]
        col += [AXIS_COLOR] * 2
        frame_pos, frame_col = axes_lines(
            np.concatenate(
                [np.concatenate([matrix_from_quat(st.rotation[k]), p0[:, None]], 1), [[0, 0, 0, 1]]]
            )[None],
            np.array([0.3 * reach]),
        )
        pos += list(frame_pos)
        col += list(frame_col)
        self.step_lines.setData(pos=np.array(pos), color=np.array(col, dtype=float))
        self.step_lines.setVisible(True)
        self.step_points.setData(
            pos=np.concatenate([p0[None], pivots]),
            color=np.array([SUM_COLOR] + [(1.0, 0.6, 0.15, 1.0)] * len(pivots)),
            size=8.0,
        )
        self.step_points.setVisible(True)
        size = np.linalg.norm(contributions, axis=1)
        labels = [
            (p0 + a * contributions[i], f"{name}: v−RvR*", PIVOT_ARROW_COLORS[i % 5])
            for i, name in enumerate(st.pivot_names)
            if size[i] > 1e-9 * max(biggest, 1e-300)
        ]  # a still pivot adds nothing
        labels.append((p0 + a * total, f"Σ = Δp0 (arrows ×{a:.3g})", SUM_COLOR))
        labels.append((p0 + 0.5 * reach * axis, f"{{Rᵢ}}: {np.degrees(angle):.3f}°", AXIS_COLOR))
        return labels
