"""The Qt-side document: owns the scene, the current frame, the evaluation and undo.

Widgets take the document in their constructor, listen to its signals and write edits back
through it; they never talk to each other. The scene model itself (``app.scene``) knows
nothing of Qt. Every setter emits only when its value really changed, which is what keeps
a spin box and the model from echoing each other forever.

Edits go through :class:`~app.editor.commands` undo commands pushed with :meth:`Document.push`;
the commands call :meth:`set_item`, :meth:`insert_item`, :meth:`remove_item` and
:meth:`set_timeline`. A drag previews with :meth:`set_item` and pushes one command on
release (whose first ``redo`` finds the item already in place and changes nothing).

The evaluators and their caches are a Qt-free :class:`app.scene.evaluations.Evaluations`
(:attr:`Document.evaluations`, one key rule), which the document wraps: its callbacks become
:attr:`Document.recompute_started`, :attr:`Document.recompute_finished` and
:attr:`Document.evaluation_failed`. The document reads what is shown (:meth:`Document.pose`,
:meth:`Document.ghost_pose`, :meth:`Document.differences`, :meth:`Document.timeline`);
everything else is asked of :attr:`Document.evaluations`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui

from app.editor.operations.base import OperationError
from app.scene.constraints.order import WHY
from app.scene.constraints.order import check as check_order
from app.scene.errors import SceneError
from app.scene.evaluate import BakeResult
from app.scene.evaluations import CURRENT, Evaluations
from app.scene.io import load_scene
from app.scene.rig.model import Bone, Scene
from app.scene.rig.refs import BONE, Ref, exists

#: Milliseconds of quiet after which the whole timeline is evaluated into the cache.
WARM_DELAY_MS = 250


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
        self._compare = False
        self._selection: tuple[Ref, ...] = ()
        self._recovered = False
        self._evaluations = Evaluations(scene)
        self._evaluations.recompute_started = self.recompute_started.emit
        self._evaluations.recompute_finished = self.recompute_finished.emit
        self._evaluations.error_changed = self.evaluation_failed.emit
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
        from app.editor.reference import ReferenceMotion

        self.player = Player(self)
        #: A clip shown as a ghost beside the scene (the motion being imported), not saved.
        self.reference = ReferenceMotion(self)

    @classmethod
    def from_file(cls, path, parent=None, animation=None) -> Document:
        """Load a scene or BVH file (raises :class:`~app.scene.errors.SceneError`);
        ``animation`` names a glTF animation or FBX take."""
        return cls(load_scene(path, animation=animation), str(Path(path)), parent)

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
        self.reference.clear()
        self._scene = scene
        self._evaluations.replace(scene)
        self._warm_timer.start()
        self.undo_stack.clear()
        self._recovered = recovered
        self._selection = ()
        self.set_path(path)
        self._update_dirty()
        self.structure_changed.emit()
        self.scene_changed.emit()
        self.selection_changed.emit()
        self.scene_replaced.emit()
        self.frame_changed.emit(self.frame)
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
        return self._evaluations.frame

    def set_frame(self, frame: float) -> None:
        """Move the current frame (not an undoable edit). Emits only on a change."""
        if not self._evaluations.set_frame(frame):
            return
        frame = self._evaluations.frame
        self.frame_changed.emit(frame)
        self.pose_changed.emit()

    @property
    def space(self) -> str | None:
        return self._evaluations.space

    def set_space(self, space: str | None) -> None:
        """Override every constraint's space (``None``: each as authored). Not an edit."""
        if not self._evaluations.set_space(space):
            return
        self._warm_timer.start()
        self.space_changed.emit(space)
        self.pose_changed.emit()

    def ghost_space(self) -> str:
        """The space Compare mode draws as the ghost: the other one.

        As authored, the ghost is world space unless every constraint is authored in world
        space already (then object space).
        """
        return self._evaluations.ghost_space()

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
        refs = tuple(dict.fromkeys(r for r in refs if exists(self._scene, r)))
        if refs == self._selection:
            return
        self._selection = refs
        self.selection_changed.emit()

    def selected_bones(self) -> list[str]:
        return [r.name for r in self._selection if r.kind == BONE]

    # --- edits (called by undo commands) -------------------------------------------------

    def push(self, command) -> None:
        """Do an edit: push an undo command (which applies it at once).

        An edit after which constraints would read each other's bones in a cycle (contract
        §F1) is refused before anything changes: :class:`~app.editor.operations.base.
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
                raise OperationError(
                    f"Refused: the constraints would run in a cycle, {e.cycle} ({WHY})"
                ) from None
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
        self._evaluations.edited()
        self._warm_timer.start()
        if structure:
            # Prune the selection first: listeners of either signal see only what exists.
            kept = tuple(r for r in self._selection if exists(self._scene, r))
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

    # --- evaluation (app.scene.evaluations, with its callbacks as signals) ----------------
    # What is shown (the current frame, in the current space and the ghost's) is read here;
    # every other question (other frames or spaces, the caches, the error) is asked of
    # :attr:`evaluations`, which owns them.

    @property
    def evaluations(self) -> Evaluations:
        """The evaluators and their caches (Qt-free): ask it about other frames or spaces
        (its default space, :data:`~app.scene.evaluations.CURRENT`, is :attr:`space`)."""
        return self._evaluations

    def pose(self) -> BakeResult:
        """The evaluated pose at the current frame (one frame), cached until it changes."""
        return self._evaluations.pose()

    def ghost_pose(self) -> BakeResult:
        """The pose at the current frame in :meth:`ghost_space` (for Compare mode)."""
        return self._evaluations.pose(self.ghost_space())

    def differences(self) -> tuple[np.ndarray, np.ndarray]:
        """Per bone at the current frame: head distance and orientation angle (degrees)
        between :meth:`pose` and :meth:`ghost_pose`, each shaped ``(B,)``; cached."""
        return self._evaluations.differences()

    def timeline(self) -> BakeResult:
        """Every frame of the timeline in the current space, from the cache (evaluated once
        after each edit; scrubbing never re-evaluates it)."""
        return self._evaluations.timeline()

    def prepare_timeline(self) -> None:
        """Evaluate every frame of the timeline once (and in Compare mode the ghost's and
        world space's), so playback only reads the cache."""
        extra = ("world", self.ghost_space()) if self._compare else ()
        self._evaluations.prepare_timeline((CURRENT, *extra))

    def scene_edited(self) -> None:
        """Call after the scene's items were replaced outside the commands: re-evaluates."""
        self._edited(structure=True)


def _child_names(item) -> tuple:
    """What lists show under an item (a constraint's ``listed_names()``; a bone: none)."""
    listed = getattr(item, "listed_names", None)
    return listed() if listed is not None else ()
