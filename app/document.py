"""The Qt-side document: owns the scene, the current frame, the evaluation and undo.

Widgets take the document in their constructor, listen to its signals and write edits back
through it; they never talk to each other. The scene model itself (``app.scene``) knows
nothing of Qt.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui

from app.scene.evaluate import BakeResult, Evaluator
from app.scene.io import load_scene
from app.scene.model import Scene


class Document(QtCore.QObject):
    """A scene being edited.

    Signals
    -------
    frame_changed(float)
        The current frame moved (scrubbing, playback).
    pose_changed()
        The evaluated pose at the current frame is different (frame, edit or space).
    scene_changed()
        The scene's content was replaced or edited.
    space_changed(object)
        The evaluation space override: ``"world"``, ``"object"`` or ``None`` (as authored).
    """

    frame_changed = QtCore.Signal(float)
    pose_changed = QtCore.Signal()
    scene_changed = QtCore.Signal()
    space_changed = QtCore.Signal(object)

    def __init__(self, scene: Scene, path: str | None = None, parent=None):
        super().__init__(parent)
        self._scene = scene
        self._path = path
        self._frame = float(scene.frame_start)
        self._space: str | None = None
        self._evaluator = Evaluator(scene)
        self._pose: BakeResult | None = None
        self.undo_stack = QtGui.QUndoStack(self)

    @classmethod
    def from_file(cls, path, parent=None) -> Document:
        """Load a scene or BVH file (raises :class:`~app.scene.errors.SceneError`)."""
        return cls(load_scene(path), str(Path(path)), parent)

    # --- properties --------------------------------------------------------------------

    @property
    def scene(self) -> Scene:
        return self._scene

    @property
    def path(self) -> str | None:
        return self._path

    @property
    def frame(self) -> float:
        return self._frame

    def set_frame(self, frame: float) -> None:
        """Move the current frame (not an undoable edit). Emits only on a change."""
        frame = float(frame)
        if frame == self._frame:
            return
        self._frame = frame
        self._pose = None
        self.frame_changed.emit(frame)
        self.pose_changed.emit()

    @property
    def space(self) -> str | None:
        return self._space

    def set_space(self, space: str | None) -> None:
        """Override every constraint's space (``None``: each as authored). Not an edit."""
        if space == self._space:
            return
        self._space = space
        self._pose = None
        self.space_changed.emit(space)
        self.pose_changed.emit()

    # --- evaluation --------------------------------------------------------------------

    def pose(self) -> BakeResult:
        """The evaluated pose at the current frame (one frame), cached until it changes."""
        if self._pose is None:
            self._pose = self._evaluator.evaluate(np.array([self._frame]), self._space)
        return self._pose

    def evaluate(self, frames, space: str | None = None) -> BakeResult:
        """Evaluate other frames with the document's caches (``space`` overrides)."""
        return self._evaluator.evaluate(frames, space)

    def scene_edited(self) -> None:
        """Call after the scene's items were replaced: re-evaluates and notifies."""
        self._pose = None
        self.scene_changed.emit()
        self.pose_changed.emit()
