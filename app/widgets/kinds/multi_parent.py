"""The multi-parent constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

from app.editor import operations
from app.scene.rig import editing
from app.scene.rig.editing import PIVOT
from app.scene.rig.model import MultiParent
from app.scene.words import plural
from app.widgets.kinds.base import ConstraintView, act


def section(form, c: MultiParent) -> None:
    form.label_row("Body", c.body)
    form.int_field("Substeps per frame", "substeps", "substeps", 1000)
    form.combo_field(
        "Integrator", "integrator", "integrator", ["seed", "twist", "exact"],
        "seed: the seed's update equations at 'Substeps per frame'; twist: their limit "
        "stepped with the twist frozen per step; exact: the limit itself in closed "
        "form (substeps ignored)",
    )  # fmt: skip
    form.relative_to_field()
    form.pivot_list(c)


def add_on_bone(menu, document, bone: str, bones) -> None:
    scene = document.scene
    driven = editing.alike_on_same_bones(scene, editing.new_multi_parent(scene, bone))
    act(menu, f"Add Multi-Parent Constraint on {bone}" + (" (it has one)" if driven else ""),
        operations.add_multi_parent, document, bone, enabled=not driven)  # fmt: skip


def on_constraint(menu, document, c: MultiParent, ref) -> None:
    act(menu, f"Add Pivot to {c.name}", operations.add_pivot, document, c.name)
    if ref.kind == PIVOT:
        act(menu, f"Remove Pivot {ref.pivot}", operations.remove_pivot, document, c.name,
            ref.pivot, enabled=len(c.pivots) > 1)  # fmt: skip


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


VIEW = ConstraintView(MultiParent, section=section, add_on_bone=add_on_bone,
                      on_constraint=on_constraint, report=report)  # fmt: skip
