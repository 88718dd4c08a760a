"""Edits of constraints, as pure functions from old items to new ones: their settings
(limits, the points-at ``up``, the FABRIK pole), their pivots (added, removed, renamed,
reordered), and whether a new one would repeat one the scene has.

Each checks what the file format checks (``app.scene.formats.schema``), so a value the
editor accepts is one the file can hold; a bad one raises ``ValueError`` saying why. A new
constraint of a kind is made in its package (``app.scene.constraints.<kind>.edits``); a pivot's or
a target's values at a frame are key edits (:mod:`app.scene.rig.key_edits`).

One idea: constraint edits (settings, pivots, repeats).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.bounds import bad_name_character
from app.scene.rig.keys import floats
from app.scene.rig.model import (
    PIVOT_PART,
    ConeLimit,
    Constraint,
    Fabrik,
    HingeLimit,
    Limit,
    MultiParent,
    Pivot,
    PointsAt,
    Scene,
    Target,
    UpVector,
)


def cone(degrees: float, twist=None) -> ConeLimit:
    """A cone limit of ``degrees`` (in [0, 180]) with an optional twist ``(min, max)``."""
    degrees = float(degrees)
    if not 0 <= degrees <= 180:
        raise ValueError(f"a cone angle must lie in [0, 180] degrees, got {degrees:g}")
    if twist is not None:
        lo, hi = (float(v) for v in twist)
        if not lo <= hi:
            raise ValueError(f"the twist range needs min <= max, got {lo:g} > {hi:g}")
        twist = (lo, hi)
    return ConeLimit(degrees=degrees, twist=twist)


def hinge(axis, lo: float, hi: float) -> HingeLimit:
    """A hinge about ``axis`` (bone frame, any non-zero length) from ``lo`` to ``hi`` degrees."""
    axis = floats(axis)
    if len(axis) != 3 or not np.all(np.isfinite(axis)) or np.linalg.norm(axis) == 0:
        raise ValueError("the hinge axis needs three finite numbers, not all zero")
    lo, hi = float(lo), float(hi)
    if not lo <= hi:
        raise ValueError(f"a hinge needs min <= max, got {lo:g} > {hi:g}")
    return HingeLimit(axis=axis, min=lo, max=hi)


def limit_of(constraint, bone: str | None = None) -> Limit | None:
    """A points-at's ``limit``, or a FABRIK's limit on ``bone`` (``None``: none)."""
    return constraint.limit_on(bone)


def with_limit(constraint, limit: Limit | None, bone: str | None = None):
    """The constraint with its limit (a FABRIK: the limit of chain bone ``bone``) replaced;
    ``None`` removes it. Unknown keys of the old limit (``extra``) ride along when the kind
    stays the same."""
    old = limit_of(constraint, bone)
    if limit is not None and type(old) is type(limit) and old.extra:
        limit = dataclasses.replace(limit, extra=old.extra)
    return constraint.with_limit_on(bone, limit)


def with_up(constraint: PointsAt, axis=None, toward=None) -> PointsAt:
    """A points-at with ``up`` set (``axis`` in the bone's frame, ``toward`` in the world),
    or removed when both are ``None``."""
    if not constraint.has_up_vector:
        raise ValueError(f"{constraint.name!r} has no up vector")
    if axis is None and toward is None:
        return dataclasses.replace(constraint, up=None)
    axis, toward = floats(axis), floats(toward)
    for what, v in (("axis", axis), ("toward", toward)):
        if len(v) != 3 or not np.all(np.isfinite(v)) or np.linalg.norm(v) == 0:
            raise ValueError(f"the up vector's {what} needs three finite numbers, not all zero")
    extra = constraint.up.extra if constraint.up is not None else {}
    return dataclasses.replace(constraint, up=UpVector(axis=axis, toward=toward, extra=extra))


def with_pole(constraint: Fabrik, pole: Target | None) -> Fabrik:
    """A FABRIK constraint with its pole set (``None``: no pole)."""
    return constraint.with_target("pole", pole)


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
    pivot = Pivot(name=name, position=floats(position_in_body))
    return dataclasses.replace(constraint, pivots=constraint.pivots + (pivot,)), pivot


def without_pivot(constraint: MultiParent, name: str) -> MultiParent:
    """The constraint without pivot ``name``.

    Raises
    ------
    KeyError
        No pivot ``name``.
    ValueError
        If it is the last pivot (a multi-parent constraint needs at least one).
    """
    return constraint.without_part(PIVOT_PART.word, name)


def with_pivot_renamed(constraint: MultiParent, old: str, new: str) -> MultiParent:
    """A multi-parent constraint whose pivot ``old`` is called ``new``
    (:func:`with_part_renamed`)."""
    return with_part_renamed(constraint, PIVOT_PART.word, old, new)


def with_part_renamed(constraint: Constraint, word: str, old: str, new: str) -> Constraint:
    """The constraint whose named part ``old`` of type ``word`` (a pivot) is called ``new``.

    Raises
    ------
    KeyError
        No such part ``old``.
    ValueError
        ``new`` is empty, padded with spaces, has a character names may not have, or is
        another such part's name.
    """
    item = constraint.part_item(word, old)
    if not new or new != new.strip():
        raise ValueError(f"a {word}'s name must be non-empty, without leading or trailing spaces")
    if bad_name_character(new):
        raise ValueError(bad_name_character(new))
    if new != old and (word, new) in constraint.parts():
        raise ValueError(f"{constraint.name!r} already has a {word} named {new!r}")
    return constraint.with_part(word, old, dataclasses.replace(item, name=new))


def with_pivot_moved(constraint: MultiParent, name: str, offset: int) -> MultiParent:
    """A multi-parent constraint whose pivot ``name`` is ``offset`` places later in the list
    (negative: earlier). The normalized anticommutator sums the pivots' rotations in every
    order, so the order changes the file and the drawing, not the motion.

    Raises
    ------
    KeyError
        No pivot ``name``.
    ValueError
        The pivot would leave the list (the first one moved up, the last one down).
    """
    pivot = constraint.part_item(PIVOT_PART.word, name)
    pivots = list(constraint.pivots)
    old = pivots.index(pivot)
    new = old + int(offset)
    if not 0 <= new < len(pivots):
        where = "first" if new < 0 else "last"
        raise ValueError(f"pivot {name} of {constraint.name} is already the {where} one")
    pivots.insert(new, pivots.pop(old))
    return dataclasses.replace(constraint, pivots=tuple(pivots))


# --- a constraint the scene has already ---------------------------------------------------


def alike_on_same_bones(scene: Scene, constraint: Constraint) -> bool:
    """Whether ``scene`` has a constraint of ``constraint``'s kind driving the same bones."""
    return any(
        type(c) is type(constraint) and c.driven_bones() == constraint.driven_bones()
        for c in scene.constraints
    )


def identical_in(scene: Scene, constraint: Constraint) -> Constraint | None:
    """The constraint of ``scene`` that is ``constraint`` but for its name (the same kind,
    bones, targets and settings: a second one would do the same again), or ``None``."""
    for c in scene.constraints:
        if (
            type(c) is type(constraint)
            and dataclasses.replace(c, name=constraint.name) == constraint
        ):
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
    return (
        f"{same.name} is already a {constraint.label} on {bones}{following}, the same "
        "in every setting: a second one would change nothing"
    )
