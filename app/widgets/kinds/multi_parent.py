"""The multi-parent constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

from app.editor.operations import constraint_operations
from app.scene.constraints import kind_constructors
from app.scene.rig import constraint_edits
from app.scene.rig.model import MultiParent
from app.scene.rig.refs import PIVOT
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
    new = kind_constructors.new_multi_parent(scene, bone)
    driven = constraint_edits.alike_on_same_bones(scene, new)
    act(menu, f"Add Multi-Parent Constraint on {bone}" + (" (it has one)" if driven else ""),
        constraint_operations.add_multi_parent, document, bone, enabled=not driven)  # fmt: skip


def on_constraint(menu, document, c: MultiParent, ref) -> None:
    act(menu, f"Add Pivot to {c.name}", constraint_operations.add_pivot, document, c.name)
    if ref.kind == PIVOT:
        act(menu, f"Remove Pivot {ref.pivot}", constraint_operations.remove_pivot, document, c.name,
            ref.pivot, enabled=len(c.pivots) > 1)  # fmt: skip


VIEW = ConstraintView(MultiParent, section=section, add_on_bone=add_on_bone,
                      on_constraint=on_constraint)  # fmt: skip
