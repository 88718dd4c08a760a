"""Key edits the curve view and the timeline make: each one undo step, however many items.

A *selection of keys* is ``{(ref, field): frames}``: for each channel (an item's ``*_keys``
list, :mod:`app.scene.rig.key_edits`) the frames of its selected keys. An edit that touches
several items (two pivots of one constraint, a bone and a target) pushes one macro, so
Edit ▸ Undo takes it back whole. A drag previews through :class:`KeyGesture` and pushes one
command on release.
"""

from __future__ import annotations

import numpy as np

from app.editor.commands import ReplaceItem
from app.editor.operations import OperationError
from app.scene.rig import key_edits
from app.scene.rig.keys import Keys, sample
from app.scene.rig.refs import (
    BONE,
    CONSTRAINT,
    PIVOT,
    Ref,
    exists,
    owner_of,
    pivot_named,
    replace_in,
    resolve,
)
from app.scene.words import plural

INTERPOLATION_WORDS = {"constant": "Constant", "linear": "Linear", "ease": "Ease"}


class _Clipboard:
    """Copied keys, application-wide like Blender's keyframe copy buffer."""

    clip: key_edits.Clip | None = None


CLIPBOARD = _Clipboard()


def _item_in(owner_item, ref: Ref):
    """The item ``ref`` names inside its owner (which may already be an edited copy)."""
    if ref.kind in (BONE, CONSTRAINT):
        return owner_item
    if ref.kind == PIVOT:
        return pivot_named(owner_item, ref.pivot)
    return getattr(owner_item, ref.kind)


def _changed_owners(scene, changes: dict, frame: float) -> dict:
    """``{(collection, index): (old_owner, new_owner)}`` for ``{(ref, field): keys or None}``."""
    owners: dict = {}
    for (ref, field), keys in changes.items():
        collection, index = owner_of(scene, ref)
        old = getattr(scene, collection)[index]
        current = owners.get((collection, index), (old, old))[1]
        item = key_edits.with_channel(_item_in(current, ref), field, keys, frame)
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
    apply(document, _each(document, selected, key_edits.delete_keys),
          f"Delete {_count(selected)}")  # fmt: skip


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
                self.document.push(ReplaceItem(self.document, collection, index, old, new,
                                               self.text))  # fmt: skip
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
    if keys is None:
        new = Keys([float(frame)], value[None])
    else:
        new = keys.with_key(float(frame), value)
    apply(document, {(ref, field): new}, f"Insert key on {ref.label()} at frame {frame:g}")
