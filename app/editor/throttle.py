"""Refreshing secondary panels at a human rate while the viewport runs at full speed.

A scrub or playback changes the pose up to 60 times a second. The viewport must show every
one; a table of numbers or the inspector's fields need not (nobody reads them at 60 Hz),
and each repaint of theirs costs a share of the frame. :class:`Throttle` runs its function
at once when it has been quiet, and otherwise once at the end of the interval, so the last
state is always shown.
"""

from __future__ import annotations

import time

from PySide6 import QtCore


class Throttle(QtCore.QObject):
    """Call ``fn`` at most every ``interval_ms`` milliseconds, always ending on a call.

    ``shows()``, when given, says what a call of ``fn`` shows (the frame and space of a
    pose): the call that comes right after :meth:`now` with the same answer is already
    shown and skipped (an edit emits its own signal, then the pose change it made).
    """

    def __init__(self, fn, interval_ms: int = 100, parent=None, shows=None):
        super().__init__(parent)
        self._fn = fn
        self._interval = interval_ms / 1000.0
        self._last = -1e9
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._run)
        self._shows = shows
        self._shown = None  # what the last :meth:`now` showed, until the next call

    def now(self, *_) -> None:
        """Call ``fn`` at once (an edit shows without delay), in place of a pending call."""
        self._timer.stop()
        self._run()
        self._shown = None if self._shows is None else (self._shows(),)

    def __call__(self, *_) -> None:
        shown, self._shown = self._shown, None
        if shown is not None and shown == (self._shows(),):
            return
        wait = self._last + self._interval - time.perf_counter()
        if wait <= 0 and not self._timer.isActive():
            self._run()
        elif not self._timer.isActive():
            self._timer.start(max(int(wait * 1000), 1))

    def flush(self) -> None:
        """Run now if a call is pending (tests, and before a rebuild)."""
        if self._timer.isActive():
            self._timer.stop()
            self._run()

    def _run(self) -> None:
        self._last = time.perf_counter()
        self._fn()
