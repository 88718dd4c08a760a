"""Playback: the current frame advancing in real time at the scene's fps.

The frame shown is the one the wall clock has reached, so a slow redraw drops frames
instead of slowing time down. Before it starts, the whole timeline is evaluated once
(:meth:`Document.prepare_timeline`), so each tick only reads the cache.
"""

from __future__ import annotations

import math
import time

from PySide6 import QtCore


class Player(QtCore.QObject):
    """Plays a document's timeline.

    Signals
    -------
    playing_changed(bool)
    loop_changed(bool)
    """

    playing_changed = QtCore.Signal(bool)
    loop_changed = QtCore.Signal(bool)

    def __init__(self, document):
        super().__init__(document)
        self._document = document
        self._loop = True
        self._timer = QtCore.QTimer(self)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._start_time = 0.0
        self._start_frame = 0.0

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    @property
    def loop(self) -> bool:
        return self._loop

    def set_loop(self, on: bool) -> None:
        on = bool(on)
        if on != self._loop:
            self._loop = on
            self.loop_changed.emit(on)

    def play(self) -> None:
        if self.playing:
            return
        doc = self._document
        scene = doc.scene
        if doc.frame >= scene.frame_end or doc.frame < scene.frame_start:
            doc.set_frame(scene.frame_start)
        doc.prepare_timeline()
        self._start_time = time.perf_counter()
        self._start_frame = doc.frame
        self._timer.start(max(1, int(500 / scene.fps)))  # twice per frame: no frame is late
        self.playing_changed.emit(True)

    def pause(self) -> None:
        if not self.playing:
            return
        self._timer.stop()
        self.playing_changed.emit(False)

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def _tick(self) -> None:
        doc = self._document
        scene = doc.scene
        elapsed = time.perf_counter() - self._start_time
        frame = self._start_frame + math.floor(elapsed * scene.fps + 1e-9)
        length = scene.frame_end - scene.frame_start + 1
        if frame > scene.frame_end:
            if not self._loop:
                doc.set_frame(scene.frame_end)
                self.pause()
                return
            frame = scene.frame_start + (frame - scene.frame_start) % length
        doc.prepare_timeline()  # no-op unless an edit cleared the cache while playing
        doc.set_frame(frame)


# --- moving the current frame (the transport buttons and keys) ----------------------------


def step(document, frames: int) -> None:
    """Left/Right: ``frames`` frames back or forward, kept within the frame range."""
    scene = document.scene
    frame = round(document.frame) + frames
    document.set_frame(min(max(frame, scene.frame_start), scene.frame_end))


def jump_start(document) -> None:
    document.set_frame(document.scene.frame_start)


def jump_end(document) -> None:
    document.set_frame(document.scene.frame_end)


def key_frames_of_selection(document):
    """Key frames of the selected things (of the whole scene when nothing is selected)."""
    import numpy as np

    from app.scene.rig import key_edits
    from app.scene.rig.refs import Ref, exists

    refs = list(document.selection)
    if not refs:
        scene = document.scene
        refs = [Ref.bone(b.name) for b in scene.bones]
        refs += [Ref.constraint(c.name) for c in scene.constraints]
    frames = [key_edits.key_frames(document.scene, r) for r in refs if exists(document.scene, r)]
    return np.unique(np.concatenate(frames)) if frames else np.zeros(0)


def next_key(document) -> bool:
    """Up: the next key of the selection; ``False`` when there is none after this frame."""
    frames = key_frames_of_selection(document)
    later = frames[frames > document.frame + 1e-9]
    if len(later) == 0:
        return False
    document.set_frame(later[0])
    return True


def previous_key(document) -> bool:
    """Down: the previous key of the selection; ``False`` when there is none before."""
    frames = key_frames_of_selection(document)
    earlier = frames[frames < document.frame - 1e-9]
    if len(earlier) == 0:
        return False
    document.set_frame(earlier[-1])
    return True
