"""The points-at constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

import numpy as np

from app.editor import operations
from app.scene.rig.model import PointsAt
from app.widgets.kinds.base import ConstraintView, act, set_target_menu
from app.widgets.panels import limit_fields


def section(form, c: PointsAt) -> None:
    form.label_row("Bones", c.bone)
    form.target_row(c)


def add_on_bone(menu, document, bone: str, bones) -> None:
    others = [b for b in bones if b != bone]
    aim = f" at {others[-1]}" if others else ""
    act(menu, f"Add Points-At Constraint on {bone}{aim}", operations.add_points_at, document,
        bones or [bone])  # fmt: skip


def on_constraint(menu, document, c: PointsAt, ref) -> None:
    set_target_menu(menu, document, c)


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


VIEW = ConstraintView(PointsAt, section=section, limits=limit_fields.build_points_at,
                      add_on_bone=add_on_bone, on_constraint=on_constraint,
                      report=report)  # fmt: skip
