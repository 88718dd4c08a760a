"""Pose operations: copy (Ctrl+C), paste (Ctrl+V), paste flipped (Ctrl+Shift+V), clear
rotation (Alt+R) and location (Alt+G) on the selected bones at the current frame.

A paste or a clear is one undo step over every bone it changes. The copied pose travels
as JSON text on the clipboard (``{"format": "pivotal-pose", "bones": {...}}``), so it
pastes into another window too.
"""

from __future__ import annotations

import json

from app.editor.commands import ReplaceItem
from app.editor.operations import OperationError
from app.scene.rig import poses

FORMAT = "pivotal-pose"


def _f(frame: float) -> str:
    return f"{frame:g}"


def _bones(document) -> list[str]:
    names = document.selected_bones()
    if not names:
        raise OperationError("Select the bones whose pose to use")
    return names


def copy_pose(document) -> str:
    """The selected bones' pose at the current frame, as clipboard text."""
    names = _bones(document)
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
    _push_bones(document, bones, f"{what} on {', '.join(bones) or 'nothing'} at frame "
                                 f"{_f(document.frame)}")  # fmt: skip
    return list(bones)


def clear(document, rotation: bool = True) -> None:
    """Alt+R (``rotation=True``) / Alt+G: the selected bones back to their rest rotation or
    location at the current frame (keyed where animated)."""
    names = _bones(document)
    frame = document.frame
    bones = {}
    for name in names:
        bone = document.scene.bone(name)
        new = poses.cleared(bone, frame, rotation)
        if new is not bone and new != bone:
            bones[name] = new
    what = "rotation" if rotation else "location"
    if not bones:
        raise OperationError(f"{', '.join(names)}: the {what} is not animated, so it is "
                             "the rest already")  # fmt: skip
    _push_bones(document, bones, f"Clear {what} of {', '.join(bones)} at frame {_f(frame)}")
