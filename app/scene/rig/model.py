"""The scene: bones, targets, limits and constraints, as plain immutable data.

A scene is what ``docs/scene-format.md`` describes. Its items are frozen dataclasses whose
static values are tuples and whose animation is :class:`~app.scene.rig.keys.Keys`, so an edit
replaces an item (``dataclasses.replace``) and an undo command only keeps the old and the
new item. Unknown JSON keys ride along in ``extra`` and are written back on save.

One idea: the scene's items as plain data, with the hooks a constraint kind answers (its
bones, targets, parts, limits, renames and words) so no other module names a kind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import is_
from typing import ClassVar

from app.scene.registry import Registry
from app.scene.rig.keys import Keys

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

SPACES = ("world", "object")


@dataclass(frozen=True, kw_only=True)
class Bone:
    """One bone; see the "Bones" table of the format page for every field."""

    name: str
    parent: str | None = None
    translation: Vec3 = (0.0, 0.0, 0.0)
    rotation: Quat = (1.0, 0.0, 0.0, 0.0)
    scale: Vec3 = (1.0, 1.0, 1.0)
    #: The tip in the bone's own frame; ``None`` means the default (first child's translation).
    tail: Vec3 | None = None
    translation_keys: Keys | None = None
    rotation_keys: Keys | None = None
    #: Per-component scale over frames (format §B); ``None`` means the static ``scale``.
    scale_keys: Keys | None = None
    extra: Mapping = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Target:
    """What a constraint aims at: a bone's head or tail, or a (keyed) world position."""

    bone: str | None = None
    at: str = "head"
    position: Vec3 = (0.0, 0.0, 0.0)
    position_keys: Keys | None = None
    extra: Mapping = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ConeLimit:
    """The tail direction stays within ``degrees`` of its rest direction.

    ``twist``, when given, is the ``(min, max)`` range in degrees of the rotation about the
    rest tail direction (the twist of a swing-twist decomposition).
    """

    degrees: float
    twist: tuple[float, float] | None = None
    extra: Mapping = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class HingeLimit:
    """Rotation only about ``axis`` of the rest frame, by an angle in ``[min, max]`` degrees."""

    axis: Vec3
    min: float
    max: float
    extra: Mapping = field(default_factory=dict)


Limit = ConeLimit | HingeLimit

RGBA = tuple[float, float, float, float]


@dataclass(frozen=True)
class PartType:
    """A kind of handle a constraint has (a pivot, a target, a pole, or whatever a new kind
    needs), declared by the kinds that have it: what the editor, the lists and the viewport
    ask of a part, so that none of them asks which part it is.

    A part is either a point on the driven body (``on_body``: its ``position`` is in the
    body's frame, the frame of ``driven_bones()[0]``, as a :class:`Pivot`'s) or a
    :class:`Target` (a world position, keyed or not, or a bone's head or tail it follows).

    Attributes
    ----------
    word : str
        Its ``Ref`` kind and its field's name (``"target"``), in words for people too.
    label : str
        Its heading in the inspector (``"Pivot"``).
    on_body : bool
        A point in the body's frame; else a :class:`Target`.
    named : bool
        Listed by name, several per constraint: added, renamed (outliner, F2) and deleted
        (X) like a bone; else one field per constraint, set or cleared.
    turns : bool
        Carries a keyed rotation of its own: R and Ctrl+drag turn it, Alt+R clears it,
        its curve is a rotation.
    at_least : int
        How many a constraint keeps (X refuses to delete the last ones).
    placed : str
        The inspector's heading over where it is (``"Aims at"``).
    hint : str
        What it does, after the kind's words in the inspector's heading.
    color, guide_color : tuple of 4 floats
        RGBA of its handle and label, and of the guide line to it (see :meth:`Constraint.guide_of`).
    list_color : tuple of 3 ints
        RGB (0-255) of its row in the outliner.
    """

    word: str
    label: str
    on_body: bool = False
    named: bool = False
    turns: bool = False
    at_least: int = 0
    placed: str = "Is at"
    hint: str = ""
    color: RGBA = (0.25, 0.88, 1.0, 1.0)
    guide_color: RGBA = (0.3, 0.9, 1.0, 0.55)
    list_color: tuple[int, int, int] = (80, 220, 255)


#: Every part type, by ``word`` (a :class:`Ref`'s kind): each kind registers the types of
#: the parts its ``parts()`` lists (a ``target`` field's is :data:`TARGET_PART`).
PARTS: Registry[str, PartType] = Registry("constraint part", key=lambda part: part.word)

#: A kind's aim: the :class:`Target` in its ``target`` field.
TARGET_PART = PARTS.register(PartType("target", "Target", placed="Aims at"))


@dataclass(frozen=True, kw_only=True)
class Constraint:
    """Fields every constraint has. ``space`` is ``"world"`` or ``"object"``.

    A kind is a subclass (see "How to add a constraint kind" in ``docs/architecture.md``):
    its class attributes and hooks are what editing, analysis and the views ask, so none of
    them names a kind.
    """

    name: str
    space: str = "object"
    extra: Mapping = field(default_factory=dict)

    type = "constraint"  # overridden by each subclass (a class attribute, not a field)
    #: Words for people (outliner, inspector, menus): ``"points-at"``.
    label = "constraint"
    #: Whether its ``space`` changes what it does (a child-of reads the target's whole
    #: transform either way: the inspector does not offer it).
    space_matters: ClassVar[bool] = True
    #: The fields holding a :class:`Target` (``None`` when unset), in the order shown; each
    #: is a part whose :class:`PartType` has the field's name as ``word``.
    target_fields: ClassVar[tuple[str, ...]] = ()
    #: Whether its limits are per bone (a chain's), so edits name the bone.
    limits_per_bone = False
    #: What it is, as editing and analysis ask it (each kind says yes to its own): a body
    #: turned about pivots the editor adds (a multi-parent), ...
    has_pivots: ClassVar[bool] = False
    #: ... integrated step by step with a choice of ``integrator`` (convergence compares them),
    integrated: ClassVar[bool] = False
    #: ... whose state is taken relative to the world or the body's parent,
    has_relative_to: ClassVar[bool] = False
    #: ... a chain solved as a whole (FABRIK),
    is_chain: ClassVar[bool] = False
    #: ... a bone aimed with an optional up vector (a points-at),
    has_up_vector: ClassVar[bool] = False
    #: ... a bone that follows another with a chosen ``offset`` (child-of, copy rotation,
    #: copy location).
    follows_a_bone: ClassVar[bool] = False

    def driven_bones(self) -> tuple[str, ...]:
        """Names of the bones whose world transforms this constraint writes."""
        raise NotImplementedError

    def referenced_bones(self) -> tuple[str, ...]:
        """Names of every bone the constraint reads or writes."""
        return tuple(name for _, name in self.bone_fields())

    def target_bones(self) -> tuple[str, ...]:
        """Names of the bones whose world transforms it reads as targets or poles.

        Together with the parents of :meth:`driven_bones` these are what it depends on
        (contract §F1).
        """
        return tuple(b for b in self.referenced_bones() if b not in self.driven_bones())

    # --- hooks: what editing and the views ask without naming the kind -------------------

    def own_bone_fields(self) -> tuple[tuple[str, str], ...]:
        """``(json path, bone name)`` of the fields naming the bones it drives."""
        return tuple((f"bone[{k}]", b) for k, b in enumerate(self.driven_bones()))

    def bone_fields(self) -> tuple[tuple[str, str], ...]:
        """``(json path, bone name)`` of every field naming a bone: its own, then its
        targets' (``target.bone``)."""
        return self.own_bone_fields() + tuple(
            (f"{key}.bone", t.bone) for key, t in self.targets() if t.bone is not None
        )

    def targets(self) -> tuple[tuple[str, Target], ...]:
        """``(field, target)`` of the targets it has (unset ones left out)."""
        return tuple(
            (key, getattr(self, key))
            for key in self.target_fields
            if getattr(self, key) is not None
        )

    def parts(self) -> tuple[tuple[str, str | None], ...]:
        """Its selectable, keyable parts: ``(part word, name or None)``, e.g.
        ``("target", None)`` (a part named by the field that holds it)."""
        return tuple((key, None) for key, _ in self.targets())

    def part_item(self, word: str, name: str | None = None):
        """The item that is its part ``word`` (named ``name`` when its type is ``named``):
        a :class:`Target` here, whatever its kind holds there; ``KeyError`` if it has none."""
        target = getattr(self, word) if word in self.target_fields else None
        if target is None:
            raise KeyError(f"{self.name!r} has no {word}")
        return target

    def with_part(self, word: str, name: str | None, item) -> Constraint:
        """The constraint with its part ``word`` (named ``name``) replaced by ``item``."""
        self.part_item(word, name)  # KeyError when missing
        return dataclasses.replace(self, **{word: item})

    def without_part(self, word: str, name: str | None) -> Constraint:
        """The constraint without its named part ``name`` of type ``word`` (``ValueError``:
        it has none to remove, or it would keep fewer than the type's ``at_least``)."""
        raise ValueError(f"{self.name!r}: its {word} is set or cleared, not removed")

    def guide_of(self, word: str) -> tuple[str, str]:
        """``(bone, "head" or "tail")`` where the viewport's guide line to its part ``word``
        starts: by default the point whose path shows what it does (:meth:`trail_point`)."""
        return self.trail_point()

    def trail_point(self) -> tuple[str, str]:
        """``(bone, "head" or "tail")``: the point whose path shows what it does."""
        return self.driven_bones()[-1], "tail"

    def limits_by_bone(self) -> tuple[tuple[str, Limit], ...]:
        """``(bone, limit)`` of its rotation limits, in chain order."""
        return ()

    def limit_on(self, bone: str | None) -> Limit | None:
        """Its limit on ``bone`` (``None``: none); ``ValueError`` if it has no limits."""
        raise ValueError(f"{self.name!r} has no limits")

    def with_limit_on(self, bone: str | None, limit: Limit | None) -> Constraint:
        """The constraint with its limit on ``bone`` replaced (``None`` removes it)."""
        raise ValueError(f"{self.name!r} has no limits")

    def listed_names(self) -> tuple:
        """What lists show under it besides its name (its targets' bones and ends here; a
        multi-parent's pivots): when these change, the outliner is rebuilt."""
        return tuple(v for _, t in self.targets() for v in (t.bone, t.at if t.bone else None))

    def field_names(self) -> tuple[str, ...]:
        """Its dataclass fields, by name."""
        return tuple(f.name for f in dataclasses.fields(self))

    def with_target(self, key: str, target: Target | None) -> Constraint:
        """The constraint with target field ``key`` set (``ValueError`` if it has none)."""
        if key not in self.target_fields:
            raise ValueError(f"{self.name!r} has no {key}")
        return dataclasses.replace(self, **{key: target})

    def _renamed_own(self, old: str, new: str) -> dict:
        """The changed fields when bone ``old`` is called ``new`` (targets aside): each of
        :meth:`own_bone_fields` that is a field of its own; a kind with other bone fields
        (a chain) says so itself."""
        return {key: new for key, name in self.own_bone_fields() if name == old}

    def with_bone_renamed(self, old: str, new: str) -> Constraint:
        """The constraint with every field naming bone ``old`` naming ``new`` instead."""
        changes = self._renamed_own(old, new)
        for key, t in self.targets():
            if t.bone == old:
                changes[key] = dataclasses.replace(t, bone=new)
        return dataclasses.replace(self, **changes) if changes else self


@dataclass(frozen=True, kw_only=True)
class OneBoneOneTarget(Constraint):
    """A kind that drives one bone, ``bone``, from one :class:`Target`, ``target`` (its only
    part, :data:`TARGET_PART`): what such kinds share (their own fields follow these)."""

    target_fields = ("target",)
    bone: str
    target: Target

    def driven_bones(self):
        return (self.bone,)

    def own_bone_fields(self):
        return (("bone", self.bone),)


@dataclass(frozen=True, kw_only=True)
class Pivot:
    """A multi-parent pivot: a point on the body (body frame) and its quaternion ``q_i(t)``."""

    name: str
    position: Vec3 = (0.0, 0.0, 0.0)
    position_keys: Keys | None = None
    rotation: Quat = (1.0, 0.0, 0.0, 0.0)
    rotation_keys: Keys | None = None
    extra: Mapping = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class FootContacts:
    """One planted foot: its contact points and the frames each is down (contract: "Planted
    feet").

    ``heel`` and ``ball`` are in the foot's frame, ``toe`` (the toe tip) in the toes' frame
    when the foot has ``toes``, else in the foot's: frames made of the bone's world rotation
    and head (its scale divided out). ``contacts`` holds, for heel, ball and toe in that
    order, sorted disjoint ``(first, last)`` frame intervals (both included).
    """

    foot: str
    toes: str | None = None
    heel: Vec3
    ball: Vec3
    toe: Vec3
    contacts: tuple[tuple[tuple[int, int], ...], ...] = ((), (), ())
    extra: Mapping = field(default_factory=dict)

    def points(self) -> tuple[Vec3, Vec3, Vec3]:
        return (self.heel, self.ball, self.toe)


@dataclass(frozen=True, kw_only=True)
class Plant:
    """How a clip's feet were planted (Rig ▸ Plant Feet…, ``main.py plant-feet``): what the
    plant follows when a contact is edited, and what Compare shows as the original.

    ``original`` holds the bones whose keys the plant changed (the hips, the toes), as they
    were; ``frames`` is the range planted; ``floor`` the contacts' floor (scene units) and
    ``speed`` their speed threshold (metres per second for a person 1.7 m tall).
    """

    floor: float
    speed: float
    frames: tuple[int, int]
    hips: str | None = None
    feet: tuple[FootContacts, ...] = ()
    original: tuple[Bone, ...] = ()
    extra: Mapping = field(default_factory=dict)

    def foot(self, name: str) -> FootContacts:
        for f in self.feet:
            if f.foot == name:
                return f
        raise KeyError(f"no planted foot {name!r}")

    def bones(self) -> set[str]:
        """The names of every bone the record names."""
        names = {b.name for b in self.original} | {f.foot for f in self.feet}
        names |= {f.toes for f in self.feet if f.toes is not None}
        return names | ({self.hips} if self.hips is not None else set())

    def with_bone_renamed(self, old: str, new: str) -> Plant:
        """The record with every mention of bone ``old`` naming ``new`` instead."""

        def name(n):
            return new if n == old else n

        feet = tuple(
            dataclasses.replace(f, foot=name(f.foot), toes=name(f.toes)) for f in self.feet
        )
        original = tuple(
            dataclasses.replace(b, name=name(b.name), parent=name(b.parent)) for b in self.original
        )
        return dataclasses.replace(self, hips=name(self.hips), feet=feet, original=original)


def same_items(kept, items) -> bool:
    """Whether ``items`` are the very objects of ``kept``, in order: the validity rule of
    everything computed from a scene's items (they are immutable, and the editor replaces an
    item on every edit, so identity is the whole key)."""
    # map(is_) rather than a generator: asked by every solver on every evaluation.
    return len(items) == len(kept) and all(map(is_, items, kept))


class Derived:
    """What is computed from a scene's items and kept with the scene (its
    :attr:`Scene.derived`) while they stay the same objects (:func:`same_items`)."""

    def __init__(self):
        self._kept: dict = {}

    def get(self, name: str, items: tuple, build):
        """``build()`` kept under ``name``, built again when any list of ``items`` (the
        scene's item lists it reads, e.g. ``(scene.bones,)``) no longer holds the very
        objects it was built from."""
        kept = self._kept.get(name)
        if kept is None or not all(map(same_items, kept[0], items)):
            kept = self._kept[name] = (tuple(map(tuple, items)), build())
        return kept[1]


@dataclass(kw_only=True)
class Scene:
    """A skeleton, its constraints and its timeline.

    ``bones`` and ``constraints`` are lists of immutable items, in file order. The scene
    object itself is edited by replacing items, which is what the editor's undo commands do.
    """

    bones: list[Bone]
    constraints: list[Constraint] = field(default_factory=list)
    fps: float = 24.0
    frame_start: int = 0
    frame_end: int = 120
    version: int = 1
    extra: dict = field(default_factory=dict)
    #: Skinned meshes (``app.scene.rig.mesh.SkinnedMesh``) drawn deformed by the bones.
    meshes: tuple = ()
    #: How its feet were planted (:class:`Plant`), ``None`` when they were not.
    plant: Plant | None = None
    #: Notes from loading (a BVH's extra motion lines, ...); not part of the scene's value.
    messages: list = field(default_factory=list, compare=False, repr=False)
    #: What evaluating it computes once per edit (the prepared rig, the constraints' run
    #: order); not part of the scene's value, not copied.
    derived: Derived = field(default_factory=Derived, init=False, compare=False, repr=False)

    def bone_names(self) -> list[str]:
        return [b.name for b in self.bones]

    def bone_index(self, name: str) -> int:
        """Index of the bone called ``name`` (``KeyError`` naming it if there is none)."""
        for i, b in enumerate(self.bones):
            if b.name == name:
                return i
        raise KeyError(f"no bone named {name!r}")

    def bone(self, name: str) -> Bone:
        return self.bones[self.bone_index(name)]

    def constraint(self, name: str) -> Constraint:
        for c in self.constraints:
            if c.name == name:
                return c
        raise KeyError(f"no constraint named {name!r}")

    def tail_of(self, index: int) -> Vec3:
        """The bone's tail in its own frame, with the format's default filled in."""
        bone = self.bones[index]
        if bone.tail is not None:
            return bone.tail
        for child in self.bones:
            if child.parent == bone.name:
                return child.translation
        return (0.0, 0.0, 0.0)

    def copy(self) -> Scene:
        """A scene that shares the immutable items but not the lists."""
        return Scene(
            bones=list(self.bones),
            constraints=list(self.constraints),
            fps=self.fps,
            frame_start=self.frame_start,
            frame_end=self.frame_end,
            version=self.version,
            extra=dict(self.extra),
            meshes=self.meshes,
            plant=self.plant,
        )
