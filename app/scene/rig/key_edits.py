"""Edits of keys as pure functions: move, duplicate, delete, change values, copy and paste.

A *channel* is one key list of one item: ``(ref, field)`` with ``field`` one of the item's
``*_keys`` attributes. Every function returns new keys (or items) and leaves its input alone.

Moving keys never reorders them silently: a key that lands on the frame of a key that is not
moving replaces it (Blender's graph editor does the same when a transform ends: the keys
that were moved win). The keys that move keep their interpolation and their order among
themselves.

One idea: key-list edits and the channel addresses they act on.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.math.euler import euler_xyz_from_quat, quat_from_euler_xyz
from app.scene.math.quat import normalize
from app.scene.rig import editing
from app.scene.rig.editing import Ref
from app.scene.rig.keys import Keys, sample
from app.scene.rig.model import Bone, Constraint, Pivot, Scene, Target

#: The key lists of each item type, and the static value each replaces.
KEY_FIELDS = {
    Bone: (("translation_keys", "translation"), ("rotation_keys", "rotation"),
           ("scale_keys", "scale")),
    Pivot: (("position_keys", "position"), ("rotation_keys", "rotation")),
    Target: (("position_keys", "position"),),
}  # fmt: skip


def is_rotation(field: str) -> bool:
    return field == "rotation_keys"


def static_field(field: str) -> str:
    return field[: -len("_keys")]


def _at(keys: Keys, frames) -> np.ndarray:
    """Boolean mask (K,) of the keys at ``frames`` (``KeyError`` for a frame with no key)."""
    frames = np.atleast_1d(np.asarray(frames, dtype=float))
    mask = np.isin(keys.frames, frames)
    missing = np.setdiff1d(frames, keys.frames)
    if len(missing):
        raise KeyError(f"no key at frame {missing[0]:g}")
    return mask


def _build(frames, values, kinds) -> Keys:
    order = np.argsort(frames, kind="stable")
    return Keys(np.asarray(frames, float)[order], np.asarray(values, float)[order],
                tuple(kinds[i] for i in order))  # fmt: skip


def move_keys(keys: Keys, frames, offset: float) -> Keys:
    """The keys at ``frames`` moved by ``offset`` frames; each replaces a key it lands on.

    Raises
    ------
    KeyError
        When one of ``frames`` has no key.
    """
    return _moved(keys, _at(keys, frames), float(offset), keep_originals=False)


def duplicate_keys(keys: Keys, frames, offset: float) -> Keys:
    """Copies of the keys at ``frames``, ``offset`` frames later (earlier if negative).

    The originals stay; a copy replaces any key it lands on (an original too, for a zero
    offset, which changes nothing).
    """
    return _moved(keys, _at(keys, frames), float(offset), keep_originals=True)


def _moved(keys: Keys, moving: np.ndarray, offset: float, keep_originals: bool) -> Keys:
    landed = keys.frames[moving] + offset
    stay = ~np.isin(keys.frames, landed)
    if not keep_originals:
        stay &= ~moving
    kinds = keys.interpolation
    frames = np.concatenate([keys.frames[stay], landed])
    values = np.concatenate([keys.values[stay], keys.values[moving]])
    all_kinds = [k for k, s in zip(kinds, stay) if s] + [k for k, m in zip(kinds, moving) if m]
    return _build(frames, values, all_kinds)


def delete_keys(keys: Keys, frames) -> Keys | None:
    """``keys`` without those at ``frames``; ``None`` when none remains."""
    keep = ~_at(keys, frames)
    if not np.any(keep):
        return None
    return Keys(keys.frames[keep], keys.values[keep],
                tuple(k for k, kept in zip(keys.interpolation, keep) if kept))  # fmt: skip


def offset_component(keys: Keys, frames, component: int, delta: float) -> Keys:
    """Vector keys at ``frames`` with ``values[:, component] += delta``."""
    mask = _at(keys, frames)
    values = np.array(keys.values)
    values[mask, component] += float(delta)
    return Keys(keys.frames, values, keys.interpolation)


def offset_euler(keys: Keys, frames, axis: int, delta_deg: float) -> Keys:
    """Rotation keys at ``frames`` turned by ``delta_deg`` in one Blender XYZ Euler angle.

    Each key's angles (``euler_xyz_from_quat``) get ``delta_deg`` added to angle ``axis``
    (0, 1, 2 for X, Y, Z) and are composed back; a key keeps the hemisphere it had, so its
    slerp to its neighbours does not flip.
    """
    mask = _at(keys, frames)
    values = np.array(keys.values)
    angles = euler_xyz_from_quat(values[mask])
    angles[:, axis] += float(delta_deg)
    turned = normalize(quat_from_euler_xyz(angles))
    sign = np.where(np.einsum("ki,ki->k", turned, values[mask]) < 0, -1.0, 1.0)
    values[mask] = turned * sign[:, None]
    return Keys(keys.frames, values, keys.interpolation)


def with_interpolation(keys: Keys, frames, kind: str) -> Keys:
    """``keys`` with the segments that start at ``frames`` interpolated by ``kind``."""
    return keys.with_interpolation(frames, kind)


# --- channels of items --------------------------------------------------------------------


def with_channel(item, field: str, keys: Keys | None, frame: float):
    """``item`` with its ``field`` keys replaced; when ``keys`` is ``None`` the property's
    value at ``frame`` becomes its static value (deleting every key does not jump the pose)."""
    if keys is not None:
        return dataclasses.replace(item, **{field: keys})
    old = getattr(item, field)
    static = static_field(field)
    value = sample(getattr(item, static), old, np.asarray(float(frame)), is_rotation(field))
    if is_rotation(field):
        value = normalize(value)
    return dataclasses.replace(item, **{field: None, static: tuple(float(v) for v in value)})


def item_refs(scene: Scene, ref: Ref) -> list[Ref]:
    """The keyable items ``ref`` stands for: itself, or a constraint's pivots and targets."""
    item = editing.resolve(scene, ref)
    if isinstance(item, Constraint):
        return editing.part_refs(item)
    return [ref]


def channels_at(scene: Scene, refs, frame: float) -> list[tuple[Ref, str]]:
    """Every channel of ``refs`` (items or constraints) with a key at ``frame``."""
    out: list[tuple[Ref, str]] = []
    for ref in refs:
        if not editing.exists(scene, ref):
            continue
        for item_ref in item_refs(scene, ref):
            item = editing.resolve(scene, item_ref)
            for field, _ in KEY_FIELDS.get(type(item), ()):
                keys = getattr(item, field)
                if keys is not None and np.any(keys.frames == frame):
                    if (item_ref, field) not in out:
                        out.append((item_ref, field))
    return out


# --- copy and paste -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Clip:
    """Copied keys: per channel its key frames, values and interpolations.

    Attributes
    ----------
    channels : tuple of ((Ref, str), Keys)
        The channel each came from and its copied keys (their own frames).
    """

    channels: tuple

    @property
    def first_frame(self) -> float:
        return min(float(keys.frames[0]) for _, keys in self.channels)


def copy_keys(selected: dict) -> Clip:
    """A clip of the keys ``selected`` names: ``{(ref, field): (keys, frames)}``."""
    channels = []
    for channel, (keys, frames) in selected.items():
        mask = _at(keys, frames)
        if np.any(mask):
            channels.append((channel, Keys(keys.frames[mask], keys.values[mask],
                             tuple(k for k, m in zip(keys.interpolation, mask) if m))))  # fmt: skip
    if not channels:
        raise ValueError("no keys to copy")
    return Clip(tuple(channels))


def paste_keys(keys: Keys | None, copied: Keys, offset: float) -> Keys:
    """``copied`` keys ``offset`` frames later, pasted into ``keys`` (replacing keys at the
    same frames, Blender's "Mix" paste; a channel without keys gets them)."""
    frames = copied.frames + float(offset)
    if keys is None:
        return Keys(frames, copied.values, copied.interpolation)
    stay = ~np.isin(keys.frames, frames)
    return _build(
        np.concatenate([keys.frames[stay], frames]),
        np.concatenate([keys.values[stay], copied.values]),
        [k for k, s in zip(keys.interpolation, stay) if s] + list(copied.interpolation),
    )
