"""Rig ▸ Foot Roll Rig… in the editor with real mouse and key events: the leg picked in the
outliner pre-fills the dialog, Build adds the whole rig as one undo step, Ctrl+Z gives back
the very same scene and Ctrl+Shift+Z the very same rig; a second build on the same leg is
refused in the dialog, in words."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, click, key
from tests.helpers.paths import SCENES


def _open_rig_menu(qtbot, win) -> None:
    """Click Rig in the menu bar, then Foot Roll Rig… in the menu that drops."""
    bar = win.menuBar()
    menu = win.findChild(QtWidgets.QMenu, "rigMenu")
    click(bar, bar.actionGeometry(menu.menuAction()).center())
    qtbot.waitUntil(menu.isVisible)
    action = win.actions_by_name["footRollRig"]
    click(menu, menu.actionGeometry(action).center())


def _in_dialog(qtbot, win, answer) -> dict:
    """Open the dialog through the menu and run ``answer(dialog, seen)``; returns ``seen``."""
    seen = {}
    gui.answer_modal(lambda dialog: answer(dialog, seen))
    _open_rig_menu(qtbot, win)
    qtbot.waitUntil(lambda: "done" in seen, timeout=5000)
    return seen


def _pick(outliner, bone: str) -> None:
    click(outliner.viewport(), outliner.visualItemRect(outliner.item_for(Ref.bone(bone))).center())


def _build(dialog) -> None:
    box = dialog.findChild(QtWidgets.QDialogButtonBox)
    button = box.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
    QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def test_the_menu_builds_the_rig_in_one_undo_step(qtbot):
    win = gui.open_window(qtbot, SCENES / "humanoid.glb")
    doc, outliner = win.document, win.outliner
    _pick(outliner, "calf.R")
    assert doc.selected_bones() == ["calf.R"]
    bones, constraints = list(doc.scene.bones), list(doc.scene.constraints)
    count = doc.undo_stack.count()

    def accept(dialog, seen):
        seen["leg"] = [
            dialog.findChild(QtWidgets.QComboBox, p).currentText()
            for p in ("side", "thigh", "calf", "foot", "toes")
        ]
        seen["summary"] = dialog.findChild(QtWidgets.QLabel, "summary").text()
        _build(dialog)
        seen["done"] = True

    seen = _in_dialog(qtbot, win, accept)
    assert seen["leg"] == ["Right leg (foot.R)", "thigh.R", "calf.R", "foot.R", "toes.R"]
    assert "foot_ctrl.R" in seen["summary"] and "calf_pole.R" in seen["summary"]
    qtbot.waitUntil(lambda: "foot_ctrl.R" in doc.scene.bone_names())
    assert doc.undo_stack.count() == count + 1
    rigged_bones, rigged_constraints = list(doc.scene.bones), list(doc.scene.constraints)
    assert [c.type for c in rigged_constraints[-3:]] == ["multi_parent", "fabrik", "copy_rotation"]
    # what the person sees: the control in the outliner, selected, and the status bar's words
    item = outliner.item_for(Ref.bone("foot_ctrl.R"))
    assert item is not None and item.isSelected()
    assert "move and key foot_ctrl.R to step" in win.statusBar().currentMessage()
    said = win.statusBar().currentMessage()  # whole, or elided with the whole in the tooltip
    whole = win.statusBar().toolTip() if said.endswith("…") else said
    assert "key the pivots of foot_roll.R" in whole  # what to do next is still said

    win.viewport.setFocus()
    key(win.viewport, "Z", CTRL)
    qtbot.waitUntil(lambda: "foot_ctrl.R" not in doc.scene.bone_names())
    assert doc.scene.bones == bones and doc.scene.constraints == constraints
    assert outliner.item_for(Ref.bone("foot_ctrl.R")) is None
    key(win.viewport, "Z", CTRL | SHIFT)
    qtbot.waitUntil(lambda: "foot_ctrl.R" in doc.scene.bone_names())
    assert doc.scene.bones == rigged_bones and doc.scene.constraints == rigged_constraints

    def again(dialog, seen):
        _build(dialog)  # the same leg again: refused, the dialog stays open and says why
        seen["problem"] = dialog.findChild(QtWidgets.QLabel, "problem").text()
        seen["open"] = dialog.isVisible()
        dialog.reject()
        seen["done"] = True

    _pick(outliner, "thigh.R")
    seen = _in_dialog(qtbot, win, again)
    assert seen["open"] and "foot roll already (foot_ctrl.R)" in seen["problem"]
    assert doc.scene.bones == rigged_bones and doc.undo_stack.count() == count + 1
