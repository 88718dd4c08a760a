"""Constraint operations the menus, the inspector and the viewport call: adding and
removing constraints and pivots, their settings (limits, up, pole, pivot names and order,
any field), and their targets. Each pushes one undo command; spin-box edits of the same
setting merge. The kinds that follow a bone have theirs in
:mod:`app.editor.operations.follow_operations`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.editor.commands import InsertItem, RemoveItem
from app.editor.operations.base import OperationError, replace
from app.scene.constraints.fabrik import edits as fabrik_edits
from app.scene.constraints.multi_parent import edits as multi_parent_edits
from app.scene.constraints.multi_parent.model import RELATIVE_TO
from app.scene.constraints.points_at import edits as points_at_edits
from app.scene.math.transforms import transform_points
from app.scene.rig import constraint_edits, key_edits
from app.scene.rig.model import Target
from app.scene.rig.refs import CONSTRAINT, Ref, exists
from app.scene.words import plural


def constraint_named(document, name: str):
    """The constraint ``name`` of the document's scene (``OperationError`` if none)."""
    try:
        return document.scene.constraint(name)
    except KeyError:
        raise OperationError(f"There is no constraint named {name}") from None


def _edit(document, name: str, fn, *args):
    constraint = constraint_named(document, name)
    try:
        return fn(constraint, *args)
    except (KeyError, ValueError) as e:
        raise OperationError(str(e).strip("'\"")) from None


def _limit_words(limit) -> str:
    if limit is None:
        return "none"
    if hasattr(limit, "degrees"):
        twist = f", twist {limit.twist[0]:g}..{limit.twist[1]:g}°" if limit.twist else ""
        return f"cone {limit.degrees:g}°{twist}"
    return f"hinge {limit.min:g}..{limit.max:g}°"


def set_limit(document, name: str, limit, bone: str | None = None, merge: bool = True) -> None:
    """A points-at's limit, or a FABRIK's limit on chain bone ``bone`` (``None`` removes)."""
    new = _edit(document, name, constraint_edits.with_limit, limit, bone)
    on = f" on {bone}" if bone else ""
    kind = type(limit).__name__ if limit is not None else None
    replace(
        document,
        Ref.constraint(name),
        new,
        f"Set limit of {name}{on} to {_limit_words(limit)}",
        merge_key=(Ref.constraint(name), "limit", bone, kind) if merge else None,
    )


def set_up(document, name: str, axis=None, toward=None) -> None:
    """A points-at's up vector (``None``, ``None`` removes it)."""
    new = _edit(document, name, points_at_edits.with_up, axis, toward)
    words = "none" if new.up is None else "an axis toward a direction"
    replace(
        document,
        Ref.constraint(name),
        new,
        f"Set up of {name} to {words}",
        merge_key=(Ref.constraint(name), "up", new.up is None),
    )


def set_pole(document, name: str, pole) -> None:
    """A FABRIK pole (a :class:`~app.scene.rig.model.Target`, or ``None``)."""
    new = _edit(document, name, fabrik_edits.with_pole, pole)
    if pole is None:
        words = "none"
    elif pole.bone is not None:
        words = f"bone {pole.bone} {pole.at}"
    else:
        words = "a position"
    replace(document, Ref.constraint(name), new, f"Set pole of {name} to {words}")


def rename_pivot(document, name: str, old: str, new: str) -> None:
    """Rename a pivot of a multi-parent constraint (:func:`rename_part`)."""
    rename_part(document, Ref.pivot_of(name, old), new)


def rename_part(document, ref: Ref, new: str) -> None:
    """Rename the named part ``ref`` (a pivot) of its constraint, as one undo command (the
    selection follows it)."""
    new = new.strip()
    if new == ref.part_name:
        return
    constraint = _edit(
        document, ref.name, constraint_edits.with_part_renamed, ref.kind, ref.part_name, new
    )
    renamed = dataclasses.replace(ref, part_name=new)
    selection = [renamed if r == ref else r for r in document.selection]
    replace(
        document,
        Ref.constraint(ref.name),
        constraint,
        f"Rename {ref.label()} of {ref.name} to {new}",
    )
    document.set_selection(selection)


def move_pivot(document, name: str, pivot: str, offset: int) -> None:
    """Move pivot ``pivot`` of multi-parent constraint ``name`` ``offset`` places later in its
    list (negative: earlier), as one undo command; the selection stays on it."""
    constraint = _edit(document, name, multi_parent_edits.with_pivot_moved, pivot, offset)
    where = "down" if offset > 0 else "up"
    replace(document, Ref.constraint(name), constraint, f"Move pivot {pivot} of {name} {where}")


def set_relative_to(document, name: str, relative_to: str) -> None:
    """What a multi-parent's state is taken relative to: ``"world"`` or ``"parent"``
    (contract §F3), as one undo command per change."""
    constraint = _edit(document, name, lambda c: c)
    if not constraint.has_relative_to:
        raise OperationError(f"{name} is not a multi-parent constraint")
    if relative_to not in RELATIVE_TO:
        raise OperationError(
            f"A multi-parent is relative to the world or to its parent, not {relative_to!r}"
        )
    if constraint.relative_to == relative_to:
        return
    words = "its parent" if relative_to == "parent" else "the world"
    replace(
        document,
        Ref.constraint(name),
        dataclasses.replace(constraint, relative_to=relative_to),
        f"Make {name} relative to {words}",
    )


def set_constraint_field(document, name: str, field: str, value) -> None:
    """Edit one field of a constraint (``space``, ``substeps``, ``tolerance``...)."""
    constraint = document.scene.constraint(name)
    if getattr(constraint, field) == value:
        return
    new = dataclasses.replace(constraint, **{field: value})
    replace(
        document,
        Ref.constraint(name),
        new,
        f"Set {field} of {name} to {value}",
        merge_key=(Ref.constraint(name), field),
    )


# --- adding and removing ------------------------------------------------------------------


def add_pivot(document, constraint_name: str, position_in_body=None) -> Ref:
    """A new pivot on a multi-parent body (at the body's tail unless given); selects it."""
    constraint = constraint_named(document, constraint_name)
    if not constraint.has_pivots:
        raise OperationError(f"{constraint_name} is not a multi-parent constraint")
    if position_in_body is None:
        body = constraint.driven_bones()[0]
        position_in_body = document.scene.tail_of(document.scene.bone_index(body))
    new, pivot = multi_parent_edits.with_new_pivot(constraint, position_in_body)
    ref = Ref.pivot_of(constraint_name, pivot.name)
    replace(
        document,
        Ref.constraint(constraint_name),
        new,
        f"Add pivot {pivot.name} to {constraint_name}",
    )
    document.set_selection([ref])
    return ref


def remove_pivot(document, constraint_name: str, pivot_name: str) -> None:
    remove_part(document, Ref.pivot_of(constraint_name, pivot_name))


def remove_part(document, ref: Ref) -> None:
    """Remove the named part ``ref`` (a pivot) from its constraint, as one undo command
    (``OperationError``: it is not there, or its constraint needs it)."""
    constraint = constraint_named(document, ref.name)
    try:
        new = constraint.without_part(ref.kind, ref.part_name)
    except (ValueError, KeyError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    replace(document, Ref.constraint(ref.name), new, f"Remove {ref.label()} from {ref.name}")


def refuse_identical(document, constraint) -> None:
    """Refuse (``OperationError``) a constraint the scene has already under another name."""
    why = constraint_edits.identical_words(document.scene, constraint)
    if why:
        raise OperationError(f"Not added: {why}")


def add_constraint(document, constraint, words: str | None = None) -> Ref:
    """Add a new ``constraint`` (one undo step, named ``words``; by default "Add" and its
    name, which says its kind and bone) and select it: what a kind's add-menu entry calls
    once it has built its item. Refuses one the scene has already."""
    refuse_identical(document, constraint)
    index = len(document.scene.constraints)
    document.push(
        InsertItem(
            document,
            "constraints",
            index,
            constraint,
            words or f"Add {constraint.name}",
        )
    )
    ref = Ref.constraint(constraint.name)
    document.set_selection([ref])
    return ref


def _one_bone(document) -> str:
    bones = document.selected_bones()
    if not bones:
        raise OperationError("Select a bone first")
    return bones[-1]


def add_multi_parent(document, bone: str | None = None) -> Ref:
    """A multi-parent constraint on the (active) bone, with one pivot at its head."""
    bone = bone or _one_bone(document)
    new = multi_parent_edits.new_multi_parent(document.scene, bone)
    if constraint_edits.alike_on_same_bones(document.scene, new):
        raise OperationError(f"{bone} already has a multi-parent constraint; add pivots to it")
    return add_constraint(document, new)


def _tail_target(document, bone: str) -> Target:
    """A position target where the bone's tail is now: adding the constraint moves nothing."""
    pose = document.pose()
    i = document.scene.bone_index(bone)
    return Target(position=tuple(float(v) for v in pose.tails[0, i]))


def add_points_at(document, bones=None) -> Ref:
    """Points-at on the active bone; aiming at the other selected bone's head if there is
    one (Blender's convention), else at a position where its tail is now."""
    bones = list(bones) if bones is not None else document.selected_bones()
    if not bones:
        raise OperationError("Select the bone to aim first")
    bone = bones[-1]
    others = [b for b in bones[:-1] if b != bone]
    target = Target(bone=others[-1], at="head") if others else _tail_target(document, bone)
    return add_constraint(document, points_at_edits.new_points_at(document.scene, bone, target))


def add_fabrik(document, bones=None) -> Ref:
    """FABRIK on the selected chain (or the active bone and its parent), reaching for a
    position where the chain's tip is now."""
    bones = list(bones) if bones is not None else document.selected_bones()
    try:
        chain = fabrik_edits.chain_from(document.scene, bones)
    except (ValueError, KeyError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    target = _tail_target(document, chain[-1])
    return add_constraint(document, fabrik_edits.new_fabrik(document.scene, chain, target))


def remove_constraint(document, name: str) -> None:
    constraint_named(document, name)
    index = [c.name for c in document.scene.constraints].index(name)
    document.push(RemoveItem(document, "constraints", index, f"Remove constraint {name}"))


# --- targets ------------------------------------------------------------------------------


def set_target(document, constraint_name: str, target: Target, kind: str = "target") -> None:
    """Aim a points-at or FABRIK constraint at ``target`` (``kind="pole"``: a FABRIK pole)."""
    constraint = constraint_named(document, constraint_name)
    if kind not in constraint.target_fields:
        raise OperationError(f"{constraint_name} has no {kind}")
    if target.bone is not None:
        document.scene.bone(target.bone)
        words = f"bone {target.bone} {target.at}"
    else:
        words = "a position"
    replace(
        document,
        Ref.constraint(constraint_name),
        constraint.with_target(kind, target),
        f"Set {kind} of {constraint_name} to {words}",
    )


def target_here(document, constraint_name: str, kind: str = "target") -> Target:
    """A position target where the constraint's target (or pole) is now: nothing jumps."""
    constraint = constraint_named(document, constraint_name)
    return Target(position=tuple(float(v) for v in target_world(document, constraint, kind)))


def target_world(document, constraint, kind: str = "target") -> np.ndarray:
    """World position (3,) of a constraint's target (or ``kind="pole"``) at the current frame."""
    target = getattr(constraint, kind)
    if target.bone is None:
        return key_edits.position_at(target, document.frame)
    pose = document.pose()
    i = document.scene.bone_index(target.bone)
    if target.at == "head":
        return pose.heads[0, i]
    return transform_points(pose.bone_to_world[0, i], np.asarray(document.scene.tail_of(i)))


def delete_selected(document) -> None:
    """Delete: removes the selected named parts (pivots) and constraints (bones stay: the
    skeleton is the file's, and removing one would orphan its children)."""
    selection = document.selection
    refs = [r for r in selection if r.kind == CONSTRAINT or r.is_named_part]
    if not refs:
        active = document.active
        what = "X deletes the selected bones, pivots and constraints"
        raise OperationError(
            f"{what}; {active.label()} is part of its constraint (select the constraint)"
            if active is not None
            else f"{what}: select some first"
        )
    removed = {r.name for r in refs if r.kind == CONSTRAINT}
    parts = [r for r in refs if r.is_named_part and r.name not in removed]
    for ref in parts:
        listed = [n for w, n in document.scene.constraint(ref.name).parts() if w == ref.kind]
        going = {r.part_name for r in parts if r.kind == ref.kind and r.name == ref.name}
        if len(set(listed) - going) < ref.part.at_least:
            raise OperationError(
                f"{ref.name} would have no {ref.kind} left; a "
                f"{document.scene.constraint(ref.name).label} constraint needs at least "
                f"{plural(ref.part.at_least, ref.kind) if ref.part.at_least > 1 else 'one'}, "
                "remove the constraint instead"
            )
    stack = document.undo_stack
    stack.beginMacro("Delete " + ", ".join(r.label() for r in refs))
    try:
        for ref in parts:
            remove_part(document, ref)
        for ref in refs:
            if ref.kind == CONSTRAINT and exists(document.scene, ref):
                remove_constraint(document, ref.name)
    finally:
        stack.endMacro()
