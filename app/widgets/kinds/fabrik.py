"""The FABRIK constraint in the editor: its inspector rows and menu entries."""

from __future__ import annotations

from app.editor.operations import constraint_operations
from app.scene.constraints import kind_constructors
from app.scene.rig.model import Fabrik
from app.scene.words import plural
from app.widgets.kinds.base import ConstraintView, act, set_target_menu
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
        chain = kind_constructors.chain_from(document.scene, bones)
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
    act(menu, f"Add FABRIK Constraint {words}", constraint_operations.add_fabrik, document, bones,
        enabled=enabled)  # fmt: skip


def on_constraint(menu, document, c: Fabrik, ref) -> None:
    set_target_menu(menu, document, c)


VIEW = ConstraintView(Fabrik, section=section, limits=limit_fields.build_fabrik,
                      add_on_bone=add_on_bone, on_constraint=on_constraint)  # fmt: skip
