"""The demo scene, the foot roll, in the editor: pivots dragged and turned with real mouse
events, spaces toggled, the Compare ghost, the stale-cache note. Real OpenGL (Xvfb)."""

import numpy as np
from PySide6 import QtWidgets
from scipy.spatial.transform import Rotation

from app.scene.evaluate import bake
from app.scene.rig import key_edits
from app.scene.rig.refs import Ref, resolve
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, click, drag, framebuffer, key
from tests.helpers.paths import SCENES

ROLL = "foot_roll"
FRAME = 14  # mid-step: the heel and ball pivots are turning


def open_foot_roll(qtbot, frame=FRAME):
    return gui.open_window(qtbot, SCENES / "foot_roll.json", frame)


def changed(a, b, threshold=40):
    return np.abs(a - b).max(axis=2) > threshold


def body_mask(win, pose, dpr):
    """Pixels near the projected bones of a pose (where the body is drawn)."""
    vp = win.viewport
    h, w = int(vp.height() * dpr), int(vp.width() * dpr)
    mask = np.zeros((h, w), bool)
    for head, tail in zip(pose.heads[0], pose.tails[0]):
        for t in np.linspace(0, 1, 40):
            x, y = vp.project([head + t * (tail - head)])[0] * dpr
            if 0 <= x < w and 0 <= y < h:
                mask[max(int(y) - 3, 0) : int(y) + 4, max(int(x) - 3, 0) : int(x) + 4] = True
    return mask


def test_dragging_a_pivot_moves_it_on_the_body_and_the_body_moves(qtbot):
    win = open_foot_roll(qtbot)
    doc, vp = win.document, win.viewport
    dpr = vp.devicePixelRatioF()
    before_scene = doc.scene.copy()
    before_pose = doc.pose()
    before = framebuffer(vp, qtbot)
    ref = Ref.pivot_of(ROLL, "heel")
    start = vp.project([vp.handle_position(ref)])[0]
    drag(vp, start, start + (-60, -25), qtbot=qtbot)
    heel = resolve(doc.scene, ref)
    assert heel.position != resolve(before_scene, ref).position  # moved on the body
    assert heel.position_keys is None  # not animated: the whole timeline
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Move pivot heel"
    after_pose = doc.pose()
    assert np.allclose(after_pose.bone_to_world, bake(doc.scene, [FRAME]).bone_to_world)
    foot = doc.scene.bone_index("foot")
    assert np.linalg.norm(after_pose.heads[0, foot] - before_pose.heads[0, foot]) > 1e-3
    qtbot.wait(30)
    after = framebuffer(vp, qtbot)
    # pixels where the body was drawn changed
    moved = changed(before, after) & body_mask(win, before_pose, dpr)
    assert moved.sum() > 20
    after_scene = doc.scene.copy()
    key(vp, "Z", CTRL)
    assert doc.scene == before_scene
    assert np.allclose(doc.pose().bone_to_world, before_pose.bone_to_world)
    key(vp, "Z", CTRL | SHIFT)
    assert doc.scene == after_scene


def test_ctrl_drag_turns_a_pivot_and_keys_it(qtbot):
    win = open_foot_roll(qtbot, frame=30)
    doc, vp = win.document, win.viewport
    before_scene = doc.scene.copy()
    ref = Ref.pivot_of(ROLL, "ball")
    q_before = key_edits.rotation_at(resolve(doc.scene, ref), 30)
    start = vp.project([vp.handle_position(ref)])[0]
    drag(vp, start, start + (50, -20), CTRL, qtbot=qtbot)
    ball = resolve(doc.scene, ref)
    assert 30 in ball.rotation_keys.frames
    q_after = key_edits.rotation_at(ball, 30)
    turned = (
        Rotation.from_quat(q_after, scalar_first=True)
        * Rotation.from_quat(q_before, scalar_first=True).inv()
    )
    assert turned.magnitude() > np.radians(5)
    assert doc.undo_stack.undoText() == "Rotate pivot ball at frame 30"
    doc.undo_stack.undo()
    assert doc.scene == before_scene


def test_world_object_toggle_and_the_compare_ghost(qtbot):
    win = open_foot_roll(qtbot)
    doc, vp = win.document, win.viewport
    toggle = win.findChild(QtWidgets.QWidget, "spaceToggle")
    click(toggle.findChild(QtWidgets.QToolButton, "spaceObject"), (10, 10))
    object_pose = doc.pose()
    qtbot.wait(20)
    object_image = framebuffer(vp, qtbot)
    click(toggle.findChild(QtWidgets.QToolButton, "spaceWorld"), (10, 10))
    world_pose = doc.pose()
    assert np.allclose(world_pose.bone_to_world, bake(doc.scene, [FRAME], "world").bone_to_world)
    assert np.allclose(object_pose.bone_to_world, bake(doc.scene, [FRAME], "object").bone_to_world)
    foot = doc.scene.bone_index("foot")
    assert np.linalg.norm(world_pose.tails[0, foot] - object_pose.tails[0, foot]) > 0.01
    qtbot.wait(20)
    world_image = framebuffer(vp, qtbot)
    assert changed(object_image, world_image).sum() > 100
    assert doc.undo_stack.count() == 0  # not an edit
    # Compare: the object-space pose appears as a translucent ghost over the world one
    click(win.findChild(QtWidgets.QToolButton, "compareToggle"), (10, 10))
    assert doc.compare and doc.ghost_space() == "object"
    qtbot.wait(20)
    compare_image = framebuffer(vp, qtbot)
    dpr = vp.devicePixelRatioF()
    ghost_only = body_mask(win, object_pose, dpr) & ~body_mask(win, world_pose, dpr)
    ghost_pixels = changed(world_image, compare_image, threshold=10) & ghost_only
    assert ghost_pixels.sum() > 30
    # translucent: blended over the background, not the ghost colour itself
    ys, xs = np.nonzero(ghost_pixels)
    blended = compare_image[ys, xs]
    assert np.median(blended[:, 0]) < 200  # blue channel (BGR) well below a solid fill
    rows = {r[0]: r for r in win.compare_table.rows()}
    assert rows["foot"][1] > 0.01 and rows["foot"][2] > 1
    # the table follows a scrub
    doc.set_frame(40)
    assert {r[0]: r for r in win.compare_table.rows()}["foot"][2] != rows["foot"][2]


def test_an_edit_makes_the_cache_stale_and_the_timeline_says_so(qtbot):
    win = open_foot_roll(qtbot)
    doc = win.document
    doc.prepare_timeline()
    notes = []
    doc.recompute_started.connect(lambda names: notes.append(win.timeline.recompute_label.text()))
    from app.editor.operations import key_operations

    key_operations.set_position(doc, Ref.pivot_of(ROLL, "toe"), (0.0, -0.08, 0.2))
    doc.pose()  # the viewport asks for the pose; the stale integral is recomputed
    assert notes and ROLL in notes[0] and "Recomputing" in notes[0]
    qtbot.waitUntil(lambda: "Recomputed" in win.timeline.recompute_label.text())


def test_playback_plays_the_demo(qtbot):
    win = open_foot_roll(qtbot, frame=0)
    doc = win.document
    seen = []
    doc.frame_changed.connect(seen.append)
    key(win.viewport, "Space")
    qtbot.wait(400)
    key(win.viewport, "Space")
    assert len(set(seen)) >= 4 and not doc.player.playing
    full = bake(doc.scene)
    frame = int(doc.frame)
    assert np.allclose(doc.pose().bone_to_world[0], full.bone_to_world[frame])


def test_limits_and_frames_match_the_bake_through_the_timeline(qtbot):
    win = open_foot_roll(qtbot, frame=0)
    doc = win.document
    doc.prepare_timeline()
    full = bake(doc.scene)
    for frame in (0, 13, 47, 96):
        doc.set_frame(frame)
        assert np.allclose(doc.pose().bone_to_world[0], full.bone_to_world[frame])


def test_adding_and_removing_pivots_from_the_menus(qtbot):
    win = open_foot_roll(qtbot)
    doc = win.document
    before = doc.scene.copy()
    doc.set_selection([Ref.constraint(ROLL)])
    add = win.inspector.findChild(QtWidgets.QPushButton, "addPivotButton")
    click(add, (5, 5))
    names = [p.name for p in doc.scene.constraint(ROLL).pivots]
    assert names[-1] == "pivot 5" and doc.selection == (Ref.pivot_of(ROLL, "pivot 5"),)
    assert win.outliner.item_for(Ref.pivot_of(ROLL, "pivot 5")) is not None
    key(win.viewport, "Delete")
    assert doc.scene == before
    assert doc.undo_stack.undoText() == "Delete pivot pivot 5"
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.scene == before


def test_right_click_on_a_pivot_offers_to_remove_it(qtbot, monkeypatch):
    win = open_foot_roll(qtbot)
    doc, vp = win.document, win.viewport
    before = doc.scene.copy()
    offered = []

    def exec_menu(menu, at):
        offered.extend(a.text() for a in menu.actions() if a.text())
        next(a for a in menu.actions() if a.text() == "Remove Pivot swing").trigger()

    monkeypatch.setattr(vp, "exec_menu", exec_menu)
    at = vp.project([vp.handle_position(Ref.pivot_of(ROLL, "swing"))])[0]
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from tests.helpers.gui import point

    QTest.mouseClick(vp, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, point(at))
    assert "Add Pivot to foot_roll" in offered and f"Remove Constraint {ROLL}" in offered
    assert [p.name for p in doc.scene.constraint(ROLL).pivots] == ["heel", "ball", "toe"]
    doc.undo_stack.undo()
    assert doc.scene == before


def test_letters_typed_in_a_combo_box_choose_items_and_fire_no_shortcut(qtbot):
    """C (Compare) and L (Loop) are window shortcuts; in a combo box they are typed text."""
    win = open_foot_roll(qtbot)
    doc = win.document
    doc.set_selection([Ref.constraint(ROLL)])
    qtbot.wait(20)
    combo = win.findChild(QtWidgets.QComboBox, "constraintSpace")
    assert combo is not None and combo.currentText() == "object"
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    compare, loop = doc.compare, doc.player.loop
    for letter in "CL":
        key(combo, letter)
    assert (doc.compare, doc.player.loop) == (compare, loop)
    qtbot.wait(QtWidgets.QApplication.keyboardInputInterval() + 100)  # a new type-ahead search
    key(combo, "W")  # type-ahead picks "world": an authored-space edit
    assert combo.currentText() == "world"
    assert doc.scene.constraint(ROLL).space == "world"
    win.setFocus()
    key(win, "C")  # outside the combo the letter is the shortcut again
    assert doc.compare != compare
