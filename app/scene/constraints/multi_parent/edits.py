"""A multi-parent's edits: a new one as the editor adds it (named as Blender names it:
:func:`app.scene.rig.refs.new_constraint_name`; not added: the editor refuses one the scene
has already and pushes one undo command), and its pivots added, removed, renamed and
reordered, as pure functions that raise ``ValueError`` saying why."""

from __future__ import annotations

import dataclasses

from app.scene.constraints.multi_parent.model import PIVOT_PART, MultiParent
from app.scene.rig.constraint_edits import with_part_renamed
from app.scene.rig.keys import floats
from app.scene.rig.model import Pivot, Scene
from app.scene.rig.refs import new_constraint_name


def new_multi_parent(scene: Scene, body: str, pivot_in_body=(0.0, 0.0, 0.0)) -> MultiParent:
    """A multi-parent constraint on ``body`` with one pivot (at its head by default).

    New constraints use the exact integrator (the equations' limit, no substeps to tune);
    files keep what they say, and one that says nothing keeps ``"seed"``.
    """
    scene.bone(body)
    return MultiParent(
        name=new_constraint_name(scene, MultiParent, body),
        body=body,
        pivots=(Pivot(name=numbered_pivot_name(()), position=floats(pivot_in_body)),),
        integrator="exact",
    )


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
