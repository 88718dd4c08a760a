"""The step-through panel: which constraint, which pass or step, and its numbers.

FABRIK: one row per stage (the start, each pass from the tip and from the root) with the
distance from the tail to the target after it. Multi-parent: one row per integration
substep from the previous frame, with the combined rotation's angle and the displacement,
and for the substep shown each pivot's offset ``v_i``, its increment ``R_i`` and its
contribution ``v_i - R_i v_i R_i*``. The viewport draws the stage shown.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.scene.constraints.fabrik.trace import ChainTrace
from app.scene.constraints.multi_parent.steps import Steps
from app.scene.math import quat
from app.scene.words import plural
from app.widgets.text_keys import keep_keys


def _vec(v, digits: int = 4) -> str:
    return "(" + ", ".join(f"{x:+.{digits}f}" for x in np.asarray(v, float)) + ")"


def _column(v, digits: int) -> str:
    """A vector as a column of numbers (x, y, z on three lines): narrow table cells."""
    return "\n".join(f"{x:+.{digits}f}" for x in np.asarray(v, float))


def _table(name: str, headers) -> QtWidgets.QTableWidget:
    table = QtWidgets.QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
    header = table.horizontalHeader()
    header.setStretchLastSection(False)
    for column in range(len(headers)):
        mode = QtWidgets.QHeaderView.ResizeMode
        header.setSectionResizeMode(column, mode.Stretch if column == 1 else mode.ResizeToContents)
    table.setWordWrap(False)
    return table


class StepPanel(QtWidgets.QWidget):
    """Takes the document and its :class:`~app.editor.step_through.StepThrough`."""

    def __init__(self, document, model, parent=None):
        super().__init__(parent)
        self.setObjectName("stepPanel")
        self._document = document
        self._model = model
        self.combo = keep_keys(QtWidgets.QComboBox())
        self.combo.setObjectName("stepConstraint")
        self.combo.setToolTip("The FABRIK or multi-parent constraint to step through")
        self.toggle = QtWidgets.QPushButton("Step through")
        self.toggle.setObjectName("stepToggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolTip("Trace the constraint at the current frame, a pass at a time")
        self.buttons = {}
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.combo, 1)
        row.addWidget(self.toggle)
        nav = QtWidgets.QHBoxLayout()
        sp = QtWidgets.QStyle.StandardPixmap
        for name, text, icon, tip, slot in (
            ("stepFirst", "", sp.SP_MediaSkipBackward, "First stage", model.first),
            ("stepPrevious", "Previous", sp.SP_ArrowLeft, "Previous pass or step (Alt+Left)",
             model.previous),
            ("stepNext", "Next", sp.SP_ArrowRight, "Next pass or step (Alt+Right)", model.next),
            ("stepLast", "", sp.SP_MediaSkipForward, "Last stage: the solver's result",
             model.last),
        ):  # fmt: skip
            b = QtWidgets.QToolButton()
            b.setObjectName(name)
            b.setText(text)
            b.setIcon(self.style().standardIcon(icon))
            if text:
                b.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            nav.addWidget(b)
            self.buttons[name] = b
        self.position = QtWidgets.QLabel()
        self.position.setObjectName("stepPosition")
        nav.addWidget(self.position, 1)
        self.description = QtWidgets.QLabel()
        self.description.setObjectName("stepDescription")
        self.description.setWordWrap(True)
        self.description.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.stages = _table("stepStages", ["#", "stage", "tail → target (units)"])
        self.pivots = _table("stepPivots", ["pivot", "vᵢ (units)", "Rᵢ", "vᵢ − Rᵢ vᵢ Rᵢ* (units)"])
        self.pivots.horizontalHeader().setSectionResizeMode(
            3, QtWidgets.QHeaderView.ResizeMode.Stretch
        )
        self.pivots.horizontalHeader().setSectionResizeMode(
            1, QtWidgets.QHeaderView.ResizeMode.ResizeToContents
        )
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(row)
        layout.addLayout(nav)
        layout.addWidget(self.description)
        layout.addWidget(self.stages, 2)
        layout.addWidget(self.pivots, 1)
        self.combo.activated.connect(self._on_combo)
        self.toggle.toggled.connect(self._on_toggle)
        self.stages.itemSelectionChanged.connect(self._on_row)
        model.changed.connect(self.refresh)
        document.structure_changed.connect(self._fill)
        self._fill()
        self.refresh()

    def _fill(self) -> None:
        names = self._model.candidates()
        with QtCore.QSignalBlocker(self.combo):
            current = self.combo.currentText()
            self.combo.clear()
            self.combo.addItems(names)
            if current in names:
                self.combo.setCurrentText(current)
        self.combo.setEnabled(bool(names))
        self.toggle.setEnabled(bool(names))

    def _on_combo(self, _index) -> None:
        if self._model.active:
            self._model.start(self.combo.currentText())

    def _on_toggle(self, on: bool) -> None:
        if on and not self._model.active:
            self._model.start(self.combo.currentText() or None)
        elif not on:
            self._model.stop()

    def _on_row(self) -> None:
        rows = self.stages.selectionModel().selectedRows()
        if rows:
            self._model.set_index(rows[0].row())

    # --- showing -------------------------------------------------------------------------

    def refresh(self) -> None:
        m = self._model
        with QtCore.QSignalBlocker(self.toggle):
            self.toggle.setChecked(m.active)
        if m.constraint and m.constraint != self.combo.currentText():
            with QtCore.QSignalBlocker(self.combo):
                self.combo.setCurrentText(m.constraint)
        for b in self.buttons.values():
            b.setEnabled(m.active and m.count() > 0)
        if not m.active or m.trace is None:
            self.position.setText("")
            self.description.setText(m.error or "Press <b>Step through</b> to trace the "
                                     "constraint at the current frame.")  # fmt: skip
            self.stages.setRowCount(0)
            self.pivots.setRowCount(0)
            self.pivots.setVisible(False)
            return
        if isinstance(m.trace, ChainTrace):
            self._show_fabrik()
        elif isinstance(m.trace, Steps):
            self._show_multi_parent()

    def _rows(self, rows) -> None:
        table = self.stages
        with QtCore.QSignalBlocker(table):
            table.setRowCount(len(rows))
            for r, values in enumerate(rows):
                for c, value in enumerate(values):
                    item = QtWidgets.QTableWidgetItem(value)
                    if c != 1:
                        item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                                              | QtCore.Qt.AlignmentFlag.AlignVCenter)  # fmt: skip
                    table.setItem(r, c, item)
            table.selectRow(self._model.index)
        item = table.item(self._model.index, 0)
        if item is not None:
            table.scrollToItem(item)

    def _show_fabrik(self) -> None:
        m = self._model
        trace = m.trace
        self.stages.setHorizontalHeaderLabels(["#", "stage", "tail → target (units)"])
        self.pivots.setVisible(False)
        self._rows([(str(k), s.name(), f"{s.tail_distance:.3g}")
                    for k, s in enumerate(trace.stages)])  # fmt: skip
        stage = trace.stages[m.index]
        solution = trace.solution
        self.position.setText(f"stage {m.index + 1} of {len(trace)} · frame "
                              f"{self._document.frame:g}")  # fmt: skip
        done = (f"Solved in {plural(int(solution.iterations[0]), 'iteration')}; the target is "
                f"{'within' if solution.reachable[0] else 'out of'} reach.")  # fmt: skip
        self.description.setText(f"<b>{m.constraint}</b>: {stage.describe()}<br>"
                                 f"<span style='color:#9aa0a8'>{done}</span>")  # fmt: skip

    def _show_multi_parent(self) -> None:
        m = self._model
        st = m.trace
        self.stages.setHorizontalHeaderLabels(["#", "time (frame)", "turn {Rᵢ} · |Δp0| (units)"])
        if len(st) == 0:
            self.stages.setRowCount(0)
            self.pivots.setRowCount(0)
            self.pivots.setVisible(False)
            self.position.setText(f"frame {self._document.frame:g}")
            self.description.setText(
                f"<b>{m.constraint}</b>: no integration step ends at this frame (before or at "
                "the first frame, or after the pivots' last key, the body holds still). "
                "Scrub to a frame where it moves."
            )
            return
        angles = st.combined_angle_deg()
        moves = np.linalg.norm(st.displacement(), axis=1)
        self._rows([(str(k), f"{st.times[k]:.4g} → {st.times[k + 1]:.4g}"
                     + (" (subdivided)" if st.subdivided[k] else ""),
                     f"{angles[k]:.3f}° · {moves[k]:.3g}") for k in range(len(st))])  # fmt: skip
        k = m.index
        self.position.setText(f"step {k + 1} of {len(st)} · frame {self._document.frame:g}")
        axis, angle = quat.to_axis_angle(st.combined[k])
        where = (f"<br>Relative to its parent: integrated in the frame of {st.parent}, shown "
                 f"where {st.parent} is at this frame." if st.parent else "")  # fmt: skip
        self.description.setText(
            f"<b>{m.constraint}</b> ({st.space} space, {st.integrator}): substep t = "
            f"{st.times[k]:.4g} → {st.times[k + 1]:.4g}.<br>Combined rotation "
            f"{{Rᵢ}} = (w, x, y, z) = ({', '.join(f'{v:.5f}' for v in st.combined[k])}): "
            f"{np.degrees(angle):.3f}° about {_vec(axis)}.<br>p0 moves by "
            f"Σ (vᵢ − Rᵢ vᵢ Rᵢ*) = {_vec(st.displacement()[k])} units." + where
        )
        self.pivots.setVisible(True)
        table = self.pivots
        table.setRowCount(len(st.pivot_names))
        inc_angles = np.degrees(2 * np.arccos(np.clip(np.abs(st.increments[k, :, 0]), 0, 1)))
        for r, name in enumerate(st.pivot_names):
            values = (name, _column(st.offsets[k, r], 3), f"{inc_angles[r]:.3f}°",
                      _column(st.contributions[k, r], 5))  # fmt: skip
            for c, value in enumerate(values):
                item = QtWidgets.QTableWidgetItem(value)
                if c:
                    item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                                          | QtCore.Qt.AlignmentFlag.AlignVCenter)  # fmt: skip
                table.setItem(r, c, item)
        table.resizeRowsToContents()
