"""The scene's timeline as one undo command: its frame rate and frame range."""

from __future__ import annotations

from app.editor.commands import SetTimeline
from app.editor.operations.base import OperationError


def set_timeline(document, fps=None, frame_start=None, frame_end=None) -> None:
    """The scene's fps and frame range; a range ending before it starts is refused (the
    other end is never moved to make room), naming the end that was typed."""
    s = document.scene
    fps = s.fps if fps is None else float(fps)
    start = s.frame_start if frame_start is None else int(frame_start)
    end = s.frame_end if frame_end is None else int(frame_end)
    if fps <= 0:
        raise OperationError("The playback rate must be more than 0 frames per second")
    if start > end:
        said = f"End {end} is before Start {start}"
        if frame_end is None:
            said = f"Start {start} is after End {end}"
        raise OperationError(f"{said}: a range cannot end before it starts")
    if (fps, start, end) == (s.fps, s.frame_start, s.frame_end):
        return
    text = f"Set frame range {start}–{end}" if fps == s.fps else f"Set fps to {fps:g}"
    document.push(SetTimeline(document, (fps, start, end), text, merge_key=text.split()[1]))
