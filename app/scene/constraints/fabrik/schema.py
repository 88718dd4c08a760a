"""``fabrik`` in the scene file (``docs/scene-format.md``)."""

from __future__ import annotations

from app.scene import bounds
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.errors import SceneError
from app.scene.formats.json_values import (
    key_text,
    read_array,
    read_integer,
    read_name,
    read_number,
    read_object,
)
from app.scene.formats.kinds.base import SCHEMAS, KindSchema
from app.scene.formats.kinds.parts import (
    check_count,
    limit_from_json,
    limit_to_json,
    required,
    target_from_json,
    target_to_json,
)
from app.scene.rig.model import Scene


def read(obj: dict, path: str, common: dict) -> Fabrik:
    target = target_from_json(required(obj, "target", path), f"{path}.target")
    chain = read_array(required(obj, "chain", path), f"{path}.chain")
    if not chain:
        raise SceneError("a fabrik chain needs at least one bone", f"{path}.chain")
    names = tuple(read_name(n, f"{path}.chain[{i}]") for i, n in enumerate(chain))
    tolerance = read_number(obj.get("tolerance", 1e-4), f"{path}.tolerance")
    if tolerance <= 0:
        raise SceneError(f"tolerance must be > 0, got {tolerance:g}", f"{path}.tolerance")
    check_count(obj.get("max_iterations"), bounds.check_iterations, f"{path}.max_iterations")
    iterations = read_integer(obj.get("max_iterations", 20), f"{path}.max_iterations")
    if iterations < 1:
        raise SceneError(f"max_iterations must be >= 1, got {iterations}", f"{path}.max_iterations")
    limits_obj = read_object(obj.get("limits", {}), f"{path}.limits")
    limits = {}
    for bone_name, limit in limits_obj.items():
        lpath = f"{path}.limits.{key_text(bone_name)}"
        if bone_name not in names:
            raise SceneError(f"bone {bone_name!r} is not in the chain", lpath)
        limits[bone_name] = limit_from_json(limit, lpath)
    pole = obj.get("pole")
    pole = None if pole is None else target_from_json(pole, f"{path}.pole")
    return Fabrik(
        chain=names,
        target=target,
        tolerance=tolerance,
        max_iterations=iterations,
        limits=limits,
        pole=pole,
        **common,
    )


def write(c: Fabrik) -> dict:
    out = dict(
        chain=list(c.chain),
        target=target_to_json(c.target),
        tolerance=c.tolerance,
        max_iterations=c.max_iterations,
    )
    if c.limits:
        out["limits"] = {k: limit_to_json(v) for k, v in c.limits.items()}
    if c.pole is not None:
        out["pole"] = target_to_json(c.pole)
    return out


def check(scene: Scene, c: Fabrik, index: dict, path: str) -> None:
    """The chain runs from root to tip, each bone the parent of the next, none twice."""
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


KEYS = frozenset({"chain", "target", "tolerance", "max_iterations", "limits", "pole"})
SCHEMA = SCHEMAS.register(KindSchema(Fabrik, KEYS, read, write, check))
