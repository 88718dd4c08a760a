"""Bone operations the widgets call: add, extrude, delete, rename, reparent, move a tail.

Each is one undo command (:class:`~app.editor.operations.bone_commands.SetRig`, or a
replaced bone for a tail) named for what it did; a refusal raises
:class:`~app.editor.operations.base.OperationError` with the reason in the user's words.
"""

from __future__ import annotations

from app.editor.operations.base import OperationError, replace
from app.editor.operations.bone_commands import SetRig
from app.scene.rig import bone_edits
from app.scene.rig.bone_edits import KEEP_WORLD, REPARENT
from app.scene.rig.refs import Ref


def _push(document, rig, text: str, selection=None) -> None:
    document.push(SetRig(document, rig, text, selection))
    document.notify(f"{text} (Ctrl+Z undoes)")


def add_bone(document, parent: str | None = None) -> str:
    """Shift+A ▸ Bone: a new bone at the active bone's tail, as its child (a root at the
    origin when no bone is selected). Selects it and returns its name."""
    if parent is None:
        bones = document.selected_bones()
        parent = bones[-1] if bones else None
    rig, name = bone_edits.add_bone(document.scene, parent)
    where = f" to {parent}" if parent else ""
    _push(document, rig, f"Add bone {name}{where}", [Ref.bone(name)])
    return name


def extrude(document) -> list[str]:
    """E: a child from the tail of every selected bone, continuing it (Blender's extrude).
    The new bones become the selection."""
    bones = document.selected_bones()
    if not bones:
        active = document.active
        what = "E extrudes a new bone from the tail of each selected bone"
        raise OperationError(
            f"{what}; {active.label()} is not a bone"
            if active is not None
            else f"{what}: select a bone first"
        )
    scene = document.scene.copy()
    names = []
    for b in bones:
        rig, name = bone_edits.extrude(scene, b)
        scene.bones, scene.constraints = list(rig.bones), list(rig.constraints)
        names.append(name)
    rig = bone_edits.Rig(tuple(scene.bones), tuple(scene.constraints))
    _push(
        document,
        rig,
        f"Extrude {', '.join(names)} from {', '.join(bones)}",
        [Ref.bone(n) for n in names],
    )
    return names


def has_children(document, names) -> bool:
    """Whether any of the bones ``names`` has a child that is not itself in ``names``."""
    going = set(names)
    return any(b.parent in going and b.name not in going for b in document.scene.bones)


def delete_bones(document, names=None, children: str = REPARENT) -> None:
    """X / Delete on bones: ``children`` is ``"reparent"`` (to the deleted bone's parent,
    keeping their place) or ``"delete"``. Constraints naming a deleted bone go too."""
    names = list(names) if names is not None else document.selected_bones()
    if not names:
        raise OperationError("Select the bones to delete")
    try:
        rig = bone_edits.delete_bones(document.scene, names, children)
    except (KeyError, ValueError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    gone = len(document.scene.constraints) - len(rig.constraints)
    text = f"Delete bone{'s' if len(names) > 1 else ''} {', '.join(names)}"
    if has_children(document, names):
        text += " and their children" if children == bone_edits.DELETE else ", reparent children"
    if gone:
        text += f" ({gone} constraint{'s' if gone > 1 else ''} with them)"
    _push(document, rig, text, [])


def rename_bone(document, old: str, new: str) -> None:
    """F2 / the outliner: rename a bone and every reference to it (parents, constraints,
    skinned meshes' joints, tutorial data)."""
    new = new.strip()
    if new == old:
        return
    try:
        rig = bone_edits.rename_bone(document.scene, old, new)
    except (KeyError, ValueError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    selection = [Ref.bone(new) if r == Ref.bone(old) else r for r in document.selection]
    _push(document, rig, f"Rename bone {old} to {new}", selection)


def reparent_bone(document, name: str, parent: str | None, keep: str = KEEP_WORLD) -> None:
    """Make ``name`` a child of ``parent`` (``None``: a root), keeping its world place
    (``keep="world"``) or its local values (``"local"``)."""
    try:
        rig = bone_edits.reparent(document.scene, name, parent, keep)
    except (KeyError, ValueError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    if list(rig.bones) == document.scene.bones:
        return
    words = f"child of {parent}" if parent else "a root"
    how = "keeping its place" if keep == KEEP_WORLD else "keeping its local values"
    _push(document, rig, f"Make {name} {words}, {how}", [Ref.bone(name)])


def tail_edit(document, name: str):
    """A :class:`~app.editor.operations.base.LiveEdit` for dragging the rest tail of ``name``."""
    from app.editor.operations.base import LiveEdit

    return LiveEdit(document, Ref.bone(name), f"Move tail of bone {name}")


def set_tail(document, name: str, tail) -> None:
    """The rest tail of ``name`` (its own frame)."""
    bone = document.scene.bone(name)
    replace(
        document,
        Ref.bone(name),
        bone_edits.with_bone_rest(bone, tail=tail),
        f"Set rest tail of bone {name}",
    )


def set_bone_rest(document, name: str, field: str, value) -> None:
    """Edit a bone's static (rest) ``translation``, ``rotation``, ``scale`` or ``tail``."""
    ref = Ref.bone(name)
    bone = document.scene.bone(name)
    try:
        new = bone_edits.with_bone_rest(bone, **{field: value})
    except ValueError as e:
        raise OperationError(str(e)) from None
    replace(document, ref, new, f"Set rest {field} of bone {name}", merge_key=(ref, field))
