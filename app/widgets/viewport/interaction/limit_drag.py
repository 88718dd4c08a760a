"""Dragging a limit in the viewport: a cone's rim sets its angle, a hinge's ends its
``min`` and ``max``. The point under the cursor is found on the CPU: in the plane of the
hinge's arc, or for a cone in the plane through the grabbed rim point facing the camera.
One undo command on release ("Set limit of ..."); Escape puts the limit back.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.editor.operations.base import LiveEdit
from app.scene.analysis import limit_shapes, projection
from app.scene.rig import constraint_edits
from app.scene.rig.model import ConeLimit
from app.scene.rig.refs import Ref
from app.widgets.viewport.interaction.drag import HANDLE_RADIUS_PX, Drag
from app.widgets.viewport.limit_items import shown_shapes

#: How near (pixels) the cursor must be to a cone's rim to grab it.
RIM_RADIUS_PX = 6.0


class LimitDrag(Drag):
    """Drag a cone's angle (``end is None``) or a hinge's ``min`` (0) or ``max`` (1)."""

    def __init__(self, viewport, document, shape, end, grabbed_point):
        name = shape.constraint
        live = LiveEdit(document, Ref.constraint(name), f"Drag limit of {name}")
        super().__init__(viewport, document, live)
        self.shape = shape
        self.end = end
        if end is None:
            self.plane = (
                np.asarray(grabbed_point, float),
                projection.camera_axes(viewport.world_to_eye())[2],
            )
        else:
            self.plane = (shape.head, shape.hinge_axis)

    def _point(self, pixel):
        origin, direction = self.viewport.ray(pixel)
        return projection.ray_plane(origin, direction, *self.plane)

    def limit_at(self, pixel):
        """The limit with the dragged value under ``pixel`` (``None``: no change)."""
        point = self._point(pixel)
        if point is None:
            return None
        limit = self.shape.limit
        if self.end is None:
            return dataclasses.replace(limit, degrees=limit_shapes.cone_angle_at(self.shape, point))
        angle = limit_shapes.hinge_angle_at(self.shape, point)
        lo, hi = (angle, max(angle, limit.max)) if self.end == 0 else (min(angle, limit.min), angle)
        return dataclasses.replace(limit, min=lo, max=hi)

    def move(self, pixel, modifiers) -> None:
        limit = self.limit_at(pixel)
        if limit is None:
            return
        name = self.shape.constraint
        constraint = self.live.old_owner
        bone = self.shape.bone if constraint.limits_per_bone else None
        self.live.preview(constraint_edits.with_limit(constraint, limit, bone))
        self.live.text = (
            f"Set limit of {name}"
            + (f" on {bone}" if bone else "")
            + (
                f" to cone {limit.degrees:.1f}°"
                if isinstance(limit, ConeLimit)
                else f" to hinge {limit.min:.1f}..{limit.max:.1f}°"
            )
        )


def limit_under(viewport, document, pixel):
    """``(shape, end, grabbed point)`` of the shown limit part under ``pixel`` (a hinge end:
    ``end`` 0 or 1; a cone rim: ``end`` ``None``), or ``None``."""
    pixel = np.asarray(pixel, float)
    for shape in shown_shapes(document):
        if isinstance(shape.limit, ConeLimit):
            rim = limit_shapes.cone_rim(shape)
            screen = viewport.project(rim)
            d = projection.segment_distances(pixel, screen, np.roll(screen, -1, axis=0))
            k = int(np.argmin(d))
            if d[k] <= RIM_RADIUS_PX:
                return shape, None, rim[k]
        else:
            ends = limit_shapes.hinge_ends(shape)
            i = projection.nearest_within(viewport.project(ends), pixel, HANDLE_RADIUS_PX)
            if i >= 0:
                return shape, i, ends[i]
    return None


def start_limit_drag(viewport, document, pixel) -> LimitDrag | None:
    """The limit drag a press at ``pixel`` begins (on a hinge end or a cone rim), or ``None``."""
    found = limit_under(viewport, document, pixel)
    return None if found is None else LimitDrag(viewport, document, *found)
