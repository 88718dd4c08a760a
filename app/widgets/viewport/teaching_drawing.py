"""What the viewport draws for teaching and analysis: motion trails, onion-skin ghosts, and
the step-through's passes and arrows, as two layers (:mod:`app.widgets.viewport.layers`).

:class:`TrailsLayer` and :class:`StepThroughLayer` own their pyqtgraph items (under the
viewport's Y-up root) and rebuild them from the document, the trail settings and the
step-through state; they return the labels they want, which the scene drawing shows with
its own.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from app.scene.analysis import trails
from app.widgets.kinds.registry import view_for
from app.widgets.viewport.layers.base import Labels, Layer
from app.widgets.viewport.overlays import BLENDED
from app.widgets.viewport.skeleton_item import SkeletonItem

BEFORE_COLOR = np.array([1.0, 0.55, 0.25])  # onion skin: the past warm
AFTER_COLOR = np.array([0.35, 0.85, 0.65])  # and the future cool, as Blender's


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
        return self.draw_steps(document, self.model, scale)

    # --- step-through --------------------------------------------------------------------

    def draw_steps(self, document, model, scale: float) -> Labels:
        """The traced kind's drawing of the stage shown (its view's ``draw_trace``)."""
        self.arrow_scale = 0.0
        self.step_joints = None
        trace = None if model is None or not model.active else model.trace
        view = None
        if trace is not None and len(trace) > 0:
            with contextlib.suppress(KeyError):  # renamed or removed since it was traced
                view = view_for(document.scene.constraint(model.constraint))
        if view is None:
            self.step_lines.setVisible(False)
            self.step_points.setVisible(False)
            return []
        if view.draw_trace is None:
            return []
        return view.draw_trace(self, trace, model.index, scale)
