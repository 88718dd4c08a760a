"""The points-at constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor.operations import constraint_operations
from app.editor.operations import constraint_operations as ops
from app.scene.constraints.points_at.model import PointsAt
from app.widgets.fields import VectorEdit
from app.widgets.kinds.base import ConstraintView, act, set_target_menu
from app.widgets.panels.limit_fields import limit_row


def section(form, c: PointsAt) -> None:
    form.label_row("Bones", c.bone)
    form.target_row(c)


def add_on_bone(menu, document, bone: str, bones) -> None:
    others = [b for b in bones if b != bone]
    aim = f" at {others[-1]}" if others else ""
    act(
        menu,
        f"Add Points-At Constraint on {bone}{aim}",
        constraint_operations.add_points_at,
        document,
        bones or [bone],
    )


def on_constraint(menu, document, c: PointsAt, ref) -> None:
    set_target_menu(menu, document, c)


def limits(inspector, name: str) -> None:
    """The limit and the up vector of points-at ``name``."""
    doc = inspector.document
    form = inspector.group("Limit (object space, relative to the rest pose)")
    limit_row(inspector, form, name, None, "limit")
    form = inspector.group("Up vector (fixes the roll)")
    on = QtWidgets.QCheckBox("Turn an axis toward a direction")
    on.setObjectName("upEnabled")
    form.addRow(on)
    axis = VectorEdit(3, "upAxis", decimals=3, step=0.1)
    toward = VectorEdit(3, "upToward", decimals=3, step=0.1)
    form.addRow("Axis (bone)", axis)
    form.addRow("Toward (world)", toward)

    def edited(*_):
        if on.isChecked():
            inspector.run(ops.set_up, doc, name, axis.value(), toward.value())
        else:
            inspector.run(ops.set_up, doc, name, None, None)

    def refresh():
        up = doc.scene.constraint(name).up
        with QtCore.QSignalBlocker(on):
            on.setChecked(up is not None)
        axis.set_value(up.axis if up else (0.0, 0.0, 1.0))  # Blender's Track To: Z up
        toward.set_value(up.toward if up else (0.0, 1.0, 0.0))  # world Y-up
        form.setRowVisible(axis, up is not None)
        form.setRowVisible(toward, up is not None)

    on.toggled.connect(edited)
    axis.edited.connect(edited)
    toward.edited.connect(edited)
    inspector.add_refresher(refresh)


def report(info: dict) -> str:
    """Whether the target gives the bone a direction (not where the target is on its head)."""
    if "degenerate_frames" not in info:
        return ""
    frames = np.asarray(info["degenerate_frames"]).reshape(-1)
    if not frames.size:
        return "The target gives the bone a direction."
    return (
        f"At frame {frames[0]:g} the target is on the bone's head: it gives no "
        "direction, so the bone keeps its pose."
    )


VIEW = ConstraintView(
    PointsAt,
    section=section,
    limits=limits,
    add_on_bone=add_on_bone,
    on_constraint=on_constraint,
    report=report,
)
