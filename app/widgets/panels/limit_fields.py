"""The inspector's editors for a constraint's limits, up vector and pole.

:class:`LimitEditor` edits one limit (none, a cone with an optional twist range, or a
hinge); :func:`limit_row` puts one into the inspector's constraint form, as a kind's view
asks (its ``limits``: the points-at's limit and up vector, FABRIK's limits per bone and its
pole, in :mod:`app.widgets.kinds`). Every change goes through
:mod:`app.editor.operations.constraint_operations` (one undo command; spin-box steps merge).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.editor.operations import constraint_operations as ops
from app.scene.rig import constraint_edits
from app.scene.rig.model import ConeLimit, HingeLimit
from app.widgets.fields import VectorEdit, spin_box
from app.widgets.text_keys import keep_keys

KINDS = ("none", "cone", "hinge")
#: What a limit starts as when its kind is picked (Blender's IK limits start at ±90°...).
DEFAULT_CONE = ConeLimit(degrees=45.0)
DEFAULT_HINGE = HingeLimit(axis=(1.0, 0.0, 0.0), min=-90.0, max=90.0)


class LimitEditor(QtWidgets.QWidget):
    """One limit: a kind, then the cone's angle and twist range or the hinge's axis and
    range. ``edited(object)`` carries the new limit (``None``: no limit), or a
    ``ValueError`` when the fields do not make one."""

    edited = QtCore.Signal(object)

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(name)
        form = QtWidgets.QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        # In a narrow inspector, a row whose fields do not fit beside its label goes under it.
        form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        self._form = form
        self.kind = keep_keys(QtWidgets.QComboBox())
        self.kind.setObjectName(f"{name}Kind")
        self.kind.addItems(KINDS)
        form.addRow("Limit", self.kind)
        self.cone = spin_box(2, 1.0, 0.0, 180.0, "°")
        self.cone.setObjectName(f"{name}Cone")
        form.addRow("Cone angle", self.cone)
        self.twist = QtWidgets.QCheckBox("Twist range")
        self.twist.setObjectName(f"{name}Twist")
        form.addRow(self.twist)
        self.twist_range = VectorEdit(2, f"{name}TwistRange", decimals=2, step=1.0, suffix="°")
        form.addRow("Twist min, max", self.twist_range)
        self.axis = VectorEdit(3, f"{name}Axis", decimals=3, step=0.1)
        form.addRow("Hinge axis", self.axis)
        self.hinge_range = VectorEdit(2, f"{name}HingeRange", decimals=2, step=1.0, suffix="°")
        form.addRow("Hinge min, max", self.hinge_range)
        self.kind.currentTextChanged.connect(self._kind_changed)
        self.cone.valueChanged.connect(self._changed)
        self.twist.toggled.connect(self._changed)
        for edit in (self.twist_range, self.axis, self.hinge_range):
            edit.edited.connect(self._changed)
        self.new_kind = False
        self.set_value(None)

    def _show(self, kind: str, twist: bool) -> None:
        rows = {
            self.cone: kind == "cone",
            self.twist: kind == "cone",
            self.twist_range: kind == "cone" and twist,
            self.axis: kind == "hinge",
            self.hinge_range: kind == "hinge",
        }
        for widget, shown in rows.items():
            self._form.setRowVisible(widget, shown)

    def set_value(self, limit) -> None:
        """Show ``limit`` (signals blocked: a refresh is not an edit)."""
        blockers = [QtCore.QSignalBlocker(w) for w in (self.kind, self.cone, self.twist)]
        kind = "none" if limit is None else "cone" if isinstance(limit, ConeLimit) else "hinge"
        self.kind.setCurrentText(kind)
        if isinstance(limit, ConeLimit):
            self.cone.setValue(limit.degrees)
            self.twist.setChecked(limit.twist is not None)
            self.twist_range.set_value(limit.twist or (-180.0, 180.0))
        elif isinstance(limit, HingeLimit):
            self.axis.set_value(limit.axis)
            self.hinge_range.set_value((limit.min, limit.max))
        del blockers
        self._show(kind, isinstance(limit, ConeLimit) and limit.twist is not None)

    def limit(self):
        """The limit the fields describe (raises ``ValueError`` when they describe none)."""
        kind = self.kind.currentText()
        if kind == "none":
            return None
        if kind == "cone":
            twist = self.twist_range.value() if self.twist.isChecked() else None
            return constraint_edits.cone(self.cone.value(), twist)
        return constraint_edits.hinge(self.axis.value(), *self.hinge_range.value())

    def _kind_changed(self, kind: str) -> None:
        self.set_value({"none": None, "cone": DEFAULT_CONE, "hinge": DEFAULT_HINGE}[kind])
        self.new_kind = True  # its own undo step: the next value edits merge after it
        try:
            self._changed()
        finally:
            self.new_kind = False

    def _changed(self, *_):
        self._show(self.kind.currentText(), self.twist.isChecked())
        try:
            self.edited.emit(self.limit())
        except ValueError as e:
            self.edited.emit(e)


def limit_row(inspector, form, name: str, bone: str | None, object_name: str) -> None:
    doc = inspector.document
    editor = LimitEditor(object_name)
    form.addRow(editor)

    def edited(limit):
        if isinstance(limit, ValueError):
            doc.notify(str(limit))
            inspector.refresh()
            return
        inspector.run(ops.set_limit, doc, name, limit, bone, not editor.new_kind)

    editor.edited.connect(edited)
    inspector.add_refresher(
        lambda: editor.set_value(constraint_edits.limit_of(doc.scene.constraint(name), bone))
    )
