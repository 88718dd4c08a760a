"""The schema registry: how each constraint kind is read from a scene file and written back.

Each kind is one :class:`KindSchema` (its model class, its own JSON keys, ``read``, ``write``
and an optional ``check`` across the scene), found by its ``type`` string when reading and by
its class when writing. Adding a kind is one line in :data:`SCHEMAS` (a test fixture uses
:func:`register`).
"""

from __future__ import annotations

from app.scene.constraints.limit_distance import schema as limit_distance
from app.scene.errors import SceneError
from app.scene.formats.kinds import fabrik, follows, multi_parent, points_at
from app.scene.formats.kinds.base import COMMON_KEYS, KindSchema  # noqa: F401  (re-export)
from app.scene.rig.model import Constraint

#: ``type`` string -> its schema.
SCHEMAS: dict[str, KindSchema] = {
    s.type: s
    for s in (
        multi_parent.SCHEMA,
        points_at.SCHEMA,
        fabrik.SCHEMA,
        follows.CHILD_OF,
        follows.COPY_ROTATION,
        follows.COPY_LOCATION,
        limit_distance.SCHEMA,
    )
}


def register(schema: KindSchema) -> None:
    """Let scene files hold ``schema``'s kind (a kind added at run time, e.g. a test's)."""
    SCHEMAS[schema.type] = schema


def unregister(cls: type) -> None:
    SCHEMAS.pop(cls.type, None)


def by_type(kind: str, path: str) -> KindSchema:
    """The schema of the JSON ``"type"`` ``kind``; ``SceneError`` naming the known ones."""
    try:
        return SCHEMAS[kind]
    except KeyError:
        known = ", ".join(sorted(SCHEMAS))
        raise SceneError(f"unknown constraint type {kind!r} (known: {known})", path) from None


def of(constraint: Constraint, path: str = "constraints") -> KindSchema:
    """The schema of ``constraint``'s class; ``SceneError`` naming ``path`` if it has none."""
    schema = SCHEMAS.get(constraint.type)
    if schema is None or schema.cls is not type(constraint):
        raise SceneError(f"constraint type {constraint.type!r} cannot be saved by this build",
                         path)  # fmt: skip
    return schema
