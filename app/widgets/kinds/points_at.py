"""The points-at constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

from app.editor.operations import constraint_operations
from app.scene.rig.model import PointsAt
from app.widgets.kinds.base import ConstraintView, act, set_target_menu
from app.widgets.panels import limit_fields


def section(form, c: PointsAt) -> None:
    form.label_row("Bones", c.bone)
    form.target_row(c)


def add_on_bone(menu, document, bone: str, bones) -> None:
    others = [b for b in bones if b != bone]
    aim = f" at {others[-1]}" if others else ""
    act(menu, f"Add Points-At Constraint on {bone}{aim}", constraint_operations.add_points_at,
        document, bones or [bone])  # fmt: skip


def on_constraint(menu, document, c: PointsAt, ref) -> None:
    set_target_menu(menu, document, c)


VIEW = ConstraintView(PointsAt, section=section, limits=limit_fields.build_points_at,
                      add_on_bone=add_on_bone, on_constraint=on_constraint)  # fmt: skip
