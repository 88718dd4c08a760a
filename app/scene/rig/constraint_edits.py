"""Edits of constraints, as pure functions from old items to new ones: their limits, their
named parts' names, and whether a new one would repeat one the scene has (a kind's own
settings and parts, a pivot, the points-at ``up``, the FABRIK pole, are edited in its
package's ``edits``).

Each checks what the file format checks (``app.scene.formats.schema``), so a value the
editor accepts is one the file can hold; a bad one raises ``ValueError`` saying why. A new
constraint of a kind is made in its package (``app.scene.constraints.<kind>.edits``); a pivot's or
a target's values at a frame are key edits (:mod:`app.scene.rig.key_edits`).

One idea: the edits every kind shares (limits, part names, repeats).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.bounds import bad_name_character
from app.scene.rig.keys import floats
from app.scene.rig.model import ConeLimit, Constraint, HingeLimit, Limit, Scene


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
