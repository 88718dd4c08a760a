"""The ``plant`` record of a scene file: a planted clip's contacts, floor and original keys
(contract: "Planted feet"), read with validation and written back.

Reading checks each value where it stands (``plant.feet[0].contacts.heel[2]``) and, against
the scene, that the feet, toes, hips and original bones exist and that every contact lies
within the range planted; every error names its JSON path.
"""

from __future__ import annotations

from typing import Any

from app.scene.errors import SceneError
from app.scene.formats.json_values import (
    num,
    read_array,
    read_extra,
    read_integer,
    read_name,
    read_number,
    read_object,
    read_vector,
    vec,
)
from app.scene.formats.kinds.parts import required
from app.scene.rig.model import FootContacts, Plant, Scene

POINTS = ("heel", "ball", "toe")
_KEYS = {"floor", "speed", "frames", "hips", "feet", "original"}
_FOOT_KEYS = {"foot", "toes", "heel", "ball", "toe", "contacts"}


def _intervals(value, path) -> tuple:
    out = []
    for k, item in enumerate(read_array(value, path)):
        where = f"{path}[{k}]"
        pair = read_array(item, where)
        if len(pair) != 2:
            raise SceneError("a contact is [first, last], two frames", where)
        first, last = (read_integer(x, f"{where}[{i}]") for i, x in enumerate(pair))
        if last < first:
            raise SceneError(f"the contact ends ({last}) before it starts ({first})", where)
        if out and first <= out[-1][1]:
            raise SceneError(
                f"the contact starts at {first}, within the one before "
                f"({out[-1][0]}..{out[-1][1]}): contacts are sorted and apart",
                where,
            )
        out.append((first, last))
    return tuple(out)


def _foot(value, path) -> FootContacts:
    obj = read_object(value, path)
    contacts = read_object(obj.get("contacts", {}), f"{path}.contacts")
    unknown = set(contacts) - set(POINTS)
    if unknown:
        raise SceneError(
            f"unknown contact point {sorted(unknown)[0]!r} (known: heel, ball, toe)",
            f"{path}.contacts",
        )
    toes = obj.get("toes")
    return FootContacts(
        foot=read_name(required(obj, "foot", path), f"{path}.foot"),
        toes=None if toes is None else read_name(toes, f"{path}.toes"),
        heel=read_vector(required(obj, "heel", path), f"{path}.heel", 3),
        ball=read_vector(required(obj, "ball", path), f"{path}.ball", 3),
        toe=read_vector(required(obj, "toe", path), f"{path}.toe", 3),
        contacts=tuple(_intervals(contacts.get(p, []), f"{path}.contacts.{p}") for p in POINTS),
        extra=read_extra(obj, _FOOT_KEYS, path),
    )


def plant_from_json(value, path: str, read_bone) -> Plant:
    """The :class:`~app.scene.rig.model.Plant` of a ``plant`` value (``read_bone(value,
    path)`` reads the original bones as the scene's bones are read)."""
    obj = read_object(value, path)
    frames = read_array(required(obj, "frames", path), f"{path}.frames")
    if len(frames) != 2:
        raise SceneError("frames is [first, last], two frames", f"{path}.frames")
    first, last = (read_integer(x, f"{path}.frames[{i}]") for i, x in enumerate(frames))
    if last < first:
        raise SceneError(f"the range ends ({last}) before it starts ({first})", f"{path}.frames")
    speed = read_number(required(obj, "speed", path), f"{path}.speed")
    if speed <= 0:
        raise SceneError(f"speed must be > 0, got {speed:g}", f"{path}.speed")
    hips = obj.get("hips")
    return Plant(
        floor=read_number(required(obj, "floor", path), f"{path}.floor"),
        speed=speed,
        frames=(first, last),
        hips=None if hips is None else read_name(hips, f"{path}.hips"),
        feet=tuple(
            _foot(f, f"{path}.feet[{i}]")
            for i, f in enumerate(read_array(obj.get("feet", []), f"{path}.feet"))
        ),
        original=tuple(
            read_bone(b, f"{path}.original[{i}]")
            for i, b in enumerate(read_array(obj.get("original", []), f"{path}.original"))
        ),
        extra=read_extra(obj, _KEYS, path),
    )


def check_plant(scene: Scene, path: str = "plant") -> None:
    """Refuse a record whose bones are not the scene's or whose contacts leave the range."""
    plant = scene.plant
    if plant is None:
        return
    names = set(scene.bone_names())
    if plant.hips is not None and plant.hips not in names:
        raise SceneError(f"{plant.hips!r} is not a bone of this scene", f"{path}.hips")
    first, last = plant.frames
    if first < scene.frame_start or last > scene.frame_end:
        raise SceneError(
            f"the range {first}..{last} leaves the timeline {scene.frame_start}..{scene.frame_end}",
            f"{path}.frames",
        )
    seen = set()
    for i, foot in enumerate(plant.feet):
        where = f"{path}.feet[{i}]"
        if foot.foot in seen:
            raise SceneError(f"the foot {foot.foot!r} is planted twice", f"{where}.foot")
        seen.add(foot.foot)
        for key, bone in (("foot", foot.foot), ("toes", foot.toes)):
            if bone is not None and bone not in names:
                raise SceneError(f"{bone!r} is not a bone of this scene", f"{where}.{key}")
        for p, spans in zip(POINTS, foot.contacts):
            for k, (a, b) in enumerate(spans):
                if a < first or b > last:
                    raise SceneError(
                        f"the contact {a}..{b} leaves the range planted {first}..{last}",
                        f"{where}.contacts.{p}[{k}]",
                    )
    for i, bone in enumerate(plant.original):
        if bone.name not in names:
            raise SceneError(
                f"{bone.name!r} is not a bone of this scene", f"{path}.original[{i}].name"
            )


def plant_to_json(plant: Plant, bone_json) -> dict:
    """The JSON value of a record (``bone_json(bone)`` writes the original bones)."""
    out: dict[str, Any] = {
        "floor": num(plant.floor),
        "speed": num(plant.speed),
        "frames": [plant.frames[0], plant.frames[1]],
    }
    if plant.hips is not None:
        out["hips"] = plant.hips
    feet = []
    for foot in plant.feet:
        item: dict[str, Any] = {"foot": foot.foot}
        if foot.toes is not None:
            item["toes"] = foot.toes
        item.update({p: vec(v) for p, v in zip(POINTS, foot.points())})
        item["contacts"] = {
            p: [[a, b] for a, b in spans] for p, spans in zip(POINTS, foot.contacts)
        }
        item.update(foot.extra)
        feet.append(item)
    out["feet"] = feet
    out["original"] = [bone_json(b) for b in plant.original]
    out.update(plant.extra)
    return out
