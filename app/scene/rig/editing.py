"""Edits of scene items, as pure functions from old items to new ones.

The editor's undo commands hold an old and a new item; the new one comes from here. Items
are frozen, so every function returns a new item and leaves its input alone. An edit "at a
frame" sets a key when the property is animated (has keys) and the static value otherwise,
except pivot rotations, which only mean something as animation and are always keyed.

:class:`Ref` names what the user selected (a bone, a constraint, a pivot, a target) by
names, so a selection survives edits that replace items.

One idea: item-to-item edit functions and the reference type they take.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.rig.keys import Keys, sample
from app.scene.rig.model import (
    Bone,
    Constraint,
    Fabrik,
    MultiParent,
    Pivot,
    PointsAt,
    Scene,
    Target,
)

BONE, CONSTRAINT, PIVOT, TARGET, POLE = "bone", "constraint", "pivot", "target", "pole"
#: A viewport handle on a bone's head that moves the bone (a tutorial's point); selecting it
#: selects the bone, so it is never part of a selection itself.
POINT = "point"
#: Kinds that are a :class:`Target` of a constraint (its aim, or a FABRIK pole).
TARGET_KINDS = (TARGET, POLE)


@dataclass(frozen=True)
class Ref:
    """A selectable thing, by name.

    Attributes
    ----------
    kind : {"bone", "constraint", "pivot", "target", "pole"}
    name : str
        The bone's name, or the constraint's name for the other kinds.
    pivot : str, optional
        The pivot's name, for ``kind == "pivot"``.
    """

    kind: str
    name: str
    pivot: str | None = None

    @classmethod
    def bone(cls, name: str) -> Ref:
        return cls(BONE, name)

    @classmethod
    def constraint(cls, name: str) -> Ref:
        return cls(CONSTRAINT, name)

    @classmethod
    def pivot_of(cls, constraint: str, pivot: str) -> Ref:
        return cls(PIVOT, constraint, pivot)

    @classmethod
    def target_of(cls, constraint: str) -> Ref:
        return cls(TARGET, constraint)

    @classmethod
    def pole_of(cls, constraint: str) -> Ref:
        return cls(POLE, constraint)

    def label(self) -> str:
        """Words for menus and undo texts: ``pivot heel``, ``target of aim``."""
        if self.kind == PIVOT:
            return f"pivot {self.pivot}"
        if self.kind in TARGET_KINDS:
            return f"{self.kind} of {self.name}"
        return f"{self.kind} {self.name}"


def exists(scene: Scene, ref: Ref) -> bool:
    """Whether ``ref`` names something in ``scene``."""
    try:
        resolve(scene, ref)
    except KeyError:
        return False
    return True


def resolve(scene: Scene, ref: Ref):
    """The item ``ref`` names (a Bone, Constraint, Pivot or Target); ``KeyError`` if none."""
    if ref.kind == BONE:
        return scene.bone(ref.name)
    constraint = scene.constraint(ref.name)
    if ref.kind == CONSTRAINT:
        return constraint
    if ref.kind == PIVOT:
        if not any(kind == PIVOT for kind, _ in constraint.parts()):
            raise KeyError(f"{ref.name!r} has no pivots")
        return pivot_named(constraint, ref.pivot)
    if ref.kind in TARGET_KINDS:
        target = getattr(constraint, ref.kind) if ref.kind in constraint.target_fields else None
        if target is None:
            raise KeyError(f"{ref.name!r} has no {ref.kind}")
        return target
    raise KeyError(f"unknown kind {ref.kind!r}")


def owner(scene: Scene, ref: Ref) -> tuple[str, int]:
    """Which scene list holds the item to replace for ``ref``, and where.

    Returns
    -------
    ("bones" or "constraints", index)
    """
    if ref.kind == BONE:
        return "bones", scene.bone_index(ref.name)
    for i, c in enumerate(scene.constraints):
        if c.name == ref.name:
            return "constraints", i
    raise KeyError(f"no constraint named {ref.name!r}")


# --- sampling -----------------------------------------------------------------------------


def pivot_named(constraint: MultiParent, name: str) -> Pivot:
    for p in constraint.pivots:
        if p.name == name:
            return p
    raise KeyError(f"{constraint.name!r} has no pivot named {name!r}")


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
    return dataclasses.replace(item, **{field: keys.with_interpolation([at], kind)})


def alike_on_same_bones(scene: Scene, constraint: Constraint) -> bool:
    """Whether ``scene`` has a constraint of ``constraint``'s kind driving the same bones."""
    return any(type(c) is type(constraint) and c.driven_bones() == constraint.driven_bones()
               for c in scene.constraints)  # fmt: skip


def identical_in(scene: Scene, constraint: Constraint) -> Constraint | None:
    """The constraint of ``scene`` that is ``constraint`` but for its name (the same kind,
    bones, targets and settings: a second one would do the same again), or ``None``."""
    for c in scene.constraints:
        if type(c) is type(constraint) and dataclasses.replace(c, name=constraint.name) == \
                constraint:  # fmt: skip
            return c
    return None


def identical_words(scene: Scene, constraint: Constraint) -> str:
    """Why ``constraint`` is not added when the scene has it already under another name
    ("" when it has not)."""
    same = identical_in(scene, constraint)
    if same is None:
        return ""
    bones = ", ".join(constraint.driven_bones())
    targets = ", ".join(constraint.target_bones())
    following = f" following {targets}" if targets else ""
    return (f"{same.name} is already a {constraint.label} on {bones}{following}, the same "
            "in every setting: a second one would change nothing")  # fmt: skip


def part_refs(constraint: Constraint) -> list[Ref]:
    """The selectable, keyable parts of ``constraint`` (its pivots, target, pole)."""
    return [Ref(kind, constraint.name, pivot) for kind, pivot in constraint.parts()]


def _keys_of(item) -> list[Keys | None]:
    if isinstance(item, Bone):
        return [item.translation_keys, item.rotation_keys, item.scale_keys]
    if isinstance(item, Pivot):
        return [item.position_keys, item.rotation_keys]
    if isinstance(item, Target):
        return [item.position_keys]
    return []


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


def _keyed(keys: Keys | None, frame: float, value) -> Keys:
    value = np.asarray(value, dtype=float)
    if keys is None:
        return Keys(np.array([float(frame)]), value[None])
    return keys.with_key(float(frame), value)


def _vec(value) -> tuple:
    return tuple(float(v) for v in np.asarray(value, dtype=float).reshape(-1))


def with_position(item, frame: float, position):
    """A pivot or position target placed at ``position`` (a key if its position is keyed)."""
    if item.position_keys is not None:
        return dataclasses.replace(item, position_keys=_keyed(item.position_keys, frame, position))
    return dataclasses.replace(item, position=_vec(position))


def keys_rest_too(pivot: Pivot, frame: float, first_frame: float | None) -> bool:
    """Whether keying ``pivot``'s rotation at ``frame`` also keys its rest at ``first_frame``
    (the scene's ``frame_start``): its first key, at another frame. A multi-parent integrates
    the turn from one key to the next, so one key alone would turn nothing; with the rest
    keyed too, one key makes a roll."""
    return pivot.rotation_keys is None and first_frame is not None and frame != first_frame


def with_pivot_rotation(pivot: Pivot, frame: float, rotation,
                        first_frame: float | None = None) -> Pivot:  # fmt: skip
    """A pivot whose quaternion is keyed to ``rotation`` at ``frame`` (keys are created); its
    first key, at a frame other than ``first_frame`` (given), keys its rest (its static
    ``rotation``) at ``first_frame`` too (:func:`keys_rest_too`)."""
    q = np.asarray(rotation, dtype=float)
    q = q / np.linalg.norm(q)
    keys = pivot.rotation_keys
    if keys_rest_too(pivot, frame, first_frame):
        keys = _keyed(None, first_frame, _unit(pivot.rotation))
    return dataclasses.replace(pivot, rotation_keys=_keyed(keys, frame, q))


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
    return dataclasses.replace(bone, rotation_keys=_keyed(bone.rotation_keys, frame, q))


def with_bone_rest(bone: Bone, **values) -> Bone:
    """A bone with static values replaced (``translation``, ``rotation``, ``scale``, ``tail``).

    Raises
    ------
    ValueError
        For a rotation of zero length or a scale factor that is not > 0.
    """
    changes = {}
    for key, value in values.items():
        v = np.asarray(value, dtype=float).reshape(-1)
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{key} must be finite numbers")
        if key == "rotation":
            n = np.linalg.norm(v)
            if n == 0:
                raise ValueError("a rotation needs a non-zero quaternion")
            v = v / n
        if key == "scale" and np.any(v < 0):
            raise ValueError(
                "every scale factor must be >= 0 (0 hides the bone; bones cannot mirror)"
            )
        changes[key] = _vec(v)
    return dataclasses.replace(bone, **changes)


def with_bone_translation(bone: Bone, frame: float, translation) -> Bone:
    """A bone moved to ``translation``: a key if its translation is animated, else static."""
    if bone.translation_keys is not None:
        return dataclasses.replace(
            bone, translation_keys=_keyed(bone.translation_keys, frame, translation)
        )
    return dataclasses.replace(bone, translation=_vec(translation))


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
    return dataclasses.replace(bone, scale_keys=_keyed(bone.scale_keys, frame, v))


def replace_pivot(constraint: MultiParent, pivot: Pivot, old_name: str | None = None):
    """The constraint with its pivot ``old_name`` (default ``pivot.name``) replaced."""
    name = pivot.name if old_name is None else old_name
    pivot_named(constraint, name)  # KeyError when missing
    pivots = tuple(pivot if p.name == name else p for p in constraint.pivots)
    return dataclasses.replace(constraint, pivots=pivots)


def replace_in(owner_item, ref: Ref, new_item):
    """``owner_item`` (the bone or constraint that holds ``ref``) with ``new_item`` in place.

    For a bone or a constraint ref the owner is the item itself and ``new_item`` replaces
    it; for a pivot or a target, the constraint gets the new pivot or target.
    """
    if ref.kind in (BONE, CONSTRAINT):
        return new_item
    if ref.kind == PIVOT:
        return replace_pivot(owner_item, new_item, ref.pivot)
    return dataclasses.replace(owner_item, **{ref.kind: new_item})


# --- keys ---------------------------------------------------------------------------------


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
        changes = {"rotation_keys": _keyed(item.rotation_keys, frame, rotation_at(item, frame))}
        if item.translation_keys is not None or item.parent is None:
            changes["translation_keys"] = _keyed(
                item.translation_keys, frame, translation_at(item, frame)
            )
        if item.scale_keys is not None:
            scale = sample(item.scale, item.scale_keys, np.asarray(float(frame)))
            changes["scale_keys"] = _keyed(item.scale_keys, frame, scale)
        return dataclasses.replace(item, **changes)
    if isinstance(item, Pivot):
        changes = {"rotation_keys": with_pivot_rotation(
            item, frame, rotation_at(item, frame), scene.frame_start).rotation_keys}
        if item.position_keys is not None:
            changes["position_keys"] = _keyed(item.position_keys, frame, position_at(item, frame))
        return dataclasses.replace(item, **changes)
    if isinstance(item, Target) and item.bone is None:
        return dataclasses.replace(
            item, position_keys=_keyed(item.position_keys, frame, position_at(item, frame))
        )
    raise ValueError(f"{ref.label()} has nothing to key")


def _drop(item, frame: float, keys_field: str, static_field: str, changes: dict) -> None:
    keys = getattr(item, keys_field)
    if keys is None or not np.any(keys.frames == frame):
        return
    rest = keys.without_key(frame)
    changes[keys_field] = rest
    if rest is None:  # the last key: its value stays, as the static value
        changes[static_field] = _vec(keys.values[0])


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
    fields = {
        Bone: [("translation_keys", "translation"), ("rotation_keys", "rotation"),
               ("scale_keys", "scale")],
        Pivot: [("position_keys", "position"), ("rotation_keys", "rotation")],
        Target: [("position_keys", "position")],
    }.get(type(item), [])
    changes: dict = {}
    for keys_field, static_field in fields:
        _drop(item, float(frame), keys_field, static_field, changes)
    if not changes:
        raise NoKeyError(f"{ref.label()} has no key at frame {frame:g}")
    return dataclasses.replace(item, **changes)


# --- adding and removing ------------------------------------------------------------------


def unique_name(base: str, taken) -> str:
    """``base``, or ``base.001``, ``base.002``... (Blender's way) if it is taken (a set is
    used as it is, so naming many items one by one stays linear)."""
    taken = taken if isinstance(taken, (set, frozenset)) else set(taken)
    if base not in taken:
        return base
    n = 1
    while f"{base}.{n:03d}" in taken:
        n += 1
    return f"{base}.{n:03d}"


def constraint_names(scene: Scene) -> list[str]:
    return [c.name for c in scene.constraints]


def new_constraint_name(scene: Scene, cls, bone: str) -> str:
    """The name a new ``cls`` constraint on ``bone`` gets: its kind's words and the bone, as
    Blender names constraints ("Child Of hand.L", "FABRIK hand.R"; ".001"... when taken)."""
    label = cls.label if cls.label.isupper() else cls.label.title()
    return unique_name(f"{label} {bone}", constraint_names(scene))


def numbered_pivot_name(taken) -> str:
    """A new pivot's name: "pivot N" with N one more than the pivots there are, or the next
    number free ("pivot 1" for a constraint's first)."""
    taken = set(taken)
    n = len(taken) + 1
    while f"pivot {n}" in taken:
        n += 1
    return f"pivot {n}"


def with_new_pivot(constraint: MultiParent, position_in_body) -> tuple[MultiParent, Pivot]:
    """The constraint with one more pivot at ``position_in_body`` (no rotation yet), named
    "pivot N" (the user names it heel, ball or toe with F2 or the inspector)."""
    name = numbered_pivot_name(p.name for p in constraint.pivots)
    pivot = Pivot(name=name, position=_vec(position_in_body))
    return dataclasses.replace(constraint, pivots=constraint.pivots + (pivot,)), pivot


def without_pivot(constraint: MultiParent, name: str) -> MultiParent:
    """The constraint without pivot ``name``.

    Raises
    ------
    ValueError
        If it is the last pivot (a multi-parent constraint needs at least one).
    """
    pivot_named(constraint, name)
    if len(constraint.pivots) == 1:
        raise ValueError(
            f"{name!r} is the only pivot of {constraint.name!r}; a multi-parent "
            "constraint needs at least one, remove the constraint instead"
        )
    return dataclasses.replace(
        constraint, pivots=tuple(p for p in constraint.pivots if p.name != name)
    )


def new_multi_parent(scene: Scene, body: str, pivot_in_body=(0.0, 0.0, 0.0)) -> MultiParent:
    """A multi-parent constraint on ``body`` with one pivot (at its head by default).

    New constraints use the exact integrator (the equations' limit, no substeps to tune);
    files keep what they say, and one that says nothing keeps ``"seed"``.
    """
    scene.bone(body)
    return MultiParent(
        name=new_constraint_name(scene, MultiParent, body),
        body=body,
        pivots=(Pivot(name=numbered_pivot_name(()), position=_vec(pivot_in_body)),),
        integrator="exact",
    )


def new_points_at(scene: Scene, bone: str, target: Target) -> PointsAt:
    """A points-at constraint turning ``bone`` towards ``target``."""
    scene.bone(bone)
    return PointsAt(
        name=new_constraint_name(scene, PointsAt, bone), bone=bone, target=target
    )


def chain_from(scene: Scene, names) -> tuple[str, ...]:
    """Bones ordered root to tip, each the parent of the next.

    One bone alone makes a chain with its parent (a two-bone chain, the usual limb), or
    alone if it is a root.

    Raises
    ------
    ValueError
        If the bones do not form one unbroken parent-to-child chain.
    """
    names = list(dict.fromkeys(names))
    if not names:
        raise ValueError("select the bones of the chain first")
    for n in names:
        scene.bone(n)
    if len(names) == 1:
        parent = scene.bone(names[0]).parent
        return (parent, names[0]) if parent is not None else (names[0],)
    members = set(names)
    tips = [n for n in names if not any(scene.bone(m).parent == n for m in members)]
    if len(tips) != 1:
        raise ValueError(
            "the selected bones do not form one unbroken chain (each bone the "
            "parent of the next); select a chain from root to tip"
        )
    chain = [tips[0]]
    while len(chain) < len(names):
        parent = scene.bone(chain[-1]).parent
        if parent not in members:
            raise ValueError(
                f"{chain[-1]!r}'s parent is not selected: the selected bones do "
                "not form one unbroken chain"
            )
        chain.append(parent)
    return tuple(reversed(chain))


def new_fabrik(scene: Scene, chain, target: Target) -> Fabrik:
    """A FABRIK constraint on ``chain`` (root to tip) reaching for ``target``."""
    chain = tuple(chain)
    return Fabrik(
        name=new_constraint_name(scene, Fabrik, chain[-1]), chain=chain, target=target
    )
