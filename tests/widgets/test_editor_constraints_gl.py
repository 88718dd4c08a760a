"""The editor on constraint scenes: dragging targets and poles, spaces, Compare, limits.

Real mouse events on a real OpenGL viewport (Xvfb + Mesa).
"""

import numpy as np
import pytest
from PySide6 import QtWidgets

from app.scene.evaluate import bake
from app.scene.rig import key_edits
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, click, drag, framebuffer, key
from tests.helpers.paths import SCENES

ARM = "arm reaches"


def open_window(qtbot, name, frame=0):
    return gui.open_window(qtbot, SCENES / name, frame)


def changed_pixels(a, b, threshold=40):
    return int((np.abs(a - b).max(axis=2) > threshold).sum())


def test_dragging_a_keyed_target_keys_it_and_the_arm_follows(qtbot):
    win = open_window(qtbot, "fabrik_arm.json", frame=25)
    doc, vp = win.document, win.viewport
    before = doc.scene.copy()
    image_before = framebuffer(vp, qtbot)
    tip = doc.scene.bone_index("fingers")
    tail_before = doc.pose().tails[0, tip].copy()
    start = vp.project([vp.handle_position(Ref.target_of(ARM))])[0]
    drag(vp, start, start + (-70, 45), qtbot=qtbot)
    target = doc.scene.constraint(ARM).target
    assert 25 in target.position_keys.frames  # keyed at the current frame
    assert doc.selection == (Ref.target_of(ARM),)
    moved_to = key_edits.position_at(target, 25)
    # the handle ends under the cursor
    assert np.allclose(vp.project([moved_to])[0], start + (-70, 45), atol=1.0)
    # the chain reaches for it: the evaluated pose is the bake of the edited scene
    assert np.allclose(doc.pose().tails, bake(doc.scene, [25]).tails)
    assert np.linalg.norm(doc.pose().tails[0, tip] - tail_before) > 0.05
    qtbot.wait(20)
    assert changed_pixels(image_before, framebuffer(vp, qtbot)) > 300
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == f"Move target of {ARM} at frame 25"
    after = doc.scene.copy()
    key(vp, "Z", CTRL)
    assert doc.scene == before
    doc.undo_stack.redo()
    assert doc.scene == after


def test_shift_drag_keeps_the_target_at_its_height(qtbot):
    win = open_window(qtbot, "fabrik_arm.json", frame=10)
    doc, vp = win.document, win.viewport
    ref = Ref.target_of(ARM)
    before = vp.handle_position(ref)
    start = vp.project([before])[0]
    drag(vp, start, start + (50, 30), SHIFT, qtbot=qtbot)
    after = key_edits.position_at(doc.scene.constraint(ARM).target, 10)
    assert np.isclose(after[1], before[1], atol=1e-9) and np.linalg.norm(after - before) > 0.02


def test_dragging_the_pole_moves_it_for_the_whole_timeline(qtbot):
    win = open_window(qtbot, "fabrik_arm.json", frame=40)
    doc, vp = win.document, win.viewport
    ref = Ref.pole_of(ARM)
    start = vp.project([vp.handle_position(ref)])[0]
    elbow = doc.scene.bone_index("forearm")
    elbow_before = doc.pose().heads[0, elbow].copy()
    drag(vp, start, start + (120, -20), qtbot=qtbot)
    pole = doc.scene.constraint(ARM).pole
    assert pole.position_keys is None and pole.position != (0.45, 1.1, -0.6)
    assert doc.undo_stack.undoText() == f"Move pole of {ARM}"
    assert np.allclose(doc.pose().heads, bake(doc.scene, [40]).heads)
    assert np.linalg.norm(doc.pose().heads[0, elbow] - elbow_before) > 1e-3  # it bends anew


def test_escape_cancels_a_drag(qtbot):
    win = open_window(qtbot, "fabrik_arm.json", frame=10)
    doc, vp = win.document, win.viewport
    before = doc.scene.copy()
    start = vp.project([vp.handle_position(Ref.target_of(ARM))])[0]
    from PySide6.QtTest import QTest

    from tests.helpers.gui import LEFT, NO_MODS, point

    QTest.mousePress(vp, LEFT, NO_MODS, point(start))
    QTest.mouseMove(vp, point(start + (40, 40)))
    assert doc.scene != before
    key(vp, "Escape")
    QTest.mouseRelease(vp, LEFT, NO_MODS, point(start + (40, 40)))
    assert doc.scene == before and doc.undo_stack.count() == 0


def test_space_toggle_compare_ghost_and_world_limit_violations(qtbot):
    win = open_window(qtbot, "calf_points_at_ankle.json", frame=30)
    doc, vp = win.document, win.viewport
    toggle = win.findChild(QtWidgets.QWidget, "spaceToggle")
    calf = doc.scene.bone_index("calf.l")
    object_pose = doc.pose()
    object_image = framebuffer(vp, qtbot)
    click(toggle.findChild(QtWidgets.QToolButton, "spaceWorld"), (10, 10))
    assert doc.space == "world"
    world_pose = doc.pose()
    expected = bake(doc.scene, [30], space="world")
    assert np.allclose(world_pose.tails, expected.tails)
    # world space ignores the hinge: the calf turns further, and it is reported
    assert np.linalg.norm(world_pose.tails[0, calf] - object_pose.tails[0, calf]) > 0.05
    assert world_pose.limit_violation_deg[0, calf] > 1
    qtbot.wait(20)
    world_image = framebuffer(vp, qtbot)
    assert changed_pixels(object_image, world_image) > 100
    # the violated bone is drawn red
    red = (world_image[..., 2] > 180) & (world_image[..., 1] < 90) & (world_image[..., 0] < 100)
    assert red.sum() > 30
    assert any(t.startswith("calf.l +") and "past limit" in t for t in vp.labels())
    # the scene itself is untouched: the toggle is not an edit
    assert doc.undo_stack.count() == 0 and doc.scene.constraints[0].space == "object"
    # Compare: the other space appears as a translucent ghost, and the table lists the bones
    compare_button = win.findChild(QtWidgets.QToolButton, "compareToggle")
    click(compare_button, (10, 10))
    assert doc.compare and win.compare_dock.isVisible()
    qtbot.wait(20)
    compare_image = framebuffer(vp, qtbot)
    assert changed_pixels(world_image, compare_image, threshold=12) > 100
    rows = {r[0]: r for r in win.compare_table.rows()}
    assert rows["calf.l"][2] > 1 and rows["calf.l"][3] > 1  # angle apart, world violation
    assert rows["hip"][1] == 0 and rows["hip"][2] < 1e-6
    table = win.compare_table.table
    texts = {table.item(r, 0).text(): table.item(r, 3).text() for r in range(table.rowCount())}
    assert texts["calf.l"].startswith("+") and texts["hip"] == "—"
    # scrubbing updates the table
    angle_30 = rows["calf.l"][2]
    doc.set_frame(60)
    assert {r[0]: r for r in win.compare_table.rows()}["calf.l"][2] != angle_30
    # "as authored" restores each constraint's own space
    click(toggle.findChild(QtWidgets.QToolButton, "spaceAuthored"), (10, 10))
    assert doc.space is None
    doc.set_frame(30)
    assert np.allclose(doc.pose().tails, object_pose.tails)
    # as authored (object) with the world ghost: the violation is marked on the ghost
    assert doc.compare and doc.ghost_space() == "world"
    assert any("past limit (world)" in t for t in vp.labels())


@pytest.mark.parametrize("scene", ["fabrik_arm.json", "calf_points_at_ankle.json"])
def test_constraint_scenes_open_and_every_frame_matches_the_bake(qtbot, scene):
    win = open_window(qtbot, scene)
    doc = win.document
    doc.prepare_timeline()
    full = bake(doc.scene)
    for frame in (0, 17, 60, 120):
        doc.set_frame(frame)
        assert np.allclose(doc.pose().bone_to_world[0], full.bone_to_world[frame])


def test_authored_space_is_an_edit_the_toggle_is_not(qtbot):
    win = open_window(qtbot, "calf_points_at_ankle.json", frame=30)
    doc = win.document
    name = "calf.l points at right ankle"
    before = doc.scene.copy()
    doc.set_selection([Ref.constraint(name)])
    combo = win.inspector.findChild(QtWidgets.QComboBox, "constraintSpace")
    assert combo.currentText() == "object"
    combo.setCurrentText("world")  # what choosing it in the list does
    assert doc.scene.constraint(name).space == "world" and doc.dirty
    assert doc.undo_stack.undoText() == f"Set space of {name} to world"
    assert np.allclose(doc.pose().tails, bake(doc.scene, [30]).tails)
    key(win.viewport, "Z", CTRL)
    assert doc.scene == before and not doc.dirty
    assert combo.currentText() == "object"  # the inspector follows the undo
