"""Scene file version 1: the model back to JSON values (the inverse of :mod:`.schema`).

Linear keys are written as ``[frame, value]`` (others ``[frame, value, interpolation]``),
integers stay integers, and each item's ``extra`` (unknown keys read from a file) is written
back as it came.
"""

from __future__ import annotations

from typing import Any

from app.scene.rig.keys import Keys
from app.scene.rig.model import (
    Bone,
    ConeLimit,
    Fabrik,
    Limit,
    MultiParent,
    Pivot,
    PointsAt,
    Scene,
    Target,
)

FORMAT = "pivotal-scene"
VERSION = 1


def _keys_json(keys: Keys) -> list:
    """``[frame, value]`` per key, ``[frame, value, interpolation]`` when it is not linear."""
    return [
        [_num(f), [float(x) for x in v]] + ([] if kind == "linear" else [kind])
        for f, v, kind in zip(keys.frames, keys.values, keys.interpolation)
    ]


def _num(x: float):
    """Integers stay integers in the file (frames, counts); other numbers as floats."""
    x = float(x)
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def _vec(v) -> list:
    return [float(x) for x in v]


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


def target_to_json(target: Target) -> dict:
    if target.bone is not None:
        out: dict[str, Any] = {"bone": target.bone, "at": target.at}
    else:
        out = {"position": _vec(target.position)}
        if target.position_keys is not None:
            out["position_keys"] = _keys_json(target.position_keys)
    out.update(target.extra)
    return out


def limit_to_json(limit: Limit) -> dict:
    if isinstance(limit, ConeLimit):
        out: dict[str, Any] = {"cone": float(limit.degrees)}
        if limit.twist is not None:
            twist_extra = dict(limit.extra.get("twist", {}))
            out["twist"] = {"min": float(limit.twist[0]), "max": float(limit.twist[1]),
                            **twist_extra}  # fmt: skip
    else:
        hinge_extra = dict(limit.extra.get("hinge", {}))
        out = {"hinge": {"axis": _vec(limit.axis), "min": float(limit.min),
                         "max": float(limit.max), **hinge_extra}}  # fmt: skip
    out.update({k: v for k, v in limit.extra.items() if k not in ("hinge", "twist")})
    return out


def _pivot_json(p: Pivot) -> dict:
    out: dict[str, Any] = {"name": p.name, "position": _vec(p.position)}
    if p.position_keys is not None:
        out["position_keys"] = _keys_json(p.position_keys)
    out["rotation"] = _vec(p.rotation)
    if p.rotation_keys is not None:
        out["rotation_keys"] = _keys_json(p.rotation_keys)
    out.update(p.extra)
    return out


def constraint_to_json(c) -> dict:
    out: dict[str, Any] = {"type": c.type, "name": c.name, "space": c.space}
    if isinstance(c, MultiParent):
        out.update(body=c.body, substeps=c.substeps, integrator=c.integrator)
        if c.relative_to != "world":  # the default is not written: older files save as they were
            out["relative_to"] = c.relative_to
        out["pivots"] = [_pivot_json(p) for p in c.pivots]
    elif isinstance(c, PointsAt):
        out.update(bone=c.bone, target=target_to_json(c.target))
        if c.limit is not None:
            out["limit"] = limit_to_json(c.limit)
        if c.up is not None:
            out["up"] = {"axis": _vec(c.up.axis), "toward": _vec(c.up.toward), **c.up.extra}
    elif isinstance(c, Fabrik):
        out.update(chain=list(c.chain), target=target_to_json(c.target),
                   tolerance=c.tolerance, max_iterations=c.max_iterations)  # fmt: skip
        if c.limits:
            out["limits"] = {k: limit_to_json(v) for k, v in c.limits.items()}
        if c.pole is not None:
            out["pole"] = target_to_json(c.pole)
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
    out.update(scene.extra)
    return out
