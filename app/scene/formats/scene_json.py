"""Scene file version 1: the model back to JSON values (the inverse of :mod:`.schema`).

Linear keys are written as ``[frame, value]`` (others ``[frame, value, interpolation]``),
integers stay integers, and each item's ``extra`` (unknown keys read from a file) is written
back as it came. Each constraint kind is written by its entry in
:mod:`app.scene.formats.kinds.registry`.
"""

from __future__ import annotations

from typing import Any

from app.scene.formats.json_values import keys_json as _keys_json
from app.scene.formats.json_values import num as _num
from app.scene.formats.json_values import vec as _vec
from app.scene.formats.kinds import registry as kinds
from app.scene.formats.plant_json import plant_to_json
from app.scene.rig.model import Bone, Scene

FORMAT = "pivotal-scene"
VERSION = 1


def _bone_json(bone: Bone) -> dict:
    out: dict[str, Any] = {"name": bone.name}
    if bone.parent is not None:
        out["parent"] = bone.parent
    out["translation"] = _vec(bone.translation)
    out["rotation"] = _vec(bone.rotation)
    if bone.scale != (1.0, 1.0, 1.0):
        out["scale"] = _vec(bone.scale)
    if bone.tail is not None:
        out["tail"] = _vec(bone.tail)
    if bone.translation_keys is not None:
        out["translation_keys"] = _keys_json(bone.translation_keys)
    if bone.rotation_keys is not None:
        out["rotation_keys"] = _keys_json(bone.rotation_keys)
    if bone.scale_keys is not None:
        out["scale_keys"] = _keys_json(bone.scale_keys)
    out.update(bone.extra)
    return out


def constraint_to_json(c) -> dict:
    out: dict[str, Any] = {"type": c.type, "name": c.name, "space": c.space}
    out.update(kinds.of(c).write(c))
    out.update(c.extra)
    return out


def scene_to_json(scene: Scene) -> dict:
    """The JSON value of a scene (unknown keys written back where they were)."""
    out: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "fps": _num(scene.fps),
        "frame_start": scene.frame_start,
        "frame_end": scene.frame_end,
        "bones": [_bone_json(b) for b in scene.bones],
        "constraints": [constraint_to_json(c) for c in scene.constraints],
    }
    if scene.plant is not None:
        out["plant"] = plant_to_json(scene.plant, _bone_json)
    out.update(scene.extra)
    return out
