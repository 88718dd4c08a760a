"""Edits of constraint settings, as pure functions from old items to new ones: limits,
the points-at ``up``, the FABRIK pole, pivot names and order.

Each checks what the file format checks (``app.scene.formats.schema``), so a value the
editor accepts is one the file can hold; a bad one raises ``ValueError`` saying why.

One idea: constraint-setting edits (limits, up, pole, pivot names and order).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.bounds import bad_name_character
from app.scene.rig.editing import pivot_named
from app.scene.rig.model import (
    ConeLimit,
    Fabrik,
    HingeLimit,
    Limit,
    MultiParent,
    PointsAt,
    Target,
    UpVector,
)


def _vec(v) -> tuple:
    return tuple(float(x) for x in np.asarray(v, dtype=float).reshape(-1))


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
    axis = _vec(axis)
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
    if "up" not in constraint.field_names():
        raise ValueError(f"{constraint.name!r} has no up vector")
    if axis is None and toward is None:
        return dataclasses.replace(constraint, up=None)
    axis, toward = _vec(axis), _vec(toward)
    for what, v in (("axis", axis), ("toward", toward)):
        if len(v) != 3 or not np.all(np.isfinite(v)) or np.linalg.norm(v) == 0:
            raise ValueError(f"the up vector's {what} needs three finite numbers, not all zero")
    extra = constraint.up.extra if constraint.up is not None else {}
    return dataclasses.replace(constraint, up=UpVector(axis=axis, toward=toward, extra=extra))


def with_pole(constraint: Fabrik, pole: Target | None) -> Fabrik:
    """A FABRIK constraint with its pole set (``None``: no pole)."""
    return constraint.with_target("pole", pole)


def with_pivot_renamed(constraint: MultiParent, old: str, new: str) -> MultiParent:
    """A multi-parent constraint whose pivot ``old`` is called ``new``.

    Raises
    ------
    KeyError
        No pivot ``old``.
    ValueError
        ``new`` is empty, padded with spaces, or another pivot's name.
    """
    pivot = pivot_named(constraint, old)
    if not new or new != new.strip():
        raise ValueError("a pivot's name must be non-empty, without leading or trailing spaces")
    if bad_name_character(new):
        raise ValueError(bad_name_character(new))
    if new != old and any(p.name == new for p in constraint.pivots):
        raise ValueError(f"{constraint.name!r} already has a pivot named {new!r}")
    renamed = dataclasses.replace(pivot, name=new)
    pivots = tuple(renamed if p.name == old else p for p in constraint.pivots)
    return dataclasses.replace(constraint, pivots=pivots)


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
    pivot = pivot_named(constraint, name)
    pivots = list(constraint.pivots)
    old = pivots.index(pivot)
    new = old + int(offset)
    if not 0 <= new < len(pivots):
        where = "first" if new < 0 else "last"
        raise ValueError(f"pivot {name} of {constraint.name} is already the {where} one")
    pivots.insert(new, pivots.pop(old))
    return dataclasses.replace(constraint, pivots=tuple(pivots))
