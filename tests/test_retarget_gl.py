"""The humanoid map in the editor (Rig ▸ Humanoid Map…), the choice of a file's animation
at File ▸ Open, and a leg chosen bone by bone in Rig ▸ Foot Roll Rig… remembered in the
scene (issue 24 item 4, issue 25 items 1 and 3). Real clicks and keys."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.io import load_scene, save_scene
from app.scene.retarget.map_file import map_of, saved_map
from app.scene.rig.model import Bone, Scene

from . import gui
from .conftest import ROOT
from .journeys import _fields

CORPUS = ROOT / "tests" / "data" / "gltf-corpus"


@pytest.fixture(scope="module")
def window(qapp):
    yield from _fields.module_window(ROOT / "resources" / "scenes" / "legs.json")


def _fresh(window, path):
    _fields.fresh(window, path)
    window.document.undo_stack.clear()
    return window


def _pick(box: QtWidgets.QComboBox, text: str) -> None:
    """Open ``box``'s list with a click and choose ``text`` with the keys, as a person does."""
    gui.click(box, box.rect().center())
    view = box.view()
    QtCore.QCoreApplication.processEvents()
    target = box.findText(text)
    for _ in range(abs(target - box.currentIndex())):
        key = QtCore.Qt.Key.Key_Down if target > box.currentIndex() else QtCore.Qt.Key.Key_Up
        QTest.keyClick(view, key)
    QTest.keyClick(view, QtCore.Qt.Key.Key_Return)
    assert box.currentText() == text


def _ok(dialog) -> None:
    button = dialog.findChild(QtWidgets.QDialogButtonBox).button(
        QtWidgets.QDialogButtonBox.StandardButton.Ok)  # fmt: skip
    QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def _in_dialog(qtbot, win, action: str, answer) -> dict:
    seen = {}

    def run(dialog):
        answer(dialog, seen)
        seen["done"] = True

    gui.answer_modal(run)
    win.actions_by_name[action].trigger()
    qtbot.waitUntil(lambda: "done" in seen, timeout=10000)
    return seen


def test_the_map_is_corrected_bone_by_bone_and_kept_as_one_undo_step(window, qtbot):
    """RobotExpressive: the map reads UpperLegL as the thigh and Body as the hips; the
    animator makes ``Hips`` the hips instead and keeps the map. One undo puts it back."""
    win = _fresh(window, CORPUS / "RobotExpressive.glb")
    doc = win.document
    assert saved_map(doc.scene) is None

    def correct(dialog, seen):
        box = dialog.findChild(QtWidgets.QComboBox, "character.hips")
        seen["read"] = box.currentText()
        seen["thigh"] = dialog.findChild(QtWidgets.QComboBox, "character.left_thigh").currentText()
        _pick(box, "Hips")
        seen["problem"] = dialog.findChild(QtWidgets.QLabel, "problem").text()
        _ok(dialog)

    seen = _in_dialog(qtbot, win, "humanoidMap", correct)
    assert (seen["read"], seen["thigh"]) == ("Body", "UpperLegL")
    # the dialog said what the correction means before it was kept
    assert "Left thigh UpperLegL is not below the hips Hips" in seen["problem"]
    kept = saved_map(doc.scene)
    assert kept is not None and kept.get("hips") == "Hips" and kept.get("spine") is None
    assert doc.undo_stack.text(doc.undo_stack.index() - 1) == "Set humanoid map"
    assert "Humanoid map kept in the scene" in win.statusBar().currentMessage() or \
        "Humanoid map kept" in win.statusBar().toolTip()  # fmt: skip
    win.viewport.setFocus()
    gui.key(win.viewport, "Z", gui.CTRL)
    qtbot.waitUntil(lambda: saved_map(doc.scene) is None)
    assert map_of(doc.scene).get("hips") == "Body"


def test_open_asks_which_animation_of_the_file(window, qtbot, monkeypatch):
    """Fox.glb holds Survey, Walk and Run: Open lists them and opens the one chosen."""
    win = _fresh(window, ROOT / "resources" / "scenes" / "legs.json")
    fox = CORPUS / "Fox.glb"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(fox), "")))  # fmt: skip
    seen = {}

    def choose(dialog):
        choices = dialog.findChild(QtWidgets.QListWidget, "animations")
        seen["listed"] = [choices.item(k).text() for k in range(choices.count())]
        choices.setFocus()
        QTest.keyClick(choices, QtCore.Qt.Key.Key_End)  # Run, the last
        QTest.keyClick(choices, QtCore.Qt.Key.Key_Return)
        seen["done"] = True

    gui.answer_modal(choose)
    win.actions_by_name["open"].trigger()
    qtbot.waitUntil(lambda: "done" in seen)
    qtbot.waitUntil(lambda: (win.document.path or "").endswith("Fox.glb"))
    assert seen["listed"] == ["Survey", "Walk", "Run"]
    run = load_scene(fox, animation="Run")
    scene = win.document.scene
    assert (scene.frame_start, scene.frame_end) == (run.frame_start, run.frame_end)
    assert scene.bones == run.bones
    said = win.statusBar().currentMessage()
    whole = win.statusBar().toolTip() if said.endswith("…") else said
    assert "'Run' is imported" in whole and "'Survey', 'Walk'" in whole


def _one_leg(tmp_path):
    """A single leg no name or shape reads (one leg is no pair of legs), saved as a scene."""
    bones = [Bone(name="pelvis_x", translation=(0.0, 1.0, 0.0)),
             Bone(name="a", parent="pelvis_x", translation=(0.12, -0.05, 0.0)),
             Bone(name="b", parent="a", translation=(0.0, -0.45, 0.03)),
             Bone(name="c", parent="b", translation=(0.0, -0.42, -0.03)),
             Bone(name="d", parent="c", translation=(0.0, -0.06, 0.12),
                  tail=(0.0, 0.0, 0.06))]  # fmt: skip
    path = tmp_path / "one_leg.json"
    save_scene(Scene(bones=bones), path)
    return path


def test_a_leg_chosen_bone_by_bone_is_remembered(window, qtbot, tmp_path):
    path = _one_leg(tmp_path)
    win = _fresh(window, path)
    doc = win.document

    def choose(dialog, seen):
        seen["offered"] = dialog.findChild(QtWidgets.QComboBox, "side").currentText()
        for part, bone in (("thigh", "a"), ("calf", "b"), ("foot", "c"), ("toes", "d")):
            _pick(dialog.findChild(QtWidgets.QComboBox, part), bone)
        remember = dialog.findChild(QtWidgets.QComboBox, "remember")
        seen["remember"] = remember.currentText() if remember.isVisible() else None
        _ok(dialog)

    seen = _in_dialog(qtbot, win, "footRollRig", choose)
    assert seen["offered"] == "Bones chosen below"
    assert seen["remember"] == "Left leg"  # its thigh sits to the character's left (+X)
    qtbot.waitUntil(lambda: "c_ctrl" in doc.scene.bone_names())
    assert map_of(doc.scene).leg("left") == ("a", "b", "c", "d")
    said = win.statusBar().currentMessage()
    whole = win.statusBar().toolTip() if said.endswith("…") else said
    assert "the scene remembers these bones as its left leg" in whole
    saved = tmp_path / "saved.json"
    save_scene(doc.scene, saved)
    assert load_scene(saved) == doc.scene  # kept in the file, and loaded back equal

    def again(dialog, seen):
        seen["offered"] = dialog.findChild(QtWidgets.QComboBox, "side").currentText()
        dialog.reject()

    # the dialog now offers the leg by its side (it has its rig, and says so)
    assert _in_dialog(qtbot, win, "footRollRig", again)["offered"] == "Left leg (c)"
    win.viewport.setFocus()
    gui.key(win.viewport, "Z", gui.CTRL)  # one undo takes the rig and the memory away
    qtbot.waitUntil(lambda: "c_ctrl" not in doc.scene.bone_names())
    assert saved_map(doc.scene) is None
    assert _in_dialog(qtbot, win, "footRollRig", again)["offered"] == "Bones chosen below"
