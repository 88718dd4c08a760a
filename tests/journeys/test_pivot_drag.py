"""A newcomer drags the demo's pivots: a plain drag slides a pivot over the foot, in the foot's
own plane that faces the camera most; Shift keeps it at its height above the ground. What the
person sees is asserted too: the pivot's handle ends under the mouse."""

import numpy as np

from app.scene.analysis import projection
from app.scene.rig.refs import Ref, resolve
from tests.helpers import gui
from tests.helpers.gui import SHIFT, drag
from tests.helpers.paths import SCENES

ROLL = "foot_roll"


def _drag_ball(qtbot, frame, modifiers=gui.NO_MODS, by=(40, -30)):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", frame)
    doc, vp = win.document, win.viewport
    ref = Ref.pivot_of(ROLL, "ball")
    foot_to_world = doc.pose().bone_to_world[0, doc.scene.bone_index("foot")]
    forward = projection.camera_axes(vp.world_to_eye())[2]
    before = np.array(resolve(doc.scene, ref).position)
    world_before = vp.handle_position(ref).copy()
    start = vp.project([world_before])[0]
    end = start + np.asarray(by, float)
    drag(vp, start, end, modifiers, qtbot=qtbot)
    after = np.array(resolve(doc.scene, ref).position)
    return win, ref, foot_to_world, forward, before, after, end


def test_a_plain_drag_keeps_the_pivot_in_the_foot_plane_facing_the_camera(qtbot):
    win, ref, foot_to_world, forward, before, after, end = _drag_ball(qtbot, 45)
    # The foot's axis that faces the camera most, found here from the matrix columns.
    axes = foot_to_world[:3, :3] / np.linalg.norm(foot_to_world[:3, :3], axis=0)
    facing = int(np.argmax(np.abs(forward @ axes)))
    assert np.linalg.norm(after - before) > 0.02  # it moved, visibly
    # It slid within the foot's plane: its coordinate along that axis is unchanged (the camera
    # plane lifted it off the foot by 0.13 units).
    assert abs(after[facing] - before[facing]) < 1e-9
    assert win.document.undo_stack.undoText() == "Move pivot ball"
    # The handle the person sees is drawn under the mouse where the drag ended (the body is
    # moved by its own pivot for the whole timeline, so follow the handle, not the number).
    # Measured at the press's body frame: the point dropped is where the mouse let go.
    dropped = foot_to_world[:3, :3] @ after + foot_to_world[:3, 3]
    assert np.linalg.norm(win.viewport.project([dropped])[0] - end) < 1.5


def test_shift_drag_keeps_the_pivot_at_its_height(qtbot):
    win, ref, foot_to_world, forward, before, after, end = _drag_ball(qtbot, 0, SHIFT, (35, 10))
    world = lambda p: foot_to_world[:3, :3] @ p + foot_to_world[:3, 3]  # noqa: E731
    assert np.linalg.norm(after - before) > 0.02
    assert abs(world(after)[1] - world(before)[1]) < 1e-9  # on the ground plane through it
    assert np.linalg.norm(win.viewport.project([world(after)])[0] - end) < 1.5


def test_labels_never_cover_a_handle_as_the_foot_rolls(qtbot):
    """Stepping through the roll, every pivot's handle stays visible: no label's box covers
    its disc, and the disc's centre pixel shows the handle's colour, not text."""
    from app.scene.constraints.multi_parent.model import PIVOT_PART

    PIVOT_COLOR = np.array(PIVOT_PART.color)

    win = gui.open_window(qtbot, SCENES / "foot_roll.json", 0)
    vp = win.viewport
    dpr = vp.devicePixelRatioF()
    orange = np.array(PIVOT_COLOR[:3]) * 255
    for _ in range(12):
        image = gui.framebuffer(vp, qtbot)[..., ::-1]  # RGB
        centres = vp.project(np.array([p for _, p in vp.handles()]))
        for rect, _spot, text, _color in vp._drawing.labels.layout():
            for x, y in centres:
                assert not rect.adjusted(-6, -6, 6, 6).contains(float(x), float(y)), text
        for x, y in centres:
            if 0 <= x < vp.width() and 0 <= y < vp.height():
                pixel = image[int(y * dpr), int(x * dpr)]
                assert np.abs(pixel - orange).max() < 60, (win.document.frame, pixel)
        for _ in range(4):
            gui.key(vp, "Right")
