"""Copy, paste, paste flipped and clear the pose with real keys in the viewport and the
outliner; the scene, the undo history and the pixels afterwards."""

import numpy as np
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest

from app.scene.evaluate import bake
from app.scene.rig import key_edits
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, LEFT, SHIFT, framebuffer, key
from tests.helpers.paths import SCENES

ALT = QtCore.Qt.KeyboardModifier.AltModifier


def changed_pixels(a, b, threshold=40):
    return int((np.abs(a - b).max(axis=2) > threshold).sum())


def outliner_click(win, name, modifiers=gui.NO_MODS):
    outliner = win.outliner
    index = outliner.indexFromItem(outliner.item_for(Ref.bone(name)), 0)
    QTest.mouseClick(outliner.viewport(), LEFT, modifiers, outliner.visualRect(index).center())


def test_copy_paste_flipped_and_clear(qtbot):
    win = gui.open_window(qtbot, SCENES / "legs.json", frame=33)
    doc, vp = win.document, win.viewport
    QtGui.QGuiApplication.clipboard().clear()
    outliner_click(win, "thigh.r")
    outliner_click(win, "calf.r", CTRL)
    assert doc.selected_bones() == ["thigh.r", "calf.r"]
    key(win.outliner, "C", CTRL)
    assert "pivotal-pose" in QtGui.QGuiApplication.clipboard().text()
    image = framebuffer(vp, qtbot)
    # Ctrl+Shift+V: onto the left leg, mirrored across the YZ plane
    key(win.outliner, "V", CTRL | SHIFT)
    assert doc.undo_stack.undoText() == "Paste flipped pose on thigh.l, calf.l at frame 33"
    assert doc.undo_stack.count() == 1
    pose = bake(doc.scene, [33])
    for side in ("thigh", "calf", "foot"):
        i, j = doc.scene.bone_index(f"{side}.l"), doc.scene.bone_index(f"{side}.r")
        assert np.allclose(pose.tails[0, i], pose.tails[0, j] * (-1, 1, 1))
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 200  # the left leg moved
    # Ctrl+V in the viewport at another frame: the right leg takes its frame-33 pose
    doc.set_frame(50)
    thigh_at_50 = key_edits.rotation_at(doc.scene.bone("thigh.r"), 50)
    vp.setFocus()
    key(vp, "V", CTRL)
    assert doc.undo_stack.undoText() == "Paste pose on thigh.r, calf.r at frame 50"
    pose50 = bake(doc.scene, [50])
    i = doc.scene.bone_index("foot.r")
    assert np.allclose(pose50.tails[0, i], pose.tails[0, i])
    # Alt+R: the calf back to its rest rotation at this frame (a key, since it is animated)
    doc.set_selection([Ref.bone("calf.r")])
    key(vp, "R", ALT)
    calf = doc.scene.bone("calf.r")
    assert np.allclose(key_edits.rotation_at(calf, 50), calf.rotation)
    assert 50.0 in calf.rotation_keys.frames
    assert doc.undo_stack.undoText() == "Clear rotation of calf.r at frame 50"
    # Alt+G: its location is not animated, so nothing to clear; the status bar says why
    count = doc.undo_stack.count()
    key(vp, "G", ALT)
    assert doc.undo_stack.count() == count
    assert "not animated" in win.statusBar().currentMessage()
    # undo takes each paste back in one step
    key(vp, "Z", CTRL)
    key(vp, "Z", CTRL)
    assert np.allclose(key_edits.rotation_at(doc.scene.bone("thigh.r"), 50), thigh_at_50)
    assert doc.undo_stack.undoText() == "Paste flipped pose on thigh.l, calf.l at frame 33"


def test_pose_keys_belong_to_the_viewport_and_outliner(qtbot):
    """Ctrl+C with the timeline focused is not a pose copy (the curve view keeps its own
    Ctrl+C/Ctrl+V for keys)."""
    win = gui.open_window(qtbot, SCENES / "legs.json", frame=10)
    doc = win.document
    doc.set_selection([Ref.bone("thigh.r")])
    QtGui.QGuiApplication.clipboard().setText("untouched")
    win.timeline.setFocus()
    key(win.timeline, "C", CTRL)
    assert QtGui.QGuiApplication.clipboard().text() == "untouched"
    win.viewport.setFocus()
    qtbot.waitUntil(win.viewport.hasFocus)  # the keyboard is in the viewport, as after a click
    key(win.viewport, "C", CTRL)
    assert "pivotal-pose" in QtGui.QGuiApplication.clipboard().text()
