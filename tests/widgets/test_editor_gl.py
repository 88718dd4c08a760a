"""The editor driven with real mouse and key events, rendering with real OpenGL (Xvfb)."""

import numpy as np
import pytest
from PySide6 import QtWidgets
from scipy.spatial.transform import Rotation

from app.scene.evaluate import bake
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, click, drag, framebuffer, key
from tests.helpers.paths import SCENES


@pytest.fixture
def window(qtbot):
    return gui.open_window(qtbot, SCENES / "legs.json")


def settle(qtbot, ms=30):
    qtbot.wait(ms)


def test_object_names_for_scripts(window):
    for name in ("viewport", "timeline", "spaceToggle", "outliner", "inspector"):
        assert window.findChild(QtWidgets.QWidget, name) is not None, name


def test_project_finds_joints_where_they_are_drawn(window, qtbot):
    pixels = framebuffer(window.viewport, qtbot)
    pose = window.document.pose()
    heads = window.viewport.project(pose.heads[0])
    dpr = window.viewport.devicePixelRatioF()
    found = 0
    for x, y in heads:
        patch = pixels[int(y * dpr) - 3 : int(y * dpr) + 4, int(x * dpr) - 3 : int(x * dpr) + 4]
        # amber joints (BGR ~ (77, 191, 242)) or the bright bone ends meet there
        amber = (patch[..., 2] > 180) & (patch[..., 1] > 130) & (patch[..., 0] < 140)
        found += bool(amber.any())
    assert found >= len(heads) - 1  # one head may hide behind another bone


def test_scrubbing_the_timeline_shows_the_evaluated_pose(window, qtbot):
    doc, bar = window.document, window.timeline.scrub_bar
    first = framebuffer(window.viewport, qtbot)
    drag(bar, (bar.x_of(0), 30), (bar.x_of(12), 30), qtbot=qtbot)
    assert doc.frame == 12
    assert np.allclose(doc.pose().heads, bake(doc.scene, [12]).heads)
    settle(qtbot)
    at12 = framebuffer(window.viewport, qtbot)
    click(bar, (bar.x_of(24), 30))
    assert doc.frame == 24 and window.timeline.frame_spin.value() == 24
    assert np.allclose(doc.pose().tails, bake(doc.scene, [24]).tails)
    settle(qtbot)
    at24 = framebuffer(window.viewport, qtbot)
    # the right leg swings and its knee bends: the image changes between the frames
    assert (np.abs(first - at12).max(axis=2) > 40).sum() > 200
    assert (np.abs(at12 - at24).max(axis=2) > 40).sum() > 200
    # and the bright bone pixels sit where the evaluated right calf projects at frame 24
    i = doc.scene.bone_index("calf.r")
    mid = window.viewport.project([(doc.pose().heads[0, i] + doc.pose().tails[0, i]) / 2])[0]
    x, y = (mid * window.viewport.devicePixelRatioF()).astype(int)
    assert at24[y - 2 : y + 3, x - 2 : x + 3].min(axis=2).max() > 100


def test_transport_keys_work_anywhere_but_in_text_fields(window, qtbot):
    doc = window.document
    window.viewport.setFocus()
    key(window.viewport, "Right")
    key(window.viewport, "Right")
    assert doc.frame == 2
    key(window.viewport, "Left")
    assert doc.frame == 1
    key(window.viewport, "End")
    assert doc.frame == doc.scene.frame_end
    key(window.viewport, "Home")
    assert doc.frame == doc.scene.frame_start
    window.outliner.setFocus()
    key(window.outliner, "Right")
    assert doc.frame == 1
    # keys of the selection: thigh.r is keyed every 24 frames
    doc.set_selection([Ref.bone("thigh.r")])
    key(window.outliner, "Up")
    assert doc.frame == 24
    key(window.outliner, "Up")
    assert doc.frame == 48
    key(window.outliner, "Down")
    assert doc.frame == 24
    # inside a text field the keys edit the text
    spin = window.inspector.findChild(QtWidgets.QDoubleSpinBox, "translation0")
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    key(spin, "Right")
    key(spin, "Home")
    key(spin, "Space")
    assert doc.frame == 24 and not doc.player.playing


def test_space_plays_and_pauses(window, qtbot):
    doc = window.document
    window.viewport.setFocus()
    key(window.viewport, "Space")
    assert doc.player.playing
    qtbot.waitUntil(lambda: doc.frame >= 3, timeout=3000)
    key(window.viewport, "Space")
    assert not doc.player.playing
    stopped = doc.frame
    qtbot.wait(150)
    assert doc.frame == stopped


def test_playback_follows_the_clock_and_loops(window, qtbot):
    doc = window.document
    operations_range(doc, 0, 5)
    doc.scene.fps = 50.0
    doc.player.set_loop(True)
    seen = []
    doc.frame_changed.connect(seen.append)
    doc.player.play()
    # 20 frames of a 6-frame range at 50 fps take 0.4 s; a loaded machine may draw fewer of
    # them, but the clock still reaches the end and loops back to the start.
    qtbot.waitUntil(lambda: 5 in seen and 0 in seen[seen.index(5) :], timeout=5000)
    doc.player.pause()
    assert set(seen) <= set(range(0, 6))


def operations_range(doc, start, end):
    from app.editor.operations import timeline_operations

    timeline_operations.set_timeline(doc, frame_start=start, frame_end=end)


def test_clicking_a_bone_selects_it_and_shift_adds(window, qtbot):
    doc, vp = window.document, window.viewport
    pose = doc.pose()

    def middle(name):
        i = doc.scene.bone_index(name)
        return vp.project([(pose.heads[0, i] + pose.tails[0, i]) / 2])[0]

    click(vp, middle("thigh.l"))
    assert doc.selection == (Ref.bone("thigh.l"),)
    click(vp, middle("calf.l"), SHIFT)
    assert doc.selection == (Ref.bone("thigh.l"), Ref.bone("calf.l"))
    item = window.outliner.item_for(Ref.bone("calf.l"))
    assert item.isSelected()
    click(vp, (5, 5))  # empty space
    assert doc.selection == ()


def _ctrl_drag_bone(doc, vp, qtbot, name):
    """Ctrl+drag from the middle of bone ``name`` 60 px right; checks the turn was about
    its head and returns its world tail before and after."""
    i = doc.scene.bone_index(name)
    pose = doc.pose()
    head = vp.project(pose.heads[0, i : i + 1])[0]
    middle = vp.project([(pose.heads[0, i] + pose.tails[0, i]) / 2])[0]
    tail_before = pose.tails[0, i].copy()
    drag(vp, middle, middle + (60, 0), CTRL, qtbot=qtbot)
    assert doc.undo_stack.count() == 1
    # the joint stays where it is: the rotation is about the bone's head
    assert np.allclose(vp.project(doc.pose().heads[0, i : i + 1])[0], head, atol=1e-6)
    return tail_before, doc.pose().tails[0, i].copy()


def _undo_redo(doc, vp, before, after):
    key(vp, "Z", CTRL)
    assert doc.scene == before
    key(vp, "Z", CTRL | SHIFT)
    assert doc.scene == after


def test_ctrl_drag_on_an_unkeyed_bone_turns_its_rest_pose_in_one_undo_step(window, qtbot):
    # the rule of the rotate gizmo and R: no rotation keys, so the rest rotation turns
    doc, vp = window.document, window.viewport
    doc.set_frame(10)
    before = doc.scene.copy()
    assert doc.scene.bone("calf.l").rotation_keys is None
    tail_before, tail_after = _ctrl_drag_bone(doc, vp, qtbot, "calf.l")
    calf = doc.scene.bone("calf.l")
    assert calf.rotation_keys is None  # no key was made
    assert calf.rotation != before.bone("calf.l").rotation
    assert doc.undo_stack.undoText() == "Rotate bone calf.l"
    assert np.linalg.norm(tail_after - tail_before) > 0.05  # the shin swung
    # a rest edit holds at every frame: the shin is turned the same way at frame 70
    i = doc.scene.bone_index("calf.l")
    other = doc.evaluations.evaluate([70.0]).bone_to_world[0, i]
    thigh = doc.evaluations.evaluate([70.0]).bone_to_world[0, doc.scene.bone_index("thigh.l")]
    local = np.linalg.inv(thigh) @ other
    expected = Rotation.from_quat(calf.rotation, scalar_first=True).as_matrix()
    assert np.allclose(local[:3, :3], expected, atol=1e-9)
    _undo_redo(doc, vp, before, doc.scene.copy())


def test_ctrl_drag_on_a_keyed_bone_keys_it_in_one_undo_step(window, qtbot):
    doc, vp = window.document, window.viewport
    doc.set_frame(10)
    before = doc.scene.copy()
    old = doc.scene.bone("calf.r")
    assert 10 not in old.rotation_keys.frames
    tail_before, tail_after = _ctrl_drag_bone(doc, vp, qtbot, "calf.r")
    calf = doc.scene.bone("calf.r")
    assert calf.rotation == old.rotation  # the rest pose stays
    assert calf.rotation_keys.frames.tolist() == sorted([*old.rotation_keys.frames, 10.0])
    assert doc.undo_stack.undoText() == "Rotate bone calf.r at frame 10"
    assert np.linalg.norm(tail_after - tail_before) > 0.05
    # the key holds what the viewport shows at frame 10 (the parent's frame, scipy)
    i = doc.scene.bone_index("calf.r")
    pose = doc.pose()
    local = (
        np.linalg.inv(pose.bone_to_world[0, doc.scene.bone_index("thigh.r")])
        @ pose.bone_to_world[0, i]
    )
    q = calf.rotation_keys.values[calf.rotation_keys.index(10.0)]
    assert np.allclose(
        local[:3, :3], Rotation.from_quat(q, scalar_first=True).as_matrix(), atol=1e-9
    )
    _undo_redo(doc, vp, before, doc.scene.copy())


def test_key_set_and_deleted_through_the_inspector(window, qtbot):
    doc = window.document
    before = doc.scene.copy()
    doc.set_selection([Ref.bone("thigh.r")])
    doc.set_frame(12)
    inspector = window.inspector
    click(inspector.findChild(QtWidgets.QPushButton, "keyButton"), (5, 5))
    keys = doc.scene.bone("thigh.r").rotation_keys
    assert 12 in keys.frames
    assert 12 in window.timeline.scrub_bar.keys  # its tick shows on the timeline
    click(inspector.findChild(QtWidgets.QPushButton, "deleteKeyButton"), (5, 5))
    assert doc.scene == before
    assert 12 not in window.timeline.scrub_bar.keys


def test_typing_an_euler_angle_keys_the_rotation(window, qtbot):
    doc = window.document
    doc.set_selection([Ref.bone("calf.l")])
    doc.set_frame(30)
    before = doc.scene.copy()
    spin = window.inspector.findChild(QtWidgets.QDoubleSpinBox, "rotationEuler0")
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "35")
    key(spin, "Return")
    calf = doc.scene.bone("calf.l")
    assert calf.rotation_keys.frames.tolist() == [30]
    got = Rotation.from_quat(calf.rotation_keys.values[0], scalar_first=True)
    assert (got * Rotation.from_euler("x", 35, degrees=True).inv()).magnitude() < 1e-9
    # the other notations show the same rotation
    angle = window.inspector.findChild(QtWidgets.QDoubleSpinBox, "rotationAngle0")
    assert abs(angle.value() - 35) < 0.01
    assert doc.undo_stack.undoText() == "Rotate bone calf.l at frame 30"
    doc.undo_stack.undo()
    assert doc.scene == before


def test_k_and_shift_k_key_the_selection(window, qtbot):
    doc = window.document
    before = doc.scene.copy()
    doc.set_selection([Ref.bone("hip")])
    doc.set_frame(7)
    window.viewport.setFocus()
    key(window.viewport, "K")
    hip = doc.scene.bone("hip")
    assert hip.rotation_keys.frames.tolist() == [7] and hip.translation_keys is not None
    key(window.viewport, "K", SHIFT)
    assert doc.scene.bone("hip").rotation_keys is None
    assert doc.scene == before


def test_undo_menu_names_the_edit(window, qtbot):
    doc = window.document
    doc.set_selection([Ref.bone("hip")])
    doc.set_frame(3)
    key(window.viewport, "K")
    undo = window.actions_by_name["undo"]
    assert undo.text() == "&Undo Set key on bone hip at frame 3"


def test_up_and_down_step_a_spin_box_not_the_keys(window, qtbot):
    doc = window.document
    doc.set_selection([Ref.bone("thigh.r")])
    spin = window.inspector.findChild(QtWidgets.QDoubleSpinBox, "translation1")
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    before = spin.value()
    key(spin, "Up")
    assert doc.frame == 0  # no jump to the next key
    assert spin.value() > before  # the value stepped (and was applied as an edit)
    assert doc.scene.bone("thigh.r").translation[1] == spin.value()


def test_selecting_in_the_outliner_selects_in_the_document(window, qtbot):
    doc, outliner = window.document, window.outliner
    item = outliner.item_for(Ref.bone("calf.r"))
    rect = outliner.visualItemRect(item)
    click(outliner.viewport(), rect.center())
    assert doc.selection == (Ref.bone("calf.r"),)
    assert window.inspector.findChild(QtWidgets.QLabel, "inspectorTitle").text().find("calf.r") >= 0


def test_outliner_context_menu_adds_a_constraint_undoably(window, qtbot, monkeypatch):
    doc, outliner = window.document, window.outliner
    before = doc.scene.copy()
    chosen = []

    def exec_menu(menu, at):
        for action in menu.actions():
            if action.text().startswith("Add Points-At"):
                chosen.append(action.text())
                action.trigger()
                return action
        return None

    monkeypatch.setattr(outliner, "exec_menu", exec_menu)
    item = outliner.item_for(Ref.bone("calf.l"))
    rect = outliner.visualItemRect(item)
    outliner.customContextMenuRequested.emit(rect.center())
    assert chosen == ["Add Points-At Constraint on calf.l"]
    c = doc.scene.constraints[-1]
    assert c.type == "points_at" and c.bone == "calf.l"
    assert outliner.item_for(Ref.constraint(c.name)) is not None
    # the new constraint aims where the tail already is: nothing jumps
    assert np.allclose(doc.pose().tails, bake(before, [doc.frame]).tails, atol=1e-9)
    key(window.viewport, "Z", CTRL)
    assert doc.scene == before and outliner.item_for(Ref.constraint(c.name)) is None
