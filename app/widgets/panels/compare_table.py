"""Compare mode's table: per bone, how far the two spaces put it apart, and world-space
limit violations. It follows the document as the user scrubs, drags or edits."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.throttle import Throttle
from app.scene.analysis import compare

COLUMNS = ["Bone", "Δ head (units)", "Δ angle", "World limit"]


class CompareTable(QtWidgets.QWidget):
    """A caption naming the two spaces and a table with one row per bone."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("compareTable")
        self._document = document
        self.caption = QtWidgets.QLabel()
        self.caption.setWordWrap(True)
        # The frame in a label of fixed size: Qt re-lays out the parents of a label whose
        # text changes unless its size is fixed, and the caption's layout request reached
        # the main window on every refresh while playing (a whole-window relayout).
        self.frame_caption = QtWidgets.QLabel()
        self.frame_caption.setObjectName("compareFrame")
        widest = "at frame -00000.0"
        self.frame_caption.setFixedSize(
            self.frame_caption.fontMetrics().horizontalAdvance(widest) + 4,
            self.frame_caption.fontMetrics().height() + 2,
        )
        self.frame_caption.setAlignment(
            QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignTop
        )
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("compareRows")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)  # a name keeps its ends
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        # Fixed widths: sizing columns to their contents re-measures every cell on each
        # change, which costs more than the rest of a scrub step.
        # Each wide enough for its heading (with its unit) and its numbers.
        metrics = header.fontMetrics()
        for i, width in zip(range(1, len(COLUMNS)), (74, 66, 84)):
            header.setSectionResizeMode(i, QtWidgets.QHeaderView.ResizeMode.Fixed)
            header.resizeSection(i, max(width, metrics.horizontalAdvance(COLUMNS[i]) + 18))
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        top = QtWidgets.QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.caption, 1)
        top.addWidget(self.frame_caption, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        layout.addWidget(self.table)
        # Scrubbing and playback refresh the numbers ten times a second, not every frame.
        self._throttled = Throttle(self.refresh, 100, self)
        document.pose_changed.connect(self._throttled)
        document.compare_changed.connect(self.refresh)
        self.refresh()

    def rows(self) -> list[tuple[str, float, float, float]]:
        """``(bone, head distance, angle in degrees, world limit violation)`` per bone."""
        doc = self._document
        pose = doc.pose()
        dist, angle = doc.differences()
        world = doc.evaluations.pose("world").limit_violation_deg[0]
        return [
            (str(n), float(d), float(a), float(w))
            for n, d, a, w in zip(pose.bone_names, dist, angle, world)
        ]

    def refresh(self) -> None:
        doc = self._document
        if not doc.compare or not self.isVisible():
            return
        shown = doc.space or "as authored"
        caption = f"Solid: <b>{shown}</b> · ghost: <b>{doc.ghost_space()}</b>"
        if self.caption.text() != caption:  # setText re-lays the dock out: only on a change
            self.caption.setText(caption)
        self.frame_caption.setText(f"at frame {doc.frame:g}")
        rows = self.rows()
        if len(rows) != len(doc.scene.bones):
            return
        self.table.setRowCount(len(rows))
        pose = doc.pose()
        radius = max(compare.skeleton_radius(pose.heads[0], pose.tails[0]), 1e-9)
        for r, (name, dist, angle, world) in enumerate(rows):
            level = float(compare.difference_level(np.array([dist]), np.array([angle]), radius)[0])
            texts = [
                name,
                f"{dist:.4f}",
                f"{angle:.2f}°",
                f"+{world:.1f}°" if world > 0.05 else "—",
            ]
            for c, text in enumerate(texts):
                item = self.table.item(r, c)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    align = (
                        QtCore.Qt.AlignmentFlag.AlignRight
                        if c
                        else QtCore.Qt.AlignmentFlag.AlignLeft
                    )
                    item.setTextAlignment(align | QtCore.Qt.AlignmentFlag.AlignVCenter)
                    self.table.setItem(r, c, item)
                color = QtGui.QColor(220, 222, 228)
                if c in (1, 2) and level > 0:
                    color = QtGui.QColor.fromRgbF(
                        0.86 + 0.14 * level, 0.86 - 0.44 * level, 0.88 - 0.76 * level
                    )
                if c == 3 and world > 0.05:
                    color = QtGui.QColor(255, 102, 80)
                # Only what changed: each change repaints the cell (and costs a redraw).
                if item.text() != text:
                    item.setText(text)
                    if c == 0:
                        item.setToolTip(text)  # the whole name, however narrow the column
                if item.foreground().color() != color:
                    item.setForeground(color)

    def showEvent(self, ev):
        super().showEvent(ev)
        self.refresh()
