"""What names a thing in a scene: :class:`Ref`, finding what it names, and fresh names.

:class:`Ref` names what the user selected (a bone, a constraint, a pivot, a target) by
names, so a selection survives edits that replace items. :func:`resolve` finds the item a
ref names, :func:`owner_of` the scene list that holds it, and :func:`replace_in` puts a new
item in its owner's place. New things get names no other thing has (:func:`unique_name`,
:func:`new_constraint_name`).

One idea: the reference type every edit takes, and the names things are found by.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from app.scene.rig.model import Constraint, MultiParent, Pivot, Scene

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

    @property
    def on_constraint(self) -> bool:
        """Whether it names a constraint or one of its parts (whatever parts its kind
        declares), not a bone or a bone's point."""
        return self.kind not in (BONE, POINT)

    @property
    def is_part(self) -> bool:
        """Whether it names one of a constraint's parts (a pivot, a target, a pole, or
        whatever parts its kind declares)."""
        return self.kind not in (BONE, POINT, CONSTRAINT)

    @property
    def is_named_part(self) -> bool:
        """Whether it names a part its kind lists by name (``parts()`` gives it a name: a
        pivot), renamed and deleted like a bone, where a target or a pole is set or cleared."""
        return self.is_part and self.pivot is not None

    @property
    def is_handle(self) -> bool:
        """Whether it is a handle a press in the viewport drags: a constraint's part or a
        bone's point (a bone press orbits; a constraint itself has no handle)."""
        return self.kind not in (BONE, CONSTRAINT)

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


def owner_of(scene: Scene, ref: Ref) -> tuple[str, int]:
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


def pivot_named(constraint: MultiParent, name: str) -> Pivot:
    for p in constraint.pivots:
        if p.name == name:
            return p
    raise KeyError(f"{constraint.name!r} has no pivot named {name!r}")


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


def item_in(owner_item, ref: Ref):
    """The item ``ref`` names inside its owner (which may already be an edited copy): what
    :func:`replace_in` replaces."""
    if ref.kind in (BONE, CONSTRAINT):
        return owner_item
    if ref.kind == PIVOT:
        return pivot_named(owner_item, ref.pivot)
    return getattr(owner_item, ref.kind)


def part_refs(constraint: Constraint) -> list[Ref]:
    """The selectable, keyable parts of ``constraint`` (its pivots, target, pole)."""
    return [Ref(kind, constraint.name, pivot) for kind, pivot in constraint.parts()]


# --- names of new things ------------------------------------------------------------------


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
