"""The inspector's constraint section: space, solver settings and what the solver reports
(a part of :class:`~app.widgets.panels.inspector.Inspector`). Each kind's own rows come from
its view (:mod:`app.widgets.kinds.registry`), written through :class:`KindForm`."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.editor.operations import constraint_operations
from app.scene.constraints.multi_parent.model import RELATIVE_TO
from app.scene.rig.refs import Ref
from app.widgets.fields import spin_box
from app.widgets.kinds import registry as views
from app.widgets.text_keys import keep_keys


class ConstraintSection:
    """Builds the form of a selected constraint (a mixin: it uses the inspector's document,
    groups, refreshers and field helpers)."""

    def _build_constraint(self, ref: Ref) -> None:
        doc = self._document
        c = doc.scene.constraint(ref.name)
        view = views.view_for(c)
        self._header(f"{c.name}", f"{view.words} constraint")
        form = self._group("Evaluation")
        if c.space_matters:  # a setting that changes nothing is not offered
            self._combo_field(
                form,
                "Space (authored)",
                "constraintSpace",
                ref,
                "space",
                ["object", "world"],
                "The space saved in the file. The toolbar's World/Object toggle "
                "overrides it for comparing, without editing the file.",
            )
        if view.section is not None:
            builders = dict(
                run=self._run,
                add_refresher=self._refreshers.append,
                set_spin=self._set_spin,
                int_field=self._int_field,
                combo_field=self._combo_field,
                pivot_list=self._pivot_list,
                relative_to_field=self._relative_to_field,
            )
            view.section(KindForm(doc, form, ref, **builders), c)
        self._note(form, lambda: self._info_text(ref.name))
        if view.limits is not None:
            view.limits(self, ref.name)

    def _pivot_list(self, form, ref: Ref, c) -> None:
        """The pivots in their order, with Move Up / Move Down (one undo step each) and
        Add pivot. The list keeps the moved pivot current across the page's rebuild."""
        doc = self._document
        pivots = keep_keys(QtWidgets.QListWidget())  # Up/Down choose a pivot here
        pivots.setObjectName("pivotList")
        pivots.setToolTip(
            "The pivots in the constraint's order. The normalized anticommutator sums "
            "their rotations in every order, so reordering them does not change the motion."
        )
        pivots.addItems([p.name for p in c.pivots])
        pivots.setMaximumHeight(pivots.sizeHintForRow(0) * max(len(c.pivots), 2) + 6)
        names = [p.name for p in c.pivots]
        current = getattr(self, "_current_pivot", None)
        pivots.setCurrentRow(names.index(current) if current in names else 0)
        form.addRow("Pivots", pivots)
        row = QtWidgets.QHBoxLayout()
        buttons = {}
        for offset, text, name in (
            (-1, "Move Up", "pivotUpButton"),
            (1, "Move Down", "pivotDownButton"),
        ):
            button = QtWidgets.QPushButton(text)
            button.setObjectName(name)
            button.setToolTip(f"Move the chosen pivot one place {text.split()[1].lower()}")
            button.clicked.connect(lambda _=False, k=offset: move(k))
            row.addWidget(button)
            buttons[offset] = button

        def move(offset: int) -> None:
            item = pivots.currentItem()
            if item is not None:
                self._current_pivot = item.text()
                self._run(constraint_operations.move_pivot, doc, ref.name, item.text(), offset)

        def enable(r: int) -> None:
            buttons[-1].setEnabled(r > 0)
            buttons[1].setEnabled(0 <= r < pivots.count() - 1)
            self._current_pivot = pivots.item(r).text() if r >= 0 else None

        pivots.currentRowChanged.connect(enable)
        enable(pivots.currentRow())
        add = QtWidgets.QPushButton("Add pivot")
        add.setObjectName("addPivotButton")
        add.clicked.connect(lambda: self._run(constraint_operations.add_pivot, doc, ref.name))
        row.addWidget(add)
        form.addRow(row)

    def _relative_to_field(self, form, ref: Ref) -> None:
        """A multi-parent's "Relative to: World / Parent" (contract §F3): one undo command per
        choice; the page's refresh shows undo and redo."""
        doc = self._document
        combo = keep_keys(QtWidgets.QComboBox())
        combo.setObjectName("relativeTo")
        for value in RELATIVE_TO:
            combo.addItem(value.capitalize(), value)
        combo.setToolTip(
            "World: the body starts where it is in the world and rolls on its pivots there. "
            "Parent: it rolls in its parent's frame, so the parent's later motion carries it "
            "(a body without a parent moves the same either way)."
        )
        form.addRow("Relative to", combo)
        combo.activated.connect(
            lambda i: self._run(
                constraint_operations.set_relative_to, doc, ref.name, combo.itemData(i)
            )
        )

        def refresh() -> None:
            value = doc.scene.constraint(ref.name).relative_to
            with QtCore.QSignalBlocker(combo):
                combo.setCurrentIndex(max(combo.findData(value), 0))

        self._refreshers.append(refresh)

    def _combo_field(
        self,
        form,
        label: str,
        object_name: str,
        ref: Ref,
        field: str,
        items: list[str],
        tooltip: str,
    ) -> None:
        """A combo box editing the constraint's text ``field`` (one command per choice)."""
        doc = self._document
        combo = keep_keys(QtWidgets.QComboBox())
        combo.setObjectName(object_name)
        combo.addItems(items)
        combo.setToolTip(tooltip)
        form.addRow(label, combo)
        combo.currentTextChanged.connect(
            lambda v: self._run(constraint_operations.set_constraint_field, doc, ref.name, field, v)
        )
        self._refreshers.append(
            lambda: self._set_combo(combo, getattr(doc.scene.constraint(ref.name), field))
        )

    def _info_text(self, name: str) -> str:
        doc = self._document
        info = doc.pose().info.get(name)
        report = views.view_for(doc.scene.constraint(name)).report
        text = report(info) if report is not None and isinstance(info, dict) and info else ""
        if doc.evaluations.error:
            text += f"<br><span style='color:#ff6650'>{doc.evaluations.error}</span>"
        return text


class KindForm:
    """The inspector's rows for one constraint, as a kind's view fills them
    (:mod:`app.widgets.kinds`): each field edits the constraint through a command."""

    def __init__(
        self,
        document,
        form,
        ref: Ref,
        *,
        run,
        add_refresher,
        set_spin,
        int_field,
        combo_field,
        pivot_list,
        relative_to_field,
    ):
        self._document, self._form, self._ref = document, form, ref
        self._run, self._add_refresher, self._set_spin = run, add_refresher, set_spin
        self._int, self._combo = int_field, combo_field
        self._pivots, self._relative_to = pivot_list, relative_to_field

    @property
    def document(self):
        """The document the rows edit."""
        return self._document

    def label_row(self, label: str, text: str) -> None:
        """A row of words (names wrap instead of widening the inspector)."""
        self._form.addRow(label, _wrapped(text))

    def target_row(self, c) -> None:
        """Where the constraint's ``target`` aims."""
        t = c.target
        self.label_row(
            "Target", f"bone {t.bone} {t.at}" if t.bone else "a position (drag the cyan handle)"
        )

    def int_field(self, label: str, object_name: str, field: str, maximum: int) -> None:
        """A spin box for an integer ``field`` (from 1 to ``maximum``)."""
        self._int(self._form, label, object_name, self._ref, field, maximum)

    def float_field(
        self,
        label: str,
        object_name: str,
        field: str,
        decimals: int,
        step: float,
        lo: float,
        hi: float,
    ) -> None:
        """A spin box for a number ``field`` in ``[lo, hi]``."""
        run, set_spin, doc, name = self._run, self._set_spin, self._document, self._ref.name
        spin = spin_box(decimals, step, lo, hi)
        spin.setObjectName(object_name)
        self._form.addRow(label, spin)
        spin.valueChanged.connect(
            lambda v: run(constraint_operations.set_constraint_field, doc, name, field, float(v))
        )
        self._add_refresher(lambda: set_spin(spin, getattr(doc.scene.constraint(name), field)))

    def combo_field(
        self, label: str, object_name: str, field: str, items: list[str], tooltip: str
    ) -> None:
        """A combo box for a text ``field`` (one command per choice)."""
        self._combo(self._form, label, object_name, self._ref, field, items, tooltip)

    def choice_field(
        self, label: str, object_name: str, choices, current, choose, tooltip: str = ""
    ) -> QtWidgets.QComboBox:
        """A combo box of words for values: ``choices()`` lists ``(words, value)``,
        ``current()`` is the value shown, and picking one runs ``choose(value)`` (an
        operation: one undo command). The list is read again at each refresh."""
        run = self._run
        combo = keep_keys(QtWidgets.QComboBox())
        combo.setObjectName(object_name)
        combo.setToolTip(tooltip)
        self._form.addRow(label, combo)

        def refresh() -> None:
            with QtCore.QSignalBlocker(combo):
                listed = [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]
                wanted = list(choices())
                if listed != wanted:
                    combo.clear()
                    for words, value in wanted:
                        combo.addItem(words, value)
                combo.setCurrentIndex(combo.findData(current()))

        combo.currentIndexChanged.connect(lambda i: run(choose, combo.itemData(i)))
        self._add_refresher(refresh)
        refresh()
        return combo

    def row(self, label: str, widget) -> None:
        """A row holding a kind's own ``widget`` (a layout too): it edits through
        :meth:`run` and shows the document through :meth:`refresher`."""
        self._form.addRow(label, widget)

    def refresher(self, refresh) -> None:
        """Call ``refresh()`` whenever the document changes while the rows are shown."""
        self._add_refresher(refresh)

    def run(self, fn, *args) -> None:
        """Run the operation ``fn(*args)``; a refusal is told and the rows shown again."""
        self._run(fn, *args)

    def pivot_list(self, c) -> None:
        """The pivots in their order, with Move Up / Move Down and Add pivot."""
        self._pivots(self._form, self._ref, c)

    def relative_to_field(self) -> None:
        """The "Relative to: World / Parent" choice (contract §F3)."""
        self._relative_to(self._form, self._ref)


def _wrapped(text: str) -> QtWidgets.QLabel:
    """A label of names that wraps instead of widening the inspector past its dock."""
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    return label
