"""Renaming a bone of a skinned character in the editor (the outliner's in-place rename,
real mouse and key events): the mesh stays bound, in the scene and in the viewport's pixels,
after the rename, its undo and its redo, and through a save and a load."""

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.editor.document import Document
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import LEFT, NO_MODS, framebuffer, key
from tests.helpers.paths import SCENES
from tests.scene.test_bone_renames import skinned


def changed_pixels(a, b, threshold=40):
    return int((np.abs(a - b).max(axis=2) > threshold).sum())


def rename_in_outliner(qtbot, win, old, new):
    outliner = win.outliner
    rect = outliner.visualItemRect(outliner.item_for(Ref.bone(old)))
    QTest.mouseClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    QTest.mouseDClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    qtbot.waitUntil(lambda: isinstance(QtWidgets.QApplication.focusWidget(), QtWidgets.QLineEdit))
    editor = QtWidgets.QApplication.focusWidget()
    editor.selectAll()
    QTest.keyClicks(editor, new)
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: new in win.document.scene.bone_names())


def test_renaming_a_skinned_bone_keeps_the_mesh_bound_through_undo_redo_and_save(qtbot, tmp_path):
    win = gui.open_window(qtbot, SCENES / "humanoid.glb", frame=20)
    doc, vp = win.document, win.viewport
    frames = np.array([20.0])
    before = skinned(doc.scene, frames)[0]
    assert np.abs(before[0] - doc.scene.meshes[0].positions).max() > 0.05  # not the bind pose
    # select the bone first, so the selection highlight is in both images
    doc.set_selection([Ref.bone("forearm.L")])
    qtbot.wait(30)
    image = framebuffer(vp, qtbot)
    rename_in_outliner(qtbot, win, "forearm.L", "lower_arm.L")
    assert doc.undo_stack.undoText() == "Rename bone forearm.L to lower_arm.L"
    assert doc.undo_stack.count() == 1
    mesh = doc.scene.meshes[0]
    assert "lower_arm.L" in mesh.joints and "forearm.L" not in mesh.joints
    assert np.allclose(skinned(doc.scene, frames)[0], before, atol=1e-12)
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) < 20  # unfixed: ~700 (the forearm jumps)
    # undo and redo from the keyboard
    key(win, "Z", gui.CTRL)
    assert "forearm.L" in doc.scene.bone_names() and "forearm.L" in doc.scene.meshes[0].joints
    assert doc.scene.meshes[0] is not mesh
    assert "source" in doc.scene.extra["meshes"]
    assert np.allclose(skinned(doc.scene, frames)[0], before, atol=1e-12)
    key(win, "Z", gui.CTRL | gui.SHIFT)
    assert doc.scene.meshes[0] is mesh and "source" not in doc.scene.extra["meshes"]
    assert np.allclose(skinned(doc.scene, frames)[0], before, atol=1e-12)
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) < 20
    # save and load back: the renamed joints come back bound
    path = tmp_path / "character.json"
    assert win.files.save_as(str(path))
    back = Document.from_file(path)
    assert back.scene.meshes[0].joints == mesh.joints
    assert np.allclose(skinned(back.scene, frames)[0], before, atol=1e-5)  # float32 in glb


def test_deleting_a_skinned_bone_hands_its_vertices_to_the_parent_through_undo_redo_and_save(
    qtbot, tmp_path
):
    win = gui.open_window(qtbot, SCENES / "humanoid.glb", frame=20)
    doc, vp = win.document, win.viewport
    frames = np.array([20.0])
    original = doc.scene.meshes[0]
    before = skinned(doc.scene, frames)[0]  # the toes are not animated: nothing may move
    doc.set_selection([Ref.bone("toes.L")])
    qtbot.wait(30)
    image = framebuffer(vp, qtbot)
    vp.setFocus()
    key(vp, "Delete")  # a bone without children: no question
    qtbot.waitUntil(lambda: "toes.L" not in doc.scene.bone_names())
    assert doc.undo_stack.undoText() == "Delete bone toes.L"
    mesh = doc.scene.meshes[0]
    assert "toes.L" not in mesh.joints and "foot.L" in mesh.joints
    assert np.allclose(skinned(doc.scene, frames)[0], before, atol=1e-6)  # float32 binds
    qtbot.wait(30)
    # the toes' octahedron is gone; the mesh did not jump (unfixed: it falls to its bind pose)
    assert changed_pixels(image, framebuffer(vp, qtbot)) < 100  # measured: 39
    key(win, "Z", gui.CTRL)
    assert doc.scene.meshes[0] is original and "source" in doc.scene.extra["meshes"]
    key(win, "Z", gui.CTRL | gui.SHIFT)
    assert doc.scene.meshes[0] is mesh and "source" not in doc.scene.extra["meshes"]
    path = tmp_path / "character.json"
    assert win.files.save_as(str(path))
    back = Document.from_file(path)  # it was refused: bound to a bone that is gone
    assert back.scene.meshes[0].joints == mesh.joints
    assert np.allclose(skinned(back.scene, frames)[0], before, atol=1e-5)
