"""The menu of things to add, remove or retarget for a selected item.

Shared by the outliner's and the viewport's context menus and the main window's
Edit ▸ Add / Remove: one list of operations, each an undoable command.
"""

from __future__ import annotations

from PySide6 import QtWidgets

from app.editor import operations
from app.editor.authoring import bone_operations
from app.scene.rig import editing
from app.scene.rig.editing import BONE, CONSTRAINT, PIVOT, TARGET_KINDS, Ref
from app.scene.rig.model import Fabrik, MultiParent, PointsAt, Target
from app.scene.words import plural


def _act(menu, text, fn, *args, enabled=True):
    document = args[0]

    def run():
        try:
            fn(*args)
        except operations.OperationError as e:
            document.notify(str(e))

    action = menu.addAction(text)
    action.triggered.connect(run)
    action.setEnabled(enabled)
    return action


def build_add_menu(document, parent, ref: Ref | None = None) -> QtWidgets.QMenu:
    """The menu of things to add, remove or retarget for ``ref`` (or the selection).

    Shared by the outliner's context menu and the main window's Edit ▸ Add menu.
    """
    menu = QtWidgets.QMenu(parent)
    scene = document.scene
    ref = ref or document.active
    bones = document.selected_bones()
    parent = ref.name if ref is not None and ref.kind == BONE else None
    _act(menu, f"Add Bone at {parent}'s tail" if parent else "Add Bone (a root at the origin)",
         bone_operations.add_bone, document, parent)  # fmt: skip
    if parent is not None:
        _act(menu, f"Extrude from {parent}", bone_operations.extrude, document)
        _act(menu, f"Clear Parent of {parent} (keep its place)", bone_operations.reparent_bone,
             document, parent, None, enabled=scene.bone(parent).parent is not None)  # fmt: skip
    menu.addSeparator()
    if ref is not None and ref.kind == BONE:
        bone = ref.name
        driven = any(isinstance(c, MultiParent) and c.body == bone for c in scene.constraints)
        _act(
            menu,
            f"Add Multi-Parent Constraint on {bone}" + (" (it has one)" if driven else ""),
            operations.add_multi_parent,
            document,
            bone,
            enabled=not driven,
        )
        others = [b for b in bones if b != bone]
        aim = f" at {others[-1]}" if others else ""
        _act(
            menu,
            f"Add Points-At Constraint on {bone}{aim}",
            operations.add_points_at,
            document,
            bones or [bone],
        )
        _add_fabrik(menu, document, bones or [bone])
    if ref is not None and ref.kind in (CONSTRAINT, PIVOT, *TARGET_KINDS):
        c = scene.constraint(ref.name)
        if isinstance(c, MultiParent):
            _act(menu, f"Add Pivot to {c.name}", operations.add_pivot, document, c.name)
            if ref.kind == PIVOT:
                _act(
                    menu,
                    f"Remove Pivot {ref.pivot}",
                    operations.remove_pivot,
                    document,
                    c.name,
                    ref.pivot,
                    enabled=len(c.pivots) > 1,
                )
        if isinstance(c, (PointsAt, Fabrik)):
            target_menu = menu.addMenu(f"Set Target of {c.name}")
            _act(
                target_menu,
                "To a Position (where it is now)",
                lambda d, n: operations.set_target(d, n, operations.target_here(d, n)),
                document,
                c.name,
            )
            target_menu.addSeparator()
            for b in scene.bones:
                for at in ("head", "tail"):
                    _act(
                        target_menu,
                        f"To {b.name} {at}",
                        operations.set_target,
                        document,
                        c.name,
                        Target(bone=b.name, at=at),
                    )
        menu.addSeparator()
        _act(menu, f"Remove Constraint {c.name}", operations.remove_constraint, document, c.name)
    return menu


def _add_fabrik(menu, document, bones: list[str]) -> None:
    """FABRIK on the selected chain, or on a bone and its parent: offered only where there
    is a chain of two bones or more (a root alone has nothing to bend: Points-At aims it);
    selected bones that are not one chain show why the entry is greyed."""
    scene = document.scene
    try:
        chain = editing.chain_from(scene, bones)
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
    _act(menu, f"Add FABRIK Constraint {words}", operations.add_fabrik, document, bones,
         enabled=enabled)  # fmt: skip
