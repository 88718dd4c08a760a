"""What the view registry holds per constraint kind (:class:`ConstraintView`), and the menu
helper its add-menu entries use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from app.editor.operations import constraint_operations
from app.editor.operations.base import OperationError
from app.scene.rig.model import Target


@dataclass(frozen=True)
class ConstraintView:
    """How the editor shows and adds one constraint kind.

    Every part is optional: a kind with none is still listed in the outliner (with its
    model's ``label``), inspected (space, targets), drawn (its target and pivot handles
    and their guide lines, from the model's ``parts()``) and renamed with its bones.

    Attributes
    ----------
    cls : type
        The model class.
    section : callable ``(form, constraint)``, optional
        Its rows in the inspector's "Evaluation" group; ``form`` is the inspector's
        :class:`~app.widgets.panels.constraint_section.KindForm`.
    limits : callable ``(inspector, name)``, optional
        Its limit groups in the inspector (below "Evaluation").
    add_on_bone : callable ``(menu, document, bone, bones)``, optional
        Its entries in a bone's Add menu (``bones``: the selected ones).
    on_constraint : callable ``(menu, document, constraint, ref)``, optional
        Its entries when it (or one of its parts, ``ref``) is the menu's subject.
    target_ends : bool
        Whether its targets are a bone's head or tail (the outliner says which); ``False``
        for a kind that follows the target bone as a whole (child of, copy rotation).
    target_position : bool
        Whether a target may be a position in space; ``False`` for a kind that follows
        another bone (not one of its own).
    show_trace : callable ``(panel, model)``, optional
        Its step-through in the step panel (``panel.rows``, ``stages``, ``pivots``,
        ``position``, ``description``) for ``model.trace`` at ``model.index``; a kind
        registered in ``TRACES`` has one.
    report : callable ``(info) -> str``, optional
        What its solver reports about the shown frame, in sentences for the inspector
        (``info``: the solver's own dict for the constraint, one entry per evaluated frame).
    shapes : callable ``(document, constraint) -> [(points (N, 3), rgba), ...]``, optional
        Closed world polylines the viewport draws for it at the current frame (a limit
        distance's sphere), thin like the guide lines.
    draw_trace : callable ``(layer, trace, index, scale) -> labels``, optional
        Its step-through in the viewport: sets the step-through layer's ``step_lines`` and
        ``step_points`` (and ``arrow_scale``, ``step_joints``) for stage ``index`` of
        ``trace`` and returns the labels to show; a kind registered in ``TRACES`` has one.
    part_hint : callable ``(ref) -> str or None``, optional
        The status bar's hint for one of its parts (``None``: the plain one of
        :meth:`hint_for`), for a part moved otherwise than a target (a pivot).
    """

    cls: type
    section: Callable | None = None
    limits: Callable | None = None
    add_on_bone: Callable | None = None
    on_constraint: Callable | None = None
    target_ends: bool = True
    target_position: bool = True
    report: Callable | None = None
    show_trace: Callable | None = None
    shapes: Callable | None = None
    draw_trace: Callable | None = None
    part_hint: Callable | None = None

    @property
    def words(self) -> str:
        """Words for people: the model's ``label`` (``"points-at"``)."""
        return self.cls.label

    def hint_for(self, ref) -> str:
        """The status bar's hint when part ``ref`` of one of its constraints is active: its
        own (``part_hint``), else what any target-like handle does."""
        own = self.part_hint(ref) if self.part_hint is not None else None
        if own is not None:
            return own
        return f"Drag: move the {ref.kind} · Shift: on the ground · K key · Shift+K delete key"


def vector_text(v, digits: int = 4) -> str:
    """A vector as ``(+x, +y, +z)``."""
    return "(" + ", ".join(f"{x:+.{digits}f}" for x in np.asarray(v, float)) + ")"


def column_text(v, digits: int) -> str:
    """A vector as a column of numbers (x, y, z on three lines): narrow table cells."""
    return "\n".join(f"{x:+.{digits}f}" for x in np.asarray(v, float))


def first(value):
    """The value at the shown frame (the solvers report one entry per evaluated frame)."""
    a = np.asarray(value).reshape(-1)
    return a[0].item() if a.size else None


def target_words(view: ConstraintView, target) -> str:
    """Where a target aims, for people: ``"→ foot_ctrl.L tail"``, ``"→ foot_ctrl.L"`` for
    a kind that follows the whole bone, ``"(position)"`` for a point in space."""
    if target.bone is None:
        return "(position)"
    return f"→ {target.bone} {target.at}" if view.target_ends else f"→ {target.bone}"


def target_choices(view: ConstraintView, constraint, bones) -> list[tuple[str, object]]:
    """``(words, data)`` of what ``constraint``'s target may aim at, for a combo box: "a
    position" (data ``None``) where the kind allows it, then each bone's head and tail, or
    each bone alone (data ``(bone, "head")``) for a kind that follows the whole bone."""
    items: list[tuple[str, object]] = [("a position", None)] if view.target_position else []
    own = () if view.target_position else constraint.driven_bones()
    for b in bones:
        if b in own:
            continue
        if view.target_ends:
            items += [(f"bone {b} head", (b, "head")), (f"bone {b} tail", (b, "tail"))]
        else:
            items.append((f"bone {b}", (b, "head")))
    return items


def choice_index(combo, view: ConstraintView | None, target) -> int:
    """The row of ``combo`` (filled from :func:`target_choices`, or with ``"none"``) showing
    ``target`` (a :class:`Target`, ``None`` or ``"none"``); -1 when none does. Compared in
    Python: ``findData`` does not match a tuple."""
    for i in range(combo.count()):
        data = combo.itemData(i)
        if isinstance(target, Target) and isinstance(data, (tuple, list)):
            any_end = view is not None and not view.target_ends  # the bone alone counts
            same_end = any_end or data[1] == target.at
            if data[0] == target.bone and same_end:
                return i
        elif data is None and isinstance(target, Target) and target.bone is None:
            return i
        elif data == target and not isinstance(target, Target):
            return i
    return -1


def act(menu, text, fn, *args, enabled=True):
    """A menu entry running ``fn(*args)`` (``args[0]`` is the document, told of errors)."""
    document = args[0]

    def run():
        try:
            fn(*args)
        except OperationError as e:
            document.notify(str(e))

    action = menu.addAction(text)
    action.triggered.connect(run)
    action.setEnabled(enabled)
    return action


def set_target_menu(menu, document, constraint) -> None:
    """The "Set Target of …" menu: a position where it is now, or any bone's head or tail."""
    target_menu = menu.addMenu(f"Set Target of {constraint.name}")
    act(
        target_menu,
        "To a Position (where it is now)",
        lambda d, n: constraint_operations.set_target(
            d, n, constraint_operations.target_here(d, n)
        ),
        document,
        constraint.name,
    )
    target_menu.addSeparator()
    for b in document.scene.bones:
        for at in ("head", "tail"):
            act(
                target_menu,
                f"To {b.name} {at}",
                constraint_operations.set_target,
                document,
                constraint.name,
                Target(bone=b.name, at=at),
            )
