"""The scene: bones, targets, limits and constraints, as plain immutable data.

A scene is what ``docs/scene-format.md`` describes. Its items are frozen dataclasses whose
static values are tuples and whose animation is :class:`~app.scene.rig.keys.Keys`, so an edit
replaces an item (``dataclasses.replace``) and an undo command only keeps the old and the
new item. Unknown JSON keys ride along in ``extra`` and are written back on save.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

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


@dataclass(frozen=True, kw_only=True)
class Constraint:
    """Fields every constraint has. ``space`` is ``"world"`` or ``"object"``."""

    name: str
    space: str = "object"
    extra: Mapping = field(default_factory=dict)

    type = "constraint"  # overridden by each subclass (a class attribute, not a field)

    def driven_bones(self) -> tuple[str, ...]:
        """Names of the bones whose world transforms this constraint writes."""
        raise NotImplementedError

    def referenced_bones(self) -> tuple[str, ...]:
        """Names of every bone the constraint reads or writes."""
        raise NotImplementedError

    def target_bones(self) -> tuple[str, ...]:
        """Names of the bones whose world transforms it reads as targets or poles.

        Together with the parents of :meth:`driven_bones` these are what it depends on
        (contract §F1).
        """
        return tuple(b for b in self.referenced_bones() if b not in self.driven_bones())


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
class MultiParent(Constraint):
    """A body rotating about several pivots at once (the multi-parent seed)."""

    type = "multi_parent"
    body: str
    pivots: tuple[Pivot, ...]
    substeps: int = 4
    integrator: str = "seed"
    #: ``"world"``: the state is the body's world head and rotation; ``"parent"``: it is
    #: integrated in the parent's frame, so the parent's later motion carries the body (§F3).
    relative_to: str = "world"

    def driven_bones(self):
        return (self.body,)

    def referenced_bones(self):
        return (self.body,)

    def target_bones(self):
        return ()


@dataclass(frozen=True, kw_only=True)
class UpVector:
    """Fixes a points-at's roll: the bone's ``axis`` (its own frame) turns ``toward`` (world)."""

    axis: Vec3
    toward: Vec3
    extra: Mapping = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class PointsAt(Constraint):
    """Turn a bone so its tail points at a target."""

    type = "points_at"
    bone: str
    target: Target
    limit: Limit | None = None
    up: UpVector | None = None

    def driven_bones(self):
        return (self.bone,)

    def referenced_bones(self):
        return (self.bone,) + ((self.target.bone,) if self.target.bone else ())


@dataclass(frozen=True, kw_only=True)
class Fabrik(Constraint):
    """FABRIK inverse kinematics on a chain of bones, root to tip."""

    type = "fabrik"
    chain: tuple[str, ...]
    target: Target
    tolerance: float = 1e-4
    max_iterations: int = 20
    limits: Mapping[str, Limit] = field(default_factory=dict)
    #: Sets the plane the chain bends in (root, target and pole), on the pole's side.
    pole: Target | None = None

    def driven_bones(self):
        return tuple(self.chain)

    def referenced_bones(self):
        targets = (self.target, self.pole) if self.pole is not None else (self.target,)
        return tuple(self.chain) + tuple(t.bone for t in targets if t.bone)

    def target_bones(self):
        targets = (self.target, self.pole) if self.pole is not None else (self.target,)
        return tuple(t.bone for t in targets if t.bone)


#: ``offset`` values of the copy kinds (contract §F2).
OFFSETS = ("frame_start", "none")
#: ``relative_to`` values of a multi-parent (contract §F3).
RELATIVE_TO = ("world", "parent")


@dataclass(frozen=True, kw_only=True)
class _BoneFollows(Constraint):
    """A bone that follows one target bone (the kinds of contract §F2).

    ``offset="frame_start"`` keeps the relation between bone and target at ``frame_start``
    (both as the constraints this one depends on leave them there); ``"none"`` takes the
    target's value as it is.
    """

    bone: str
    target: Target
    offset: str = "frame_start"

    def driven_bones(self):
        return (self.bone,)

    def referenced_bones(self):
        return (self.bone,) + ((self.target.bone,) if self.target.bone else ())

    def target_bones(self):
        return (self.target.bone,) if self.target.bone else ()


@dataclass(frozen=True, kw_only=True)
class ChildOf(_BoneFollows):
    """The bone moves as if it were the target bone's child (``space`` changes nothing)."""

    type = "child_of"


@dataclass(frozen=True, kw_only=True)
class CopyRotation(_BoneFollows):
    """The bone's head stays where the hierarchy puts it; its rotation follows the target's."""

    type = "copy_rotation"


@dataclass(frozen=True, kw_only=True)
class CopyLocation(_BoneFollows):
    """The bone's head goes to the target point; its rotation and scale are kept."""

    type = "copy_location"


CONSTRAINT_TYPES: dict[str, type[Constraint]] = {
    cls.type: cls for cls in (MultiParent, PointsAt, Fabrik, ChildOf, CopyRotation, CopyLocation)
}


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
    #: Notes from loading (a BVH's extra motion lines, ...); not part of the scene's value.
    messages: list = field(default_factory=list, compare=False, repr=False)

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
        )
