"""Limits drawn in the viewport and dragged with the mouse: a hinge's ends set its min and
max, a cone's rim its angle. One named undo step per drag; the pixels change."""

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.editor.operations import constraint_operations
from app.scene.analysis import limit_shapes
from app.scene.rig import constraint_edits
from app.scene.rig.model import ConeLimit
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import drag, framebuffer
from tests.helpers.paths import SCENES

AIM = "calf.l points at right ankle"


def changed_pixels(a, b, threshold=40):
    return int((np.abs(a - b).max(axis=2) > threshold).sum())


def test_dragging_a_hinge_end_sets_its_max(qtbot):
    win = gui.open_window(qtbot, SCENES / "calf_points_at_ankle.json", frame=30)
    doc, vp = win.document, win.viewport
    bare = framebuffer(vp, qtbot)
    doc.set_selection([Ref.constraint(AIM)])
    qtbot.wait(30)
    shown = framebuffer(vp, qtbot)
    assert changed_pixels(bare, shown) > 300  # the arc, its spokes and ends appear
    (shape,) = limit_shapes.shapes(doc.scene, doc.pose().bone_to_world[0], 30)
    assert shape.limit.max == 140.0
    # where the max end is: the rest tail turned 140° about the hinge axis (scipy)
    turn = Rotation.from_rotvec(np.radians(140) * shape.hinge_axis)
    max_end = shape.head + turn.apply(shape.rest_tail)
    assert np.allclose(limit_shapes.hinge_ends(shape)[1], max_end)
    goal = shape.head + Rotation.from_rotvec(np.radians(95) * shape.hinge_axis).apply(
        shape.rest_tail
    )
    start, end = vp.project([max_end, goal])
    QTest.mouseMove(vp, gui.point(start))  # hovering an end says it can be grabbed
    # The move may reach the viewport through the window system (asynchronously under load).
    qtbot.waitUntil(
        lambda: vp.cursor().shape() == QtCore.Qt.CursorShape.OpenHandCursor, timeout=2000
    )
    drag(vp, start, end, qtbot=qtbot)
    limit = doc.scene.constraint(AIM).limit
    assert limit.min == 0.0 and abs(limit.max - 95.0) < 1.0  # a pixel's worth
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == f"Set limit of {AIM} to hinge 0.0..{limit.max:.1f}°"
    qtbot.wait(30)
    assert changed_pixels(shown, framebuffer(vp, qtbot)) > 50
    gui.key(vp, "Z", gui.CTRL)
    assert doc.scene.constraint(AIM).limit.max == 140.0


def test_dragging_a_cone_rim_widens_the_cone(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json", frame=30)
    doc, vp = win.document, win.viewport
    name = "arm reaches"
    constraint_operations.set_limit(doc, name, constraint_edits.cone(20), "hand")
    doc.set_selection([Ref.bone("hand")])  # a selected bone shows its limits too
    qtbot.wait(30)
    shape = [
        s
        for s in limit_shapes.shapes(doc.scene, doc.pose().bone_to_world[0], 30)
        if s.bone == "hand"
    ][0]
    rim = limit_shapes.cone_rim(shape)
    # every rim point lies 20° off the rest direction, a bone's length from the head
    d = rim - shape.head
    cos = d @ shape.rest_tail / np.linalg.norm(d, axis=1) / np.linalg.norm(shape.rest_tail)
    assert np.allclose(np.degrees(np.arccos(cos)), 20)
    screen = vp.project(rim)
    center = vp.project([shape.head + shape.rest_tail])[0]
    k = int(np.argmax(np.linalg.norm(screen - center, axis=1)))  # the rim point most apart
    start = screen[k]
    out = (start - center) / np.linalg.norm(start - center)
    image = framebuffer(vp, qtbot)
    count = doc.undo_stack.count()
    drag(vp, start, start + 25 * out, qtbot=qtbot)
    limit = doc.scene.constraint(name).limits["hand"]
    assert isinstance(limit, ConeLimit) and limit.degrees > 22
    assert doc.undo_stack.count() == count + 1
    assert doc.undo_stack.undoText() == f"Set limit of {name} on hand to cone {limit.degrees:.1f}°"
    # the angle is that of the point under the cursor (to a pixel: the mouse moves in whole
    # pixels), in the plane through the grabbed rim point facing the camera
    normal = vp.world_to_eye()[2, :3]
    angles = []
    for nudge in ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
        origin, direction = vp.ray(start + 25 * out + nudge)
        t = ((rim[k] - origin) @ normal) / (direction @ normal)
        p = origin + t * direction - shape.head
        angles.append(
            np.degrees(
                np.arccos(p @ shape.rest_tail / np.linalg.norm(p) / np.linalg.norm(shape.rest_tail))
            )
        )
    assert min(angles) - 0.1 < limit.degrees < max(angles) + 0.1
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 50
