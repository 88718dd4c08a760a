"""Operations on the kinds that make a bone follow another (``child_of``, ``copy_rotation``,
``copy_location``; contract §F2): add one, aim it at another bone, choose its offset.

Each pushes one undo command; a refusal raises
:class:`~app.editor.operations.base.OperationError` with the reason in the user's words.
"""

from __future__ import annotations

from dataclasses import replace as replaced

from app.editor.operations.base import OperationError, replace
from app.editor.operations.constraint_operations import add_constraint, constraint_named
from app.scene.constraints.follows import edits as follows_edits
from app.scene.constraints.follows.model import OFFSETS
from app.scene.rig.refs import Ref

#: Words for each ``offset`` (the inspector's choices and the undo names).
OFFSET_WORDS = {
    "frame_start": "keep the frame-start offset",
    "none": "no offset (snap to the target)",
}


def _follow(document, name: str):
    constraint = constraint_named(document, name)
    if not constraint.follows_a_bone:
        raise OperationError(f"{name} does not follow a bone")
    return constraint


def add_follow(document, cls, bones=None) -> Ref:
    """A ``cls`` constraint (``ChildOf``, ``CopyRotation`` or ``CopyLocation``, from
    :mod:`app.scene.constraints.follows.model`) on the active bone, following the other
    selected bone (Blender's convention: select the target, then the bone); keeps the
    frame-start offset, so adding it moves nothing at frame_start. Selects it."""
    bones = list(bones) if bones is not None else document.selected_bones()
    if not bones:
        raise OperationError("Select the target bone, then the bone that follows it")
    bone = bones[-1]
    others = [b for b in bones[:-1] if b != bone]
    if not others:
        raise OperationError(f"Select a target bone too: {bone} follows another bone")
    scene = document.scene
    scene.bone(bone)
    new = follows_edits.new_follow(scene, cls, bone, others[-1])
    return add_constraint(document, new, f"Add {new.name} following {others[-1]}")


def set_follow_target(document, name: str, bone: str | None = None, at: str | None = None):
    """Aim ``name`` at another bone (``bone``) or at its head or tail (``at``)."""
    constraint = _follow(document, name)
    target = constraint.target
    bone = target.bone if bone is None else bone
    at = target.at if at is None else at
    if bone not in document.scene.bone_names():
        raise OperationError(f"There is no bone named {bone}")
    if bone == constraint.bone:
        raise OperationError(f"{constraint.bone} cannot follow itself; choose another bone")
    if at not in ("head", "tail"):
        raise OperationError(f'A target is a bone\'s "head" or "tail", not {at!r}')
    new = constraint.with_target("target", replaced(target, bone=bone, at=at))
    # child of and copy rotation follow the whole bone: "bone neck head" is a word too many
    words = f"bone {bone} {at}" if constraint.follows_point else f"bone {bone}"
    replace(document, Ref.constraint(name), new, f"Set target of {name} to {words}")


def set_offset(document, name: str, offset: str) -> None:
    """``"frame_start"``: keep the relation at frame_start; ``"none"``: take the target's."""
    constraint = _follow(document, name)
    if offset not in OFFSETS:
        raise OperationError(f"An offset is one of: {', '.join(OFFSET_WORDS.values())}")
    replace(
        document,
        Ref.constraint(name),
        replaced(constraint, offset=offset),
        f"Set {name} to {OFFSET_WORDS[offset]}",
    )
