"""Motion onto the open character (File ▸ Import Motion onto Character…) and its humanoid
map (Rig ▸ Humanoid Map…), each one undo step.

An import previews live while the animator checks the map (:class:`MotionPreview`: the
character keyed by the retarget, the clip as a ghost beside it) and is pushed as one
:class:`ImportMotion` that swaps the bones' keys, the timeline (the clip's frame rate and
length) and the map the import used; undo puts back all three. Cancel restores the scene as
it was, and nothing enters the history.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtGui

from app.editor.operations.base import OperationError
from app.editor.operations.bone_commands import SetRig
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.retarget.humanoid import HumanoidMap
from app.scene.retarget.map_file import with_map
from app.scene.retarget.rest import Rest
from app.scene.retarget.transfer import Retargeted, retarget
from app.scene.rig.bone_edits import Rig


@dataclass(frozen=True)
class State:
    """What an import changes: the bones, the scene's ``extra`` (its map) and timeline."""

    bones: tuple
    extra: dict
    timeline: tuple  # (fps, frame_start, frame_end)

    @classmethod
    def of(cls, scene) -> State:
        return cls(
            tuple(scene.bones), dict(scene.extra), (scene.fps, scene.frame_start, scene.frame_end)
        )


def _apply(document, state: State) -> None:
    scene = document.scene
    if State.of(scene) == state:
        return
    scene.bones[:] = state.bones
    scene.extra = dict(state.extra)
    fps, start, end = state.timeline
    scene.fps, scene.frame_start, scene.frame_end = float(fps), int(start), int(end)
    document.scene_edited()
    document.set_frame(min(max(document.frame, start), end))


class ImportMotion(QtGui.QUndoCommand):
    """Swap the scene's bones, ``extra`` and timeline for an import's (and back)."""

    def __init__(self, document, old: State, new: State, text: str):
        super().__init__(text)
        self.document, self.old, self.new = document, old, new

    def redo(self):
        _apply(self.document, self.new)

    def undo(self):
        _apply(self.document, self.old)


def set_humanoid_map(document, mapping: HumanoidMap) -> None:
    """Keep ``mapping`` in the scene (its ``"humanoid"`` key) as one undo step."""
    scene = document.scene
    extra = with_map(scene.extra, mapping)
    if extra == scene.extra:
        document.notify("The humanoid map is unchanged")
        return
    rig = Rig(tuple(scene.bones), tuple(scene.constraints), None, extra)
    document.push(SetRig(document, rig, "Set humanoid map"))
    document.notify(f"Humanoid map kept in the scene: {len(mapping)} bones mapped (Ctrl+Z undoes)")


def beside(character, clip, done: Retargeted) -> np.ndarray:
    """Where the clip's ghost goes (an offset (3,)): to the character's right, clear of
    both skeletons at rest, its path scaled as the character's."""
    character_rest = Rest.of(character)
    clip_rest = Rest.of(clip)
    width = np.ptp(character_rest.heads[:, 0]) + done.scale * np.ptp(clip_rest.heads[:, 0])
    height = character_rest.height()
    return np.array([-(0.6 * width + 0.35 * height), 0.0, 0.0])


class MotionPreview:
    """A motion import shown in the document before it is pushed (or cancelled)."""

    def __init__(self, document):
        self.document = document
        self.before = State.of(document.scene)
        self.character = document.scene.copy()
        self.after: State | None = None
        self.done: Retargeted | None = None

    def show(
        self, clip, clip_map: HumanoidMap, character_map: HumanoidMap, label: str = ""
    ) -> Retargeted:
        """Retarget ``clip`` onto the character as it was when the preview began, show it,
        and show the clip beside it; returns the retarget.

        Raises
        ------
        OperationError
            When the retarget refuses (a map without hips, ...): the scene is as it was.
        """
        try:
            done = retarget(clip, clip_map, self.character, character_map)
        except SceneError as e:
            self.cancel()
            raise OperationError(e.reason) from None
        self.done = done
        extra = with_map(self.character.extra, character_map)
        timeline = (done.scene.fps, done.scene.frame_start, done.scene.frame_end)
        self.after = State(tuple(done.scene.bones), extra, timeline)
        _apply(self.document, self.after)
        clip_pose = bake(clip, np.arange(clip.frame_start, clip.frame_end + 1, dtype=float))
        # the ghost: the clip at the character's scale (its size and its path), beside it,
        # its lowest joint on the character's floor
        heads, tails = done.scale * clip_pose.heads, done.scale * clip_pose.tails
        floor = float(np.min(Rest.of(self.character).heads[:, 1]))
        offset = beside(self.character, clip, done)
        offset[1] = floor - float(np.min(heads[..., 1]))
        self.document.reference.show(heads, tails, clip.frame_start, offset, label)
        return done

    def commit(self, text: str) -> None:
        """Push the shown import as one undo step (``text`` in the history) and hide the
        ghost."""
        self.document.reference.clear()
        if self.after is None:
            return
        self.document.push(ImportMotion(self.document, self.before, self.after, text))

    def cancel(self) -> None:
        """Put the scene back as it was and hide the ghost; nothing enters the history."""
        self.document.reference.clear()
        _apply(self.document, self.before)
        self.after = None
