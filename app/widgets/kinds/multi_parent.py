"""The multi-parent constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor.operations import constraint_operations
from app.scene.constraints.multi_parent import edits as multi_parent_edits
from app.scene.constraints.multi_parent.model import PIVOT_PART, MultiParent
from app.scene.math import quat
from app.scene.rig import constraint_edits
from app.scene.words import plural
from app.widgets.kinds.base import ConstraintView, act, column_text, vector_text
from app.widgets.viewport.overlays import arrow_lines, axes_lines

SUM_COLOR = (1.0, 1.0, 1.0, 1.0)
AXIS_COLOR = (1.0, 0.9, 0.3, 1.0)
PIVOT_ARROW_COLORS = np.array(
    [
        [1.0, 0.58, 0.12, 1.0],
        [0.95, 0.35, 0.55, 1.0],
        [0.65, 0.5, 1.0, 1.0],
        [0.3, 0.8, 1.0, 1.0],
        [0.5, 0.95, 0.4, 1.0],
    ]
)


def section(form, c: MultiParent) -> None:
    form.label_row("Body", c.body)
    form.int_field("Substeps per frame", "substeps", "substeps", 1000)
    form.combo_field(
        "Integrator",
        "integrator",
        "integrator",
        ["seed", "twist", "exact"],
        "seed: the seed's update equations at 'Substeps per frame'; twist: their limit "
        "stepped with the twist frozen per step; exact: the limit itself in closed "
        "form (substeps ignored)",
    )
    form.relative_to_field()
    form.pivot_list(c)


def add_on_bone(menu, document, bone: str, bones) -> None:
    scene = document.scene
    new = multi_parent_edits.new_multi_parent(scene, bone)
    driven = constraint_edits.alike_on_same_bones(scene, new)
    act(
        menu,
        f"Add Multi-Parent Constraint on {bone}" + (" (it has one)" if driven else ""),
        constraint_operations.add_multi_parent,
        document,
        bone,
        enabled=not driven,
    )


def on_constraint(menu, document, c: MultiParent, ref) -> None:
    act(menu, f"Add Pivot to {c.name}", constraint_operations.add_pivot, document, c.name)
    if ref.kind == PIVOT_PART.word:
        act(
            menu,
            f"Remove Pivot {ref.part_name}",
            constraint_operations.remove_pivot,
            document,
            c.name,
            ref.part_name,
            enabled=len(c.pivots) > 1,
        )


def report(info: dict) -> str:
    """The integration steps, and from which frame the last change recomputed them."""
    if "grid_steps" not in info:
        return ""
    steps = plural(int(info["grid_steps"]), "integration step")
    subdivided = int(info.get("subdivided_steps") or 0)
    if subdivided:
        steps += f" ({subdivided} subdivided)"
    start = info.get("recomputed_from_frame")
    if start is not None:
        again = f"the last change recomputed them from frame {start:g}"
    else:
        again = "nothing recomputed since the last change"
    return f"{steps}; {again}."


def show_trace(panel, m) -> None:
    """The step-through of the integration into the shown frame: a row per substep with the
    combined rotation's angle and the displacement, and each pivot's offset ``v_i``,
    increment ``R_i`` and contribution ``v_i - R_i v_i R_i*`` in the substep shown."""
    st = m.trace
    frame = panel.document.frame
    panel.stages.setHorizontalHeaderLabels(["#", "time (frame)", "turn {Rᵢ} · |Δp0| (units)"])
    if len(st) == 0:
        panel.stages.setRowCount(0)
        panel.pivots.setRowCount(0)
        panel.pivots.setVisible(False)
        panel.position.setText(f"frame {frame:g}")
        panel.description.setText(
            f"<b>{m.constraint}</b>: no integration step ends at this frame (before or at "
            "the first frame, or after the pivots' last key, the body holds still). "
            "Scrub to a frame where it moves."
        )
        return
    angles = st.combined_angle_deg()
    moves = np.linalg.norm(st.displacement(), axis=1)
    panel.rows(
        [
            (
                str(k),
                f"{st.times[k]:.4g} → {st.times[k + 1]:.4g}"
                + (" (subdivided)" if st.subdivided[k] else ""),
                f"{angles[k]:.3f}° · {moves[k]:.3g}",
            )
            for k in range(len(st))
        ]
    )
    k = m.index
    panel.position.setText(f"step {k + 1} of {len(st)} · frame {frame:g}")
    axis, angle = quat.axis_angle_from_quat(st.combined[k])
    where = ""
    if st.parent:
        where = (
            f"<br>Relative to its parent: integrated in the frame of {st.parent}, shown "
            f"where {st.parent} is at this frame."
        )
    panel.description.setText(
        f"<b>{m.constraint}</b> ({st.space} space, {st.integrator}): substep t = "
        f"{st.times[k]:.4g} → {st.times[k + 1]:.4g}.<br>Combined rotation "
        f"{{Rᵢ}} = (w, x, y, z) = ({', '.join(f'{v:.5f}' for v in st.combined[k])}): "
        f"{np.degrees(angle):.3f}° about {vector_text(axis)}.<br>p0 moves by "
        f"Σ (vᵢ − Rᵢ vᵢ Rᵢ*) = {vector_text(st.displacement()[k])} units." + where
    )
    panel.pivots.setVisible(True)
    table = panel.pivots
    table.setRowCount(len(st.pivot_names))
    inc_angles = np.degrees(2 * np.arccos(np.clip(np.abs(st.increments[k, :, 0]), 0, 1)))
    right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
    for r, name in enumerate(st.pivot_names):
        values = (
            name,
            column_text(st.offsets[k, r], 3),
            f"{inc_angles[r]:.3f}°",
            column_text(st.contributions[k, r], 5),
        )
        for c, value in enumerate(values):
            item = QtWidgets.QTableWidgetItem(value)
            if c:
                item.setTextAlignment(right)
            table.setItem(r, c, item)
    table.resizeRowsToContents()


def draw_trace(layer, st, k, scale) -> list:
    """Step ``k`` in the viewport: each pivot's lever and its contribution ``v − R v R*`` as
    an arrow, their sum, the combined rotation's axis and the body's frame."""
    p0 = st.position[k]
    pivots = st.pivot_positions[k]
    contributions = st.contributions[k]
    reach = max(float(np.linalg.norm(st.offsets, axis=-1).max()), 1e-9)
    biggest = float(np.linalg.norm(st.contributions, axis=-1).max())
    # Arrows are a step's worth of motion, tiny next to the body: drawn scaled so the
    # largest of the trace is 60% of the farthest pivot's distance.
    layer.arrow_scale = 0.6 * reach / biggest if biggest > 0 else 0.0
    a = layer.arrow_scale
    pos, col = [], []
    for i in range(len(pivots)):  # v_i: from the body's head to the pivot
        pos += [p0, pivots[i]]
        col += [(1.0, 0.6, 0.15, 0.5)] * 2
    arrows = arrow_lines(np.repeat(p0[None], len(pivots), 0), p0 + a * contributions)
    pos += list(arrows)
    for i in range(len(pivots)):
        col += [PIVOT_ARROW_COLORS[i % len(PIVOT_ARROW_COLORS)]] * 6
    total = contributions.sum(axis=0)
    pos += list(arrow_lines(p0[None], (p0 + a * total)[None]))
    col += [SUM_COLOR] * 6
    axis, angle = quat.axis_angle_from_quat(st.combined[k])
    pos += [p0 - 0.5 * reach * axis, p0 + 0.5 * reach * axis]
    col += [AXIS_COLOR] * 2
    frame_pos, frame_col = axes_lines(
        np.concatenate(
            [
                np.concatenate([quat.matrix_from_quat(st.rotation[k]), p0[:, None]], 1),
                [[0, 0, 0, 1]],
            ]
        )[None],
        np.array([0.3 * reach]),
    )
    pos += list(frame_pos)
    col += list(frame_col)
    layer.step_lines.setData(pos=np.array(pos), color=np.array(col, dtype=float))
    layer.step_lines.setVisible(True)
    layer.step_points.setData(
        pos=np.concatenate([p0[None], pivots]),
        color=np.array([SUM_COLOR] + [(1.0, 0.6, 0.15, 1.0)] * len(pivots)),
        size=8.0,
    )
    layer.step_points.setVisible(True)
    size = np.linalg.norm(contributions, axis=1)
    labels = [
        (p0 + a * contributions[i], f"{name}: v−RvR*", PIVOT_ARROW_COLORS[i % 5])
        for i, name in enumerate(st.pivot_names)
        if size[i] > 1e-9 * max(biggest, 1e-300)
    ]  # a still pivot adds nothing
    labels.append((p0 + a * total, f"Σ = Δp0 (arrows ×{a:.3g})", SUM_COLOR))
    labels.append((p0 + 0.5 * reach * axis, f"{{Rᵢ}}: {np.degrees(angle):.3f}°", AXIS_COLOR))
    return labels


def part_hint(ref) -> str | None:
    """A pivot moves on the body and turns (its rotation is always keyed)."""
    if ref.kind != PIVOT_PART.word:
        return None
    return (
        "Drag: move on the body · Shift: on the ground · Ctrl+drag: rotate & key "
        "· K key · Shift+K delete key"
    )


VIEW = ConstraintView(
    MultiParent,
    section=section,
    add_on_bone=add_on_bone,
    on_constraint=on_constraint,
    report=report,
    show_trace=show_trace,
    draw_trace=draw_trace,
    part_hint=part_hint,
)
