"""What a rotate or move gesture edits (a bone, a pivot, a target), however it is driven.

The gizmo's rings and arrows and the modal G/R keys all turn or move the selected items by
a world rotation about each one's centre or by a world offset; :class:`Item` turns that into
an item's own numbers and :class:`Subject` previews them for the whole selection (one undo
entry when the gesture ends, nothing at all when it is cancelled). Like the arcball and handle
drags, a change keys the channel at the current frame when it is animated and edits the
static (rest) value otherwise; a pivot's rotation only means something as animation and is
always keyed.

:class:`Dial` reads an angle about an axis from the cursor; :class:`Slide` a distance along
an axis or an offset in the plane facing the camera.
"""

from __future__ import annotations

import numpy as np

from app.editor.commands import ReplaceItem
from app.editor.operations.key_operations import rest_keyed_too
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
from app.scene.rig import bone_edits, key_edits
from app.scene.rig.refs import BONE, Ref, follows_a_bone, owner_of, replace_in, resolve
from app.widgets.viewport.scene_drawing import handle_at

ROTATE, MOVE = "rotate", "move"


def _can(ref: Ref, mode: str) -> bool:
    """Whether gesture ``mode`` edits ``ref``: R a bone or a part that turns (a pivot); G a
    bone or any part (a pivot, a target)."""
    return ref.turns if mode == ROTATE else ref.kind == BONE or ref.is_part


IDENTITY_Q = np.array([1.0, 0.0, 0.0, 0.0])


def _unit_columns(m) -> np.ndarray:
    m = np.asarray(m, dtype=float)[:3, :3]
    return m / np.maximum(np.linalg.norm(m, axis=0, keepdims=True), 1e-12)


def _at(frame: float) -> str:
    return f" at frame {frame:g}"


class Item:
    """One item a gesture turns or moves, read when the gesture begins.

    Attributes
    ----------
    ref : Ref
    center : ndarray, shape (3,)
        World point the item turns about (a bone's head, a pivot) or moves from.
    local_axes : ndarray, shape (3, 3)
        Columns: the item's own x, y, z in world (a bone's frame; a pivot's body's frame;
        the world's for a target).
    keyed : bool
        Whether the edited channel is animated (the gesture keys it) or static.
    """

    def __init__(self, document, ref: Ref, mode: str):
        self.ref = ref
        self.mode = mode
        self.frame = document.frame
        scene, frame, pose = document.scene, document.frame, document.pose()
        self.original = item = resolve(scene, ref)
        self.first_frame = scene.frame_start  # a pivot's first key keys its rest there too
        self.collection, self.index = owner_of(scene, ref)
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
            self.start_value = (
                key_edits.rotation_at(item, frame)
                if mode == ROTATE
                else key_edits.translation_at(item, frame)
            )
        else:
            c = scene.constraint(ref.name)
            self.center = handle_at(document, ref).copy()  # as its handle is drawn
            if ref.part.on_body:  # a point on the body, in its frame (a pivot)
                body_to_world = pose.bone_to_world[0, scene.bone_index(c.driven_bones()[0])]
                self.local_axes = _unit_columns(body_to_world)
                if (document.space or c.space) == "object":
                    self.frame_rotation = rotation_from_matrix(body_to_world)
                self.world_to_item = np.linalg.inv(body_to_world)
                self.keyed = mode == ROTATE or item.position_keys is not None
                self.start_value = (
                    key_edits.rotation_at(item, frame)
                    if mode == ROTATE
                    else key_edits.position_at(item, frame)
                )
            else:
                self.keyed = item.position_keys is not None
                self.start_value = key_edits.position_at(item, frame)

    def rotated(self, delta_in_world):
        """The item turned by the world rotation ``delta_in_world`` (4,) about its centre."""
        q = turn_in_frame(self.start_value, delta_in_world, self.frame_rotation)
        if self.ref.is_part:  # a part that turns (a pivot): its rotation is always keyed
            return key_edits.with_pivot_rotation(self.original, self.frame, q, self.first_frame)
        if self.keyed:
            return key_edits.with_bone_rotation(self.original, self.frame, q)
        return bone_edits.with_bone_rest(self.original, rotation=q)

    def moved(self, offset_in_world):
        """The item with its point moved by the world vector ``offset_in_world`` (3,)."""
        world = self.center + np.asarray(offset_in_world, dtype=float)
        local = self.world_to_item[:3, :3] @ world + self.world_to_item[:3, 3]
        if self.ref.kind == BONE:
            return key_edits.with_bone_translation(self.original, self.frame, local)
        return key_edits.with_position(self.original, self.frame, local)


class Subject:
    """What one gesture edits: the selected items that can be turned (or moved), each about
    its own centre (Blender's "individual origins"); the active one (selected last) places
    the gizmo and gives the dial its centre.

    Previews replace the items' owners (a bone, or the constraint that holds a pivot or a
    target; two pivots of one constraint share it) from the state the gesture began in;
    :meth:`commit` pushes one undo entry, :meth:`cancel` restores everything exactly.
    """

    def __init__(self, document, items: list[Item], mode: str):
        self.document = document
        self.items = items
        self.mode = mode
        self.active = items[-1]
        self.ref = self.active.ref
        self.refs = [it.ref for it in items]
        scene = document.scene
        self.old_owners = {
            (it.collection, it.index): getattr(scene, it.collection)[it.index] for it in items
        }
        self.new_owners = dict(self.old_owners)
        verb = "Rotate" if mode == ROTATE else "Move"
        keyed = any(it.keyed for it in items)
        self.text = f"{verb} {', '.join(r.label() for r in self.refs)}" + (
            _at(document.frame) if keyed else ""
        )
        self.note = ""  # said in the status bar when the gesture begins
        rest = rest_keyed_too(scene, self.refs, document.frame) if mode == ROTATE else ""
        #: said in the status bar when the gesture is done (a pivot's rest keyed too)
        self.done_text = f"{self.text}{rest}"
        bones = {r.name for r in self.refs if r.kind == BONE}
        driven = sorted({c.name for c in scene.constraints for b in c.driven_bones() if b in bones})
        if driven:
            self.note = (
                f"Driven by {', '.join(driven)}: a driven bone's values show only "
                "where the constraint lets them"
            )

    @property
    def center(self) -> np.ndarray:
        return self.active.center

    def axes(self, local: bool) -> np.ndarray:
        """Columns: the active item's X, Y, Z (its own, or the world's)."""
        return self.active.local_axes if local else np.eye(3)

    def _preview(self, new_items) -> None:
        owners = dict(self.old_owners)
        for it, new in zip(self.items, new_items):
            key = (it.collection, it.index)
            owners[key] = replace_in(owners[key], it.ref, new)
        for (collection, index), owner in owners.items():
            if owner is not self.new_owners[(collection, index)]:
                self.document.set_item(collection, index, owner)
        self.new_owners = owners

    def turn(self, delta_in_world) -> None:
        """Preview every item turned by the world rotation ``delta_in_world`` (4,) about
        its own centre (the arcball's whole turn)."""
        self._preview([it.rotated(delta_in_world) for it in self.items])

    def rotate_about(self, axis, angle: float, k: int | None = None, local: bool = False):
        """Preview a turn of ``angle`` radians about the world direction ``axis``; with
        ``local`` each item turns about its own axis ``k`` instead."""

        def delta(it):
            a = it.local_axes[:, k] if local and k is not None else np.asarray(axis, float)
            return quat.quat_from_axis_angle(a, angle)

        self._preview([it.rotated(delta(it)) for it in self.items])

    def move(self, offset_in_world, k: int | None = None, local: bool = False) -> None:
        """Preview every item moved by the world vector ``offset_in_world`` (3,); with
        ``local`` each moves that far along its own axis ``k``."""
        offset = np.asarray(offset_in_world, dtype=float)
        if local and k is not None:
            distance = float(offset @ self.active.local_axes[:, k])
            self._preview([it.moved(distance * it.local_axes[:, k]) for it in self.items])
        else:
            self._preview([it.moved(offset) for it in self.items])

    def reset(self) -> None:
        """Back to the items as they were (the gesture goes on)."""
        self._preview([it.original for it in self.items])

    def commit(self) -> bool:
        """Push one undo entry (if anything changed); returns whether it did."""
        changed = [
            (key, self.old_owners[key], new)
            for key, new in self.new_owners.items()
            if new != self.old_owners[key]
        ]
        if not changed:
            self.cancel()
            return False
        stack = self.document.undo_stack
        if len(changed) > 1:
            stack.beginMacro(self.text)
        for (collection, index), old, new in changed:
            stack.push(ReplaceItem(self.document, collection, index, old, new, self.text))
        if len(changed) > 1:
            stack.endMacro()
        return True

    def cancel(self) -> None:
        for (collection, index), old in self.old_owners.items():
            if getattr(self.document.scene, collection)[index] is not old:
                self.document.set_item(collection, index, old)
        self.new_owners = dict(self.old_owners)


def _ancestors(scene, name: str) -> set[str]:
    out = set()
    parent = scene.bone(name).parent
    while parent is not None:
        out.add(parent)
        parent = scene.bone(parent).parent
    return out


def subject_for(document, mode: str, refs=None) -> tuple[Subject | None, str]:
    """What a gesture edits: the selected items it can turn (or move), or ``(None, why
    not)``. A bone whose ancestor is selected too is left to follow it (as in Blender)."""
    refs = list(document.selection if refs is None else refs)
    if not refs:
        what = (
            "R turns the selected bones and pivots"
            if mode == ROTATE
            else "G moves the selected bones, pivots and targets"
        )
        return None, f"{what}: select some first"
    scene = document.scene
    usable = [r for r in refs if _can(r, mode) and not follows_a_bone(scene, r)]
    bones = {r.name for r in usable if r.kind == BONE}
    usable = [r for r in usable if r.kind != BONE or not (_ancestors(scene, r.name) & bones)]
    if not usable:
        ref = refs[-1]
        if _can(ref, mode) and follows_a_bone(scene, ref):
            return None, (
                f"The {ref.kind} of {ref.name} follows a bone; set it to a position "
                "(inspector or outliner menu) to move it"
            )
        what = "a bone or a pivot" if mode == ROTATE else "a bone, a pivot or a target"
        return None, f"{ref.label().capitalize()} cannot be {mode}d; select {what}"
    return Subject(document, [Item(document, r, mode) for r in usable], mode), ""


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
            return tangent_angle(
                np.asarray(pixel, float) - self.start, self.tangent_px, self.radius
            )
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
