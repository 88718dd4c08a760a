"""The inspector's constraint section: space, solver settings and what the solver reports
(a part of :class:`~app.widgets.panels.inspector.Inspector`)."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor import operations
from app.editor.authoring import constraint_operations
from app.scene.rig.editing import Ref
from app.scene.rig.model import RELATIVE_TO, Fabrik, MultiParent, PointsAt
from app.scene.words import plural
from app.widgets.fields import spin_box
from app.widgets.panels import limit_fields
from app.widgets.text_keys import keep_keys


class ConstraintSection:
    """Builds the form of a selected constraint (a mixin: it uses the inspector's document,
    groups, refreshers and field helpers)."""

    def _build_constraint(self, ref: Ref) -> None:
        doc = self._document
        c = doc.scene.constraint(ref.name)
        kind = {"multi_parent": "multi-parent", "points_at": "points-at", "fabrik": "FABRIK"}
        self._header(f"{c.name}", f"{kind.get(c.type, c.type)} constraint")
        form = self._group("Evaluation")
        self._combo_field(
            form, "Space (authored)", "constraintSpace", ref, "space", ["object", "world"],
            "The space saved in the file. The toolbar's World/Object toggle "
            "overrides it for comparing, without editing the file.",
        )
        if isinstance(c, MultiParent):
            form.addRow("Body", _wrapped(c.body))
            self._int_field(form, "Substeps per frame", "substeps", ref, "substeps", 1000)
            self._combo_field(
                form, "Integrator", "integrator", ref, "integrator", ["seed", "twist", "exact"],
                "seed: the seed's update equations at 'Substeps per frame'; twist: their limit "
                "stepped with the twist frozen per step; exact: the limit itself in closed "
                "form (substeps ignored)",
            )
            self._relative_to_field(form, ref)
            self._pivot_list(form, ref, c)
        elif isinstance(c, (PointsAt, Fabrik)):
            bones = c.bone if isinstance(c, PointsAt) else " → ".join(c.chain)
            form.addRow("Bones", _wrapped(bones))
            t = c.target
            form.addRow(
                "Target",
                _wrapped(
                    f"bone {t.bone} {t.at}" if t.bone else "a position (drag the cyan handle)"
                ),
            )
            if isinstance(c, Fabrik):
                tol = spin_box(6, 1e-4, 1e-9, 1e6)
                tol.setObjectName("tolerance")
                form.addRow("Tolerance (units)", tol)
                tol.valueChanged.connect(
                    lambda v: self._run(
                        operations.set_constraint_field, doc, ref.name, "tolerance", float(v)
                    )
                )
                self._refreshers.append(
                    lambda: self._set_spin(tol, doc.scene.constraint(ref.name).tolerance)
                )
                self._int_field(form, "Max iterations", "maxIterations", ref, "max_iterations",
                                10000)  # fmt: skip
        self._note(form, lambda: self._info_text(ref.name))
        if isinstance(c, PointsAt):
            limit_fields.build_points_at(self, ref.name)
        elif isinstance(c, Fabrik):
            limit_fields.build_fabrik(self, ref.name)

    def _pivot_list(self, form, ref: Ref, c: MultiParent) -> None:
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
        for offset, text, name in ((-1, "Move Up", "pivotUpButton"),
                                   (1, "Move Down", "pivotDownButton")):  # fmt: skip
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
        add.clicked.connect(lambda: self._run(operations.add_pivot, doc, ref.name))
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

    def _combo_field(self, form, label: str, object_name: str, ref: Ref, field: str,
                     items: list[str], tooltip: str) -> None:
        """A combo box editing the constraint's text ``field`` (one command per choice)."""
        doc = self._document
        combo = keep_keys(QtWidgets.QComboBox())
        combo.setObjectName(object_name)
        combo.addItems(items)
        combo.setToolTip(tooltip)
        form.addRow(label, combo)
        combo.currentTextChanged.connect(
            lambda v: self._run(operations.set_constraint_field, doc, ref.name, field, v)
        )
        self._refreshers.append(
            lambda: self._set_combo(combo, getattr(doc.scene.constraint(ref.name), field))
        )

    def _info_text(self, name: str) -> str:
        doc = self._document
        info = doc.pose().info.get(name)
        text = report_words(info) if isinstance(info, dict) and info else ""
        if doc.evaluation_error:
            text += f"<br><span style='color:#ff6650'>{doc.evaluation_error}</span>"
        return text


def _wrapped(text: str) -> QtWidgets.QLabel:
    """A label of names that wraps instead of widening the inspector past its dock."""
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    return label


def _first(value):
    """The value at the shown frame (the solvers report one entry per evaluated frame)."""
    a = np.asarray(value).reshape(-1)
    return a[0].item() if a.size else None


def report_words(info: dict) -> str:
    """What a solver reports about the shown frame, in sentences (the keys of ``info`` are
    the solvers' own: ``iterations``/``distance``/``reachable`` for FABRIK,
    ``degenerate_frames`` for points-at, ``grid_steps``... for multi-parent)."""
    if "reachable" in info:
        iterations, distance = _first(info["iterations"]), _first(info["distance"])
        if iterations is None:
            return ""
        reach = "within reach" if _first(info["reachable"]) else "out of reach"
        return (f"Solved in {plural(int(iterations), 'iteration')}: the chain's end is "
                f"{distance:.3g} units from the target ({reach}).")  # fmt: skip
    if "degenerate_frames" in info:
        frames = np.asarray(info["degenerate_frames"]).reshape(-1)
        if not frames.size:
            return "The target gives the bone a direction."
        return (f"At frame {frames[0]:g} the target is on the bone's head: it gives no "
                "direction, so the bone keeps its pose.")  # fmt: skip
    if "grid_steps" in info:
        steps = plural(int(info["grid_steps"]), "integration step")
        subdivided = int(info.get("subdivided_steps") or 0)
        if subdivided:
            steps += f" ({subdivided} subdivided)"
        start = info.get("recomputed_from_frame")
        again = (f"the last change recomputed them from frame {start:g}" if start is not None
                 else "nothing recomputed since the last change")  # fmt: skip
        return f"{steps}; {again}."
    return ""
