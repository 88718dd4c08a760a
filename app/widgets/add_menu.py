"""The menu of things to add, remove or retarget for a selected item.

Shared by the outliner's and the viewport's context menus and the main window's
Edit ▸ Add / Remove: one list of operations, each an undoable command. Each constraint
kind's entries come from its view (:mod:`app.widgets.kinds.registry`).
"""

from __future__ import annotations

from PySide6 import QtWidgets

from app.editor.operations import bone_operations, constraint_operations
from app.scene.rig.refs import BONE, Ref
from app.widgets.kinds import registry as views
from app.widgets.kinds.base import act as _act


def build_add_menu(document, parent, ref: Ref | None = None) -> QtWidgets.QMenu:
    """The menu of things to add, remove or retarget for ``ref`` (or the selection).

    Shared by the outliner's context menu and the main window's Edit ▸ Add menu.
    """
    menu = QtWidgets.QMenu(parent)
    scene = document.scene
    ref = ref or document.active
    bones = document.selected_bones()
    parent = ref.name if ref is not None and ref.kind == BONE else None
    _act(
        menu,
        f"Add Bone at {parent}'s tail" if parent else "Add Bone (a root at the origin)",
        bone_operations.add_bone,
        document,
        parent,
    )
    if parent is not None:
        _act(menu, f"Extrude from {parent}", bone_operations.extrude, document)
        _act(
            menu,
            f"Clear Parent of {parent} (keep its place)",
            bone_operations.reparent_bone,
            document,
            parent,
            None,
            enabled=scene.bone(parent).parent is not None,
        )
    menu.addSeparator()
    if ref is not None and ref.kind == BONE:
        views.add_on_bone(menu, document, ref.name, bones)
    if ref is not None and ref.on_constraint:
        c = scene.constraint(ref.name)
        view = views.view_for(c)
        if view.on_constraint is not None:
            view.on_constraint(menu, document, c, ref)
        menu.addSeparator()
        _act(
            menu,
            f"Remove Constraint {c.name}",
            constraint_operations.remove_constraint,
            document,
            c.name,
        )
    return menu
