"""A child-of made in the editor with real events: the target, then the bone, clicked in the
viewport; Shift+A ▸ its add-menu entry; its offset chosen in the inspector; undo and redo;
and the bone drawn where its closed form (written here) puts it, following its target."""

import json

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.scene.constraints.follows.model import ChildOf
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, click, framebuffer, key

QUARTER = Rotation.from_rotvec([0, 0, np.pi / 2]).as_quat(scalar_first=True).tolist()
SCENE = {
    "format": "pivotal-scene",
    "version": 1,
    "fps": 24,
    "frame_start": 0,
    "frame_end": 20,
    "bones": [
        {
            "name": "ctrl",
            "tail": [0, 1, 0],
            "translation_keys": [[0, [-1, 0, 0]], [20, [1, 0.5, 0]]],
            "rotation_keys": [[0, [1, 0, 0, 0]], [20, QUARTER]],
        },
        {"name": "arm", "translation": [1, 0, 0], "tail": [0, 0.8, 0]},
        {"name": "hand", "parent": "arm", "translation": [0, 0.8, 0], "tail": [0, 0.4, 0]},
    ],
}
ENTRY = "Add Child Of Constraint on arm following ctrl"


def matrix(translation, rotvec=(0, 0, 0)):
    m = np.eye(4)
    m[:3, :3] = Rotation.from_rotvec(rotvec).as_matrix()
    m[:3, 3] = translation
    return m


# The closed form at frame 20: ctrl = T(1, 0.5, 0) R(90° about z); arm at frame 0 = T(1, 0, 0)
# and ctrl at frame 0 = T(-1, 0, 0); the arm keeps O = ctrl(0)⁻¹ arm(0), or O = I.
CTRL_0, CTRL_20 = matrix([-1, 0, 0]), matrix([1, 0.5, 0], [0, 0, np.pi / 2])
ARM_0 = matrix([1, 0, 0])
ARM_20 = {"frame_start": CTRL_20 @ np.linalg.inv(CTRL_0) @ ARM_0, "none": CTRL_20}


def arm_points(arm_to_world):
    """The arm's middle and the hand's middle (world), drawn where the arm is."""
    return np.array(
        [arm_to_world[:3, :3] @ p + arm_to_world[:3, 3] for p in ([0, 0.4, 0], [0, 1.0, 0])]
    )


def bone_middle(win, name):
    pose, i = win.document.pose(), win.document.scene.bone_index(name)
    return win.viewport.project([0.5 * (pose.heads[0, i] + pose.tails[0, i])])[0]


def drawn_at(image, pixels, empty, radius=2):
    """Whether something other than ``empty`` (the view without the skeleton there) is drawn
    around each of ``pixels``."""
    out = []
    for x, y in np.round(pixels).astype(int):
        patch = np.s_[y - radius : y + radius + 1, x - radius : x + radius + 1]
        out.append(np.abs(image[patch] - empty[patch]).sum(axis=-1).max() > 60)
    return out


def test_add_a_child_of_edit_its_offset_undo_redo_and_see_the_bone_follow(qtbot, tmp_path):
    path = tmp_path / "follow.json"
    path.write_text(json.dumps(SCENE))
    win = gui.open_window(qtbot, path)
    doc, vp = win.document, win.viewport
    # Everything the test looks at in view, the camera still from here on.
    vp.frame_points([[-1.2, -0.2, 0], [1.2, 3.2, 0], [0, 1.5, 0.8], [0, 1.5, -0.8]])
    qtbot.wait(30)
    gui_frame(win, qtbot, 20)
    free = framebuffer(vp, qtbot)  # frame 20, no constraint: the arm stands at (1, 0, 0)
    old = vp.project(arm_points(ARM_0))
    gui_frame(win, qtbot, 0)

    # Select the target, then the bone (Shift adds it and makes it active); Shift+A.
    click(vp, bone_middle(win, "ctrl"))
    click(vp, bone_middle(win, "arm"), SHIFT)
    assert doc.selection == (Ref.bone("ctrl"), Ref.bone("arm"))
    vp.setFocus()
    key(vp, "A", SHIFT)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    assert ENTRY in [a.text() for a in menu.actions()]
    for _ in range(len(menu.actions())):
        if menu.activeAction() is not None and menu.activeAction().text() == ENTRY:
            break
        QTest.keyClick(menu, QtCore.Qt.Key.Key_Down)
    QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(doc.scene.constraints) == 1)
    (c,) = doc.scene.constraints
    assert isinstance(c, ChildOf)
    assert (c.bone, c.target.bone, c.offset) == ("arm", "ctrl", "frame_start")
    assert doc.selection == (Ref.constraint("Child Of arm"),)
    assert doc.undo_stack.undoText() == "Add Child Of arm following ctrl"
    row = win.outliner.item_for(Ref.constraint(c.name))  # its name says its kind, in words
    assert row.text(0) == "Child Of arm" and row.text(1) == "" and row.isFirstColumnSpanned()
    added = list(doc.scene.constraints)

    # At frame 20 the arm (and the hand) follow the target, with the frame-start offset.
    gui_frame(win, qtbot, 20)
    kept = framebuffer(vp, qtbot)
    pose = doc.pose()
    arm, hand = doc.scene.bone_index("arm"), doc.scene.bone_index("hand")
    np.testing.assert_allclose(pose.bone_to_world[0, arm], ARM_20["frame_start"], atol=1e-12)
    hand_head = ARM_20["frame_start"] @ [0, 0.8, 0, 1]
    np.testing.assert_allclose(pose.heads[0, hand], hand_head[:3], atol=1e-12)
    new = vp.project(arm_points(ARM_20["frame_start"]))
    assert all(drawn_at(kept, new, free)), "the arm and hand are drawn where they follow to"
    assert all(drawn_at(free, old, kept)), "and no longer where they stood"
    # The guide line from the bone to its target (ctrl's head), through the middle between.
    arm_tail = ARM_20["frame_start"] @ [0, 0.8, 0, 1]
    middle = 0.5 * (arm_tail[:3] + CTRL_20[:3, 3])
    assert drawn_at(kept, vp.project([middle]), free) == [True]

    # The offset in the inspector: Down on its combo box picks "no offset".
    combo = win.inspector.findChild(QtWidgets.QComboBox, "followOffset")
    assert combo.currentText() == "keep the frame-start offset"
    combo.setFocus()
    QTest.keyClick(combo, QtCore.Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: doc.scene.constraints[0].offset == "none")
    assert doc.undo_stack.undoText() == "Set Child Of arm to no offset (snap to the target)"
    edited = list(doc.scene.constraints)
    qtbot.wait(30)
    snapped = framebuffer(vp, qtbot)
    np.testing.assert_allclose(doc.pose().bone_to_world[0, arm], ARM_20["none"], atol=1e-12)
    assert all(drawn_at(snapped, vp.project(arm_points(ARM_20["none"])), free))

    # Undo and redo, exactly: the items, the inspector and the pixels.
    key(win, "Z", CTRL)
    qtbot.wait(30)
    assert doc.scene.constraints == added and doc.scene.constraints[0] is added[0]
    assert combo_text(win) == "keep the frame-start offset"
    assert np.array_equal(framebuffer(vp, qtbot), kept)
    key(win, "Z", CTRL | SHIFT)
    qtbot.wait(30)
    assert doc.scene.constraints == edited
    assert combo_text(win) == "no offset (snap to the target)"
    assert np.array_equal(framebuffer(vp, qtbot), snapped)
    key(win, "Z", CTRL)
    key(win, "Z", CTRL)
    qtbot.wait(30)
    assert doc.scene.constraints == []
    np.testing.assert_allclose(doc.pose().bone_to_world[0, arm], ARM_0, atol=1e-12)

    # Redo the add, then rename the target bone (F2): the constraint follows the new name.
    key(win, "Z", CTRL | SHIFT)
    click(vp, bone_middle(win, "ctrl"))
    gui.rename_with_f2(vp, "boss")
    assert doc.scene.constraints[0].target.bone == "boss"


def combo_text(win):
    return win.inspector.findChild(QtWidgets.QComboBox, "followOffset").currentText()


def gui_frame(win, qtbot, frame):
    spin = win.timeline.findChild(QtWidgets.QSpinBox, "frameSpin")
    spin.setFocus()
    QTest.keyClick(spin, QtCore.Qt.Key.Key_A, CTRL)
    QTest.keyClicks(spin, str(frame))
    QTest.keyClick(spin, QtCore.Qt.Key.Key_Return)
    assert win.document.frame == frame
    qtbot.wait(30)
