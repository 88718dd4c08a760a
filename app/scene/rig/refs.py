"""What names a thing in a scene: :class:`Ref`, finding what it names, and fresh names.

:class:`Ref` names what the user selected (a bone, a constraint, a pivot, a target) by
names, so a selection survives edits that replace items. :func:`resolve` finds the item a
ref names, :func:`owner_of` the scene list that holds it, and :func:`replace_in` puts a new
item in its owner's place. New things get names no other thing has (:func:`unique_name`,
:func:`new_constraint_name`).

One idea: the reference type every edit takes, and the names things are found by.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.scene.rig.model import PARTS, TARGET_PART, Constraint, PartType, Scene

BONE, CONSTRAINT = "bone", "constraint"
#: A viewport handle on a bone's head that moves the bone (a tutorial's point); selecting it
#: selects the bone, so it is never part of a selection itself.
POINT = "point"


@dataclass(frozen=True)
class Ref:
    """A selectable thing, by name.

    Attributes
    ----------
    kind : str
        ``"bone"``, ``"constraint"``, ``"point"`` (a bone's head handle) or the ``word`` of
        a constraint's :class:`~app.scene.rig.model.PartType` (``"pivot"``, ``"target"``...):
        what a part is and does is asked of its type (``ref.part``), never of its word.
    name : str
        The bone's name, or the constraint's name for the other kinds.
    part_name : str, optional
        The part's name, for a part whose type is ``named`` (a pivot).
    """

    kind: str
    name: str
    part_name: str | None = None

    @classmethod
    def bone(cls, name: str) -> Ref:
        return cls(BONE, name)

    @classmethod
    def constraint(cls, name: str) -> Ref:
        return cls(CONSTRAINT, name)

    # The shipped kinds' parts by their words (``PIVOT_PART``, ``TARGET_PART``, ``POLE_PART``),
    # for code that builds a selection of them; what a part is and does is asked of
    # ``ref.part``, never of its word.

    @classmethod
    def pivot_of(cls, constraint: str, pivot: str) -> Ref:
        return cls("pivot", constraint, pivot)

    @classmethod
    def target_of(cls, constraint: str) -> Ref:
        return cls(TARGET_PART.word, constraint)

    @classmethod
    def pole_of(cls, constraint: str) -> Ref:
        return cls("pole", constraint)

    @property
    def part(self) -> PartType | None:
        """The type of the constraint part it names (what the part is and does), or
        ``None`` for a bone, a constraint or a bone's point."""
        return PARTS.get(self.kind)

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
        return self.is_part and self.part_name is not None

    @property
    def is_handle(self) -> bool:
        """Whether it is a handle a press in the viewport drags: a constraint's part or a
        bone's point (a bone press orbits; a constraint itself has no handle)."""
        return self.kind not in (BONE, CONSTRAINT)

    @property
    def turns(self) -> bool:
        """Whether R turns it: a bone, or a part whose type has a rotation of its own."""
        part = self.part
        return self.kind == BONE or (part is not None and part.turns)

    @property
    def renamable(self) -> bool:
        """Whether its name is edited in place (outliner, F2): a bone's, a named part's."""
        return self.kind == BONE or self.is_named_part

    def label(self) -> str:
        """Words for menus and undo texts: ``pivot heel``, ``target of aim``."""
        if self.is_named_part:
            return f"{self.kind} {self.part_name}"
        if self.is_part:
            return f"{self.kind} of {self.name}"
        return f"{self.kind} {self.name}"

    def handle_text(self) -> str:
        """Its label beside its viewport handle: a named part's name (``heel``), else
        ``target · aim``."""
        return self.part_name if self.is_named_part else f"{self.kind} · {self.name}"


def exists(scene: Scene, ref: Ref) -> bool:
    """Whether ``ref`` names something in ``scene``."""
    try:
        resolve(scene, ref)
    except KeyError:
        return False
    return True


def resolve(scene: Scene, ref: Ref):
    """The item ``ref`` names (a Bone, Constraint, or a part: a Pivot, a Target...);
    ``KeyError`` if none."""
    if ref.kind == BONE:
        return scene.bone(ref.name)
    constraint = scene.constraint(ref.name)
    if ref.kind == CONSTRAINT:
        return constraint
    if ref.part is None:
        raise KeyError(f"unknown kind {ref.kind!r}")
    return constraint.part_item(ref.kind, ref.part_name)


def follows_a_bone(scene: Scene, ref: Ref) -> bool:
    """Whether ``ref`` names a target that follows a bone's head or tail: it has no position
    of its own to move or key (move or key the bone)."""
    if ref.part is None or ref.part.on_body:
        return False
    try:
        return resolve(scene, ref).bone is not None
    except KeyError:  # gone (an undone edit): it follows nothing
        return False


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


def replace_in(owner_item, ref: Ref, new_item):
    """``owner_item`` (the bone or constraint that holds ``ref``) with ``new_item`` in place.

    For a bone or a constraint ref the owner is the item itself and ``new_item`` replaces
    it; for a part (a pivot, a target), the constraint gets the new part.
    """
    if not ref.is_part:
        return new_item
    return owner_item.with_part(ref.kind, ref.part_name, new_item)


def item_in(owner_item, ref: Ref):
    """The item ``ref`` names inside its owner (which may already be an edited copy): what
    :func:`replace_in` replaces."""
    if not ref.is_part:
        return owner_item
    return owner_item.part_item(ref.kind, ref.part_name)


def part_refs(constraint: Constraint) -> list[Ref]:
    """The selectable, keyable parts of ``constraint`` (its pivots, target, pole)."""
    return [Ref(kind, constraint.name, name) for kind, name in constraint.parts()]


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
