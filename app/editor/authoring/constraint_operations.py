"""Constraint-setting operations the inspector and the viewport call: limits, up, pole,
pivot names and order. Each pushes one undo command; spin-box edits of the same setting merge.
"""

from __future__ import annotations

import dataclasses

from app.editor.operations import OperationError, replace
from app.scene.rig import constraint_edits
from app.scene.rig.model import RELATIVE_TO
from app.scene.rig.refs import Ref


def _edit(document, name: str, fn, *args):
    try:
        constraint = document.scene.constraint(name)
    except KeyError:
        raise OperationError(f"There is no constraint named {name}") from None
    try:
        return fn(constraint, *args)
    except (KeyError, ValueError) as e:
        raise OperationError(str(e).strip("'\"")) from None


def _limit_words(limit) -> str:
    if limit is None:
        return "none"
    if hasattr(limit, "degrees"):
        twist = f", twist {limit.twist[0]:g}..{limit.twist[1]:g}°" if limit.twist else ""
        return f"cone {limit.degrees:g}°{twist}"
    return f"hinge {limit.min:g}..{limit.max:g}°"


def set_limit(document, name: str, limit, bone: str | None = None, merge: bool = True) -> None:
    """A points-at's limit, or a FABRIK's limit on chain bone ``bone`` (``None`` removes)."""
    new = _edit(document, name, constraint_edits.with_limit, limit, bone)
    on = f" on {bone}" if bone else ""
    kind = type(limit).__name__ if limit is not None else None
    replace(document, Ref.constraint(name), new,
            f"Set limit of {name}{on} to {_limit_words(limit)}",
            merge_key=(Ref.constraint(name), "limit", bone, kind) if merge else None)  # fmt: skip


def set_up(document, name: str, axis=None, toward=None) -> None:
    """A points-at's up vector (``None``, ``None`` removes it)."""
    new = _edit(document, name, constraint_edits.with_up, axis, toward)
    words = "none" if new.up is None else "an axis toward a direction"
    replace(document, Ref.constraint(name), new, f"Set up of {name} to {words}",
            merge_key=(Ref.constraint(name), "up", new.up is None))  # fmt: skip


def set_pole(document, name: str, pole) -> None:
    """A FABRIK pole (a :class:`~app.scene.rig.model.Target`, or ``None``)."""
    new = _edit(document, name, constraint_edits.with_pole, pole)
    if pole is None:
        words = "none"
    elif pole.bone is not None:
        words = f"bone {pole.bone} {pole.at}"
    else:
        words = "a position"
    replace(document, Ref.constraint(name), new, f"Set pole of {name} to {words}")


def rename_pivot(document, name: str, old: str, new: str) -> None:
    """Rename a pivot of a multi-parent constraint (the selection follows)."""
    new = new.strip()
    if new == old:
        return
    constraint = _edit(document, name, constraint_edits.with_pivot_renamed, old, new)
    selection = [Ref.pivot_of(name, new) if r == Ref.pivot_of(name, old) else r
                 for r in document.selection]  # fmt: skip
    replace(document, Ref.constraint(name), constraint, f"Rename pivot {old} of {name} to {new}")
    document.set_selection(selection)


def move_pivot(document, name: str, pivot: str, offset: int) -> None:
    """Move pivot ``pivot`` of multi-parent constraint ``name`` ``offset`` places later in its
    list (negative: earlier), as one undo command; the selection stays on it."""
    constraint = _edit(document, name, constraint_edits.with_pivot_moved, pivot, offset)
    where = "down" if offset > 0 else "up"
    replace(document, Ref.constraint(name), constraint, f"Move pivot {pivot} of {name} {where}")


def set_relative_to(document, name: str, relative_to: str) -> None:
    """What a multi-parent's state is taken relative to: ``"world"`` or ``"parent"``
    (contract §F3), as one undo command per change."""
    constraint = _edit(document, name, lambda c: c)
    if not hasattr(constraint, "relative_to"):
        raise OperationError(f"{name} is not a multi-parent constraint")
    if relative_to not in RELATIVE_TO:
        raise OperationError(f"A multi-parent is relative to the world or to its parent, "
                             f"not {relative_to!r}")  # fmt: skip
    if constraint.relative_to == relative_to:
        return
    words = "its parent" if relative_to == "parent" else "the world"
    replace(document, Ref.constraint(name),
            dataclasses.replace(constraint, relative_to=relative_to),
            f"Make {name} relative to {words}")  # fmt: skip
