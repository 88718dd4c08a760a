"""Another skeleton's motion shown beside the scene: the clip being put on the character
(File ▸ Import Motion onto Character…) plays as a ghost next to it.

Not part of the scene and never saved or undone: view state the import dialog sets while
the animator checks the map, and clears when it closes. The viewport draws it at the
document's current frame, so it plays with the scene.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore


class ReferenceMotion(QtCore.QObject):
    """World heads and tails of a skeleton at each frame of a clip, moved by an offset.

    Signals
    -------
    changed()
        Shown, moved or cleared.
    """

    changed = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._heads = self._tails = None
        self._start = 0.0
        self.label = ""

    def show(
        self, heads, tails, frame_start: float, offset=(0.0, 0.0, 0.0), label: str = ""
    ) -> None:
        """Show a motion: ``heads`` and ``tails`` ``(F, B, 3)`` at frames ``frame_start``,
        ``frame_start + 1``, ..., each moved by ``offset`` (3,)."""
        offset = np.asarray(offset, float)
        self._heads = np.asarray(heads, float) + offset
        self._tails = np.asarray(tails, float) + offset
        self._start = float(frame_start)
        self.label = label
        self.changed.emit()

    def clear(self) -> None:
        if self._heads is None:
            return
        self._heads = self._tails = None
        self.label = ""
        self.changed.emit()

    @property
    def shown(self) -> bool:
        return self._heads is not None

    def at(self, frame: float) -> tuple[np.ndarray, np.ndarray] | None:
        """``(heads, tails)`` ``(B, 3)`` at ``frame`` (the nearest frame of the clip; its ends
        before and after it), or ``None`` when nothing is shown."""
        if self._heads is None:
            return None
        k = int(np.clip(round(frame - self._start), 0, len(self._heads) - 1))
        return self._heads[k], self._tails[k]
