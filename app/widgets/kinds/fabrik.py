"""The FABRIK constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

from app.editor import operations
from app.scene.rig import editing
from app.scene.rig.model import Fabrik
from app.scene.words import plural
from app.widgets.kinds.base import ConstraintView, act, first, set_target_menu
from app.widgets.panels import limit_fields


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
        chain = editing.chain_from(document.scene, bones)
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
    act(menu, f"Add FABRIK Constraint {words}", operations.add_fabrik, document, bones,
        enabled=enabled)  # fmt: skip


def on_constraint(menu, document, c: Fabrik, ref) -> None:
    set_target_menu(menu, document, c)


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


VIEW = ConstraintView(Fabrik, section=section, limits=limit_fields.build_fabrik,
                      add_on_bone=add_on_bone, on_constraint=on_constraint,
                      report=report, show_trace=show_trace)  # fmt: skip
