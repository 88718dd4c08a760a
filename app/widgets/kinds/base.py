"""What the view registry holds per constraint kind (:class:`ConstraintView`), and the menu
helper its add-menu entries use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.editor import operations
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
    """

    cls: type
    section: Callable | None = None
    limits: Callable | None = None
    add_on_bone: Callable | None = None
    on_constraint: Callable | None = None
    target_ends: bool = True

    @property
    def words(self) -> str:
        """Words for people: the model's ``label`` (``"points-at"``)."""
        return self.cls.label


def target_words(view: ConstraintView, target) -> str:
    """Where a target aims, for people: ``"→ foot_ctrl.L tail"``, ``"→ foot_ctrl.L"`` for
    a kind that follows the whole bone, ``"(position)"`` for a point in space."""
    if target.bone is None:
        return "(position)"
    return f"→ {target.bone} {target.at}" if view.target_ends else f"→ {target.bone}"


def act(menu, text, fn, *args, enabled=True):
    """A menu entry running ``fn(*args)`` (``args[0]`` is the document, told of errors)."""
    document = args[0]

    def run():
        try:
            fn(*args)
        except operations.OperationError as e:
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
        lambda d, n: operations.set_target(d, n, operations.target_here(d, n)),
        document,
        constraint.name,
    )
    target_menu.addSeparator()
    for b in document.scene.bones:
        for at in ("head", "tail"):
            act(target_menu, f"To {b.name} {at}", operations.set_target, document,
                constraint.name, Target(bone=b.name, at=at))  # fmt: skip
