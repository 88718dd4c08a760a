"""Editing fields for the inspector: a row of spin boxes, and a rotation in three notations.

Fields emit ``edited`` only for the user's changes: :meth:`set_value` blocks signals, so
refreshing a field from the document never echoes back as an edit. Spin boxes commit on
Enter or focus loss (no keyboard tracking), and their arrow steps merge into one undo entry
upstream. Every field behaves as in any desktop program (:mod:`app.widgets.text_keys`): Esc
puts back the shown value and commits nothing, Enter commits and gives the keyboard back to
the viewport; a value that breaks a rule is turned back with the reason beside the field
(:func:`refuse`).
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.scene.math import quat
from app.scene.math.euler import euler_xyz_from_quat, quat_from_euler_xyz
from app.widgets.text_keys import keep_keys

BIG = 1e9


def refuse(field: QtWidgets.QWidget, reason: str) -> None:
    """Say beside ``field`` why the value typed into it was refused (the caller has put the
    field's shown value back; the status bar says it too)."""

    def show():
        if field.isVisible():
            below = field.mapToGlobal(QtCore.QPoint(0, field.height()))
            QtWidgets.QToolTip.showText(below, reason, field, QtCore.QRect(), 8000)

    # Once the keyboard has gone back to the viewport: a tooltip hides when the focus moves.
    QtCore.QTimer.singleShot(0, field, show)


def spin_box(decimals: int, step: float, lo: float = -BIG, hi: float = BIG, suffix: str = ""):
    spin = QtWidgets.QDoubleSpinBox()
    spin.setDecimals(decimals)
    spin.setSingleStep(step)
    spin.setRange(lo, hi)
    spin.setKeyboardTracking(False)
    spin.setSuffix(suffix)
    spin.setAccelerated(True)
    # As narrow as a usual value needs in a narrow inspector ("-0.0511" in [-1, 1], "-12.3456"
    # in a wide range, "-180.00°" in [-720, 720]), not the widest number of its range (its
    # size hint), which a small screen has no room for; where even that does not fit, the
    # inspector's rows put their fields under their labels.
    digits = min(len(str(int(max(abs(lo), abs(hi))))), 3 if hi <= 1000 else 2)
    usual = "-" + "0" * digits + ("." + "0" * decimals if decimals else "") + suffix
    spin.setMinimumWidth(spin.fontMetrics().horizontalAdvance(usual) + 12)
    policy = spin.sizePolicy()
    policy.setHorizontalPolicy(QtWidgets.QSizePolicy.Policy.Preferred)
    spin.setSizePolicy(policy)
    spin.setButtonSymbols(QtWidgets.QAbstractSpinBox.ButtonSymbols.NoButtons)
    return keep_keys(spin)


class VectorEdit(QtWidgets.QWidget):
    """``n`` spin boxes in a row; ``edited(tuple)`` carries all ``n`` values."""

    edited = QtCore.Signal(tuple)

    def __init__(
        self,
        n: int,
        name: str,
        decimals: int = 4,
        step: float = 0.01,
        lo: float = -BIG,
        hi: float = BIG,
        suffix: str = "",
        parent=None,
    ):
        super().__init__(parent)
        self.setObjectName(name)
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.spins = []
        for i in range(n):
            spin = spin_box(decimals, step, lo, hi, suffix)
            spin.setObjectName(f"{name}{i}")
            spin.valueChanged.connect(self._changed)
            layout.addWidget(spin)
            self.spins.append(spin)

    def value(self) -> tuple:
        return tuple(s.value() for s in self.spins)

    def set_value(self, values) -> None:
        for spin, v in zip(self.spins, np.asarray(values, dtype=float).reshape(-1)):
            if spin.cleanText() == spin.textFromValue(float(v)):
                continue  # shown already: no repaint (the inspector refreshes while playing)
            with QtCore.QSignalBlocker(spin):
                spin.setValue(float(v))

    def set_read_only(self, on: bool) -> None:
        for s in self.spins:
            s.setReadOnly(on)

    def _changed(self, _value) -> None:
        self.edited.emit(self.value())


class RotationEditor(QtWidgets.QWidget):
    """One rotation as axis-angle, XYZ Euler degrees and the raw quaternion ``[w, x, y, z]``.

    ``edited(ndarray (4,), str)`` gives the new unit quaternion (in the hemisphere of the
    shown one, so keys stay continuous) and which notation was edited.
    """

    edited = QtCore.Signal(object, str)

    def __init__(self, name: str = "rotation", parent=None):
        super().__init__(parent)
        self.setObjectName(name)
        self._q = np.array([1.0, 0.0, 0.0, 0.0])
        self.axis = VectorEdit(3, f"{name}Axis", decimals=4, step=0.05, lo=-1, hi=1)
        self.angle = VectorEdit(
            1, f"{name}Angle", decimals=2, step=1.0, lo=-720, hi=720, suffix="°"
        )
        self.euler = VectorEdit(
            3, f"{name}Euler", decimals=2, step=1.0, lo=-720, hi=720, suffix="°"
        )
        self.quaternion = VectorEdit(4, f"{name}Quat", decimals=4, step=0.01, lo=-1, hi=1)
        form = QtWidgets.QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setHorizontalSpacing(4)  # the labels are short; the fields want the room
        # In a narrow inspector, a row whose fields do not fit beside its label goes under it.
        form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("Axis", self.axis)
        form.addRow("Angle", self.angle)
        form.addRow("Euler XYZ", self.euler)
        form.addRow("Quaternion", self.quaternion)
        self.axis.edited.connect(lambda _: self._from_axis_angle())
        self.angle.edited.connect(lambda _: self._from_axis_angle())
        self.euler.edited.connect(self._from_euler)
        self.quaternion.edited.connect(self._from_quaternion)
        self.setToolTip(
            "Euler XYZ: X applied first, then Y, then Z, about fixed axes (Blender's XYZ Euler)"
        )

    def value(self) -> np.ndarray:
        return self._q.copy()

    def set_value(self, q) -> None:
        q = quat.normalize(np.asarray(q, dtype=float))
        self._q = q
        axis, angle = quat.axis_angle_from_quat(q)
        self.axis.set_value(axis)
        self.angle.set_value([np.degrees(angle)])
        self.euler.set_value(euler_xyz_from_quat(q))
        self.quaternion.set_value(q)

    def set_read_only(self, on: bool) -> None:
        for field in (self.axis, self.angle, self.euler, self.quaternion):
            field.set_read_only(on)

    def _emit(self, q, source: str) -> None:
        q = quat.normalize(np.asarray(q, dtype=float))
        if float(q @ self._q) < 0:
            q = -q
        self.edited.emit(q, source)

    def _from_axis_angle(self) -> None:
        axis = np.array(self.axis.value())
        if np.linalg.norm(axis) == 0:
            return
        angle = np.radians(self.angle.value()[0])
        self._emit(quat.quat_from_axis_angle(axis / np.linalg.norm(axis), angle), "axis-angle")

    def _from_euler(self, degrees) -> None:
        self._emit(quat_from_euler_xyz(np.array(degrees)), "euler")

    def _from_quaternion(self, values) -> None:
        q = np.array(values)
        if np.linalg.norm(q) == 0 or not np.all(np.isfinite(q)):
            return
        self._emit(q, "quaternion")
