"""Scene file version 1: JSON values to the model and back, with validation.

Every error is a :class:`~app.scene.errors.SceneError` naming the JSON path
(``bones[3].rotation``) and the reason. Unknown keys are kept in each item's ``extra``.
"""

from __future__ import annotations

import math
from typing import Any

from app.scene import bounds
from app.scene.constraints.order import order_of
from app.scene.errors import SceneError
from app.scene.formats.json_values import (
    SCALE_RULE,
    check_name,
    key_text,
    read_array,
    read_extra,
    read_integer,
    read_keys,
    read_name,
    read_number,
    read_object,
    read_string,
    read_unit_quat,
    read_vector,
)
from app.scene.formats.scene_json import FORMAT, VERSION, scene_to_json  # noqa: F401  (re-export)
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

_TOP_KEYS = {"format", "version", "fps", "frame_start", "frame_end", "bones", "constraints"}
_BONE_KEYS = {
    "name", "parent", "translation", "rotation", "scale", "tail",
    "translation_keys", "rotation_keys", "scale_keys",
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


def _bone(value, path) -> Bone:
    obj = read_object(value, path)
    if "name" not in obj:
        raise SceneError("a bone needs a name", path)
    kw: dict[str, Any] = {"name": read_name(obj["name"], f"{path}.name")}
    if obj.get("parent") is not None:
        kw["parent"] = read_name(obj["parent"], f"{path}.parent")
    if "translation" in obj:
        kw["translation"] = read_vector(obj["translation"], f"{path}.translation", 3)
    if "rotation" in obj:
        kw["rotation"] = read_unit_quat(obj["rotation"], f"{path}.rotation")
    if "scale" in obj:
        scale = read_vector(obj["scale"], f"{path}.scale", 3)
        if min(scale) < 0:
            raise SceneError(SCALE_RULE, f"{path}.scale")
        kw["scale"] = scale
    if obj.get("tail") is not None:
        kw["tail"] = read_vector(obj["tail"], f"{path}.tail", 3)
        bounds.check_tail(kw["name"], kw["tail"], f"{path}.tail")
    if obj.get("translation_keys") is not None:
        kw["translation_keys"] = read_keys(obj["translation_keys"], f"{path}.translation_keys", 3)
    if obj.get("rotation_keys") is not None:
        kw["rotation_keys"] = read_keys(obj["rotation_keys"], f"{path}.rotation_keys", 4, True)
    if obj.get("scale_keys") is not None:
        kw["scale_keys"] = read_keys(obj["scale_keys"], f"{path}.scale_keys", 3, scale=True)
    return Bone(**kw, extra=read_extra(obj, _BONE_KEYS, path))


def target_from_json(value, path) -> Target:
    """A constraint's ``target`` object."""
    obj = read_object(value, path)
    if "bone" in obj and obj["bone"] is not None:
        if "position" in obj or "position_keys" in obj:
            raise SceneError("a target is a bone or a position, not both", path)
        at = obj.get("at", "head")
        if at not in ("head", "tail"):
            raise SceneError(f'"at" must be "head" or "tail", got {at!r}', f"{path}.at")
        return Target(bone=read_name(obj["bone"], f"{path}.bone"), at=at,
                      extra=read_extra(obj, _TARGET_KEYS, path))  # fmt: skip
    if "position" not in obj and "position_keys" not in obj:
        raise SceneError('a target needs "bone" or "position"', path)
    kw: dict[str, Any] = {}
    if "position" in obj:
        kw["position"] = read_vector(obj["position"], f"{path}.position", 3)
    if obj.get("position_keys") is not None:
        kw["position_keys"] = read_keys(obj["position_keys"], f"{path}.position_keys", 3)
    return Target(**kw, extra=read_extra(obj, _TARGET_KEYS, path))


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


def _pivot(value, path) -> Pivot:
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
    return Pivot(**kw, extra=read_extra(obj, _PIVOT_KEYS, path))


def _required(obj, key, path):
    if key not in obj:
        raise SceneError(f'missing "{key}"', path)
    return obj[key]


def _constraint(value, path):
    obj = read_object(value, path)
    kind = read_string(_required(obj, "type", path), f"{path}.type")
    if kind not in CONSTRAINT_TYPES:
        known = ", ".join(sorted(CONSTRAINT_TYPES))
        raise SceneError(f"unknown constraint type {kind!r} (known: {known})", f"{path}.type")
    common = {
        "name": read_name(_required(obj, "name", path), f"{path}.name"),
        "extra": read_extra(obj, _CONSTRAINT_KEYS[kind], path),
    }
    space = obj.get("space", "object")
    if space not in SPACES:
        raise SceneError(f'space must be "world" or "object", got {space!r}', f"{path}.space")
    common["space"] = space
    if kind == "multi_parent":
        pivots = read_array(_required(obj, "pivots", path), f"{path}.pivots")
        if not pivots:
            raise SceneError("a multi_parent constraint needs at least one pivot",
                             f"{path}.pivots")  # fmt: skip
        _check_count(obj.get("substeps"), bounds.check_steps, f"{path}.substeps")
        substeps = read_integer(obj.get("substeps", 4), f"{path}.substeps")
        if substeps < 1:
            raise SceneError(f"substeps must be >= 1, got {substeps}", f"{path}.substeps")
        integrator = obj.get("integrator", "seed")
        if integrator not in ("seed", "twist", "exact"):
            raise SceneError(f'integrator must be "seed", "twist" or "exact", got {integrator!r}',
                             f"{path}.integrator")  # fmt: skip
        parsed = tuple(_pivot(p, f"{path}.pivots[{i}]") for i, p in enumerate(pivots))
        _unique([p.name for p in parsed], f"{path}.pivots", "pivot")
        return MultiParent(
            body=read_name(_required(obj, "body", path), f"{path}.body"),
            pivots=parsed, substeps=substeps, integrator=integrator, **common,
        )  # fmt: skip
    target = target_from_json(_required(obj, "target", path), f"{path}.target")
    if kind == "points_at":
        limit, up = obj.get("limit"), obj.get("up")
        return PointsAt(
            bone=read_name(_required(obj, "bone", path), f"{path}.bone"),
            target=target,
            limit=None if limit is None else limit_from_json(limit, f"{path}.limit"),
            up=None if up is None else up_from_json(up, f"{path}.up"),
            **common,
        )
    chain = read_array(_required(obj, "chain", path), f"{path}.chain")
    if not chain:
        raise SceneError("a fabrik chain needs at least one bone", f"{path}.chain")
    names = tuple(read_name(n, f"{path}.chain[{i}]") for i, n in enumerate(chain))
    tolerance = read_number(obj.get("tolerance", 1e-4), f"{path}.tolerance")
    if tolerance <= 0:
        raise SceneError(f"tolerance must be > 0, got {tolerance:g}", f"{path}.tolerance")
    _check_count(obj.get("max_iterations"), bounds.check_iterations, f"{path}.max_iterations")
    iterations = read_integer(obj.get("max_iterations", 20), f"{path}.max_iterations")
    if iterations < 1:
        raise SceneError(f"max_iterations must be >= 1, got {iterations}",
                         f"{path}.max_iterations")  # fmt: skip
    limits_obj = read_object(obj.get("limits", {}), f"{path}.limits")
    limits = {}
    for bone_name, limit in limits_obj.items():
        lpath = f"{path}.limits.{key_text(bone_name)}"
        if bone_name not in names:
            raise SceneError(f"bone {bone_name!r} is not in the chain", lpath)
        limits[bone_name] = limit_from_json(limit, lpath)
    pole = obj.get("pole")
    pole = None if pole is None else target_from_json(pole, f"{path}.pole")
    return Fabrik(chain=names, target=target, tolerance=tolerance, max_iterations=iterations,
                  limits=limits, pole=pole, **common)  # fmt: skip


def _check_count(value, check, path) -> None:
    """A count past its bound (``substeps``: 1e308) is refused naming that bound."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        check(value, path)


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
    obj = read_object(value, "(top level)")
    if obj.get("format") != FORMAT:
        raise SceneError(f'"format" must be "{FORMAT}", got {obj.get("format")!r}', "format")
    version = read_integer(_required(obj, "version", "version"), "version")
    if version > VERSION:
        raise SceneError(
            f"written by a newer version of Pivotal (file version {version}, "
            f"this one reads up to {VERSION})",
            "version",
        )
    if version < 1:
        raise SceneError(f"unknown version {version}", "version")
    fps = read_number(obj.get("fps", 24), "fps")
    if fps <= 0:
        raise SceneError(f"fps must be > 0, got {fps:g}", "fps")
    bounds.check_fps(fps, "fps")
    start = read_integer(obj.get("frame_start", 0), "frame_start")
    end = read_integer(obj.get("frame_end", 120), "frame_end")
    bounds.check_frame_number(start, "frame_start")
    bounds.check_frame_number(end, "frame_end")
    if start > end:
        raise SceneError(f"frame_start {start} is after frame_end {end}", "frame_start")
    bounds.check_frame_count(bounds.frame_count(start, end), "frame_end")
    bones = read_array(_required(obj, "bones", "bones"), "bones")
    if not bones:
        raise SceneError("a scene needs at least one bone", "bones")
    bounds.check_bone_count(len(bones), "bones")
    bounds.check_poses(bounds.frame_count(start, end), len(bones), "frame_end")
    constraints = read_array(obj.get("constraints", []), "constraints")
    scene = Scene(
        bones=[_bone(b, f"bones[{i}]") for i, b in enumerate(bones)],
        constraints=[_constraint(c, f"constraints[{i}]") for i, c in enumerate(constraints)],
        fps=fps,
        frame_start=start,
        frame_end=end,
        version=version,
        extra=read_extra(obj, _TOP_KEYS, ""),
    )
    validate(scene)
    return scene


def validate(scene: Scene) -> None:
    """Check names and references across the scene (what one item cannot check alone).

    Raises
    ------
    SceneError
        Unique names, existing parents without cycles, constraint bones that exist,
        FABRIK chains that are parent-to-child, constraints without a cycle of dependencies
        (``constraints: a → b → a``, :mod:`app.scene.constraints.order`).
    """
    names = scene.bone_names()
    _unique(names, "bones", "bone")
    for i, bone in enumerate(scene.bones):  # a scene made by the editor, a BVH or a glTF too
        check_name(bone.name, f"bones[{i}].name")
        if bone.tail is not None:
            bounds.check_tail(bone.name, bone.tail, f"bones[{i}].tail")
    index = {n: i for i, n in enumerate(names)}
    for i, bone in enumerate(scene.bones):
        if bone.parent is not None and bone.parent not in index:
            raise SceneError(f"parent {bone.parent!r} is not a bone of this scene",
                             f"bones[{i}].parent")  # fmt: skip
    bounds.check_bone_count(len(scene.bones), "bones")
    parents = [-1 if b.parent is None else index[b.parent] for b in scene.bones]
    depths, cyclic = bounds.hierarchy_depths(parents)
    if cyclic is not None:
        raise SceneError(f"the parent chain of {scene.bones[cyclic].name!r} has a cycle",
                         f"bones[{cyclic}].parent")  # fmt: skip
    if depths and max(depths) > bounds.MAX_DEPTH:
        deepest = depths.index(max(depths))
        bounds.check_depth(depths[deepest], f"bones[{deepest}].parent")
    _unique([c.name for c in scene.constraints], "constraints", "constraint")
    for i, c in enumerate(scene.constraints):
        path = f"constraints[{i}]"
        check_name(c.name, f"{path}.name")
        for k, pivot in enumerate(getattr(c, "pivots", ())):
            check_name(pivot.name, f"{path}.pivots[{k}].name")
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
        if isinstance(c, MultiParent):
            _check_grid(scene, c, path)
    order_of(scene)  # kept on the scene: its first evaluation does not compute it again


def _check_grid(scene: Scene, c: MultiParent, path: str) -> None:
    """Refuse a multi-parent grid (``frame_start`` to the pivots' last key, at ``substeps``
    per frame) longer than the bound on integration steps."""
    bounds.check_steps(c.substeps, f"{path}.substeps")
    last = [k.frames[-1] for p in c.pivots for k in (p.rotation_keys, p.position_keys) if k]
    if last:
        steps = (float(max(last)) - float(scene.frame_start)) * c.substeps
        bounds.check_steps(max(0.0, steps), f"{path}.pivots")


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
