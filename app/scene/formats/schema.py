"""Scene file version 1: JSON values to the model and back, with validation.

Every error is a :class:`~app.scene.errors.SceneError` naming the JSON path
(``bones[3].rotation``) and the reason. Unknown keys are kept in each item's ``extra``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.scene.errors import SceneError
from app.scene.rig.keys import Keys
from app.scene.rig.model import (
    CONSTRAINT_TYPES,
    SPACES,
    Bone,
    ConeLimit,
    Fabrik,
    HingeLimit,
    Limit,
    MultiParent,
    Pivot,
    PointsAt,
    Scene,
    Target,
    UpVector,
)

FORMAT = "pivotal-scene"
VERSION = 1
UNIT_TOLERANCE = 1e-6

_TOP_KEYS = {"format", "version", "fps", "frame_start", "frame_end", "bones", "constraints"}
_BONE_KEYS = {
    "name", "parent", "translation", "rotation", "scale", "tail",
    "translation_keys", "rotation_keys",
}  # fmt: skip
_TARGET_KEYS = {"bone", "at", "position", "position_keys"}
_PIVOT_KEYS = {"name", "position", "position_keys", "rotation", "rotation_keys"}
_COMMON_KEYS = {"type", "name", "space"}
_CONSTRAINT_KEYS = {
    "multi_parent": _COMMON_KEYS | {"body", "pivots", "substeps", "integrator"},
    "points_at": _COMMON_KEYS | {"bone", "target", "limit", "up"},
    "fabrik": _COMMON_KEYS | {"chain", "target", "tolerance", "max_iterations", "limits", "pole"},
}


# --- reading ------------------------------------------------------------------------------


def _type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _object(value, path) -> dict:
    if not isinstance(value, dict):
        raise SceneError(f"expected an object, got {_type_name(value)}", path)
    return value


def _array(value, path) -> list:
    if not isinstance(value, list):
        raise SceneError(f"expected an array, got {_type_name(value)}", path)
    return value


def _number(value, path) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SceneError(f"expected a number, got {_type_name(value)}", path)
    if not math.isfinite(value):
        raise SceneError(f"{value} is not a finite number", path)
    return float(value)


def _integer(value, path) -> int:
    number = _number(value, path)
    if number != int(number):
        raise SceneError(f"expected an integer, got {value}", path)
    return int(number)


def _string(value, path, non_empty=True) -> str:
    if not isinstance(value, str):
        raise SceneError(f"expected a string, got {_type_name(value)}", path)
    if non_empty and not value:
        raise SceneError("must not be empty", path)
    return value


def _vector(value, path, size) -> tuple:
    items = _array(value, path)
    if len(items) != size:
        raise SceneError(f"expected {size} numbers, got {len(items)}", path)
    return tuple(_number(x, f"{path}[{i}]") for i, x in enumerate(items))


def _unit_quat(value, path) -> tuple:
    q = _vector(value, path, 4)
    length = math.sqrt(sum(x * x for x in q))
    if abs(length - 1.0) > UNIT_TOLERANCE:
        raise SceneError(f"length {length:.6g} is not a unit quaternion", path)
    return q


def _keys(value, path, size, quaternion=False) -> Keys:
    items = _array(value, path)
    if not items:
        raise SceneError("a key list must not be empty", path)
    frames, values = [], []
    for i, item in enumerate(items):
        ipath = f"{path}[{i}]"
        pair = _array(item, ipath)
        if len(pair) != 2:
            raise SceneError("expected [frame, value]", ipath)
        frame = _number(pair[0], f"{ipath}[0]")
        if frames and frame <= frames[-1]:
            raise SceneError(
                f"key frame {frame:g} is not after the previous key's frame {frames[-1]:g}"
                " (keys are sorted by frame, no frame twice)",
                f"{ipath}[0]",
            )
        frames.append(frame)
        values.append(_unit_quat(pair[1], f"{ipath}[1]") if quaternion else
                      _vector(pair[1], f"{ipath}[1]", size))  # fmt: skip
    return Keys(np.array(frames), np.array(values))


def _extra(obj: dict, known: set) -> dict:
    return {k: v for k, v in obj.items() if k not in known}


def _bone(value, path) -> Bone:
    obj = _object(value, path)
    if "name" not in obj:
        raise SceneError("a bone needs a name", path)
    kw: dict[str, Any] = {"name": _string(obj["name"], f"{path}.name")}
    if obj.get("parent") is not None:
        kw["parent"] = _string(obj["parent"], f"{path}.parent")
    if "translation" in obj:
        kw["translation"] = _vector(obj["translation"], f"{path}.translation", 3)
    if "rotation" in obj:
        kw["rotation"] = _unit_quat(obj["rotation"], f"{path}.rotation")
    if "scale" in obj:
        scale = _vector(obj["scale"], f"{path}.scale", 3)
        if min(scale) <= 0:
            raise SceneError("every scale factor must be > 0", f"{path}.scale")
        kw["scale"] = scale
    if obj.get("tail") is not None:
        kw["tail"] = _vector(obj["tail"], f"{path}.tail", 3)
    if obj.get("translation_keys") is not None:
        kw["translation_keys"] = _keys(obj["translation_keys"], f"{path}.translation_keys", 3)
    if obj.get("rotation_keys") is not None:
        kw["rotation_keys"] = _keys(obj["rotation_keys"], f"{path}.rotation_keys", 4, True)
    return Bone(**kw, extra=_extra(obj, _BONE_KEYS))


def target_from_json(value, path) -> Target:
    """A constraint's ``target`` object."""
    obj = _object(value, path)
    if "bone" in obj and obj["bone"] is not None:
        if "position" in obj or "position_keys" in obj:
            raise SceneError("a target is a bone or a position, not both", path)
        at = obj.get("at", "head")
        if at not in ("head", "tail"):
            raise SceneError(f'"at" must be "head" or "tail", got {at!r}', f"{path}.at")
        return Target(bone=_string(obj["bone"], f"{path}.bone"), at=at,
                      extra=_extra(obj, _TARGET_KEYS))  # fmt: skip
    if "position" not in obj and "position_keys" not in obj:
        raise SceneError('a target needs "bone" or "position"', path)
    kw: dict[str, Any] = {}
    if "position" in obj:
        kw["position"] = _vector(obj["position"], f"{path}.position", 3)
    if obj.get("position_keys") is not None:
        kw["position_keys"] = _keys(obj["position_keys"], f"{path}.position_keys", 3)
    return Target(**kw, extra=_extra(obj, _TARGET_KEYS))


def limit_from_json(value, path) -> Limit:
    """A rotation limit: ``{"cone": degrees, "twist"?: {min, max}}`` or ``{"hinge": {...}}``."""
    obj = _object(value, path)
    kinds = [k for k in ("cone", "hinge") if k in obj]
    if len(kinds) != 1:
        raise SceneError('a limit is exactly one of "cone" or "hinge"', path)
    extra = _extra(obj, {"cone", "hinge", "twist"})
    if kinds[0] == "cone":
        degrees = _number(obj["cone"], f"{path}.cone")
        if not 0 <= degrees <= 180:
            raise SceneError(f"a cone angle must lie in [0, 180] degrees, got {degrees:g}",
                             f"{path}.cone")  # fmt: skip
        twist = None
        if obj.get("twist") is not None:
            twist, twist_extra = _range(obj["twist"], f"{path}.twist", "twist")
            if twist_extra:
                extra["twist"] = twist_extra
        return ConeLimit(degrees=degrees, twist=twist, extra=extra)
    if "twist" in obj:
        raise SceneError('a hinge fixes the twist itself; "twist" goes with a "cone"',
                         f"{path}.twist")  # fmt: skip
    hinge = _object(obj["hinge"], f"{path}.hinge")
    hpath = f"{path}.hinge"
    if "axis" not in hinge:
        raise SceneError('a hinge needs "axis"', hpath)
    axis = _vector(hinge["axis"], f"{hpath}.axis", 3)
    if math.sqrt(sum(a * a for a in axis)) == 0:
        raise SceneError("the hinge axis has zero length", f"{hpath}.axis")
    (lo, hi), _ = _range({k: v for k, v in hinge.items() if k in ("min", "max")}, hpath, "hinge")
    hinge_extra = _extra(hinge, {"axis", "min", "max"})
    return HingeLimit(
        axis=axis,
        min=lo,
        max=hi,
        extra={**extra, **({"hinge": hinge_extra} if hinge_extra else {})},
    )


def _range(value, path, what) -> tuple[tuple[float, float], dict]:
    """``{"min": degrees, "max": degrees}`` with min <= max; unknown keys returned apart."""
    obj = _object(value, path)
    for key in ("min", "max"):
        if key not in obj:
            raise SceneError(f'a {what} needs "{key}"', path)
    lo, hi = _number(obj["min"], f"{path}.min"), _number(obj["max"], f"{path}.max")
    if lo > hi:
        raise SceneError(f"min {lo:g} is greater than max {hi:g}", path)
    return (lo, hi), _extra(obj, {"min", "max"})


def _direction(value, path) -> tuple:
    vector = _vector(value, path, 3)
    if math.sqrt(sum(a * a for a in vector)) == 0:
        raise SceneError("a direction must not have zero length", path)
    return vector


def up_from_json(value, path) -> UpVector:
    """A points-at's ``up``: ``{"axis": [x, y, z] (bone), "toward": [x, y, z] (world)}``."""
    obj = _object(value, path)
    for key in ("axis", "toward"):
        if key not in obj:
            raise SceneError(f'an up vector needs "{key}"', path)
    return UpVector(
        axis=_direction(obj["axis"], f"{path}.axis"),
        toward=_direction(obj["toward"], f"{path}.toward"),
        extra=_extra(obj, {"axis", "toward"}),
    )


def _pivot(value, path) -> Pivot:
    obj = _object(value, path)
    if "name" not in obj:
        raise SceneError("a pivot needs a name", path)
    kw: dict[str, Any] = {"name": _string(obj["name"], f"{path}.name")}
    if "position" in obj:
        kw["position"] = _vector(obj["position"], f"{path}.position", 3)
    if obj.get("position_keys") is not None:
        kw["position_keys"] = _keys(obj["position_keys"], f"{path}.position_keys", 3)
    if "rotation" in obj:
        kw["rotation"] = _unit_quat(obj["rotation"], f"{path}.rotation")
    if obj.get("rotation_keys") is not None:
        kw["rotation_keys"] = _keys(obj["rotation_keys"], f"{path}.rotation_keys", 4, True)
    return Pivot(**kw, extra=_extra(obj, _PIVOT_KEYS))


def _required(obj, key, path):
    if key not in obj:
        raise SceneError(f'missing "{key}"', path)
    return obj[key]


def _constraint(value, path):
    obj = _object(value, path)
    kind = _string(_required(obj, "type", path), f"{path}.type")
    if kind not in CONSTRAINT_TYPES:
        known = ", ".join(sorted(CONSTRAINT_TYPES))
        raise SceneError(f"unknown constraint type {kind!r} (known: {known})", f"{path}.type")
    common = {
        "name": _string(_required(obj, "name", path), f"{path}.name"),
        "extra": _extra(obj, _CONSTRAINT_KEYS[kind]),
    }
    space = obj.get("space", "object")
    if space not in SPACES:
        raise SceneError(f'space must be "world" or "object", got {space!r}', f"{path}.space")
    common["space"] = space
    if kind == "multi_parent":
        pivots = _array(_required(obj, "pivots", path), f"{path}.pivots")
        if not pivots:
            raise SceneError("a multi_parent constraint needs at least one pivot",
                             f"{path}.pivots")  # fmt: skip
        substeps = _integer(obj.get("substeps", 4), f"{path}.substeps")
        if substeps < 1:
            raise SceneError(f"substeps must be >= 1, got {substeps}", f"{path}.substeps")
        integrator = obj.get("integrator", "seed")
        if integrator not in ("seed", "twist"):
            raise SceneError(f'integrator must be "seed" or "twist", got {integrator!r}',
                             f"{path}.integrator")  # fmt: skip
        parsed = tuple(_pivot(p, f"{path}.pivots[{i}]") for i, p in enumerate(pivots))
        _unique([p.name for p in parsed], f"{path}.pivots", "pivot")
        return MultiParent(
            body=_string(_required(obj, "body", path), f"{path}.body"),
            pivots=parsed, substeps=substeps, integrator=integrator, **common,
        )  # fmt: skip
    target = target_from_json(_required(obj, "target", path), f"{path}.target")
    if kind == "points_at":
        limit, up = obj.get("limit"), obj.get("up")
        return PointsAt(
            bone=_string(_required(obj, "bone", path), f"{path}.bone"),
            target=target,
            limit=None if limit is None else limit_from_json(limit, f"{path}.limit"),
            up=None if up is None else up_from_json(up, f"{path}.up"),
            **common,
        )
    chain = _array(_required(obj, "chain", path), f"{path}.chain")
    if not chain:
        raise SceneError("a fabrik chain needs at least one bone", f"{path}.chain")
    names = tuple(_string(n, f"{path}.chain[{i}]") for i, n in enumerate(chain))
    tolerance = _number(obj.get("tolerance", 1e-4), f"{path}.tolerance")
    if tolerance <= 0:
        raise SceneError(f"tolerance must be > 0, got {tolerance:g}", f"{path}.tolerance")
    iterations = _integer(obj.get("max_iterations", 20), f"{path}.max_iterations")
    if iterations < 1:
        raise SceneError(f"max_iterations must be >= 1, got {iterations}",
                         f"{path}.max_iterations")  # fmt: skip
    limits_obj = _object(obj.get("limits", {}), f"{path}.limits")
    limits = {}
    for bone_name, limit in limits_obj.items():
        lpath = f"{path}.limits.{bone_name}"
        if bone_name not in names:
            raise SceneError(f"bone {bone_name!r} is not in the chain", lpath)
        limits[bone_name] = limit_from_json(limit, lpath)
    pole = obj.get("pole")
    pole = None if pole is None else target_from_json(pole, f"{path}.pole")
    return Fabrik(chain=names, target=target, tolerance=tolerance, max_iterations=iterations,
                  limits=limits, pole=pole, **common)  # fmt: skip


def _unique(names, path, what):
    seen = set()
    for i, name in enumerate(names):
        if name in seen:
            raise SceneError(f"{what} name {name!r} is used twice", f"{path}[{i}].name")
        seen.add(name)


def scene_from_json(value) -> Scene:
    """Build and validate a scene from a parsed JSON value.

    Raises
    ------
    SceneError
        Naming the JSON path and the reason; nothing is returned half-built.
    """
    obj = _object(value, "")
    if obj.get("format") != FORMAT:
        raise SceneError(f'"format" must be "{FORMAT}", got {obj.get("format")!r}', "format")
    version = _integer(_required(obj, "version", ""), "version")
    if version > VERSION:
        raise SceneError(
            f"written by a newer version of Pivotal (file version {version}, "
            f"this one reads up to {VERSION})",
            "version",
        )
    if version < 1:
        raise SceneError(f"unknown version {version}", "version")
    fps = _number(obj.get("fps", 24), "fps")
    if fps <= 0:
        raise SceneError(f"fps must be > 0, got {fps:g}", "fps")
    start = _integer(obj.get("frame_start", 0), "frame_start")
    end = _integer(obj.get("frame_end", 120), "frame_end")
    if start > end:
        raise SceneError(f"frame_start {start} is after frame_end {end}", "frame_start")
    bones = _array(_required(obj, "bones", ""), "bones")
    if not bones:
        raise SceneError("a scene needs at least one bone", "bones")
    constraints = _array(obj.get("constraints", []), "constraints")
    scene = Scene(
        bones=[_bone(b, f"bones[{i}]") for i, b in enumerate(bones)],
        constraints=[_constraint(c, f"constraints[{i}]") for i, c in enumerate(constraints)],
        fps=fps,
        frame_start=start,
        frame_end=end,
        version=version,
        extra=_extra(obj, _TOP_KEYS),
    )
    validate(scene)
    return scene


def validate(scene: Scene) -> None:
    """Check names and references across the scene (what one item cannot check alone).

    Raises
    ------
    SceneError
        Unique names, existing parents without cycles, constraint bones that exist,
        FABRIK chains that are parent-to-child.
    """
    names = scene.bone_names()
    _unique(names, "bones", "bone")
    index = {n: i for i, n in enumerate(names)}
    for i, bone in enumerate(scene.bones):
        if bone.parent is not None and bone.parent not in index:
            raise SceneError(f"parent {bone.parent!r} is not a bone of this scene",
                             f"bones[{i}].parent")  # fmt: skip
    for i, bone in enumerate(scene.bones):
        seen, node = {bone.name}, bone.parent
        while node is not None:
            if node in seen:
                raise SceneError(f"the parent chain of {bone.name!r} has a cycle",
                                 f"bones[{i}].parent")  # fmt: skip
            seen.add(node)
            node = scene.bones[index[node]].parent
    _unique([c.name for c in scene.constraints], "constraints", "constraint")
    for i, c in enumerate(scene.constraints):
        path = f"constraints[{i}]"
        for field_name, name in _bone_fields(c):
            if name not in index:
                raise SceneError(f"{name!r} is not a bone of this scene", f"{path}.{field_name}")
        if isinstance(c, Fabrik):
            for k in range(1, len(c.chain)):
                child = scene.bones[index[c.chain[k]]]
                if child.parent != c.chain[k - 1]:
                    raise SceneError(
                        f"{c.chain[k]!r} is not a child of {c.chain[k - 1]!r}; a chain runs "
                        "from root to tip, each bone the parent of the next",
                        f"{path}.chain[{k}]",
                    )
            if len(set(c.chain)) != len(c.chain):
                raise SceneError("a bone appears twice in the chain", f"{path}.chain")


def _bone_fields(c):
    if isinstance(c, MultiParent):
        yield "body", c.body
    elif isinstance(c, PointsAt):
        yield "bone", c.bone
    elif isinstance(c, Fabrik):
        for k, name in enumerate(c.chain):
            yield f"chain[{k}]", name
    for key in ("target", "pole"):
        target = getattr(c, key, None)
        if target is not None and target.bone is not None:
            yield f"{key}.bone", target.bone


# --- writing ------------------------------------------------------------------------------


def _keys_json(keys: Keys) -> list:
    return [[_num(f), [float(x) for x in v]] for f, v in zip(keys.frames, keys.values)]


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
        out.update(body=c.body, substeps=c.substeps, integrator=c.integrator,
                   pivots=[_pivot_json(p) for p in c.pivots])  # fmt: skip
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
