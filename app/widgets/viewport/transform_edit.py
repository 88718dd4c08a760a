"""What a rotate or move gesture edits (a bone, a pivot, a target), however it is driven.

The gizmo's rings and arrows and the modal G/R keys all turn or move one item by a world
rotation about its centre or a world offset; :class:`Subject` turns that into the item's
own numbers and previews them (:class:`app.editor.operations.LiveEdit`: one undo command
when the gesture ends, nothing at all when it is cancelled). Like the arcball and handle
drags, a change keys the channel at the current frame when it is animated and edits the
static (rest) value otherwise; a pivot's rotation only means something as animation and is
always keyed.

:class:`Dial` reads an angle about an axis from the cursor; :class:`Slide` a distance along
an axis or an offset in the plane facing the camera.
"""

from __future__ import annotations

import numpy as np

from app.editor.operations import LiveEdit
from app.scene.analysis import projection
from app.scene.analysis.gizmo import turn_in_frame
from app.scene.analysis.transform_math import (
    DIAL_MIN_COSINE,
    axis_facing,
    axis_parameter,
    dial_sign,
    ring_points,
    screen_angle,
    tangent_angle,
    unwrap,
)
from app.scene.math import quat
from app.scene.math.transforms import rotation_from_matrix
from app.scene.rig import editing
from app.scene.rig.editing import BONE, PIVOT, TARGET_KINDS, Ref
from app.widgets.viewport.scene_drawing import handles_of

ROTATE, MOVE = "rotate", "move"
#: What each gesture can edit.
ROTATABLE = (BONE, PIVOT)
MOVABLE = (BONE, PIVOT, *TARGET_KINDS)
IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])


def _unit_columns(m) -> np.ndarray:
    m = np.asarray(m, dtype=float)[:3, :3]
    return m / np.maximum(np.linalg.norm(m, axis=0, keepdims=True), 1e-12)


def _at(frame: float) -> str:
    return f" at frame {frame:g}"


class Subject:
    """One item being turned or moved by a gesture.

    Attributes
    ----------
    ref : Ref
    center : ndarray, shape (3,)
        World point the item turns about (a bone's head, a pivot) or moves from.
    local_axes : ndarray, shape (3, 3)
        Columns: the item's own x, y, z in world (a bone's frame; a pivot's body's frame;
        the world's for a target).
    """

    def __init__(self, document, ref: Ref, mode: str):
        self.document = document
        self.ref = ref
        self.mode = mode
        scene, frame, pose = document.scene, document.frame, document.pose()
        item = editing.resolve(scene, ref)
        self.local_axes = np.eye(3)
        self.frame_rotation = IDENTITY_Q  # the frame the item's rotation is read in
        self.world_to_item = np.eye(4)  # where its position lives
        if ref.kind == BONE:
            i = scene.bone_index(ref.name)
            self.center = pose.heads[0, i].copy()
            self.local_axes = _unit_columns(pose.bone_to_world[0, i])
            parent = None if item.parent is None else scene.bone_index(item.parent)
            parent_to_world = np.eye(4) if parent is None else pose.bone_to_world[0, parent]
            self.frame_rotation = rotation_from_matrix(parent_to_world)
            self.world_to_item = np.linalg.inv(parent_to_world)
            keys = item.rotation_keys if mode == ROTATE else item.translation_keys
            self.keyed = keys is not None
            self.start_value = (editing.rotation_at(item, frame) if mode == ROTATE
                                else editing.translation_at(item, frame))  # fmt: skip
        else:
            c = scene.constraint(ref.name)
            self.center = next(p for r, p in handles_of(document) if r == ref).copy()
            if ref.kind == PIVOT:
                body_to_world = pose.bone_to_world[0, scene.bone_index(c.body)]
                self.local_axes = _unit_columns(body_to_world)
                if (document.space or c.space) == "object":
                    self.frame_rotation = rotation_from_matrix(body_to_world)
                self.world_to_item = np.linalg.inv(body_to_world)
                self.keyed = mode == ROTATE or item.position_keys is not None
                self.start_value = (editing.rotation_at(item, frame) if mode == ROTATE
                                    else editing.position_at(item, frame))  # fmt: skip
            else:
                self.keyed = item.position_keys is not None
                self.start_value = editing.position_at(item, frame)
        self.note = ""  # said in the status bar when the gesture begins
        if ref.kind == BONE:
            driven = [c.name for c in scene.constraints if ref.name in c.driven_bones()]
            if driven:
                self.note = (f"{ref.name} is driven by {', '.join(driven)}; its values show "
                             "only where the constraint lets them")  # fmt: skip
        verb = "Rotate" if mode == ROTATE else "Move"
        self.live = LiveEdit(document, ref, f"{verb} {ref.label()}"
                             + (_at(frame) if self.keyed else ""))  # fmt: skip

    @property
    def text(self) -> str:
        """The undo command's name."""
        return self.live.text

    def axes(self, local: bool) -> np.ndarray:
        """Columns: the X, Y, Z the gesture turns about or moves along (world or local)."""
        return self.local_axes if local else np.eye(3)

    def rotate(self, delta_in_world) -> None:
        """Preview the item turned by the world rotation ``delta_in_world`` (4,) about
        :attr:`center`."""
        q = turn_in_frame(self.start_value, delta_in_world, self.frame_rotation)
        item, frame = self.live.original, self.document.frame
        if self.ref.kind == PIVOT:
            new = editing.with_pivot_rotation(item, frame, q)
        elif self.keyed:
            new = editing.with_bone_rotation(item, frame, q)
        else:
            new = editing.with_bone_rest(item, rotation=q)
        self.live.preview(new)

    def rotate_about(self, axis, angle: float) -> None:
        """Preview a turn of ``angle`` radians about the world direction ``axis``."""
        self.rotate(quat.from_axis_angle(np.asarray(axis, dtype=float), angle))

    def move(self, offset_in_world) -> None:
        """Preview the item's point moved by the world vector ``offset_in_world`` (3,)."""
        world = self.center + np.asarray(offset_in_world, dtype=float)
        local = self.world_to_item[:3, :3] @ world + self.world_to_item[:3, 3]
        item, frame = self.live.original, self.document.frame
        if self.ref.kind == BONE:
            self.live.preview(editing.with_bone_translation(item, frame, local))
        else:
            self.live.preview(editing.with_position(item, frame, local))

    def reset(self) -> None:
        """Back to the item as it was (the gesture goes on)."""
        self.live.cancel()
        self.live.new_owner = self.live.old_owner

    def commit(self) -> bool:
        return self.live.commit()

    def cancel(self) -> None:
        self.live.cancel()


def subject_for(document, ref: Ref | None, mode: str) -> tuple[Subject | None, str]:
    """The subject a gesture on ``ref`` edits, or ``(None, why not)``."""
    if ref is None:
        return None, "Select a bone, a pivot or a target first"
    kinds = ROTATABLE if mode == ROTATE else MOVABLE
    if ref.kind not in kinds:
        what = "a bone or a pivot" if mode == ROTATE else "a bone, a pivot or a target"
        return None, f"{ref.label().capitalize()} cannot be {mode}d; select {what}"
    if ref.kind in TARGET_KINDS and editing.resolve(document.scene, ref).bone is not None:
        return None, (f"The {ref.kind} of {ref.name} follows a bone; set it to a position "
                      "(inspector or outliner menu) to move it")  # fmt: skip
    return Subject(document, ref, mode), ""


class Dial:
    """The angle about a world axis that the cursor has turned since the press.

    Face-on (or when ``ring_radius`` is not given) the angle is the one the cursor sweeps
    around the centre on screen; edge-on rings turn by the cursor's travel along the
    ring's tangent at the grabbed point.
    """

    def __init__(self, viewport, center, axis, start_px, ring_radius: float | None = None):
        self.viewport = viewport
        self.center = np.asarray(center, dtype=float)
        self.axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
        self.start = np.asarray(start_px, dtype=float)
        eye = projection.eye_position(viewport.world_to_eye())
        self.center_px = viewport.project(self.center[None])[0]
        self.sign = dial_sign(self.axis, self.center, eye)
        self.tangent_px = None
        self.radius = ring_radius
        self._last = 0.0
        if ring_radius is not None and axis_facing(self.axis, self.center, eye) < DIAL_MIN_COSINE:
            self.tangent_px = self._tangent_at_press()

    def _tangent_at_press(self) -> np.ndarray:
        ring = ring_points(self.center, self.axis, self.radius)
        screen = self.viewport.project(ring)
        d = np.linalg.norm(screen - self.start, axis=1)
        g = ring[int(np.nanargmin(d))]
        t = np.cross(self.axis, g - self.center)
        t /= np.linalg.norm(t)
        eps = 1e-3 * self.radius
        ends = self.viewport.project(np.array([g, g + eps * t]))
        return (ends[1] - ends[0]) / eps

    def angle(self, pixel) -> float:
        """Radians, positive about :attr:`axis`."""
        if self.tangent_px is not None:
            return tangent_angle(np.asarray(pixel, float) - self.start, self.tangent_px,
                                 self.radius)  # fmt: skip
        if np.linalg.norm(np.asarray(pixel, float) - self.center_px) < 2.0:
            return self.sign * self._last  # at the centre the angle is undefined
        self._last = unwrap(self._last, screen_angle(self.center_px, self.start, pixel))
        return self.sign * self._last


class Slide:
    """The world offset the cursor has dragged a point since the press: along an axis
    (the point of the axis nearest the cursor's ray) or, without one, in the plane through
    the point facing the camera."""

    def __init__(self, viewport, center, start_px, axis=None):
        self.viewport = viewport
        self.center = np.asarray(center, dtype=float)
        self.axis = None if axis is None else np.asarray(axis, float) / np.linalg.norm(axis)
        self.normal = projection.camera_axes(viewport.world_to_eye())[2]
        self.start = self._read(start_px)

    def _read(self, pixel):
        origin, direction = self.viewport.ray(pixel)
        if self.axis is None:
            return projection.ray_plane(origin, direction, self.center, self.normal)
        s = axis_parameter(origin, direction, self.center, self.axis)
        return None if s is None else self.center + s * self.axis

    def offset(self, pixel) -> np.ndarray | None:
        """World offset (3,), or ``None`` where the cursor's ray misses."""
        now = self._read(pixel)
        if now is None or self.start is None:
            return None
        return now - self.start
