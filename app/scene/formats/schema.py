"""Scene file version 1: JSON values to the model and back, with validation.

Every error is a :class:`~app.scene.errors.SceneError` naming the JSON path
(``bones[3].rotation``) and the reason. Unknown keys are kept in each item's ``extra``.
Each constraint kind is read by its entry in :mod:`app.scene.formats.kinds.registry`.
"""

from __future__ import annotations

from typing import Any

from app.scene import bounds
from app.scene.constraints.order import order_of
from app.scene.errors import SceneError
from app.scene.formats.json_values import (
    SCALE_RULE,
    check_name,
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
from app.scene.formats.kinds import registry as kinds
from app.scene.formats.kinds.parts import required, unique
from app.scene.formats.plant_json import check_plant, plant_from_json
from app.scene.formats.scene_json import FORMAT, VERSION, scene_to_json  # noqa: F401  (re-export)
from app.scene.retarget.map_file import KEY as HUMANOID
from app.scene.retarget.map_file import read_map
from app.scene.rig.model import SPACES, Bone, Scene

_TOP_KEYS = {
    "format",
    "version",
    "fps",
    "frame_start",
    "frame_end",
    "bones",
    "constraints",
    "plant",
}
_BONE_KEYS = {
    "name",
    "parent",
    "translation",
    "rotation",
    "scale",
    "tail",
    "translation_keys",
    "rotation_keys",
    "scale_keys",
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


def _constraint(value, path):
    obj = read_object(value, path)
    kind = read_string(required(obj, "type", path), f"{path}.type")
    schema = kinds.by_type(kind, f"{path}.type")
    common = {
        "name": read_name(required(obj, "name", path), f"{path}.name"),
        "extra": read_extra(obj, schema.all_keys, path),
    }
    space = obj.get("space", "object")
    if space not in SPACES:
        raise SceneError(f'space must be "world" or "object", got {space!r}', f"{path}.space")
    common["space"] = space
    return schema.read(obj, path, common)


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
    version = read_integer(required(obj, "version", "version"), "version")
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
    bones = read_array(required(obj, "bones", "bones"), "bones")
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
        plant=None if obj.get("plant") is None else plant_from_json(obj["plant"], "plant", _bone),
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
        (``constraints: a → b → a``, :mod:`app.scene.constraints.order`), a humanoid map
        naming bones of the scene (:mod:`app.scene.retarget.map_file`).
    """
    names = scene.bone_names()
    unique(names, "bones", "bone")
    for i, bone in enumerate(scene.bones):  # a scene made by the editor, a BVH or a glTF too
        check_name(bone.name, f"bones[{i}].name")
        if bone.tail is not None:
            bounds.check_tail(bone.name, bone.tail, f"bones[{i}].tail")
    index = {n: i for i, n in enumerate(names)}
    for i, bone in enumerate(scene.bones):
        if bone.parent is not None and bone.parent not in index:
            raise SceneError(
                f"parent {bone.parent!r} is not a bone of this scene", f"bones[{i}].parent"
            )
    bounds.check_bone_count(len(scene.bones), "bones")
    parents = [-1 if b.parent is None else index[b.parent] for b in scene.bones]
    depths, cyclic = bounds.hierarchy_depths(parents)
    if cyclic is not None:
        raise SceneError(
            f"the parent chain of {scene.bones[cyclic].name!r} has a cycle",
            f"bones[{cyclic}].parent",
        )
    if depths and max(depths) > bounds.MAX_DEPTH:
        deepest = depths.index(max(depths))
        bounds.check_depth(depths[deepest], f"bones[{deepest}].parent")
    unique([c.name for c in scene.constraints], "constraints", "constraint")
    for i, c in enumerate(scene.constraints):
        path = f"constraints[{i}]"
        check_name(c.name, f"{path}.name")
        schema = kinds.of(c, path)
        for field_name, name in c.bone_fields():
            if name not in index:
                raise SceneError(f"{name!r} is not a bone of this scene", f"{path}.{field_name}")
        if schema.check is not None:
            schema.check(scene, c, index, path)
    if HUMANOID in scene.extra:  # the humanoid map (docs/scene-format.md, "Humanoid map")
        read_map(scene.extra[HUMANOID], names)
    check_plant(scene)
    order_of(scene)  # kept on the scene: its first evaluation does not compute it again
