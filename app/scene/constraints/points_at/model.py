"""The ``points_at`` constraint as data: a bone turned so its tail points at a target, with an
optional up vector (``docs/scene-format.md``, "points_at")."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.scene.rig.model import Limit, OneBoneOneTarget, Vec3


@dataclass(frozen=True, kw_only=True)
class UpVector:
    """Fixes a points-at's roll: the bone's ``axis`` (its own frame) turns ``toward`` (world)."""

    axis: Vec3
    toward: Vec3
    extra: Mapping = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class PointsAt(OneBoneOneTarget):
    """Turn a bone so its tail points at a target."""

    type = "points_at"
    label = "points-at"
    has_up_vector = True
    limit: Limit | None = None
    up: UpVector | None = None

    def limits_by_bone(self):
        return ((self.bone, self.limit),) if self.limit is not None else ()

    def limit_on(self, bone):
        return self.limit

    def with_limit_on(self, bone, limit):
        return dataclasses.replace(self, limit=limit)
