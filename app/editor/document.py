"""The Qt-side document: owns the scene, the current frame, the evaluation and undo.

Widgets take the document in their constructor, listen to its signals and write edits back
through it; they never talk to each other. The scene model itself (``app.scene``) knows
nothing of Qt. Every setter emits only when its value really changed, which is what keeps
a spin box and the model from echoing each other forever.

Edits go through :class:`~app.editor.commands` undo commands pushed with :meth:`Document.push`;
the commands call :meth:`set_item`, :meth:`insert_item`, :meth:`remove_item` and
:meth:`set_timeline`. A drag previews with :meth:`set_item` and pushes one command on
release (whose first ``redo`` finds the item already in place and changes nothing).

One idea: the document, the single owner of the editor's state; its parts (selection, spaces,
evaluators, timeline cache) are small and share that state, so they stay together.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui

from app.editor.operations import OperationError
from app.scene.analysis import compare
from app.scene.constraints.order import WHY
from app.scene.constraints.order import check as check_order
from app.scene.errors import SceneError
from app.scene.evaluate import BakeResult, Evaluator, default_frames
from app.scene.io import load_scene
from app.scene.rig import editing
from app.scene.rig.editing import Ref
from app.scene.rig.model import Bone, Scene

#: What an evaluation may raise on a scene the user is still building: bad input, a
#: solver missing from this build, a vanishing anticommutator, a degenerate arc.
EVALUATION_ERRORS = (SceneError, ArithmeticError, ValueError)
#: Milliseconds of quiet after which the whole timeline is evaluated into the cache.
WARM_DELAY_MS = 250
#: Frames x bones above which the timeline is not cached ahead (a 100,000-frame clip would
#: take 400 MB of transforms): such a scene evaluates each frame shown, about a millisecond.
TIMELINE_CACHE_BONE_FRAMES = 1_000_000
#: Frames at most that a plot of a timeline too long to cache reads (spread evenly): a plot
#: has fewer pixels across than this.
PLOT_FRAMES = 4000


def new_scene() -> Scene:
    """The scene of File ▸ New: one upright root bone."""
    return Scene(bones=[Bone(name="root", tail=(0.0, 1.0, 0.0))])


class Document(QtCore.QObject):
    """A scene being edited.

    Signals
    -------
    frame_changed(float)
        The current frame moved (scrubbing, playback).
    pose_changed()
        The evaluated pose at the current frame is different (frame, edit or space).
    scene_changed()
        The scene's content was edited or replaced.
    structure_changed()
        Items were added, removed or renamed, or the scene was replaced (lists to rebuild).
    scene_replaced()
        A different scene is open (New, Open, recovery): views reset their cameras.
    space_changed(object)
        The evaluation space override: ``"world"``, ``"object"`` or ``None`` (as authored).
    compare_changed(bool)
        Compare mode (the other space drawn as a ghost) switched on or off.
    selection_changed()
    path_changed(object)
        The file the document is saved to (``None`` for an unsaved scene).
    dirty_changed(bool)
        Unsaved changes appeared or went away.
    recompute_started(object)
        Names of constraints whose cache is stale and is being recomputed.
    recompute_finished(object, float)
        The same names and the seconds it took.
    evaluation_failed(str)
        The scene cannot be evaluated (the reason; empty when it can again). The pose then
        shows the skeleton without its constraints.
    message(str)
        A short note for the status bar (what an operation did or why it could not).
    """

    frame_changed = QtCore.Signal(float)
    pose_changed = QtCore.Signal()
    scene_changed = QtCore.Signal()
    structure_changed = QtCore.Signal()
    scene_replaced = QtCore.Signal()
    space_changed = QtCore.Signal(object)
    compare_changed = QtCore.Signal(bool)
    selection_changed = QtCore.Signal()
    path_changed = QtCore.Signal(object)
    dirty_changed = QtCore.Signal(bool)
    recompute_started = QtCore.Signal(object)
    recompute_finished = QtCore.Signal(object, float)
    evaluation_failed = QtCore.Signal(str)
    message = QtCore.Signal(str)

    def __init__(self, scene: Scene, path: str | None = None, parent=None):
        super().__init__(parent)
        self._scene = scene
        self._path = path
        self._frame = float(scene.frame_start)
        self._space: str | None = None
        self._compare = False
        self._selection: tuple[Ref, ...] = ()
        self._recovered = False
        self._error = ""
        self._reset_evaluation()
        #: Evaluates the whole timeline once the user pauses (after opening, an edit, a
        #: change of space), so scrubbing and playback then only read the cache.
        self._warm_timer = QtCore.QTimer(self)
        self._warm_timer.setSingleShot(True)
        self._warm_timer.setInterval(WARM_DELAY_MS)
        self._warm_timer.timeout.connect(self.prepare_timeline)
        self._warm_timer.start()
        self.undo_stack = QtGui.QUndoStack(self)
        self._dirty = False
        self.undo_stack.cleanChanged.connect(self._update_dirty)
        from app.editor.playback import Player

        self.player = Player(self)

    @classmethod
    def from_file(cls, path, parent=None) -> Document:
        """Load a scene or BVH file (raises :class:`~app.scene.errors.SceneError`)."""
        return cls(load_scene(path), str(Path(path)), parent)

    # --- the scene and its file ----------------------------------------------------------

    @property
    def scene(self) -> Scene:
        return self._scene

    @property
    def path(self) -> str | None:
        return self._path

    def set_path(self, path: str | None) -> None:
        path = None if path is None else str(path)
        if path != self._path:
            self._path = path
            self.path_changed.emit(path)

    def replace_scene(self, scene: Scene, path: str | None, recovered: bool = False) -> None:
        """Open another scene in this document (New, Open): history and selection restart."""
        self.player.pause()
        self._scene = scene
        self._reset_evaluation()
        self._warm_timer.start()
        self.undo_stack.clear()
        self._recovered = recovered
        self._selection = ()
        self._frame = float(scene.frame_start)
        self.set_path(path)
        self._update_dirty()
        self.structure_changed.emit()
        self.scene_changed.emit()
        self.selection_changed.emit()
        self.scene_replaced.emit()
        self.frame_changed.emit(self._frame)
        self.pose_changed.emit()

    @property
    def dirty(self) -> bool:
        """Whether there are changes not saved to :attr:`path`."""
        return self._dirty

    def mark_saved(self, path) -> None:
        """The scene was written to ``path``: it is now the clean state."""
        self.set_path(path)
        self._recovered = False
        self.undo_stack.setClean()
        self._update_dirty()

    def _update_dirty(self, *_):
        dirty = self._recovered or not self.undo_stack.isClean()
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)

    # --- frame, space, compare, selection (view state, not edits) ------------------------

    @property
    def frame(self) -> float:
        return self._frame

    def set_frame(self, frame: float) -> None:
        """Move the current frame (not an undoable edit). Emits only on a change."""
        frame = float(frame)
        if frame == self._frame or not np.isfinite(frame):
            return
        self._frame = frame
        self._poses.clear()
        self.frame_changed.emit(frame)
        self.pose_changed.emit()

    @property
    def space(self) -> str | None:
        return self._space

    def set_space(self, space: str | None) -> None:
        """Override every constraint's space (``None``: each as authored). Not an edit."""
        if space not in (None, "world", "object"):
            raise ValueError(f'space must be "world", "object" or None, got {space!r}')
        if space == self._space:
            return
        self._space = space
        self._poses.clear()
        self._warm_timer.start()
        self.space_changed.emit(space)
        self.pose_changed.emit()

    def ghost_space(self) -> str:
        """The space Compare mode draws as the ghost: the other one.

        As authored, the ghost is world space unless every constraint is authored in world
        space already (then object space).
        """
        if self._space == "world":
            return "object"
        if self._space == "object":
            return "world"
        spaces = {c.space for c in self._scene.constraints}
        return "object" if spaces == {"world"} else "world"

    @property
    def compare(self) -> bool:
        return self._compare

    def set_compare(self, on: bool) -> None:
        on = bool(on)
        if on == self._compare:
            return
        self._compare = on
        self._warm_timer.start()
        self.compare_changed.emit(on)
        self.pose_changed.emit()

    @property
    def selection(self) -> tuple[Ref, ...]:
        """Selected things, the active one (the last clicked) last."""
        return self._selection

    @property
    def active(self) -> Ref | None:
        return self._selection[-1] if self._selection else None

    def set_selection(self, refs) -> None:
        refs = tuple(dict.fromkeys(r for r in refs if editing.exists(self._scene, r)))
        if refs == self._selection:
            return
        self._selection = refs
        self.selection_changed.emit()

    def selected_bones(self) -> list[str]:
        return [r.name for r in self._selection if r.kind == editing.BONE]

    # --- edits (called by undo commands) -------------------------------------------------

    def push(self, command) -> None:
        """Do an edit: push an undo command (which applies it at once).

        An edit after which constraints would read each other's bones in a cycle (contract
        §F1) is refused before anything changes: :class:`~app.editor.operations.
        OperationError` saying so, the scene and the undo stack as they were. A command that
        can change the constraints or the hierarchy says what they become
        (``lists_after(scene)``).

        Raises
        ------
        OperationError
            The edit would make a cycle of constraints.
        """
        lists_after = getattr(command, "lists_after", None)
        after = lists_after(self._scene) if lists_after is not None else None
        if after is not None:
            try:
                check_order(*after)
            except SceneError as e:
                raise OperationError(f"Refused: the constraints would run in a cycle, "
                                     f"{e.cycle} ({WHY})") from None  # fmt: skip
        self.undo_stack.push(command)

    def set_item(self, collection: str, index: int, item) -> None:
        """Replace ``scene.<collection>[index]`` (``"bones"`` or ``"constraints"``).

        Emits nothing when ``item`` is already there (a drag's command re-applying its
        preview).
        """
        items = getattr(self._scene, collection)
        old = items[index]
        if old is item:
            return
        items[index] = item
        self._edited(structure=old.name != item.name or _child_names(old) != _child_names(item))

    def insert_item(self, collection: str, index: int, item) -> None:
        getattr(self._scene, collection).insert(index, item)
        self._edited(structure=True)

    def remove_item(self, collection: str, index: int) -> None:
        del getattr(self._scene, collection)[index]
        self._edited(structure=True)

    def set_timeline(self, fps: float, frame_start: int, frame_end: int) -> None:
        """Replace the scene's playback rate and frame range."""
        s = self._scene
        if (s.fps, s.frame_start, s.frame_end) == (fps, frame_start, frame_end):
            return
        if not fps > 0 or frame_start > frame_end:
            raise ValueError("fps must be > 0 and frame_start <= frame_end")
        s.fps, s.frame_start, s.frame_end = float(fps), int(frame_start), int(frame_end)
        self._edited(structure=False)

    def _edited(self, structure: bool) -> None:
        self._poses.clear()
        self._timelines.clear()
        self._warm_timer.start()
        if structure:
            # Prune the selection first: listeners of either signal see only what exists.
            kept = tuple(r for r in self._selection if editing.exists(self._scene, r))
            pruned = kept != self._selection
            self._selection = kept
            self.structure_changed.emit()
            if pruned:
                self.selection_changed.emit()
        self.scene_changed.emit()
        self.pose_changed.emit()

    def notify(self, text: str) -> None:
        """Say something in the status bar."""
        self.message.emit(text)

    # --- evaluation ----------------------------------------------------------------------

    def _reset_evaluation(self) -> None:
        #: One evaluator per space, each with its own caches (a multi-parent integral in
        #: world space is not the one in object space); all read the same scene object.
        self._evaluators: dict = {}
        self._poses: dict = {}
        self._timelines: dict = {}

    def _space_key(self, space):
        """The override that gives the same evaluation: "as authored" is "object" when every
        constraint is authored in object space (or "world" likewise), so the two share
        their evaluator, caches and poses."""
        if space is None:
            spaces = {c.space for c in self._scene.constraints}
            if len(spaces) == 1:
                return spaces.pop()
        if not self._scene.constraints:
            return "object"  # nothing depends on the space: one evaluation serves all
        return space

    def _evaluator(self, space) -> Evaluator:
        ev = self._evaluators.get(space)
        if ev is None or ev.scene is not self._scene:
            ev = self._evaluators[space] = Evaluator(self._scene)
        return ev

    def _run(self, space, frames) -> BakeResult:
        """Evaluate with the caches, saying when a stale cache is recomputed, and falling
        back to the skeleton without constraints when the scene cannot be evaluated."""
        evaluator = self._evaluator(space)
        try:
            stale = evaluator.stale_constraints()
        except EVALUATION_ERRORS:
            stale = []
        if stale:
            self.recompute_started.emit(stale)
        start = time.perf_counter()
        try:
            result = evaluator.evaluate(frames, space)
            error = ""
        except EVALUATION_ERRORS as e:
            error = str(e)
            bare = self._scene.copy()
            bare.constraints = []
            result = Evaluator(bare).evaluate(frames)
        if stale:
            self.recompute_finished.emit(stale, time.perf_counter() - start)
        if error != self._error:
            self._error = error
            self.evaluation_failed.emit(error)
        return result

    @property
    def evaluation_error(self) -> str:
        """Why the scene cannot be evaluated right now ("" when it can)."""
        return self._error

    def _pose_in(self, space) -> BakeResult:
        space = self._space_key(space)
        pose = self._poses.get(space)
        if pose is not None:
            return pose
        timeline = self._timelines.get(space)
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
            pose = self._run(space, np.array([self._frame]))
        self._poses[space] = pose
        return pose

    def pose(self) -> BakeResult:
        """The evaluated pose at the current frame (one frame), cached until it changes."""
        return self._pose_in(self._space)

    def ghost_pose(self) -> BakeResult:
        """The pose at the current frame in :meth:`ghost_space` (for Compare mode)."""
        return self._pose_in(self.ghost_space())

    def differences(self) -> tuple[np.ndarray, np.ndarray]:
        """Per bone at the current frame: head distance and orientation angle (degrees)
        between :meth:`pose` and :meth:`ghost_pose`, each shaped ``(B,)``; cached."""
        key = ("differences",)
        if key not in self._poses:
            pair = self._space_key(self._space), self._space_key(self.ghost_space())
            a, b = self._timelines.get(pair[0]), self._timelines.get(pair[1])
            k = self._frame - self._scene.frame_start
            if a is not None and b is not None and k == int(k) and 0 <= k < len(a.frames):
                # Playback: every frame's differences at once, once per edit.
                whole = self._timelines.get(("differences", *pair))
                if whole is None:
                    whole = compare.pose_differences(a.bone_to_world, b.bone_to_world)
                    self._timelines[("differences", *pair)] = whole
                self._poses[key] = (whole[0][int(k)], whole[1][int(k)])
            else:
                self._poses[key] = compare.pose_differences(
                    self.pose().bone_to_world[0], self.ghost_pose().bone_to_world[0])
        return self._poses[key]

    def world_pose(self) -> BakeResult:
        """The pose with every constraint in world space (where limits can be violated)."""
        return self._pose_in("world")

    def timeline_fits_cache(self) -> bool:
        """Whether every frame × bone of the timeline may be kept (at most
        ``TIMELINE_CACHE_BONE_FRAMES``: 100,000 frames of 31 bones would be 400 MB)."""
        s = self._scene
        bone_frames = (s.frame_end - s.frame_start + 1) * max(len(s.bones), 1)
        return bone_frames <= TIMELINE_CACHE_BONE_FRAMES

    def prepare_timeline(self) -> None:
        """Evaluate every frame of the timeline once, so playback only reads the cache."""
        if not self.timeline_fits_cache():
            return
        spaces = [self._space] + (["world", self.ghost_space()] if self._compare else [])
        for space in {self._space_key(s) for s in spaces}:
            if space not in self._timelines:
                self._timelines[space] = self._run(space, default_frames(self._scene))

    def timeline(self) -> BakeResult:
        """Every frame of the timeline in the current space, from the cache (evaluated once
        after each edit; scrubbing never re-evaluates it)."""
        return self.timeline_in(self._space)

    def timeline_if_ready(self) -> BakeResult | None:
        """:meth:`timeline` if it is cached, else ``None`` (nothing is evaluated)."""
        return self._timelines.get(self._space_key(self._space))

    def cached_timeline(self, space: str | None) -> BakeResult | None:
        """The timeline with ``space`` overriding if it is cached, else ``None`` (nothing is
        evaluated); :meth:`pose` reads its frames from it."""
        return self._timelines.get(self._space_key(space))

    def timeline_for_plot(self, space: str | None) -> BakeResult:
        """:meth:`timeline_in` when the timeline fits the cache; for a longer one, at most
        ``PLOT_FRAMES`` whole frames spread evenly from the first frame to the last (kept
        until the next edit), so a plot never holds the whole timeline in memory."""
        if self.timeline_fits_cache():
            return self.timeline_in(space)
        key = self._space_key(space)
        result = self._timelines.get(("plot", key))
        if result is None:
            s = self._scene
            frames = np.unique(np.rint(np.linspace(s.frame_start, s.frame_end, PLOT_FRAMES)))
            result = self._timelines[("plot", key)] = self._run(key, frames)
        return result

    def timeline_in(self, space: str | None) -> BakeResult:
        """Every frame of the timeline with ``space`` overriding (``None``: as authored)."""
        key = self._space_key(space)
        result = self._timelines.get(key)
        if result is None:
            result = self._timelines[key] = self._run(key, default_frames(self._scene))
        return result

    def timeline_sample(self, count: int) -> BakeResult:
        """Every frame of the timeline in the current space when it fits the cache (from the
        cache), else at most ``count`` whole frames spread evenly from the first to the last,
        evaluated with the current space's caches (not kept): what framing the whole
        animation reads."""
        if self.timeline_fits_cache():
            return self.timeline()
        s = self._scene
        frames = np.unique(np.rint(np.linspace(s.frame_start, s.frame_end, max(int(count), 2))))
        return self._run(self._space_key(self._space), frames)

    def context_before(self, constraint: str, frames=None):
        """The evaluation context just before ``constraint`` at ``frames`` (default: the
        current frame) in the current space, with the document's caches: what the
        step-through traces a solver from. Raises what an evaluation raises."""
        key = self._space_key(self._space)
        frames = [self._frame] if frames is None else frames
        return self._evaluator(key).context(np.asarray(frames, dtype=float).reshape(-1), key,
                                            until=constraint)  # fmt: skip

    def evaluate(self, frames, space: str | None = None) -> BakeResult:
        """Evaluate other frames with the document's caches (``space`` overrides)."""
        return self._run(space, np.asarray(frames, dtype=float).reshape(-1))

    def scene_edited(self) -> None:
        """Call after the scene's items were replaced outside the commands: re-evaluates."""
        self._edited(structure=True)


def _child_names(item) -> tuple:
    """What lists show of an item: a multi-parent constraint's pivots, the kind of target."""
    names = tuple(p.name for p in getattr(item, "pivots", ()))
    target = getattr(item, "target", None)
    if target is not None:
        names += (target.bone, target.at if target.bone else None)
    return names
