"""The parts constraints share in a scene file: targets, limits, up vectors and pivots,
read (with validation, naming the JSON path) and written back (with their unknown keys)."""

from __future__ import annotations

import math
from typing import Any

from app.scene.constraints.points_at.model import UpVector
from app.scene.errors import SceneError
from app.scene.formats.json_values import (
    keys_json,
    read_extra,
    read_keys,
    read_name,
    read_number,
    read_object,
    read_unit_quat,
    read_vector,
    vec,
)
from app.scene.rig.model import ConeLimit, HingeLimit, Limit, Pivot, Target

TARGET_KEYS = {"bone", "at", "position", "position_keys"}
PIVOT_KEYS = {"name", "position", "position_keys", "rotation", "rotation_keys"}


def required(obj, key, path):
    if key not in obj:
        raise SceneError(f'missing "{key}"', path)
    return obj[key]


def check_count(value, check, path) -> None:
    """A count past its bound (``substeps``: 1e308) is refused naming that bound."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        check(value, path)


def unique(names, path, what):
    seen = set()
    for i, name in enumerate(names):
        if name in seen:
            raise SceneError(f"{what} name {name!r} is used twice", f"{path}[{i}].name")
        seen.add(name)


# --- reading ------------------------------------------------------------------------------


def target_from_json(value, path) -> Target:
    """A constraint's ``target`` object."""
    obj = read_object(value, path)
    if "bone" in obj and obj["bone"] is not None:
        if "position" in obj or "position_keys" in obj:
            raise SceneError("a target is a bone or a position, not both", path)
        at = obj.get("at", "head")
        if at not in ("head", "tail"):
            raise SceneError(f'"at" must be "head" or "tail", got {at!r}', f"{path}.at")
        return Target(
            bone=read_name(obj["bone"], f"{path}.bone"),
            at=at,
            extra=read_extra(obj, TARGET_KEYS, path),
        )
    if "position" not in obj and "position_keys" not in obj:
        raise SceneError('a target needs "bone" or "position"', path)
    kw: dict[str, Any] = {}
    if "position" in obj:
        kw["position"] = read_vector(obj["position"], f"{path}.position", 3)
    if obj.get("position_keys") is not None:
        kw["position_keys"] = read_keys(obj["position_keys"], f"{path}.position_keys", 3)
    return Target(**kw, extra=read_extra(obj, TARGET_KEYS, path))


def limit_from_json(value, path) -> Limit:
    """A rotation limit: ``{"cone": degrees, "twist"?: {min, max}}`` or ``{"hinge": {...}}``."""
    obj = read_object(value, path)
    kinds = [k for k in ("cone", "hinge") if k in obj]
    if len(kinds) != 1:
        raise SceneError('a limit is exactly one of "cone" or "hinge"', path)
    extra = read_extra(obj, {"cone", "hinge", "twist"}, path)
    if kinds[0] == "cone":
        degrees = read_number(obj["cone"], f"{path}.cone")
        if not 0 <= degrees <= 180:
            raise SceneError(
                f"a cone angle must lie in [0, 180] degrees, got {degrees:g}", f"{path}.cone"
            )
        twist = None
        if obj.get("twist") is not None:
            twist, twist_extra = _range(obj["twist"], f"{path}.twist", "twist")
            if twist_extra:
                extra["twist"] = twist_extra
        return ConeLimit(degrees=degrees, twist=twist, extra=extra)
    if "twist" in obj:
        raise SceneError(
            'a hinge fixes the twist itself; "twist" goes with a "cone"', f"{path}.twist"
        )
    hinge = read_object(obj["hinge"], f"{path}.hinge")
    hpath = f"{path}.hinge"
    if "axis" not in hinge:
        raise SceneError('a hinge needs "axis"', hpath)
    axis = read_vector(hinge["axis"], f"{hpath}.axis", 3)
    if math.sqrt(sum(a * a for a in axis)) == 0:
        raise SceneError("the hinge axis has zero length", f"{hpath}.axis")
    (lo, hi), _ = _range({k: v for k, v in hinge.items() if k in ("min", "max")}, hpath, "hinge")
    hinge_extra = read_extra(hinge, {"axis", "min", "max"}, hpath)
    return HingeLimit(
        axis=axis,
        min=lo,
        max=hi,
        extra={**extra, **({"hinge": hinge_extra} if hinge_extra else {})},
    )


def _range(value, path, what) -> tuple[tuple[float, float], dict]:
    """``{"min": degrees, "max": degrees}`` with min <= max; unknown keys returned apart."""
    obj = read_object(value, path)
    for key in ("min", "max"):
        if key not in obj:
            raise SceneError(f'a {what} needs "{key}"', path)
    lo, hi = read_number(obj["min"], f"{path}.min"), read_number(obj["max"], f"{path}.max")
    if lo > hi:
        raise SceneError(f"min {lo:g} is greater than max {hi:g}", path)
    return (lo, hi), read_extra(obj, {"min", "max"}, path)


def _direction(value, path) -> tuple:
    vector = read_vector(value, path, 3)
    if math.sqrt(sum(a * a for a in vector)) == 0:
        raise SceneError("a direction must not have zero length", path)
    return vector


def up_from_json(value, path) -> UpVector:
    """A points-at's ``up``: ``{"axis": [x, y, z] (bone), "toward": [x, y, z] (world)}``."""
    obj = read_object(value, path)
    for key in ("axis", "toward"):
        if key not in obj:
            raise SceneError(f'an up vector needs "{key}"', path)
    return UpVector(
        axis=_direction(obj["axis"], f"{path}.axis"),
        toward=_direction(obj["toward"], f"{path}.toward"),
        extra=read_extra(obj, {"axis", "toward"}, path),
    )


def pivot_from_json(value, path) -> Pivot:
    obj = read_object(value, path)
    if "name" not in obj:
        raise SceneError("a pivot needs a name", path)
    kw: dict[str, Any] = {"name": read_name(obj["name"], f"{path}.name")}
    if "position" in obj:
        kw["position"] = read_vector(obj["position"], f"{path}.position", 3)
    if obj.get("position_keys") is not None:
        kw["position_keys"] = read_keys(obj["position_keys"], f"{path}.position_keys", 3)
    if "rotation" in obj:
        kw["rotation"] = read_unit_quat(obj["rotation"], f"{path}.rotation")
    if obj.get("rotation_keys") is not None:
        kw["rotation_keys"] = read_keys(obj["rotation_keys"], f"{path}.rotation_keys", 4, True)
    return Pivot(**kw, extra=read_extra(obj, PIVOT_KEYS, path))


# --- writing ------------------------------------------------------------------------------


def target_to_json(target: Target) -> dict:
    if target.bone is not None:
        out: dict[str, Any] = {"bone": target.bone, "at": target.at}
    else:
        out = {"position": vec(target.position)}
        if target.position_keys is not None:
            out["position_keys"] = keys_json(target.position_keys)
    out.update(target.extra)
    return out


def limit_to_json(limit: Limit) -> dict:
    if isinstance(limit, ConeLimit):
        out: dict[str, Any] = {"cone": float(limit.degrees)}
        if limit.twist is not None:
            twist_extra = dict(limit.extra.get("twist", {}))
            out["twist"] = {
                "min": float(limit.twist[0]),
                "max": float(limit.twist[1]),
                **twist_extra,
            }
    else:
        hinge_extra = dict(limit.extra.get("hinge", {}))
        out = {
            "hinge": {
                "axis": vec(limit.axis),
                "min": float(limit.min),
                "max": float(limit.max),
                **hinge_extra,
            }
        }
    out.update({k: v for k, v in limit.extra.items() if k not in ("hinge", "twist")})
    return out


def pivot_to_json(p: Pivot) -> dict:
    out: dict[str, Any] = {"name": p.name, "position": vec(p.position)}
    if p.position_keys is not None:
        out["position_keys"] = keys_json(p.position_keys)
    out["rotation"] = vec(p.rotation)
    if p.rotation_keys is not None:
        out["rotation_keys"] = keys_json(p.rotation_keys)
    out.update(p.extra)
    return out
