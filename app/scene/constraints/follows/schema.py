"""``child_of``, ``copy_rotation`` and ``copy_location`` in the scene file (contract §F2;
``docs/scene-format.md``): a bone, a bone target and an ``offset``."""

from __future__ import annotations

from app.scene.constraints.follows.model import OFFSETS, ChildOf, CopyLocation, CopyRotation
from app.scene.errors import SceneError
from app.scene.formats.json_values import read_name
from app.scene.formats.kinds.base import SCHEMAS, KindSchema
from app.scene.formats.kinds.parts import required, target_from_json, target_to_json

KEYS = frozenset({"bone", "target", "offset"})


def _reader(cls):
    def read(obj: dict, path: str, common: dict):
        target = target_from_json(required(obj, "target", path), f"{path}.target")
        if target.bone is None:
            raise SceneError(
                f'the target of a {cls.type} is a bone ({{"bone": NAME}}), not a position',
                f"{path}.target",
            )
        offset = obj.get("offset", "frame_start")
        if offset not in OFFSETS:
            raise SceneError(
                f'offset must be "frame_start" or "none", got {offset!r}', f"{path}.offset"
            )
        bone = read_name(required(obj, "bone", path), f"{path}.bone")
        if bone == target.bone:
            raise SceneError(f"bone {bone!r} cannot follow itself", f"{path}.target.bone")
        return cls(bone=bone, target=target, offset=offset, **common)

    return read


def write(c) -> dict:
    return dict(bone=c.bone, target=target_to_json(c.target), offset=c.offset)


CHILD_OF = SCHEMAS.register(KindSchema(ChildOf, KEYS, _reader(ChildOf), write))
COPY_ROTATION = SCHEMAS.register(KindSchema(CopyRotation, KEYS, _reader(CopyRotation), write))
COPY_LOCATION = SCHEMAS.register(KindSchema(CopyLocation, KEYS, _reader(CopyLocation), write))
