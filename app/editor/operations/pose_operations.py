"""Pose operations: copy (Ctrl+C), paste (Ctrl+V), paste flipped (Ctrl+Shift+V), clear
rotation (Alt+R, bones and pivots) and location (Alt+G) on the selected bones at the current
frame. A key that cannot act on what is selected says what it does and to what.

A paste or a clear is one undo step over every bone it changes. The copied pose travels
as JSON text on the clipboard (``{"format": "pivotal-pose", "bones": {...}}``), so it
pastes into another window too.
"""

from __future__ import annotations

import json

from app.editor.commands import ReplaceItem
from app.editor.operations.base import OperationError
from app.scene.rig import key_edits, poses
from app.scene.rig.refs import owner_of, replace_in, resolve

FORMAT = "pivotal-pose"


def _f(frame: float) -> str:
    return f"{frame:g}"


def _bones(document, does: str, but: str = "is not a bone") -> list[str]:
    """The selected bones. Without any, the refusal says what the key ``does`` and what is
    selected instead ("Ctrl+C copies the pose of the selected bones; pivot ball is not a
    bone"); ``but`` says why the selection is not what the key acts on."""
    names = document.selected_bones()
    if names:
        return names
    refs = document.selection
    if not refs:
        raise OperationError(f"{does}: select some first")
    picked = refs[-1].label() + (f" (and {len(refs) - 1} more)" if len(refs) > 1 else "")
    raise OperationError(f"{does}; {picked} {but}")


def copy_pose(document) -> str:
    """The selected bones' pose at the current frame, as clipboard text."""
    names = _bones(document, "Ctrl+C copies the pose of the selected bones")
    pose = poses.copy_pose(document.scene, names, document.frame)
    document.notify(f"Copied the pose of {', '.join(names)}")
    return json.dumps({"format": FORMAT, "bones": pose})


def pose_from_text(text: str) -> dict:
    """The pose in clipboard ``text`` (raises OperationError when it holds none)."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise OperationError("The clipboard holds no pose; copy one with Ctrl+C first")
    return data["bones"]


def _push_bones(document, bones: dict, text: str) -> None:
    if not bones:
        raise OperationError("Nothing changes: the pose is already there")
    scene = document.scene
    stack = document.undo_stack
    stack.beginMacro(text)
    try:
        for name, new in bones.items():
            i = scene.bone_index(name)
            document.push(ReplaceItem(document, "bones", i, scene.bones[i], new, text))
    finally:
        stack.endMacro()
    document.notify(f"{text} (Ctrl+Z undoes)")


def paste_pose(document, text: str, flipped: bool = False) -> list[str]:
    """Paste the clipboard's pose at the current frame: onto the bones of the same name
    (only the selected ones when a pasted bone is selected, as Blender does), or flipped
    onto the other side's bones. Returns the names posed."""
    pose = pose_from_text(text)
    selected = set(document.selected_bones())
    if not flipped and selected & set(pose):
        pose = {k: v for k, v in pose.items() if k in selected}
    bones = poses.pasted(document.scene, pose, document.frame, flipped)
    what = "Paste flipped pose" if flipped else "Paste pose"
    _push_bones(
        document, bones, f"{what} on {', '.join(bones) or 'nothing'} at frame {_f(document.frame)}"
    )
    return list(bones)


def clear(document, rotation: bool = True) -> None:
    """Alt+R (``rotation=True``) / Alt+G: the selected bones back to their rest rotation or
    location at the current frame (keyed where animated); Alt+R turns the selected pivots
    back to no rotation too (a pivot's rotation is always keyed). A pivot or a target has
    no rest location: Alt+G on one says so."""
    frame = document.frame
    scene = document.scene
    pivots = [r for r in document.selection if r.part and r.part.turns] if rotation else []
    if pivots:
        names = document.selected_bones()
    elif rotation:
        names = _bones(
            document,
            "Alt+R turns the selected bones and pivots back to their rest rotation",
            "is neither (select its pivots or bones)",
        )
    else:
        active = document.active
        but = "is not a bone"
        if active is not None and active.part is not None:
            where = "where it sits" if active.part.on_body else "its position"
            but = f"has no rest location (drag it, or type {where} in the inspector)"
        names = _bones(document, "Alt+G puts the selected bones back at their rest location", but)
    changed: dict = {}  # (collection, index) -> the new item, in order
    cleared = []
    for name in names:
        i = scene.bone_index(name)
        bone = scene.bones[i]
        new = poses.cleared(bone, frame, rotation)
        if new is not bone and new != bone:
            changed[("bones", i)] = new
            cleared.append(name)
    for ref in pivots:
        pivot = resolve(scene, ref)
        if abs(abs(float(key_edits.rotation_at(pivot, frame)[0])) - 1.0) <= 1e-12:
            continue  # not turned at this frame
        at = owner_of(scene, ref)
        owner = changed.get(at, getattr(scene, at[0])[at[1]])  # two pivots, one owner
        unturned = key_edits.with_pivot_rotation(pivot, frame, (1.0, 0.0, 0.0, 0.0))
        changed[at] = replace_in(owner, ref, unturned)
        cleared.append(ref.label())
    what = "rotation" if rotation else "location"
    if not changed:
        things = ", ".join(names + [r.label() for r in pivots])
        field = "rotation_keys" if rotation else "translation_keys"
        if not pivots and all(getattr(scene.bone(n), field) is None for n in names):
            raise OperationError(f"{things}: the {what} is not animated, so it is the rest already")
        raise OperationError(
            f"{things}: nothing to clear, the {what} is the rest already at frame {_f(frame)}"
        )
    text = f"Clear {what} of {', '.join(cleared)} at frame {_f(frame)}"
    changes = [(c, i, getattr(scene, c)[i], new) for (c, i), new in changed.items()]
    stack = document.undo_stack
    stack.beginMacro(text)
    try:
        for collection, index, old, new in changes:
            document.push(ReplaceItem(document, collection, index, old, new, text))
    finally:
        stack.endMacro()
    document.notify(f"{text} (Ctrl+Z undoes)")
