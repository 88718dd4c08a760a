"""The humanoid map a scene keeps: its top-level ``"humanoid"`` key.

``{"humanoid": {"bones": {"hips": "mixamorig:Hips", "left_thigh": "UpperLegL", ...}}}``:
canonical bone (:data:`~app.scene.retarget.canonical.BONES`) -> a bone of the scene, each
bone at most once. A scene with the key uses that map as it is (what is left out is
unmapped); a scene without it uses the automatic map (:func:`.humanoid.automatic_map`).
Other keys inside ``humanoid`` are kept, as every unknown key is.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.scene.errors import SceneError
from app.scene.retarget.canonical import BONES
from app.scene.retarget.humanoid import HumanoidMap, automatic_map
from app.scene.rig.model import Scene

KEY = "humanoid"
SHAPE = '{"bones": {canonical bone: bone name}}'


def read_map(value, bone_names, path: str = KEY) -> HumanoidMap:
    """The map a ``humanoid`` value holds.

    Raises
    ------
    SceneError
        Naming the place (``humanoid.bones.left_thigh``): not an object, an unknown
        canonical bone, a value that is not the name of a bone of the scene, a bone mapped
        twice.
    """
    if not isinstance(value, Mapping):
        raise SceneError(f"must be an object {SHAPE}", path)
    bones = value.get("bones", {})
    if not isinstance(bones, Mapping):
        raise SceneError("must be an object {canonical bone: bone name}", f"{path}.bones")
    names = set(bone_names)
    seen: dict[str, str] = {}
    for canonical, bone in bones.items():
        where = f"{path}.bones.{canonical}"
        if canonical not in BONES:
            raise SceneError(
                f"{canonical!r} is not a canonical humanoid bone (hips, spine, "
                "chest, upper_chest, neck, head, left_/right_ + thigh, shin, "
                "foot, toes, shoulder, upper_arm, forearm, hand, thumb_1 .. "
                "little_3)",
                where,
            )
        if not isinstance(bone, str):
            raise SceneError(f"must be a bone's name, got {bone!r}", where)
        if bone not in names:
            raise SceneError(f"{bone!r} is not a bone of this scene", where)
        if bone in seen:
            raise SceneError(f"{bone!r} is mapped already (as {seen[bone]})", where)
        seen[bone] = canonical
    return HumanoidMap(dict(bones))


def map_json(mapping: HumanoidMap, previous=None) -> dict:
    """The ``humanoid`` value of ``mapping``, keeping the other keys of ``previous``."""
    out = dict(previous) if isinstance(previous, Mapping) else {}
    out["bones"] = dict(mapping.bones)
    return out


def saved_map(scene: Scene) -> HumanoidMap | None:
    """The map ``scene`` keeps (``None`` without one; one that no longer fits the scene's
    bones is read without the entries that do not)."""
    value = scene.extra.get(KEY)
    if value is None:
        return None
    try:
        return read_map(value, scene.bone_names())
    except SceneError:
        bones = value.get("bones") if isinstance(value, Mapping) else None
        names = set(scene.bone_names())
        kept = {c: b for c, b in (bones or {}).items() if c in BONES and b in names}
        return HumanoidMap(kept)


def map_of(scene: Scene) -> HumanoidMap:
    """The map ``scene`` keeps, else the automatic one."""
    saved = saved_map(scene)
    return saved if saved is not None else automatic_map(scene)


def with_map(extra: Mapping, mapping: HumanoidMap) -> dict:
    """A scene's ``extra`` keeping ``mapping`` (a new dict)."""
    out = dict(extra)
    out[KEY] = map_json(mapping, extra.get(KEY))
    return out
