"""Edits of keys as pure functions: an item's values at a frame (read, set, keyed and
unkeyed), and its key lists moved, duplicated, deleted, changed, copied and pasted.

An edit "at a frame" sets a key when the property is animated (has keys) and the static
value otherwise, except rotations of pivots and bones, which only mean something as
animation and are always keyed (a bone's static rotation is its rest, edited with
:func:`app.scene.rig.bone_edits.with_bone_rest`).

A *channel* is one key list of one item: ``(ref, field)`` with ``field`` one of the item's
``*_keys`` attributes. Every function returns new keys (or items) and leaves its input alone.

Moving keys never reorders them silently: a key that lands on the frame of a key that is not
moving replaces it (Blender's graph editor does the same when a transform ends: the keys
that were moved win). The keys that move keep their interpolation and their order among
themselves.

One idea: keys, an item's values at a frame and its key lists (the channels).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.math.euler import euler_xyz_from_quat, quat_from_euler_xyz
from app.scene.math.quat import normalize
from app.scene.rig.bone_edits import with_bone_rest
from app.scene.rig.keys import Keys, floats, sample
from app.scene.rig.model import Bone, Constraint, Pivot, Scene, Target
from app.scene.rig.refs import Ref, exists, part_refs, resolve

#: The key lists of each item type, and the static value each replaces.
KEY_FIELDS = {
    Bone: (
        ("translation_keys", "translation"),
        ("rotation_keys", "rotation"),
        ("scale_keys", "scale"),
    ),
    Pivot: (("position_keys", "position"), ("rotation_keys", "rotation")),
    Target: (("position_keys", "position"),),
}


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
    return Keys(
        np.asarray(frames, float)[order],
        np.asarray(values, float)[order],
        tuple(kinds[i] for i in order),
    )


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
    return Keys(
        keys.frames[keep],
        keys.values[keep],
        tuple(k for k, kept in zip(keys.interpolation, keep) if kept),
    )


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


def key_at_or_before(keys: Keys, frame: float) -> int:
    """Index of the key whose segment holds ``frame``: the last key at or before it (the
    first key for a frame before every key). Its interpolation is the one the inspector
    shows and edits at that frame (the last key's entry is kept but unused)."""
    return max(int(np.searchsorted(keys.frames, float(frame), side="right")) - 1, 0)


def with_key_interpolation(item, field: str, frame: float, kind: str):
    """``item`` whose ``field`` keys (``"rotation_keys"``...) interpolate by ``kind`` from
    the key at or before ``frame`` (:func:`key_at_or_before`) to the next.

    Raises
    ------
    ValueError
        When the property has no keys, or for a ``kind`` that is not an interpolation.
    """
    keys = getattr(item, field)
    if keys is None:
        raise ValueError(f"{field.removesuffix('_keys')} is not animated: it has no keys")
    at = keys.frames[key_at_or_before(keys, frame)]
    return dataclasses.replace(item, **{field: with_interpolation(keys, [at], kind)})


# --- values at a frame --------------------------------------------------------------------


def position_at(item, frame: float) -> np.ndarray:
    """A pivot's position (body frame) or a position target (world) at ``frame``, (3,)."""
    return sample(item.position, item.position_keys, np.asarray(float(frame)))


def rotation_at(item, frame: float) -> np.ndarray:
    """A pivot's quaternion ``q_i`` or a bone's local rotation at ``frame``, (4,)."""
    return sample(item.rotation, item.rotation_keys, np.asarray(float(frame)), rotation=True)


def translation_at(bone: Bone, frame: float) -> np.ndarray:
    """A bone's translation (its head in the parent's frame) at ``frame``, (3,)."""
    return sample(bone.translation, bone.translation_keys, np.asarray(float(frame)))


def scale_at(bone: Bone, frame: float) -> np.ndarray:
    """A bone's scale (per axis of its own frame) at ``frame``, (3,)."""
    return sample(bone.scale, bone.scale_keys, np.asarray(float(frame)))


def _keys_of(item) -> list[Keys | None]:
    return [getattr(item, field) for field, _ in KEY_FIELDS.get(type(item), ())]


def key_frames(scene: Scene, ref: Ref) -> np.ndarray:
    """Every frame where the item (or, for a constraint, anything in it) has a key."""
    item = resolve(scene, ref)
    keys = _keys_of(item)
    if isinstance(item, Constraint):
        for part in part_refs(item):
            keys += _keys_of(resolve(scene, part))
    frames = [k.frames for k in keys if k is not None]
    return np.unique(np.concatenate(frames)) if frames else np.zeros(0)


# --- setting values at a frame ------------------------------------------------------------


def with_key(keys: Keys | None, frame: float, value) -> Keys:
    """``keys`` with a key at ``frame`` holding ``value`` (replacing one there), or the first
    key when ``keys`` is ``None``."""
    value = np.asarray(value, dtype=float)
    if keys is None:
        return Keys(np.array([float(frame)]), value[None])
    return keys.with_key(float(frame), value)


def with_position(item, frame: float, position):
    """A pivot or position target placed at ``position`` (a key if its position is keyed)."""
    if item.position_keys is not None:
        keys = with_key(item.position_keys, frame, position)
        return dataclasses.replace(item, position_keys=keys)
    return dataclasses.replace(item, position=floats(position))


def keys_rest_too(pivot: Pivot, frame: float, first_frame: float | None) -> bool:
    """Whether keying ``pivot``'s rotation at ``frame`` also keys its rest at ``first_frame``
    (the scene's ``frame_start``): its first key, at another frame. A multi-parent integrates
    the turn from one key to the next, so one key alone would turn nothing; with the rest
    keyed too, one key makes a roll."""
    return pivot.rotation_keys is None and first_frame is not None and frame != first_frame


def with_pivot_rotation(
    pivot: Pivot, frame: float, rotation, first_frame: float | None = None
) -> Pivot:
    """A pivot whose quaternion is keyed to ``rotation`` at ``frame`` (keys are created); its
    first key, at a frame other than ``first_frame`` (given), keys its rest (its static
    ``rotation``) at ``first_frame`` too (:func:`keys_rest_too`)."""
    q = np.asarray(rotation, dtype=float)
    q = q / np.linalg.norm(q)
    keys = pivot.rotation_keys
    if keys_rest_too(pivot, frame, first_frame):
        keys = with_key(None, first_frame, _unit(pivot.rotation))
    return dataclasses.replace(pivot, rotation_keys=with_key(keys, frame, q))


def _unit(q) -> np.ndarray:
    q = np.asarray(q, dtype=float)
    return q / np.linalg.norm(q)


def with_bone_rotation(bone: Bone, frame: float, rotation) -> Bone:
    """A bone keyed to the local ``rotation`` at ``frame`` (its rotation keys are created).

    Posing is animation: the static ``rotation`` stays the rest pose that limits refer to
    (edit it with :func:`with_bone_rest`).
    """
    q = np.asarray(rotation, dtype=float)
    q = q / np.linalg.norm(q)
    return dataclasses.replace(bone, rotation_keys=with_key(bone.rotation_keys, frame, q))


def with_bone_translation(bone: Bone, frame: float, translation) -> Bone:
    """A bone moved to ``translation``: a key if its translation is animated, else static."""
    if bone.translation_keys is not None:
        return dataclasses.replace(
            bone, translation_keys=with_key(bone.translation_keys, frame, translation)
        )
    return dataclasses.replace(bone, translation=floats(translation))


def with_bone_scale(bone: Bone, frame: float, scale) -> Bone:
    """A bone scaled to ``scale``: a key if its scale is animated, else its static scale.

    Raises
    ------
    ValueError
        For a factor that is not a finite number >= 0 (0 hides the bone).
    """
    if bone.scale_keys is None:
        return with_bone_rest(bone, scale=scale)
    v = np.asarray(scale, dtype=float).reshape(-1)
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError("every scale factor must be a finite number >= 0 (0 hides the bone)")
    return dataclasses.replace(bone, scale_keys=with_key(bone.scale_keys, frame, v))


# --- keying and unkeying an item at a frame -----------------------------------------------


class NoKeyError(KeyError):
    """There is no key to delete at that frame."""


def keyable(scene: Scene, ref: Ref) -> bool:
    """Whether K means something for ``ref`` (a bone, a pivot, a position target)."""
    if not exists(scene, ref):
        return False
    item = resolve(scene, ref)
    return isinstance(item, (Bone, Pivot)) or (isinstance(item, Target) and item.bone is None)


def keyed(scene: Scene, ref: Ref, frame: float):
    """The item of ``ref`` with a key at ``frame`` holding its current value.

    A bone keys its rotation, and its translation when that is animated or it is a root;
    a pivot keys its quaternion (its first key at a frame other than ``frame_start`` keys
    the rest at ``frame_start`` too, :func:`keys_rest_too`), and its position when that is
    animated; a position target keys its position. The pose does not change: the keys hold
    the values already there.

    Raises
    ------
    ValueError
        For things that cannot be keyed (a bone target, a constraint).
    """
    item = resolve(scene, ref)
    if isinstance(item, Bone):
        changes = {"rotation_keys": with_key(item.rotation_keys, frame, rotation_at(item, frame))}
        if item.translation_keys is not None or item.parent is None:
            changes["translation_keys"] = with_key(
                item.translation_keys, frame, translation_at(item, frame)
            )
        if item.scale_keys is not None:
            scale = sample(item.scale, item.scale_keys, np.asarray(float(frame)))
            changes["scale_keys"] = with_key(item.scale_keys, frame, scale)
        return dataclasses.replace(item, **changes)
    if isinstance(item, Pivot):
        changes = {
            "rotation_keys": with_pivot_rotation(
                item, frame, rotation_at(item, frame), scene.frame_start
            ).rotation_keys
        }
        if item.position_keys is not None:
            changes["position_keys"] = with_key(item.position_keys, frame, position_at(item, frame))
        return dataclasses.replace(item, **changes)
    if isinstance(item, Target) and item.bone is None:
        return dataclasses.replace(
            item, position_keys=with_key(item.position_keys, frame, position_at(item, frame))
        )
    raise ValueError(f"{ref.label()} has nothing to key")


def _drop(item, frame: float, keys_field: str, static_field: str, changes: dict) -> None:
    keys = getattr(item, keys_field)
    if keys is None or not np.any(keys.frames == frame):
        return
    rest = keys.without_key(frame)
    changes[keys_field] = rest
    if rest is None:  # the last key: its value stays, as the static value
        changes[static_field] = floats(keys.values[0])


def unkeyed(scene: Scene, ref: Ref, frame: float):
    """The item of ``ref`` without its keys at ``frame``.

    When the last key of a property goes, its value becomes the static value, so the pose
    at that frame does not jump.

    Raises
    ------
    NoKeyError
        When nothing of the item has a key at ``frame``.
    """
    item = resolve(scene, ref)
    fields = KEY_FIELDS.get(type(item), ())
    changes: dict = {}
    for keys_field, static_field in fields:
        _drop(item, float(frame), keys_field, static_field, changes)
    if not changes:
        raise NoKeyError(f"{ref.label()} has no key at frame {frame:g}")
    return dataclasses.replace(item, **changes)


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
    item = resolve(scene, ref)
    if isinstance(item, Constraint):
        return part_refs(item)
    return [ref]


def channels_at(scene: Scene, refs, frame: float) -> list[tuple[Ref, str]]:
    """Every channel of ``refs`` (items or constraints) with a key at ``frame``."""
    out: list[tuple[Ref, str]] = []
    for ref in refs:
        if not exists(scene, ref):
            continue
        for item_ref in item_refs(scene, ref):
            item = resolve(scene, item_ref)
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
            channels.append(
                (
                    channel,
                    Keys(
                        keys.frames[mask],
                        keys.values[mask],
                        tuple(k for k, m in zip(keys.interpolation, mask) if m),
                    ),
                )
            )
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
