"""Gestures in the viewport: moving a handle, turning a pivot or bone with the arcball.

A gesture previews its edit live (:class:`app.editor.operations.base.LiveEdit`, or for the
arcball the gizmos' :class:`~app.widgets.viewport.interaction.transform_edit.Subject`) and
pushes one undo command on release; Escape cancels it and puts the item back exactly.

The arcball (Ctrl+drag) edits through the same :class:`~.transform_edit.Item` as the rotate
gizmo and R, so it follows their rule: a bone whose rotation is keyed gets a key at the
current frame, an unkeyed bone turns its rest pose; a pivot's rotation is always keyed.
"""

from __future__ import annotations

import numpy as np

from app.editor.operations.base import LiveEdit
from app.scene.analysis import projection
from app.scene.analysis.gizmo import arcball_rotation, rotation_in_world
from app.scene.rig import key_edits
from app.scene.rig.refs import POINT, Ref, resolve
from app.widgets.kinds import registry as views
from app.widgets.viewport.interaction.transform_edit import ROTATE, subject_for

#: How near (pixels) the cursor must be to a handle's centre to grab it.
HANDLE_RADIUS_PX = 10.0
#: The arcball's smallest radius on screen (pixels).
ARCBALL_RADIUS_PX = 90.0
GROUND_NORMAL = np.array([0.0, 1.0, 0.0])


def _frame_text(item_keys, frame: float) -> str:
    return f" at frame {frame:g}" if item_keys is not None else ""


class Drag:
    """A gesture in progress."""

    def __init__(self, viewport, document, live: LiveEdit):
        self.viewport = viewport
        self.document = document
        self.live = live

    def move(self, pixel, modifiers) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        if self.live.commit():
            self.document.notify(f"{self.live.done_text} (Ctrl+Z undoes)")

    def cancel(self) -> None:
        self.live.cancel()
        self.document.notify("Cancelled")


class MoveDrag(Drag):
    """Drag a point in a plane through it: ``normal`` (by default facing the camera), or the
    ground (Shift).

    Parameters
    ----------
    world_to_item : ndarray, shape (4, 4)
        Where the dragged position lives: a pivot's body frame at the time of the press
        (so the drag does not chase the body the pivot itself moves), or the identity.
    """

    def __init__(
        self,
        viewport,
        document,
        live,
        point_in_world,
        pixel,
        ground: bool,
        world_to_item,
        moved=key_edits.with_position,
        normal=None,
    ):
        super().__init__(viewport, document, live)
        self.moved = moved  # (item, frame, position in its frame) -> the moved item
        self.point = np.asarray(point_in_world, dtype=float)
        if ground:
            self.normal = GROUND_NORMAL
        elif normal is not None:
            self.normal = np.asarray(normal, dtype=float)
        else:
            self.normal = projection.camera_axes(viewport.world_to_eye())[2]
        self.world_to_item = world_to_item
        hit = self._hit(pixel)
        self.offset = self.point - hit if hit is not None else np.zeros(3)

    def _hit(self, pixel):
        origin, direction = self.viewport.ray(pixel)
        return projection.ray_plane(origin, direction, self.point, self.normal)

    def move(self, pixel, modifiers) -> None:
        hit = self._hit(pixel)
        if hit is None:
            return
        world = hit + self.offset
        local = self.world_to_item[:3, :3] @ world + self.world_to_item[:3, 3]
        self.live.preview(self.moved(self.live.original, self.document.frame, local))


class RotateDrag(Drag):
    """Turn a pivot's quaternion or a bone's local rotation with an arcball about its centre.

    ``subject`` (one item, from :func:`~.transform_edit.subject_for`) previews, commits and
    cancels, keying or editing the rest pose by the gizmos' rule.
    """

    def __init__(self, viewport, document, subject, pixel):
        super().__init__(viewport, document, subject)
        self.subject = subject
        self.center_world = np.asarray(subject.center, dtype=float)
        self.center_px = viewport.project(self.center_world[None])[0]
        self.start_px = np.asarray(pixel, dtype=float)
        self.radius = max(
            ARCBALL_RADIUS_PX, 1.05 * float(np.linalg.norm(self.start_px - self.center_px))
        )
        self.eye_to_world = np.linalg.inv(viewport.world_to_eye())
        viewport.show_ring(self.center_world, self.radius)

    def move(self, pixel, modifiers) -> None:
        q_eye = arcball_rotation(self.start_px, pixel, self.center_px, self.radius)
        self.subject.turn(rotation_in_world(q_eye, self.eye_to_world))

    def finish(self) -> None:
        self.viewport.show_ring(None, None)
        super().finish()

    def cancel(self) -> None:
        self.viewport.show_ring(None, None)
        super().cancel()


def start_drag(viewport, document, ref: Ref, pixel, ctrl: bool, shift: bool) -> Drag | None:
    """The gesture a press on ``ref`` begins, or ``None`` (with a note why) if none."""
    scene = document.scene
    frame = document.frame
    pose = document.pose()
    if ctrl:
        if not ref.turns:
            return None
        subject, why = subject_for(document, ROTATE, [ref])
        if subject is None:
            document.notify(why)
            return None
        if subject.note:  # a driven bone
            document.notify(subject.note)
        return RotateDrag(viewport, document, subject, pixel)
    if ref.part is not None and ref.part.on_body:  # a point on the body (a pivot)
        body = scene.constraint(ref.name).driven_bones()[0]
        pivot = resolve(scene, ref)
        body_to_world = pose.bone_to_world[0, scene.bone_index(body)]
        live = LiveEdit(
            document, ref, f"Move {ref.label()}" + _frame_text(pivot.position_keys, frame)
        )
        return MoveDrag(
            viewport,
            document,
            live,
            # The pivot in the world, placed as its handle is drawn (handles_of).
            body_to_world[:3, :3] @ key_edits.position_at(pivot, frame) + body_to_world[:3, 3],
            pixel,
            shift,
            np.linalg.inv(body_to_world),
            # Over the body: in its own plane through the pivot seen most nearly face on.
            normal=projection.facing_axis(
                body_to_world, projection.camera_axes(viewport.world_to_eye())[2]
            ),
        )
    if ref.kind == POINT:  # a bone's head: moves the bone (its translation, or a key)
        bone = scene.bone(ref.name)
        parent_to_world = (
            np.eye(4)
            if bone.parent is None
            else pose.bone_to_world[0, scene.bone_index(bone.parent)]
        )
        live = LiveEdit(
            document,
            Ref.bone(ref.name),
            f"Move bone {ref.name}" + _frame_text(bone.translation_keys, frame),
        )
        return MoveDrag(
            viewport,
            document,
            live,
            viewport.handle_position(ref),
            pixel,
            shift,
            np.linalg.inv(parent_to_world),
            key_edits.with_bone_translation,
        )
    if ref.part is not None:  # a target: a world position, or a bone's point it follows
        target = resolve(scene, ref)
        if target.bone is not None:
            if views.view_for(scene.constraint(ref.name)).target_position:
                how = "set it to a position (inspector or outliner menu) to drag it"
            else:  # a kind that follows a bone has no position to drag
                how = f"move {target.bone} itself, or choose another bone in the inspector"
            document.notify(f"The {ref.kind} of {ref.name} follows bone {target.bone}; {how}")
            return None
        live = LiveEdit(
            document, ref, f"Move {ref.label()}" + _frame_text(target.position_keys, frame)
        )
        return MoveDrag(
            viewport, document, live, viewport.handle_position(ref), pixel, shift, np.eye(4)
        )
    return None
