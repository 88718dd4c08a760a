"""The evaluations of a scene being edited: evaluators and their caches, asked by frames and
space, with one key rule.

:class:`Evaluations` keeps one :class:`~app.scene.evaluate.Evaluator` per evaluation space
(a multi-parent integral in world space is not the one in object space), the pose at the
current frame, and whole timelines, until the next edit. Every question names a space:
:data:`CURRENT` (the default) is the current space (:attr:`Evaluations.space`), ``None`` each
constraint as authored (as in :meth:`Evaluations.set_space`), or ``"world"``, ``"object"``,
:data:`ORIGINAL`. :meth:`Evaluations.key` turns it into the cache key the same way
everywhere, never ``None``: as authored is ``"world"`` or ``"object"`` when every constraint
is authored in that space, else :data:`AUTHORED`; with no constraint every space is the
same. So asking for the current space by name or by default reuses one evaluator and
integrates once.

It knows nothing of Qt: ``app.editor.document.Document`` wraps it and turns its callbacks
(:attr:`Evaluations.recompute_started`, :attr:`Evaluations.recompute_finished`,
:attr:`Evaluations.error_changed`) into signals.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from app.scene.analysis import compare
from app.scene.errors import SceneError
from app.scene.evaluate import BakeResult, Context, Evaluator, default_frames
from app.scene.motion.plant import original_scene
from app.scene.rig.model import Scene

#: The "space" of a planted scene's original motion: what Compare draws as its ghost.
ORIGINAL = "original"
#: The space argument that means the current space (:attr:`Evaluations.space`): the default.
CURRENT = "current"
#: The cache key of "as authored" when the constraints are authored in both spaces (an
#: argument of ``None``).
AUTHORED = "authored"

#: What an evaluation may raise on a scene the user is still building: bad input with its
#: place (a solver refusing a degenerate chain, a vanishing anticommutator) or arithmetic.
EVALUATION_ERRORS = (SceneError, ArithmeticError)
#: Frames x bones above which the timeline is not cached ahead (a 100,000-frame clip would
#: take 400 MB of transforms): such a scene evaluates each frame shown, about a millisecond.
TIMELINE_CACHE_BONE_FRAMES = 1_000_000
#: Frames at most that a plot of a timeline too long to cache reads (spread evenly): a plot
#: has fewer pixels across than this.
PLOT_FRAMES = 4000


def _nothing(*_) -> None:
    pass


class Evaluations:
    """The evaluators, poses and timelines of one scene, kept until it is edited.

    Attributes
    ----------
    recompute_started : callable(list[str])
        Called with the names of constraints whose cache is stale, before recomputing them.
    recompute_finished : callable(list[str], float)
        The same names and the seconds it took.
    error_changed : callable(str)
        Why the scene cannot be evaluated ("" when it can again).
    """

    def __init__(self, scene: Scene, space: str | None = None):
        self.recompute_started: Callable = _nothing
        self.recompute_finished: Callable = _nothing
        self.error_changed: Callable = _nothing
        self.error = ""
        self._space = None
        self.replace(scene)
        self.set_space(space)

    # --- what is asked about -------------------------------------------------------------

    @property
    def scene(self) -> Scene:
        return self._scene

    @property
    def frame(self) -> float:
        """The current frame: what :meth:`pose` evaluates."""
        return self._frame

    @property
    def space(self) -> str | None:
        """The current space override (``None``: each constraint as authored)."""
        return self._space

    def replace(self, scene: Scene) -> None:
        """Another scene: every cache is dropped, the frame is its first."""
        self._scene = scene
        self._frame = float(scene.frame_start)
        #: Per :meth:`key`: one evaluator each, with its own caches (all read the same scene
        #: object), the pose at the current frame, the whole timeline, and a plot's sample
        #: of a timeline too long to cache.
        self._evaluators: dict[str, Evaluator] = {}
        self._poses: dict[str, BakeResult] = {}
        self._timelines: dict[str, BakeResult] = {}
        self._plot_timelines: dict[str, BakeResult] = {}
        #: :meth:`differences` at the current frame, and over whole timelines per pair of keys.
        self._differences: tuple[np.ndarray, np.ndarray] | None = None
        self._timeline_differences: dict[tuple[str, str], tuple] = {}
        self._original: Evaluator | None = None

    def set_frame(self, frame: float) -> bool:
        """Move the current frame; whether it changed (a non-finite frame is ignored)."""
        frame = float(frame)
        if frame == self._frame or not np.isfinite(frame):
            return False
        self._frame = frame
        self._poses.clear()
        self._differences = None
        return True

    def set_space(self, space: str | None) -> bool:
        """Override every constraint's space (``None``: as authored); whether it changed."""
        if space not in (None, "world", "object"):
            raise ValueError(f'space must be "world", "object" or None, got {space!r}')
        if space == self._space:
            return False
        self._space = space
        self._poses.clear()
        self._differences = None
        return True

    def edited(self) -> None:
        """The scene's items were replaced: poses and timelines are evaluated again (the
        evaluators keep their caches, which compare their inputs)."""
        self._poses.clear()
        self._timelines.clear()
        self._plot_timelines.clear()
        self._differences = None
        self._timeline_differences.clear()
        self._original = None

    def key(self, space: str | None = CURRENT) -> str:
        """The cache key of ``space``, the one rule every question follows: :data:`CURRENT`
        is the current space; as authored (``None``) is "object" when every constraint is
        authored in object space (or "world" likewise), else :data:`AUTHORED`; with no
        constraint every space is one."""
        if space == CURRENT:
            space = self._space
        if space == ORIGINAL and self._scene.plant is not None:
            return ORIGINAL
        if space not in (None, "world", "object"):
            raise ValueError(f'space must be "world", "object" or None, got {space!r}')
        if not self._scene.constraints:
            return "object"  # nothing depends on the space: one evaluation serves all
        if space is None:
            spaces = {c.space for c in self._scene.constraints}
            return spaces.pop() if len(spaces) == 1 else AUTHORED
        return space

    def ghost_space(self) -> str:
        """The space Compare mode draws as the ghost: the other one.

        As authored, the ghost is world space unless every constraint is authored in world
        space already (then object space). A planted scene's ghost is its original motion
        (:data:`ORIGINAL`): the clip as it was before its feet were planted.
        """
        if self._scene.plant is not None:
            return ORIGINAL
        if self._space == "world":
            return "object"
        if self._space == "object":
            return "world"
        spaces = {c.space for c in self._scene.constraints}
        return "object" if spaces == {"world"} else "world"

    # --- evaluating ----------------------------------------------------------------------

    def evaluator(self, space: str | None = CURRENT) -> Evaluator:
        """The evaluator (with its caches) of ``space``'s key."""
        return self._evaluator_of(self.key(space))

    def _evaluator_of(self, key: str) -> Evaluator:
        ev = self._evaluators.get(key)
        if ev is None or ev.scene is not self._scene:
            ev = self._evaluators[key] = Evaluator(self._scene)
        return ev

    def _run(self, key: str, frames) -> BakeResult:
        """Evaluate with the caches of ``key`` (:meth:`key`), saying when a stale cache is
        recomputed, and falling back to the skeleton without constraints when the scene
        cannot be evaluated."""
        if key == ORIGINAL:
            return self._original_run(frames)
        evaluator = self._evaluator_of(key)
        try:
            stale = evaluator.stale_constraints()
        except EVALUATION_ERRORS:
            stale = []
        if stale:
            self.recompute_started(stale)
        start = time.perf_counter()
        try:
            result = evaluator.evaluate(frames, _override(key))
            error = ""
        except EVALUATION_ERRORS as e:
            error = str(e)
            bare = self._scene.copy()
            bare.constraints = []
            result = Evaluator(bare).evaluate(frames)
        if stale:
            self.recompute_finished(stale, time.perf_counter() - start)
        if error != self.error:
            self.error = error
            self.error_changed(error)
        return result

    def _original_run(self, frames) -> BakeResult:
        """A planted scene's original motion at ``frames``, in the scene's bones: the rig's
        own bones (control, roll body, pole), which the original has not, where they are."""
        if self._original is None:
            self._original = Evaluator(original_scene(self._scene))
        original = self._original.evaluate(frames, None)
        names = [b.name for b in self._scene.bones]
        index = {str(n): i for i, n in enumerate(original.bone_names)}
        if len(index) == len(names):
            return original
        current = self._run(self.key(), frames)
        take = np.array([n in index for n in names])
        rows = [index[n] for n in names if n in index]
        out = {}
        for field in ("bone_to_world", "heads", "tails", "limit_violation_deg"):
            values = np.array(getattr(current, field))
            values[:, take] = getattr(original, field)[:, rows]
            out[field] = values
        return BakeResult(bone_names=current.bone_names, frames=current.frames, **out)

    def evaluate(self, frames, space: str | None = CURRENT) -> BakeResult:
        """Evaluate any frames with the caches of ``space`` (default: the current space)."""
        return self._run(self.key(space), np.asarray(frames, dtype=float).reshape(-1))

    def pose(self, space: str | None = CURRENT) -> BakeResult:
        """The pose at the current frame (one frame), read from the cached timeline when it
        holds that frame; kept until the frame, the space or the scene changes."""
        key = self.key(space)
        pose = self._poses.get(key)
        if pose is not None:
            return pose
        timeline = self._timelines.get(key)
        k = self._frame - self._scene.frame_start
        if timeline is not None and k == int(k) and 0 <= k < len(timeline.frames):
            k = int(k)
            pose = BakeResult(
                bone_names=timeline.bone_names,
                frames=timeline.frames[k : k + 1],
                bone_to_world=timeline.bone_to_world[k : k + 1],
                heads=timeline.heads[k : k + 1],
                tails=timeline.tails[k : k + 1],
                limit_violation_deg=timeline.limit_violation_deg[k : k + 1],
                info=timeline.info,
            )
        else:
            pose = self._run(key, np.array([self._frame]))
        self._poses[key] = pose
        return pose

    def differences(self) -> tuple[np.ndarray, np.ndarray]:
        """Per bone at the current frame: head distance and orientation angle (degrees)
        between the pose in the current space and in :meth:`ghost_space`, each ``(B,)``."""
        if self._differences is None:
            pair = self.key(), self.key(self.ghost_space())
            a, b = self._timelines.get(pair[0]), self._timelines.get(pair[1])
            k = self._frame - self._scene.frame_start
            if a is not None and b is not None and k == int(k) and 0 <= k < len(a.frames):
                # Playback: every frame's differences at once, once per edit.
                whole = self._timeline_differences.get(pair)
                if whole is None:
                    whole = compare.pose_differences(a.bone_to_world, b.bone_to_world)
                    self._timeline_differences[pair] = whole
                self._differences = (whole[0][int(k)], whole[1][int(k)])
            else:
                self._differences = compare.pose_differences(
                    self.pose().bone_to_world[0], self.pose(self.ghost_space()).bone_to_world[0]
                )
        return self._differences

    def timeline_fits_cache(self) -> bool:
        """Whether every frame × bone of the timeline may be kept (at most
        ``TIMELINE_CACHE_BONE_FRAMES``: 100,000 frames of 31 bones would be 400 MB)."""
        s = self._scene
        bone_frames = (s.frame_end - s.frame_start + 1) * max(len(s.bones), 1)
        return bone_frames <= TIMELINE_CACHE_BONE_FRAMES

    def prepare_timeline(self, spaces=(CURRENT,)) -> None:
        """Evaluate every frame of the timeline once in each of ``spaces``, so playback only
        reads the cache."""
        if not self.timeline_fits_cache():
            return
        for space in spaces:
            self.timeline(space)

    def timeline(self, space: str | None = CURRENT) -> BakeResult:
        """Every frame of the timeline in ``space``, evaluated once after each edit."""
        key = self.key(space)
        result = self._timelines.get(key)
        if result is None:
            result = self._timelines[key] = self._run(key, default_frames(self._scene))
        return result

    def cached_timeline(self, space: str | None = CURRENT) -> BakeResult | None:
        """:meth:`timeline` if it is cached, else ``None`` (nothing is evaluated)."""
        return self._timelines.get(self.key(space))

    def timeline_for_plot(self, space: str | None = CURRENT) -> BakeResult:
        """:meth:`timeline` when the timeline fits the cache; for a longer one, at most
        ``PLOT_FRAMES`` whole frames spread evenly from the first frame to the last (kept
        until the next edit), so a plot never holds the whole timeline in memory."""
        if self.timeline_fits_cache():
            return self.timeline(space)
        key = self.key(space)
        result = self._plot_timelines.get(key)
        if result is None:
            s = self._scene
            frames = np.unique(np.rint(np.linspace(s.frame_start, s.frame_end, PLOT_FRAMES)))
            result = self._plot_timelines[key] = self._run(key, frames)
        return result

    def timeline_sample(self, count: int) -> BakeResult:
        """Every frame of the timeline in the current space when it fits the cache, else at
        most ``count`` whole frames spread evenly from the first to the last, evaluated with
        the current space's caches (not kept): what framing the whole animation reads."""
        if self.timeline_fits_cache():
            return self.timeline()
        s = self._scene
        frames = np.unique(np.rint(np.linspace(s.frame_start, s.frame_end, max(int(count), 2))))
        return self._run(self.key(), frames)

    def context_before(self, constraint: str, frames=None) -> Context:
        """The evaluation context just before ``constraint`` at ``frames`` (default: the
        current frame) in the current space, with the caches: what the step-through traces
        a solver from. Raises what an evaluation raises."""
        key = self.key()
        frames = [self._frame] if frames is None else frames
        frames = np.asarray(frames, dtype=float).reshape(-1)
        return self._evaluator_of(key).context(frames, _override(key), until=constraint)


def _override(key: str) -> str | None:
    """The :class:`~app.scene.evaluate.Evaluator`'s space override of a cache key."""
    return None if key == AUTHORED else key
