"""Building a skeleton in the editor with real mouse and key events: File ▸ New, Shift+A,
E, F2, X with its question, the outliner's rename and drag-to-reparent, the tail drag.

Each edit is checked in the scene afterwards, as one named undo step, and in the
viewport's pixels.
"""

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.scene.evaluate import bake
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import LEFT, NO_MODS, SHIFT, answer_modal, click, drag, framebuffer, key
from tests.helpers.paths import SCENES


def changed_pixels(a, b, threshold=40):
    return int((np.abs(a - b).max(axis=2) > threshold).sum())


def new_scene_window(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json")
    gui.key(win, "N", gui.CTRL)  # File ▸ New: nothing unsaved, so no question
    qtbot.waitUntil(lambda: win.document.scene.bone_names() == ["root"])
    return win


def bone_pixel(win, name, t=0.5):
    """A pixel on bone ``name``, ``t`` of the way from head to tail."""
    vp, doc = win.viewport, win.document
    pose = doc.pose()
    i = doc.scene.bone_index(name)
    return vp.project([(1 - t) * pose.heads[0, i] + t * pose.tails[0, i]])[0]


def test_new_add_extrude_rename_and_delete_from_the_keyboard(qtbot):
    win = new_scene_window(qtbot)
    doc, vp = win.document, win.viewport
    assert doc.scene.bone("root").parent is None
    click(vp, bone_pixel(win, "root"))
    assert doc.selection == (Ref.bone("root"),)
    empty = framebuffer(vp, qtbot)
    # Shift+A: the add menu under the mouse, "Add Bone" first; Enter takes it
    key(vp, "A", SHIFT)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    assert menu.activeAction().text().startswith("Add Bone at root")
    QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(doc.scene.bones) == 2)
    bone = doc.scene.bone("bone")
    assert bone.parent == "root" and bone.translation == (0.0, 1.0, 0.0)
    assert doc.selection == (Ref.bone("bone"),)
    assert doc.undo_stack.undoText() == "Add bone bone to root"
    pose = doc.pose()
    assert np.allclose(pose.heads[0, 1], [0, 1, 0]) and np.allclose(pose.tails[0, 1], [0, 2, 0])
    # E: extrude from the selected tail, continuing it
    vp.setFocus()
    key(vp, "E")
    assert doc.scene.bone_names() == ["root", "bone", "bone.001"]
    assert np.allclose(doc.pose().tails[0, 2], [0, 3, 0])
    assert doc.undo_stack.undoText() == "Extrude bone.001 from bone"
    vp.frame_all()
    qtbot.wait(30)
    assert changed_pixels(empty, framebuffer(vp, qtbot)) > 200  # two more bones drawn

    # F2: rename the active bone in a dialog
    def type_name(dialog):
        line = dialog.findChild(QtWidgets.QLineEdit)
        line.selectAll()
        QTest.keyClicks(line, "shin")
        QTest.keyClick(line, QtCore.Qt.Key.Key_Return)

    answer_modal(type_name)
    key(vp, "F2")
    assert doc.scene.bone_names() == ["root", "bone", "shin"]
    assert doc.selection == (Ref.bone("shin"),)
    assert doc.undo_stack.undoText() == "Rename bone bone.001 to shin"

    # X on "bone" (it has a child): the question; Reparent keeps shin where it was
    click(vp, bone_pixel(win, "bone"))
    assert doc.selection == (Ref.bone("bone"),)
    shin_before = doc.pose().bone_to_world[0, 2].copy()

    def reparent(dialog):
        assert dialog.objectName() == "deleteBonesDialog"
        QTest.mouseClick(dialog.findChild(QtWidgets.QPushButton, "reparentChildren"), LEFT)

    answer_modal(reparent)
    key(vp, "X")
    assert doc.scene.bone_names() == ["root", "shin"]
    assert doc.scene.bone("shin").parent == "root"
    assert np.allclose(doc.pose().bone_to_world[0, 1], shin_before)
    assert doc.undo_stack.undoText() == "Delete bone bone, reparent children"
    # Delete children instead, after an undo
    key(vp, "Z", gui.CTRL)
    assert doc.scene.bone_names() == ["root", "bone", "shin"]
    doc.set_selection([Ref.bone("bone")])

    def delete(dialog):
        QTest.mouseClick(dialog.findChild(QtWidgets.QPushButton, "deleteChildren"), LEFT)

    answer_modal(delete)
    vp.setFocus()
    key(vp, "Delete")
    assert doc.scene.bone_names() == ["root"]
    assert doc.undo_stack.undoText() == "Delete bone bone and their children"
    assert doc.undo_stack.count() == 4  # add, extrude, rename, delete (one undone)


def test_outliner_renames_in_place_and_reparents_by_drag(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json")
    doc, outliner = win.document, win.outliner
    names = doc.scene.bone_names()
    chain = doc.scene.constraint("arm reaches").chain
    tip = chain[-1]
    # double-click the tip bone's name, type a new one, Enter: it and the chain follow
    item = outliner.item_for(Ref.bone(tip))
    rect = outliner.visualItemRect(item)
    QTest.mouseClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    QTest.mouseDClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    qtbot.waitUntil(lambda: isinstance(QtWidgets.QApplication.focusWidget(), QtWidgets.QLineEdit))
    editor = QtWidgets.QApplication.focusWidget()
    editor.selectAll()
    QTest.keyClicks(editor, "palm")
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "palm" in doc.scene.bone_names())
    assert tip not in doc.scene.bone_names()
    assert doc.scene.constraint("arm reaches").chain[-1] == "palm"
    assert doc.undo_stack.undoText() == f"Rename bone {tip} to palm"
    assert outliner.item_for(Ref.bone("palm")) is not None
    # F2 in the outliner edits in place too
    key(outliner, "F2")
    qtbot.waitUntil(lambda: isinstance(QtWidgets.QApplication.focusWidget(), QtWidgets.QLineEdit))
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), QtCore.Qt.Key.Key_Escape)
    assert doc.scene.bone_names().count("palm") == 1
    # drag "palm" onto the root bone: it becomes root's child and keeps its place at rest
    doc.scene.constraints.clear()  # compare bare skeletons
    doc.scene_edited()
    root = names[0]
    before = bake(doc.scene, [0]).bone_to_world[0, doc.scene.bone_index("palm")]
    start = outliner.visualItemRect(outliner.item_for(Ref.bone("palm"))).center()
    end = outliner.visualItemRect(outliner.item_for(Ref.bone(root))).center()
    drag(outliner.viewport(), start, end, qtbot=qtbot)
    assert doc.scene.bone("palm").parent == root
    after = bake(doc.scene, [0]).bone_to_world[0, doc.scene.bone_index("palm")]
    assert np.allclose(after, before, atol=1e-9)
    assert doc.undo_stack.undoText() == f"Make palm child of {root}, keeping its place"
    assert outliner.item_for(Ref.bone("palm")).parent() is outliner.item_for(Ref.bone(root))
    # Shift at the drop: onto "Bones" (a root), keeping its local values
    local = doc.scene.bone("palm").translation
    image = framebuffer(win.viewport, qtbot)
    start = outliner.visualItemRect(outliner.item_for(Ref.bone("palm"))).center()
    group = outliner.visualItemRect(outliner.topLevelItem(0)).center()
    drag(outliner.viewport(), start, group, modifiers=SHIFT, qtbot=qtbot)
    assert doc.scene.bone("palm").parent is None
    assert doc.scene.bone("palm").translation == local
    assert doc.undo_stack.undoText() == "Make palm a root, keeping its local values"
    qtbot.wait(30)  # its values now read in the world: the hand and fingers jump
    assert changed_pixels(image, framebuffer(win.viewport, qtbot)) > 100


def test_dragging_a_selected_tail_sets_its_rest_tail(qtbot):
    win = new_scene_window(qtbot)
    doc, vp = win.document, win.viewport
    click(vp, bone_pixel(win, "root"))
    image = framebuffer(vp, qtbot)
    tail_px = vp.project([doc.pose().tails[0, 0]])[0]
    drag(vp, tail_px, tail_px + (60, 20), qtbot=qtbot)
    tail = np.array(doc.scene.bone("root").tail)
    # the tail ends under the cursor, in the plane facing the camera
    assert np.allclose(vp.project([tail])[0], tail_px + (60, 20), atol=1.0)
    assert not np.allclose(tail, [0, 1, 0])
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == "Move tail of bone root"
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 100
    key(vp, "Z", gui.CTRL)
    assert doc.scene.bone("root").tail == (0.0, 1.0, 0.0)


def test_rest_values_in_the_inspector(qtbot):
    win = new_scene_window(qtbot)
    doc, vp = win.document, win.viewport
    click(vp, bone_pixel(win, "root"))
    image = framebuffer(vp, qtbot)
    for field, index, text in (
        ("translation", 0, "0.4"),
        ("scale", 1, "1.5"),
        ("rotation", 3, "1"),
    ):
        spin = win.inspector.findChild(QtWidgets.QDoubleSpinBox, f"rest_{field}{index}")
        spin.setFocus()
        QTest.keyClick(spin, QtCore.Qt.Key.Key_A, gui.CTRL)
        QTest.keyClicks(spin, text)
        QTest.keyClick(spin, QtCore.Qt.Key.Key_Return)
        assert doc.undo_stack.undoText() == f"Set rest {field} of bone root"
    bone = doc.scene.bone("root")
    assert bone.translation == (0.4, 0.0, 0.0) and bone.scale == (1.0, 1.5, 1.0)
    # (1, 0, 0, 1) normalized: 90° about Z, so the tail (0, 1, 0) * 1.5 points along -X
    assert np.allclose(bone.rotation, np.array([1, 0, 0, 1]) / np.sqrt(2))
    pose = doc.pose()
    assert np.allclose(pose.heads[0, 0], [0.4, 0, 0])
    assert np.allclose(pose.tails[0, 0], [0.4 - 1.5, 0, 0])
    assert doc.undo_stack.count() == 3
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 100


def test_clear_parent_from_the_outliner_menu_keeps_the_place(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json")
    doc, outliner = win.document, win.outliner
    doc.scene.constraints.clear()  # compare bare skeletons
    doc.scene_edited()
    before = bake(doc.scene, [0]).bone_to_world[0, doc.scene.bone_index("forearm")]
    text = "Clear Parent of forearm (keep its place)"

    def choose():
        menu = QtWidgets.QApplication.activePopupWidget()
        if menu is None:
            QtCore.QTimer.singleShot(10, choose)
            return
        for _ in range(len(menu.actions())):
            if menu.activeAction() is not None and menu.activeAction().text() == text:
                break
            QTest.keyClick(menu, QtCore.Qt.Key.Key_Down)
        QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)

    QtCore.QTimer.singleShot(0, choose)
    index = outliner.indexFromItem(outliner.item_for(Ref.bone("forearm")), 0)
    pos = outliner.visualRect(index).center()
    # the context-menu event a right click makes (QTest's click goes around the window's
    # translation of a right press into one)
    QTest.mouseClick(outliner.viewport(), LEFT, NO_MODS, pos)
    event = QtGui.QContextMenuEvent(
        QtGui.QContextMenuEvent.Reason.Mouse, pos, outliner.viewport().mapToGlobal(pos)
    )
    QtWidgets.QApplication.sendEvent(outliner.viewport(), event)
    qtbot.waitUntil(lambda: doc.scene.bone("forearm").parent is None)
    after = bake(doc.scene, [0]).bone_to_world[0, doc.scene.bone_index("forearm")]
    assert np.allclose(after, before, atol=1e-9)
    assert doc.undo_stack.undoText() == "Make forearm a root, keeping its place"
