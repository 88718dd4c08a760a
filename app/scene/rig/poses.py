"""Poses as values: copying a bone's local pose, pasting it (mirrored across the YZ plane
onto the bones of the other side), clearing rotation and location back to the rest pose.

Mirroring follows Blender's "Paste X-Flipped Pose": a bone's pose goes to the bone whose
name has the other side's mark (``.l``/``.r``, ``_L``/``_R``, ``-l``/``-r`` as a suffix or
a prefix, ``Left``/``Right`` anywhere), and its local values are reflected in the plane
x = 0 of its frame: translation ``(x, y, z) -> (-x, y, z)``, quaternion
``(w, x, y, z) -> (w, x, -y, -z)``. That is the mirror image of the pose when the two
bones' rest frames are mirror images of each other (the usual symmetric rig, built with
+Y along the bone and X across the body, as Blender's symmetrize makes it); a rig built
otherwise gets the reflected numbers, not a mirrored look.

One idea: pose values (copy, mirror, paste, clear) of bones at a frame.
"""

from __future__ import annotations

import re

import numpy as np

from app.scene.rig import key_edits
from app.scene.rig.model import Bone, Scene

_SIDE = {"l": "r", "r": "l", "L": "R", "R": "L"}
_SUFFIX = re.compile(r"^(.*[._\-])([lLrR])(\.\d+)?$")
_PREFIX = re.compile(r"^([lLrR])([._\-].*)$")
_WORDS = (("Left", "Right"), ("left", "right"), ("LEFT", "RIGHT"))


def mirror_name(name: str) -> str | None:
    """The other side's name (``calf.l`` -> ``calf.r``), or ``None`` if ``name`` has no side."""
    m = _SUFFIX.match(name)
    if m:
        return f"{m.group(1)}{_SIDE[m.group(2)]}{m.group(3) or ''}"
    m = _PREFIX.match(name)
    if m:
        return f"{_SIDE[m.group(1)]}{m.group(2)}"
    for a, b in _WORDS:
        if a in name:
            return name.replace(a, b, 1)
        if b in name:
            return name.replace(b, a, 1)
    return None


def mirrored(translation, rotation) -> tuple[np.ndarray, np.ndarray]:
    """Local values reflected in the plane x = 0: ``(3,)`` translation, ``(4,)`` quaternion."""
    t = np.asarray(translation, float) * (-1.0, 1.0, 1.0)
    q = np.asarray(rotation, float) * (1.0, 1.0, -1.0, -1.0)
    return t, q


def copy_pose(scene: Scene, names, frame: float) -> dict[str, dict]:
    """The local pose of bones ``names`` at ``frame``: ``{name: {"translation": [3],
    "rotation": [4]}}`` (plain lists: it goes to the clipboard as JSON)."""
    out = {}
    for name in names:
        bone = scene.bone(name)
        out[name] = {
            "translation": [float(v) for v in key_edits.translation_at(bone, frame)],
            "rotation": [float(v) for v in key_edits.rotation_at(bone, frame)],
        }
    return out


def posed(bone: Bone, frame: float, translation, rotation) -> Bone:
    """``bone`` with its pose at ``frame`` set as today's edits set it: the rotation keyed
    (posing is animation; the static rotation is the rest pose), the translation keyed when
    it is animated, else its static value."""
    new = bone
    if not np.allclose(key_edits.rotation_at(bone, frame), rotation, atol=1e-12):
        new = key_edits.with_bone_rotation(new, frame, rotation)
    if not np.allclose(key_edits.translation_at(bone, frame), translation, atol=1e-12):
        new = key_edits.with_bone_translation(new, frame, translation)
    return new


def pasted(scene: Scene, pose: dict, frame: float, flipped: bool = False) -> dict[str, Bone]:
    """The bones ``pose`` lands on, posed: ``{name: new bone}`` for those that changed.

    ``flipped`` pastes each bone's pose onto its mirror-named bone (a bone without a side
    keeps its own name), reflected (:func:`mirrored`). Names not in the scene are skipped.
    """
    out = {}
    names = set(scene.bone_names())
    for name, values in pose.items():
        t = np.asarray(values["translation"], float)
        q = np.asarray(values["rotation"], float)
        target = name
        if flipped:
            target = mirror_name(name) or name
            t, q = mirrored(t, q)
        if target not in names:
            continue
        bone = scene.bone(target)
        new = posed(bone, frame, t, q)
        if new is not bone:
            out[target] = new
    return out


def cleared(bone: Bone, frame: float, rotation: bool = True) -> Bone:
    """Alt+R / Alt+G: ``bone`` back to its rest rotation (or translation) at ``frame``: a key
    holding the rest value when that channel is animated; unchanged otherwise (an animated
    channel is the only kind that can leave the rest)."""
    if rotation:
        if bone.rotation_keys is None:
            return bone
        return key_edits.with_bone_rotation(bone, frame, bone.rotation)
    if bone.translation_keys is None:
        return bone
    return key_edits.with_bone_translation(bone, frame, bone.translation)
