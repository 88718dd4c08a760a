"""The FABRIK constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor.operations import constraint_operations
from app.editor.operations import constraint_operations as ops
from app.scene.constraints.fabrik import edits as fabrik_edits
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.rig.model import Target
from app.scene.words import plural
from app.widgets.kinds.base import ConstraintView, act, choice_index, first, set_target_menu
from app.widgets.panels.limit_fields import limit_row
from app.widgets.text_keys import keep_keys

STAGE_COLOR = (1.0, 0.93, 0.35, 1.0)
PREVIOUS_STAGE_COLOR = (0.75, 0.75, 0.8, 0.45)
ROOT_OFF_COLOR = (1.0, 0.35, 0.3, 1.0)


def section(form, c: Fabrik) -> None:
    form.label_row("Bones", " → ".join(c.chain))
    form.target_row(c)
    form.float_field("Tolerance (units)", "tolerance", "tolerance", 6, 1e-4, 1e-9, 1e6)
    form.int_field("Max iterations", "maxIterations", "max_iterations", 10000)


def add_on_bone(menu, document, bone: str, bones) -> None:
    """FABRIK on the selected chain, or on a bone and its parent: offered only where there
    is a chain of two bones or more (a root alone has nothing to bend: Points-At aims it);
    selected bones that are not one chain show why the entry is greyed."""
    bones = bones or [bone]
    try:
        chain = fabrik_edits.chain_from(document.scene, bones)
    except (ValueError, KeyError):
        chain = None
    if chain is not None and len(chain) < 2:
        return
    if chain is None:
        words, enabled = "(the selected bones are not one chain)", False
    elif len(bones) > 1:
        words, enabled = f"on {chain[0]} → {chain[-1]} ({plural(len(chain), 'bone')})", True
    else:
        words, enabled = f"on {chain[-1]} and its parent {chain[0]}", True
    act(
        menu,
        f"Add FABRIK Constraint {words}",
        constraint_operations.add_fabrik,
        document,
        bones,
        enabled=enabled,
    )


def on_constraint(menu, document, c: Fabrik, ref) -> None:
    set_target_menu(menu, document, c)


def limits(inspector, name: str) -> None:
    """The per-bone limits and the pole of FABRIK ``name``."""
    doc = inspector.document
    c = doc.scene.constraint(name)
    form = inspector.group("Limits per bone (object space)")
    for bone in c.chain:
        form.addRow(QtWidgets.QLabel(f"<b>{bone}</b>"))
        limit_row(inspector, form, name, bone, f"limit_{bone}")
    form = inspector.group("Pole (the chain bends towards it)")
    pole = keep_keys(QtWidgets.QComboBox())
    pole.setObjectName("poleKind")
    pole.addItem("none", "none")
    pole.addItem("a position", None)
    for b in doc.scene.bones:
        pole.addItem(f"bone {b.name} head", (b.name, "head"))
        pole.addItem(f"bone {b.name} tail", (b.name, "tail"))
    form.addRow(pole)

    def refresh():
        p = doc.scene.constraint(name).pole
        with QtCore.QSignalBlocker(pole):
            pole.setCurrentIndex(max(choice_index(pole, None, p if p is not None else "none"), 0))

    def edited(_):
        data = pole.currentData()
        if data == "none":
            target = None
        elif data is None:  # a position where the chain's middle joint would bend to
            target = _pole_here(doc, name)
        else:
            target = Target(bone=data[0], at=data[1])
        inspector.run(ops.set_pole, doc, name, target)

    pole.currentIndexChanged.connect(edited)
    inspector.add_refresher(refresh)


def _pole_here(document, name: str) -> Target:
    """A position pole in front of the chain's middle joint: where the pole already is,
    or the middle joint's head when there was none."""
    c = document.scene.constraint(name)
    if c.pole is not None:
        return constraint_operations.target_here(document, name, "pole")
    pose = document.pose()
    middle = pose.heads[0, document.scene.bone_index(c.chain[len(c.chain) // 2])]
    return Target(position=tuple(float(v) for v in middle))


def report(info: dict) -> str:
    """The solve at the shown frame: iterations, the end's distance, within reach or not."""
    if "reachable" not in info:
        return ""
    iterations, distance = first(info["iterations"]), first(info["distance"])
    if iterations is None:
        return ""
    reach = "within reach" if first(info["reachable"]) else "out of reach"
    return (
        f"Solved in {plural(int(iterations), 'iteration')}: the chain's end is "
        f"{distance:.3g} units from the target ({reach})."
    )


def show_trace(panel, m) -> None:
    """The step-through of one solve: a row per stage with the tail's distance to the target."""
    trace = m.trace
    panel.stages.setHorizontalHeaderLabels(["#", "stage", "tail → target (units)"])
    panel.pivots.setVisible(False)
    panel.rows([(str(k), s.name(), f"{s.tail_distance:.3g}") for k, s in enumerate(trace.stages)])
    stage = trace.stages[m.index]
    solution = trace.solution
    frame = panel.document.frame
    panel.position.setText(f"stage {m.index + 1} of {len(trace)} · frame {frame:g}")
    reach = "within" if solution.reachable[0] else "out of"
    done = (
        f"Solved in {plural(int(solution.iterations[0]), 'iteration')}; the target is "
        f"{reach} reach."
    )
    panel.description.setText(
        f"<b>{m.constraint}</b>: {stage.describe()}<br><span style='color:#9aa0a8'>{done}</span>"
    )


def draw_trace(layer, trace, index, scale) -> list:
    """The stage ``index`` of a solve in the viewport: the chain's joints (yellow), the
    previous stage's (grey), the target, and the root when a pass left it off its place."""
    stage = trace.stages[index]
    joints = layer.step_joints = stage.joints
    pos = [np.stack([joints[:-1], joints[1:]], axis=1).reshape(-1, 3)]
    col = [np.tile(STAGE_COLOR, (2 * (len(joints) - 1), 1))]
    if index > 0:
        prev = trace.stages[index - 1].joints
        pos.append(np.stack([prev[:-1], prev[1:]], axis=1).reshape(-1, 3))
        col.append(np.tile(PREVIOUS_STAGE_COLOR, (2 * (len(prev) - 1), 1)))
    layer.step_lines.setData(pos=np.concatenate(pos), color=np.concatenate(col))
    layer.step_lines.setVisible(True)
    root = trace.stages[0].joints[0]
    dots = [joints, trace.target[None]]
    colors = [np.tile(STAGE_COLOR, (len(joints), 1)), [(0.25, 0.88, 1.0, 1.0)]]
    labels = [(joints[-1], f"{stage.name()}: tail → target {stage.tail_distance:.3g}", STAGE_COLOR)]

    if stage.root_offset > 0:
        dots.append(root[None])
        colors.append([ROOT_OFF_COLOR])
        labels.append((joints[0], f"root off its place by {stage.root_offset:.3g}", ROOT_OFF_COLOR))
    layer.step_points.setData(pos=np.concatenate(dots), color=np.concatenate(colors), size=9.0)
    layer.step_points.setVisible(True)
    return labels


VIEW = ConstraintView(
    Fabrik,
    section=section,
    limits=limits,
    add_on_bone=add_on_bone,
    on_constraint=on_constraint,
    report=report,
    show_trace=show_trace,
    draw_trace=draw_trace,
)
