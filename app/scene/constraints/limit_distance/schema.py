"""``limit_distance`` in the scene file (``docs/scene-format.md``, "limit_distance"): a bone,
a bone target, a ``mode`` and an optional ``distance``.

``{"type": "limit_distance", "name": N, "bone": B, "target": {"bone": T, "at": "head" |
"tail"}, "mode": "inside" | "outside" | "surface", "distance": d, "space": "world" |
"object"}``; ``mode`` defaults to ``"inside"``, an absent ``distance`` is the distance at
``frame_start`` and is written back absent.
"""

from __future__ import annotations

from app.scene.constraints.limit_distance.model import MODES, LimitDistance
from app.scene.errors import SceneError
from app.scene.formats.json_values import read_name, read_number, read_object
from app.scene.formats.kinds.base import SCHEMAS, KindSchema
from app.scene.formats.kinds.parts import required, target_from_json, target_to_json

KEYS = frozenset({"bone", "target", "mode", "distance"})


def read(obj: dict, path: str, common: dict) -> LimitDistance:
    """One ``limit_distance`` object (``common``: its name, space and unknown keys)."""
    value = required(obj, "target", path)
    if "bone" not in read_object(value, f"{path}.target") or value["bone"] is None:
        raise SceneError(
            'the target of a limit_distance is a bone ({"bone": NAME}), not a position',
            f"{path}.target",
        )
    target = target_from_json(value, f"{path}.target")
    bone = read_name(required(obj, "bone", path), f"{path}.bone")
    if bone == target.bone:
        raise SceneError(f"bone {bone!r} cannot keep a distance from itself", f"{path}.target.bone")
    mode = obj.get("mode", "inside")
    if mode not in MODES:
        raise SceneError(
            f'mode must be "inside", "outside" or "surface", got {mode!r}', f"{path}.mode"
        )
    distance = None
    if obj.get("distance") is not None:
        distance = read_number(obj["distance"], f"{path}.distance")
        if distance < 0:
            raise SceneError(f"a distance is 0 or more, got {distance:g}", f"{path}.distance")
    return LimitDistance(bone=bone, target=target, mode=mode, distance=distance, **common)


def write(c: LimitDistance) -> dict:
    """Its own keys in file order (``distance`` left out when it is measured)."""
    out = dict(bone=c.bone, target=target_to_json(c.target), mode=c.mode)
    if c.distance is not None:
        out["distance"] = float(c.distance)
    return out


SCHEMA = SCHEMAS.register(KindSchema(LimitDistance, KEYS, read, write))
