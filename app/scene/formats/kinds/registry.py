"""The schema registry: how each constraint kind is read from a scene file and written back.

Each kind is one :class:`KindSchema` (its model class, its own JSON keys, ``read``, ``write``
and an optional ``check`` across the scene), keyed by its model class, found by its ``type``
string when reading and by its class when writing. Each kind's module registers its schema
in :data:`~app.scene.formats.kinds.base.SCHEMAS` as it is defined; adding a kind is one
import here (a test fixture uses ``SCHEMAS.register`` and ``SCHEMAS.unregister``).
"""

from __future__ import annotations

# a kind's one line: importing its schema module registers its schema (order: none needed)
from app.scene.constraints.fabrik import schema as fabrik  # noqa: F401
from app.scene.constraints.follows import schema as follows  # noqa: F401
from app.scene.constraints.limit_distance import schema as limit_distance  # noqa: F401
from app.scene.constraints.multi_parent import schema as multi_parent  # noqa: F401
from app.scene.constraints.points_at import schema as points_at  # noqa: F401
from app.scene.errors import SceneError
from app.scene.formats.kinds.base import COMMON_KEYS, SCHEMAS, KindSchema  # noqa: F401
from app.scene.rig.model import Constraint


def by_type(kind: str, path: str) -> KindSchema:
    """The schema of the JSON ``"type"`` ``kind``; ``SceneError`` naming the known ones."""
    for schema in SCHEMAS.values():
        if schema.type == kind:
            return schema
    known = ", ".join(sorted(schema.type for schema in SCHEMAS.values()))
    raise SceneError(f"unknown constraint type {kind!r} (known: {known})", path)


def of(constraint: Constraint, path: str = "constraints") -> KindSchema:
    """The schema of ``constraint``'s class; ``SceneError`` naming ``path`` if it has none."""
    schema = SCHEMAS.get(type(constraint))
    if schema is None:
        message = f"constraint type {constraint.type!r} cannot be saved by this build"
        raise SceneError(message, path)
    return schema
