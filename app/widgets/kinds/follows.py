"""The kinds that make a bone follow another in the editor (``child_of``, ``copy_rotation``,
``copy_location``; contract §F2): their inspector rows and menu entries.

The viewport draws their target (a bone's head or tail) as a handle with a guide line from
the bone, as it does for every kind's targets (:meth:`Constraint.parts`).
"""

from __future__ import annotations

from app.editor.operations.follow_operations import (
    OFFSET_WORDS,
    add_follow,
    set_follow_target,
    set_offset,
)
from app.scene.constraints.follows.edits import new_follow
from app.scene.constraints.follows.model import ChildOf, CopyLocation, CopyRotation
from app.scene.rig.constraint_edits import identical_in
from app.widgets.kinds.base import ConstraintView, act

#: What each kind keeps of the bone, for the inspector's note.
_WHAT = {
    ChildOf: "The bone moves as if it were the target's child, in either space.",
    CopyRotation: "The bone turns as the target turns; its head and scale stay its own.",
    CopyLocation: "The bone's head goes to the target point; its rotation and scale stay.",
}


def section(form, c) -> None:
    doc, name = form.document, c.name

    def constraint():
        return doc.scene.constraint(name)

    form.label_row("Bone", c.bone)
    form.choice_field(
        "Target bone",
        "followTarget",
        lambda: [(b, b) for b in doc.scene.bone_names() if b != constraint().bone],
        lambda: constraint().target.bone,
        lambda bone: set_follow_target(doc, name, bone=bone),
        "The bone it follows",
    )
    if isinstance(c, CopyLocation):
        form.choice_field(
            "Target point",
            "followAt",
            lambda: [("head", "head"), ("tail", "tail")],
            lambda: constraint().target.at,
            lambda at: set_follow_target(doc, name, at=at),
            "Which end of the target bone the head goes to",
        )
    form.choice_field(
        "Offset",
        "followOffset",
        lambda: [(w, v) for v, w in OFFSET_WORDS.items()],
        lambda: constraint().offset,
        lambda offset: set_offset(doc, name, offset),
        "Keep how bone and target stand at the first frame (frame start), or take the "
        "target's value as it is",
    )
    form.label_row("", _WHAT[type(c)])


def _add_on_bone(cls):
    def add_on_bone(menu, document, bone: str, bones) -> None:
        others = [b for b in bones if b != bone]
        # greyed, it says how to get there: the target first, then the bone (Blender's way)
        words = (
            f" following {others[-1]}" if others else f" (select the target bone, then also {bone})"
        )
        same = (
            identical_in(document.scene, new_follow(document.scene, cls, bone, others[-1]))
            if others
            else None
        )
        if same is not None:  # greyed, it says why: a second one would change nothing
            words += f" ({same.name} does this already)"
        act(
            menu,
            f"Add {cls.label.title()} Constraint on {bone}{words}",
            add_follow,
            document,
            cls,
            bones or [bone],
            enabled=bool(others) and same is None,
        )

    return add_on_bone


def on_constraint(menu, document, c, ref) -> None:
    """The "Set Target of …" menu: any other bone (its head or tail for copy-location)."""
    target_menu = menu.addMenu(f"Set Target of {c.name}")
    ends = ("head", "tail") if isinstance(c, CopyLocation) else (None,)
    for b in document.scene.bones:
        if b.name == c.bone:
            continue
        for at in ends:
            act(
                target_menu,
                f"To {b.name}" + (f" {at}" if at else ""),
                set_follow_target,
                document,
                c.name,
                b.name,
                at,
            )


def _view(cls, **options) -> ConstraintView:
    """A follow kind's view: a bone it follows has no position of its own to set."""
    return ConstraintView(
        cls,
        section=section,
        add_on_bone=_add_on_bone(cls),
        on_constraint=on_constraint,
        target_position=False,
        **options,
    )


# child of and copy rotation follow the target bone as a whole: its head or tail means nothing
CHILD_OF = _view(ChildOf, target_ends=False)
COPY_ROTATION = _view(CopyRotation, target_ends=False)
COPY_LOCATION = _view(CopyLocation)
