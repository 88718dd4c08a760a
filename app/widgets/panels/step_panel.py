"""The step-through panel: which constraint, which pass or step, and its numbers.

What the rows and words say is the traced kind's view's (``ConstraintView.show_trace``, in
:mod:`app.widgets.kinds`). FABRIK: one row per stage (the start, each pass from the tip and
from the root) with the distance from the tail to the target after it. Multi-parent: one row
per integration substep from the previous frame, with the combined rotation's angle and the
displacement, and for the substep shown each pivot's offset ``v_i``, its increment ``R_i``
and its contribution ``v_i - R_i v_i R_i*``. The viewport draws the stage shown.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.widgets.kinds import registry as views
from app.widgets.text_keys import keep_keys


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
            (
                "stepPrevious",
                "Previous",
                sp.SP_ArrowLeft,
                "Previous pass or step (Alt+Left)",
                model.previous,
            ),
            ("stepNext", "Next", sp.SP_ArrowRight, "Next pass or step (Alt+Right)", model.next),
            ("stepLast", "", sp.SP_MediaSkipForward, "Last stage: the solver's result", model.last),
        ):
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
            self.description.setText(
                m.error or "Press <b>Step through</b> to trace the constraint at the current frame."
            )
            self.stages.setRowCount(0)
            self.pivots.setRowCount(0)
            self.pivots.setVisible(False)
            return
        try:
            view = views.view_for(self._document.scene.constraint(m.constraint))
        except KeyError:  # renamed or removed since it was traced
            return
        if view.show_trace is not None:
            view.show_trace(self, m)

    @property
    def document(self):
        return self._document

    def rows(self, rows) -> None:
        """Fill the stages table with ``rows`` (tuples of texts) and select the one shown."""
        table = self.stages
        with QtCore.QSignalBlocker(table):
            table.setRowCount(len(rows))
            for r, values in enumerate(rows):
                for c, value in enumerate(values):
                    item = QtWidgets.QTableWidgetItem(value)
                    if c != 1:
                        item.setTextAlignment(
                            QtCore.Qt.AlignmentFlag.AlignRight
                            | QtCore.Qt.AlignmentFlag.AlignVCenter
                        )
                    table.setItem(r, c, item)
            table.selectRow(self._model.index)
        item = table.item(self._model.index, 0)
        if item is not None:
            table.scrollToItem(item)
