"""``points_at`` in the scene file (``docs/scene-format.md``)."""

from __future__ import annotations

from app.scene.constraints.points_at.model import PointsAt
from app.scene.formats.json_values import read_name, vec
from app.scene.formats.kinds.base import SCHEMAS, KindSchema
from app.scene.formats.kinds.parts import (
    limit_from_json,
    limit_to_json,
    required,
    target_from_json,
    target_to_json,
    up_from_json,
)


def read(obj: dict, path: str, common: dict) -> PointsAt:
    target = target_from_json(required(obj, "target", path), f"{path}.target")
    limit, up = obj.get("limit"), obj.get("up")
    return PointsAt(
        bone=read_name(required(obj, "bone", path), f"{path}.bone"),
        target=target,
        limit=None if limit is None else limit_from_json(limit, f"{path}.limit"),
        up=None if up is None else up_from_json(up, f"{path}.up"),
        **common,
    )


def write(c: PointsAt) -> dict:
    out = dict(bone=c.bone, target=target_to_json(c.target))
    if c.limit is not None:
        out["limit"] = limit_to_json(c.limit)
    if c.up is not None:
        out["up"] = {"axis": vec(c.up.axis), "toward": vec(c.up.toward), **c.up.extra}
    return out


KEYS = frozenset({"bone", "target", "limit", "up"})
SCHEMA = SCHEMAS.register(KindSchema(PointsAt, KEYS, read, write))
