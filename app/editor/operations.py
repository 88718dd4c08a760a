"""What the user can do to a document, as functions that push undo commands.

Menus, the outliner's context menu, the inspector and the viewport all call these, so each
edit has one implementation and one readable name in Edit ▸ Undo. An operation that cannot
apply raises :class:`OperationError` with a sentence for the status bar; nothing changes.

One idea: the edits a person makes, each one undoable command with its words.
"""

from __future__ import annotations

import numpy as np

from app.editor.commands import InsertItem, RemoveItem, ReplaceItem, SetTimeline
from app.scene.math.transforms import transform_points
from app.scene.rig import editing
from app.scene.rig.editing import CONSTRAINT, PIVOT, TARGET_KINDS, Ref
from app.scene.rig.model import Target


class OperationError(Exception):
    """The operation does not apply; the message says why, in the user's words."""


def _f(frame: float) -> str:
    return f"{frame:g}"


def replace(document, ref: Ref, new_item, text: str, merge_key=None) -> None:
    """Push one command replacing the item ``ref`` names by ``new_item``."""
    collection, index = editing.owner(document.scene, ref)
    old = getattr(document.scene, collection)[index]
    new = editing.replace_in(old, ref, new_item)
    if new == old:
        return
    document.push(ReplaceItem(document, collection, index, old, new, text, merge_key))


class LiveEdit:
    """A gesture (a drag) on one item: previews as it goes, one undo command at the end.

    Every preview is built from the item as it was when the gesture began, so errors do
    not accumulate and :meth:`cancel` restores it exactly.
    """

    def __init__(self, document, ref: Ref, text: str):
        self.document = document
        self.ref = ref
        self.text = text
        self.collection, self.index = editing.owner(document.scene, ref)
        self.old_owner = getattr(document.scene, self.collection)[self.index]
        self.original = editing.resolve(document.scene, ref)
        self.new_owner = self.old_owner

    @property
    def done_text(self) -> str:
        """What the status bar says when the gesture is done."""
        return self.text

    def preview(self, new_item) -> None:
        self.new_owner = editing.replace_in(self.old_owner, self.ref, new_item)
        self.document.set_item(self.collection, self.index, self.new_owner)

    def commit(self) -> bool:
        """Push the command (if anything changed); returns whether it did."""
        if self.new_owner == self.old_owner:
            self.cancel()
            return False
        self.document.push(
            ReplaceItem(
                self.document,
                self.collection,
                self.index,
                self.old_owner,
                self.new_owner,
                self.text,
            )
        )
        return True

    def cancel(self) -> None:
        self.document.set_item(self.collection, self.index, self.old_owner)


# --- keys ---------------------------------------------------------------------------------


def _keyable_selection(document, what: str) -> list[Ref]:
    """The selected bones, pivots and position targets; without any, the refusal says
    ``what`` the key does and what is selected instead."""
    refs = [r for r in document.selection if editing.keyable(document.scene, r)]
    if refs:
        return refs
    active = document.active
    if active is None:
        raise OperationError(f"{what}: select some first")
    but = ("follows a bone (key that bone)" if active.kind in TARGET_KINDS
           else "has no keys of its own (select its pivots or bones)")  # fmt: skip
    raise OperationError(f"{what}; {active.label()} {but}")


def rest_keyed_too(scene, refs, frame: float) -> str:
    """What the status bar adds when keying the rotation of ``refs`` at ``frame`` keys a
    pivot's rest at ``frame_start`` too (its first key, :func:`editing.keys_rest_too`):
    ``""`` when it does not."""
    pivots = [r for r in refs if r.kind == PIVOT and editing.exists(scene, r)
              and editing.keys_rest_too(editing.resolve(scene, r), frame, scene.frame_start)]
    if not pivots:
        return ""
    its = "its" if len(pivots) == 1 else "their"
    return (f", and {its} rest at frame {_f(scene.frame_start)}: a pivot turns from one key "
            "to the next, so one key alone would turn nothing")


def set_key(document, refs=None) -> None:
    """K: key the selection at the current frame with the values it has there."""
    refs = list(refs) if refs is not None else _keyable_selection(
        document, "K keys the selected bones, pivots and position targets at this frame")
    frame = document.frame
    stack = document.undo_stack
    names = ", ".join(r.label() for r in refs)
    rest = rest_keyed_too(document.scene, refs, frame)
    stack.beginMacro(f"Set key on {names} at frame {_f(frame)}")
    try:
        for ref in refs:
            replace(document, ref, editing.keyed(document.scene, ref, frame), "Set key")
    finally:
        stack.endMacro()
    document.notify(f"Keyed {names} at frame {_f(frame)}{rest}")


def delete_key(document, refs=None) -> None:
    """Shift+K: delete the selection's keys at the current frame."""
    refs = list(refs) if refs is not None else _keyable_selection(
        document, "Shift+K deletes the keys at this frame of the selected bones, pivots and "
        "position targets")  # fmt: skip
    frame = document.frame
    changes = []
    for ref in refs:
        try:
            changes.append((ref, editing.unkeyed(document.scene, ref, frame)))
        except editing.NoKeyError:
            pass
    if not changes:
        names = ", ".join(r.label() for r in refs)
        raise OperationError(f"{names}: no key at frame {_f(frame)}")
    names = ", ".join(r.label() for r, _ in changes)
    stack = document.undo_stack
    stack.beginMacro(f"Delete key on {names} at frame {_f(frame)}")
    try:
        for ref, item in changes:
            replace(document, ref, item, "Delete key")
    finally:
        stack.endMacro()
    document.notify(f"Deleted the key of {names} at frame {_f(frame)}")


def set_rotation(document, ref: Ref, rotation, source: str = "rotation") -> None:
    """Key a pivot's or bone's rotation at the current frame (inspector edits merge)."""
    frame = document.frame
    item = editing.resolve(document.scene, ref)
    rest = ""
    if ref.kind == PIVOT:
        rest = rest_keyed_too(document.scene, [ref], frame)
        new = editing.with_pivot_rotation(item, frame, rotation, document.scene.frame_start)
    else:
        new = editing.with_bone_rotation(item, frame, rotation)
    text = f"Rotate {ref.label()} at frame {_f(frame)}"
    replace(document, ref, new, text, merge_key=(ref, "rotation", frame, source))
    if rest:
        document.notify(f"Keyed {ref.label()} at frame {_f(frame)}{rest}")


def set_position(document, ref: Ref, position, merge: bool = True) -> None:
    """Move a pivot (on its body) or a position target (in the world) at the current frame."""
    frame = document.frame
    item = editing.resolve(document.scene, ref)
    if ref.kind in TARGET_KINDS and item.bone is not None:
        raise OperationError(f"This {ref.kind} follows a bone; set it to a position first")
    new = editing.with_position(item, frame, position)
    keyed = item.position_keys is not None
    text = f"Move {ref.label()}" + (f" at frame {_f(frame)}" if keyed else "")
    replace(document, ref, new, text, merge_key=(ref, "position", frame) if merge else None)


def set_bone_rest(document, name: str, field: str, value) -> None:
    """Edit a bone's static (rest) ``translation``, ``rotation``, ``scale`` or ``tail``."""
    ref = Ref.bone(name)
    bone = document.scene.bone(name)
    try:
        new = editing.with_bone_rest(bone, **{field: value})
    except ValueError as e:
        raise OperationError(str(e)) from None
    replace(document, ref, new, f"Set rest {field} of bone {name}", merge_key=(ref, field))


def set_bone_translation(document, name: str, value) -> None:
    """A bone's translation: a key at the current frame when it is animated."""
    frame = document.frame
    bone = document.scene.bone(name)
    new = editing.with_bone_translation(bone, frame, value)
    keyed = bone.translation_keys is not None
    text = f"Move bone {name}" + (f" at frame {_f(frame)}" if keyed else "")
    replace(document, Ref.bone(name), new, text, merge_key=(Ref.bone(name), "translation", frame))


def set_bone_scale(document, name: str, value) -> None:
    """A bone's scale: a key at the current frame when it is animated (edits merge)."""
    frame = document.frame
    bone = document.scene.bone(name)
    try:
        new = editing.with_bone_scale(bone, frame, value)
    except ValueError as e:
        raise OperationError(str(e)) from None
    keyed = bone.scale_keys is not None
    text = f"Scale bone {name}" + (f" at frame {_f(frame)}" if keyed else "")
    replace(document, Ref.bone(name), new, text, merge_key=(Ref.bone(name), "scale", frame))


def set_key_interpolation(document, ref: Ref, field: str, kind: str) -> None:
    """How the ``field`` keys of ``ref`` run from the key at or before the current frame to
    the next (``"linear"``, ``"constant"``, ``"ease"``)."""
    item = editing.resolve(document.scene, ref)
    keys = getattr(item, field, None)
    what = field.removesuffix("_keys")
    if keys is None:
        raise OperationError(f"{ref.label()}: its {what} is not animated, so it has no keys")
    try:
        new = editing.with_key_interpolation(item, field, document.frame, kind)
    except ValueError as e:
        raise OperationError(str(e)) from None
    at = keys.frames[editing.key_at_or_before(keys, document.frame)]
    replace(document, ref, new, f"Set {what} key of {ref.label()} at frame {_f(at)} to {kind}")


def set_constraint_field(document, name: str, field: str, value) -> None:
    """Edit one field of a constraint (``space``, ``substeps``, ``tolerance``...)."""
    import dataclasses

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


def set_timeline(document, fps=None, frame_start=None, frame_end=None) -> None:
    """The scene's fps and frame range; a range ending before it starts is refused (the
    other end is never moved to make room), naming the end that was typed."""
    s = document.scene
    fps = s.fps if fps is None else float(fps)
    start = s.frame_start if frame_start is None else int(frame_start)
    end = s.frame_end if frame_end is None else int(frame_end)
    if fps <= 0:
        raise OperationError("The playback rate must be more than 0 frames per second")
    if start > end:
        said = f"End {end} is before Start {start}"
        if frame_end is None:
            said = f"Start {start} is after End {end}"
        raise OperationError(f"{said}: a range cannot end before it starts")
    if (fps, start, end) == (s.fps, s.frame_start, s.frame_end):
        return
    text = f"Set frame range {start}–{end}" if fps == s.fps else f"Set fps to {fps:g}"
    document.push(SetTimeline(document, (fps, start, end), text, merge_key=text.split()[1]))


# --- adding and removing ------------------------------------------------------------------


def _constraint(document, name: str):
    try:
        return document.scene.constraint(name)
    except KeyError:
        raise OperationError(f"There is no constraint named {name}") from None


def add_pivot(document, constraint_name: str, position_in_body=None) -> Ref:
    """A new pivot on a multi-parent body (at the body's tail unless given); selects it."""
    constraint = _constraint(document, constraint_name)
    if "pivots" not in constraint.field_names():
        raise OperationError(f"{constraint_name} is not a multi-parent constraint")
    if position_in_body is None:
        body = constraint.driven_bones()[0]
        position_in_body = document.scene.tail_of(document.scene.bone_index(body))
    new, pivot = editing.with_new_pivot(constraint, position_in_body)
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
    constraint = _constraint(document, constraint_name)
    try:
        new = editing.without_pivot(constraint, pivot_name)
    except (ValueError, KeyError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    replace(
        document,
        Ref.constraint(constraint_name),
        new,
        f"Remove pivot {pivot_name} from {constraint_name}",
    )


def refuse_identical(document, constraint) -> None:
    """Refuse (``OperationError``) a constraint the scene has already under another name."""
    why = editing.identical_words(document.scene, constraint)
    if why:
        raise OperationError(f"Not added: {why}")


def add_constraint(document, constraint) -> Ref:
    """Add a new ``constraint`` (one undo step) and select it: what a kind's add-menu entry
    calls once it has built its item."""
    refuse_identical(document, constraint)
    index = len(document.scene.constraints)
    document.push(
        InsertItem(
            document,
            "constraints",
            index,
            constraint,
            f"Add {constraint.name}",  # its name says its kind and bone
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
    new = editing.new_multi_parent(document.scene, bone)
    if editing.alike_on_same_bones(document.scene, new):
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
    return add_constraint(document, editing.new_points_at(document.scene, bone, target))


def add_fabrik(document, bones=None) -> Ref:
    """FABRIK on the selected chain (or the active bone and its parent), reaching for a
    position where the chain's tip is now."""
    bones = list(bones) if bones is not None else document.selected_bones()
    try:
        chain = editing.chain_from(document.scene, bones)
    except (ValueError, KeyError) as e:
        raise OperationError(str(e).strip("'\"")) from None
    target = _tail_target(document, chain[-1])
    return add_constraint(document, editing.new_fabrik(document.scene, chain, target))


def remove_constraint(document, name: str) -> None:
    _constraint(document, name)
    index = [c.name for c in document.scene.constraints].index(name)
    document.push(RemoveItem(document, "constraints", index, f"Remove constraint {name}"))


def set_target(document, constraint_name: str, target: Target, kind: str = "target") -> None:
    """Aim a points-at or FABRIK constraint at ``target`` (``kind="pole"``: a FABRIK pole)."""
    constraint = _constraint(document, constraint_name)
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
    constraint = _constraint(document, constraint_name)
    return Target(position=tuple(float(v) for v in target_world(document, constraint, kind)))


def target_world(document, constraint, kind: str = "target") -> np.ndarray:
    """World position (3,) of a constraint's target (or ``kind="pole"``) at the current frame."""
    target = getattr(constraint, kind)
    if target.bone is None:
        return editing.position_at(target, document.frame)
    pose = document.pose()
    i = document.scene.bone_index(target.bone)
    if target.at == "head":
        return pose.heads[0, i]
    return transform_points(pose.bone_to_world[0, i], np.asarray(document.scene.tail_of(i)))


def delete_selected(document) -> None:
    """Delete: removes the selected pivots and constraints (bones stay: the skeleton is the
    file's, and removing one would orphan its children)."""
    refs = [r for r in document.selection if r.kind in (PIVOT, CONSTRAINT)]
    if not refs:
        active = document.active
        what = "X deletes the selected bones, pivots and constraints"
        raise OperationError(f"{what}; {active.label()} is part of its constraint (select "
                             "the constraint)" if active is not None else
                             f"{what}: select some first")  # fmt: skip
    removed = {r.name for r in refs if r.kind == CONSTRAINT}
    for ref in refs:
        if ref.kind == PIVOT and ref.name not in removed:
            pivots = document.scene.constraint(ref.name).pivots
            going = {r.pivot for r in refs if r.kind == PIVOT and r.name == ref.name}
            if going >= {p.name for p in pivots}:
                raise OperationError(
                    f"{ref.name} would have no pivot left; a multi-parent "
                    "constraint needs at least one, remove the constraint "
                    "instead"
                )
    stack = document.undo_stack
    stack.beginMacro("Delete " + ", ".join(r.label() for r in refs))
    try:
        for ref in refs:
            if ref.kind == PIVOT and ref.name not in removed:
                remove_pivot(document, ref.name, ref.pivot)
        for ref in refs:
            if ref.kind == CONSTRAINT and editing.exists(document.scene, ref):
                remove_constraint(document, ref.name)
    finally:
        stack.endMacro()
