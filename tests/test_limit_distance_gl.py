"""A limit distance made in the editor with real events (issue 29 item 1): the target, then
the bone, clicked in the viewport; Shift+A ▸ its add-menu entry; its distance typed in the
inspector; the bone and the sphere drawn where the closed form puts them; undo and redo;
Save As (Ctrl+Shift+S) and the file opened again in a new window; Reset Distance."""

import json

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.constraints.limit_distance.model import LimitDistance
from app.scene.io import load_scene
from app.scene.rig.editing import Ref

from . import gui
from .gui import CTRL, SHIFT, click, framebuffer, key
from .test_copy_kinds_gl import bone_middle, drawn_at

SCENE = {
    "format": "pivotal-scene",
    "version": 1,
    "fps": 24,
    "frame_start": 0,
    "frame_end": 10,
    "bones": [
        {"name": "goal", "tail": [0, 0.6, 0]},
        {"name": "arm", "translation": [1.5, 0, 0], "tail": [0, 0.8, 0]},
        {"name": "hand", "parent": "arm", "translation": [0, 0.8, 0], "tail": [0, 0.4, 0]},
    ],
}
ENTRY = "Add Limit Distance Constraint on arm about goal"


def choose_menu_entry(qtbot, text):
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    assert text in [a.text() for a in menu.actions()]
    for _ in range(len(menu.actions())):
        if menu.activeAction() is not None and menu.activeAction().text() == text:
            break
        QTest.keyClick(menu, QtCore.Qt.Key.Key_Down)
    QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)


def arm_points(head):
    """The arm's middle and the hand's middle (world) with the arm's head at ``head``."""
    return np.asarray(head) + np.array([[0, 0.4, 0], [0, 1.0, 0]])


def test_add_a_limit_distance_type_its_distance_undo_save_and_reopen(qtbot, tmp_path, monkeypatch):
    path = tmp_path / "limit.json"
    path.write_text(json.dumps(SCENE))
    win = gui.open_window(qtbot, path, frame=0)
    doc, vp = win.document, win.viewport
    vp.frame_points([[-1.2, -1.2, 0], [2.0, 2.2, 0], [0.4, 0.5, 0.8], [0.4, 0.5, -0.8]])
    qtbot.wait(30)
    free = framebuffer(vp, qtbot)

    # The target, then the bone (Shift adds it and makes it active); Shift+A ▸ the entry.
    click(vp, bone_middle(win, "goal"))
    click(vp, bone_middle(win, "arm"), SHIFT)
    assert doc.selection == (Ref.bone("goal"), Ref.bone("arm"))
    vp.setFocus()
    key(vp, "A", SHIFT)
    choose_menu_entry(qtbot, ENTRY)
    qtbot.waitUntil(lambda: len(doc.scene.constraints) == 1)
    (c,) = doc.scene.constraints
    assert type(c) is LimitDistance
    assert (c.bone, c.target.bone, c.target.at, c.mode, c.distance, c.space) == (
        "arm",
        "goal",
        "head",
        "inside",
        None,
        "world",
    )
    assert doc.undo_stack.undoText() == "Add Limit Distance arm about goal"
    added = list(doc.scene.constraints)
    arm = doc.scene.bone_index("arm")
    # measured at frame 0: 1.5, so nothing moved; the inspector shows it
    np.testing.assert_allclose(doc.pose().heads[0, arm], [1.5, 0, 0], atol=1e-12)
    spin = win.inspector.findChild(QtWidgets.QDoubleSpinBox, "limitDistance")
    assert spin is not None and spin.value() == 1.5
    note = win.inspector.findChild(QtWidgets.QLabel, "limitDistanceNote")
    assert note.text() == "measured at frame 0"
    qtbot.wait(30)
    added_image = framebuffer(vp, qtbot)
    # the sphere of radius 1.5 about the goal's head: its circle in the view's plane
    ring = vp.project([[0, -1.5, 0], [-1.5, 0, 0], [-1.5 * np.sqrt(0.5)] * 2 + [0]])
    assert all(drawn_at(added_image, ring, free)), "the sphere is drawn about the target"

    # Type 0.5 in the distance: the arm's head comes to (0.5, 0, 0), the hand with it.
    spin.setFocus()
    QTest.keyClick(spin, QtCore.Qt.Key.Key_A, CTRL)
    QTest.keyClicks(spin, "0.5")
    QTest.keyClick(spin, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: doc.scene.constraints[0].distance == 0.5)
    assert doc.undo_stack.undoText() == "Set distance of Limit Distance arm to 0.5"
    edited = list(doc.scene.constraints)
    pose = doc.pose()
    np.testing.assert_allclose(pose.heads[0, arm], [0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(
        pose.heads[0, doc.scene.bone_index("hand")], [0.5, 0.8, 0], atol=1e-12
    )
    qtbot.wait(30)
    limited = framebuffer(vp, qtbot)
    assert all(drawn_at(limited, vp.project(arm_points([0.5, 0, 0])), free))
    assert all(drawn_at(free, vp.project(arm_points([1.5, 0, 0])), limited)), "not where it was"
    assert note.text() == "as set"

    # Undo and redo: the items, the spin box and the pixels.
    key(win, "Z", CTRL)
    qtbot.wait(30)
    assert doc.scene.constraints == added and spin.value() == 1.5
    np.testing.assert_allclose(doc.pose().heads[0, arm], [1.5, 0, 0], atol=1e-12)
    assert np.array_equal(framebuffer(vp, qtbot), added_image)
    key(win, "Z", CTRL | SHIFT)
    qtbot.wait(30)
    assert doc.scene.constraints == edited and spin.value() == 0.5
    assert np.array_equal(framebuffer(vp, qtbot), limited)

    # Save As, then open the file in a new window: the same constraint, the same pose.
    out = tmp_path / "saved.json"
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), ""))
    )
    key(vp, "S", CTRL | SHIFT)
    assert load_scene(out) == doc.scene and not doc.dirty
    written = json.loads(out.read_text())["constraints"][0]
    assert written == {
        "type": "limit_distance",
        "name": "Limit Distance arm",
        "space": "world",
        "bone": "arm",
        "target": {"bone": "goal", "at": "head"},
        "mode": "inside",
        "distance": 0.5,
    }
    again = gui.open_window(qtbot, out, frame=0)
    assert again.document.scene.constraints == edited
    np.testing.assert_allclose(again.document.pose().heads[0, arm], [0.5, 0, 0], atol=1e-12)

    # Reset Distance: measured at frame 0 again (absent in the file), the arm back.
    doc.set_selection([Ref.constraint("Limit Distance arm")])
    reset = win.inspector.findChild(QtWidgets.QPushButton, "limitResetDistance")
    assert reset.isEnabled()
    click(reset, reset.rect().center())
    qtbot.waitUntil(lambda: doc.scene.constraints[0].distance is None)
    assert doc.undo_stack.undoText() == "Reset distance of Limit Distance arm"
    np.testing.assert_allclose(doc.pose().heads[0, arm], [1.5, 0, 0], atol=1e-12)
