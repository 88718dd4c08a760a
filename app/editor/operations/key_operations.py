"""Key and frame-value operations, each one undo step however many items it touches.

An edit at the current frame (K, Shift+K, a rotation, a position, a bone's translation or
scale, a key's interpolation) keys the property when it is animated and sets its static
value otherwise, as :mod:`app.scene.rig.key_edits` does; pivot and bone rotations are always
keyed.

The curve view and the timeline edit *selections of keys*: ``{(ref, field): frames}``, for
each channel (an item's ``*_keys`` list, :mod:`app.scene.rig.key_edits`) the frames of its
selected keys. An edit that touches several items (two pivots of one constraint, a bone and a
target) pushes one macro, so Edit ▸ Undo takes it back whole. A drag previews through
:class:`KeyGesture` and pushes one command on release.

One idea: keys, a value at the current frame and selections of keys, as undo commands.
"""

from __future__ import annotations

import numpy as np

from app.editor.commands import ReplaceItem
from app.editor.operations.base import OperationError, replace
from app.scene.rig import key_edits
from app.scene.rig.keys import sample
from app.scene.rig.refs import (
    Ref,
    exists,
    follows_a_bone,
    item_in,
    owner_of,
    replace_in,
    resolve,
)
from app.scene.words import plural

INTERPOLATION_WORDS = {"constant": "Constant", "linear": "Linear", "ease": "Ease"}


# --- at the current frame -----------------------------------------------------------------


def _f(frame: float) -> str:
    return f"{frame:g}"


def _keyable_selection(document, what: str) -> list[Ref]:
    """The selected bones, pivots and position targets; without any, the refusal says
    ``what`` the key does and what is selected instead."""
    refs = [r for r in document.selection if key_edits.keyable(document.scene, r)]
    if refs:
        return refs
    active = document.active
    if active is None:
        raise OperationError(f"{what}: select some first")
    but = (
        "follows a bone (key that bone)"
        if follows_a_bone(document.scene, active)
        else "has no keys of its own (select its pivots or bones)"
    )
    raise OperationError(f"{what}; {active.label()} {but}")


def rest_keyed_too(scene, refs, frame: float) -> str:
    """What the status bar adds when keying the rotation of ``refs`` at ``frame`` keys a
    pivot's rest at ``frame_start`` too (its first key, :func:`key_edits.keys_rest_too`):
    ``""`` when it does not."""
    pivots = [
        r
        for r in refs
        if r.part is not None
        and r.part.turns
        and exists(scene, r)
        and key_edits.keys_rest_too(resolve(scene, r), frame, scene.frame_start)
    ]
    if not pivots:
        return ""
    its = "its" if len(pivots) == 1 else "their"
    return (
        f", and {its} rest at frame {_f(scene.frame_start)}: a pivot turns from one key "
        "to the next, so one key alone would turn nothing"
    )


def set_key(document, refs=None) -> None:
    """K: key the selection at the current frame with the values it has there."""
    refs = (
        list(refs)
        if refs is not None
        else _keyable_selection(
            document, "K keys the selected bones, pivots and position targets at this frame"
        )
    )
    frame = document.frame
    stack = document.undo_stack
    names = ", ".join(r.label() for r in refs)
    rest = rest_keyed_too(document.scene, refs, frame)
    stack.beginMacro(f"Set key on {names} at frame {_f(frame)}")
    try:
        for ref in refs:
            replace(document, ref, key_edits.keyed(document.scene, ref, frame), "Set key")
    finally:
        stack.endMacro()
    document.notify(f"Keyed {names} at frame {_f(frame)}{rest}")


def delete_key(document, refs=None) -> None:
    """Shift+K: delete the selection's keys at the current frame."""
    refs = (
        list(refs)
        if refs is not None
        else _keyable_selection(
            document,
            "Shift+K deletes the keys at this frame of the selected bones, pivots and "
            "position targets",
        )
    )
    frame = document.frame
    changes = []
    for ref in refs:
        try:
            changes.append((ref, key_edits.unkeyed(document.scene, ref, frame)))
        except key_edits.NoKeyError:
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
    item = resolve(document.scene, ref)
    rest = ""
    if ref.part is not None and ref.part.turns:
        rest = rest_keyed_too(document.scene, [ref], frame)
        new = key_edits.with_pivot_rotation(item, frame, rotation, document.scene.frame_start)
    else:
        new = key_edits.with_bone_rotation(item, frame, rotation)
    text = f"Rotate {ref.label()} at frame {_f(frame)}"
    replace(document, ref, new, text, merge_key=(ref, "rotation", frame, source))
    if rest:
        document.notify(f"Keyed {ref.label()} at frame {_f(frame)}{rest}")


def set_position(document, ref: Ref, position, merge: bool = True) -> None:
    """Move a pivot (on its body) or a position target (in the world) at the current frame."""
    frame = document.frame
    item = resolve(document.scene, ref)
    if follows_a_bone(document.scene, ref):
        raise OperationError(f"This {ref.kind} follows a bone; set it to a position first")
    new = key_edits.with_position(item, frame, position)
    keyed = item.position_keys is not None
    text = f"Move {ref.label()}" + (f" at frame {_f(frame)}" if keyed else "")
    replace(document, ref, new, text, merge_key=(ref, "position", frame) if merge else None)


def set_bone_translation(document, name: str, value) -> None:
    """A bone's translation: a key at the current frame when it is animated."""
    frame = document.frame
    bone = document.scene.bone(name)
    new = key_edits.with_bone_translation(bone, frame, value)
    keyed = bone.translation_keys is not None
    text = f"Move bone {name}" + (f" at frame {_f(frame)}" if keyed else "")
    replace(document, Ref.bone(name), new, text, merge_key=(Ref.bone(name), "translation", frame))


def set_bone_scale(document, name: str, value) -> None:
    """A bone's scale: a key at the current frame when it is animated (edits merge)."""
    frame = document.frame
    bone = document.scene.bone(name)
    try:
        new = key_edits.with_bone_scale(bone, frame, value)
    except ValueError as e:
        raise OperationError(str(e)) from None
    keyed = bone.scale_keys is not None
    text = f"Scale bone {name}" + (f" at frame {_f(frame)}" if keyed else "")
    replace(document, Ref.bone(name), new, text, merge_key=(Ref.bone(name), "scale", frame))


def set_key_interpolation(document, ref: Ref, field: str, kind: str) -> None:
    """How the ``field`` keys of ``ref`` run from the key at or before the current frame to
    the next (``"linear"``, ``"constant"``, ``"ease"``)."""
    item = resolve(document.scene, ref)
    keys = getattr(item, field, None)
    what = field.removesuffix("_keys")
    if keys is None:
        raise OperationError(f"{ref.label()}: its {what} is not animated, so it has no keys")
    try:
        new = key_edits.with_key_interpolation(item, field, document.frame, kind)
    except ValueError as e:
        raise OperationError(str(e)) from None
    at = keys.frames[key_edits.key_at_or_before(keys, document.frame)]
    replace(document, ref, new, f"Set {what} key of {ref.label()} at frame {_f(at)} to {kind}")


# --- selections of keys -------------------------------------------------------------------


class _Clipboard:
    """Copied keys, application-wide like Blender's keyframe copy buffer."""

    clip: key_edits.Clip | None = None


CLIPBOARD = _Clipboard()


def _changed_owners(scene, changes: dict, frame: float) -> dict:
    """``{(collection, index): (old_owner, new_owner)}`` for ``{(ref, field): keys or None}``."""
    owners: dict = {}
    for (ref, field), keys in changes.items():
        collection, index = owner_of(scene, ref)
        old = getattr(scene, collection)[index]
        current = owners.get((collection, index), (old, old))[1]
        item = key_edits.with_channel(item_in(current, ref), field, keys, frame)
        owners[(collection, index)] = (old, replace_in(current, ref, item))
    return owners


def keys_of(scene, channel):
    """The keys of ``channel`` ``(ref, field)`` (``None`` when it has none)."""
    ref, field = channel
    return getattr(resolve(scene, ref), field)


def apply(document, changes: dict, text: str) -> bool:
    """Push one undo step replacing channels' keys: ``{(ref, field): keys or None}``."""
    owners = _changed_owners(document.scene, changes, document.frame)
    owners = {k: v for k, v in owners.items() if v[0] != v[1]}
    if not owners:
        return False
    stack = document.undo_stack
    stack.beginMacro(text)
    try:
        for (collection, index), (old, new) in owners.items():
            document.push(ReplaceItem(document, collection, index, old, new, text))
    finally:
        stack.endMacro()
    return True


def _each(document, selected: dict, edit) -> dict:
    scene = document.scene
    return {channel: edit(keys_of(scene, channel), frames) for channel, frames in selected.items()}


def _count(selected: dict) -> str:
    """How many keys ``selected`` holds, in words ("1 key", "3 keys")."""
    return plural(sum(len(frames) for frames in selected.values()), "key")


def set_interpolation(document, selected: dict, kind: str) -> None:
    """T ▸ Constant / Linear / Ease: the selected keys' segments interpolate by ``kind``."""
    if not selected:
        raise OperationError("Select keys to set their interpolation")
    changes = _each(document, selected, lambda keys, frames: keys.with_interpolation(frames, kind))
    word = INTERPOLATION_WORDS[kind]
    apply(document, changes, f"Set interpolation of {_count(selected)} to {word}")
    document.notify(f"Interpolation of {_count(selected)}: {word}")


def keys_at_frame(document, frame: float | None = None) -> dict:
    """The selection's keys at ``frame`` (default: the current frame), the timeline's
    diamond there; with nothing selected, every key of the scene at that frame (as the
    timeline then shows every key)."""
    frame = float(document.frame if frame is None else frame)
    scene = document.scene
    refs = list(document.selection) or [Ref.bone(b.name) for b in scene.bones] + [
        Ref.constraint(c.name) for c in scene.constraints
    ]
    return {channel: [frame] for channel in key_edits.channels_at(scene, refs, frame)}


def delete(document, selected: dict) -> None:
    """Delete: remove the selected keys (a property keeps its value when its last key goes)."""
    if not selected:
        raise OperationError("Select keys to delete them")
    apply(document, _each(document, selected, key_edits.delete_keys), f"Delete {_count(selected)}")


def moved_selection(selected: dict, offset: float) -> dict:
    return {c: [float(f) + offset for f in frames] for c, frames in selected.items()}


def paste(document, clip: key_edits.Clip, retarget: Ref | None = None) -> dict:
    """Ctrl+V: the clip's keys with its first key at the current frame; returns the new
    selection. ``retarget`` pastes a single item's keys onto another item (same fields)."""
    offset = float(document.frame) - clip.first_frame
    scene = document.scene
    refs = {ref for (ref, _), _ in clip.channels}
    changes, pasted = {}, {}
    for (ref, field), copied in clip.channels:
        if retarget is not None and len(refs) == 1:
            ref = retarget
        if not exists(scene, ref) or not hasattr(resolve(scene, ref), field):
            continue
        keys = getattr(resolve(scene, ref), field)
        changes[(ref, field)] = key_edits.paste_keys(keys, copied, offset)
        pasted[(ref, field)] = list(copied.frames + offset)
    if not changes:
        raise OperationError("Nothing here takes the copied keys")
    apply(document, changes, f"Paste {_count(pasted)} at frame {document.frame:g}")
    return pasted


class KeyGesture:
    """Dragging keys in time (or value): previews each step from the keys as they were when
    the drag began, and pushes one undo step on release."""

    def __init__(self, document, selected: dict, text: str):
        self.document = document
        self.selected = {c: list(f) for c, f in selected.items()}
        self.text = text
        self.original = {c: keys_of(document.scene, c) for c in self.selected}
        self._owners: dict = {}

    def preview(self, edit) -> None:
        """Show ``edit(keys, frames) -> keys`` applied to every channel's original keys."""
        changes = {c: edit(self.original[c], f) for c, f in self.selected.items()}
        # Build from the scene as it was: the original keys, not the last preview.
        self.cancel()
        self._owners = _changed_owners(self.document.scene, changes, self.document.frame)
        for (collection, index), (_, new) in self._owners.items():
            self.document.set_item(collection, index, new)

    def commit(self) -> bool:
        owners = {k: v for k, v in self._owners.items() if v[0] != v[1]}
        if not owners:
            self.cancel()
            return False
        stack = self.document.undo_stack
        stack.beginMacro(self.text)
        try:
            for (collection, index), (old, new) in owners.items():
                self.document.push(
                    ReplaceItem(self.document, collection, index, old, new, self.text)
                )
        finally:
            stack.endMacro()
        self._owners = {}
        return True

    def cancel(self) -> None:
        for (collection, index), (old, _) in self._owners.items():
            self.document.set_item(collection, index, old)
        self._owners = {}


class KeyMove(KeyGesture):
    """A drag of keys in time: :meth:`to` previews them ``offset`` frames away (Alt: copies)."""

    def __init__(self, document, selected: dict, duplicate: bool = False):
        self.word = "Duplicate" if duplicate else "Move"
        super().__init__(document, selected, f"{self.word} {_count(selected)}")
        self._edit = key_edits.duplicate_keys if duplicate else key_edits.move_keys
        self.offset = 0.0

    def to(self, offset: float) -> None:
        self.offset = float(offset)
        self.text = f"{self.word} {_count(self.selected)} by {plural(offset, 'frame', fmt='+g')}"
        self.preview(lambda keys, frames: self._edit(keys, frames, self.offset))


def insert_key(document, ref: Ref, field: str, frame: float, value=None) -> None:
    """Ctrl+click on a curve: a key at ``frame`` holding ``value`` (default: the value the
    curve has there, so only the key is new)."""
    item = resolve(document.scene, ref)
    keys = getattr(item, field)
    if value is None:
        static = getattr(item, key_edits.static_field(field))
        value = sample(static, keys, np.asarray(float(frame)), key_edits.is_rotation(field))
    value = np.asarray(value, dtype=float)
    if key_edits.is_rotation(field):
        value = value / np.linalg.norm(value)
    new = key_edits.with_key(keys, frame, value)
    apply(document, {(ref, field): new}, f"Insert key on {ref.label()} at frame {frame:g}")
