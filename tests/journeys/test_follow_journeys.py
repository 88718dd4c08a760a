"""An animator adds the follow kinds (child of, copy rotation, copy location) to a character
with Shift+A, reads the outliner, and walks into a cycle: what they see."""

from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.rig.refs import Ref
from app.window.layout import message_room
from tests.helpers import gui
from tests.helpers.paths import SCENES
from tests.journeys import _fields
from tests.journeys._steps_a import outliner_click
from tests.journeys._ux import add_from_menu, outliner_pick

HUMANOID = Path(SCENES) / "humanoid.glb"


@pytest.fixture(scope="module")
def window(qapp):
    yield from _fields.module_window(HUMANOID)


@pytest.fixture
def win(window):
    window.resize(1280, 800)
    _fields.fresh(window, HUMANOID)
    return window


def target_row(win, name: str) -> str:
    """The text of constraint ``name``'s target row in the outliner (and its tooltip)."""
    item = win.outliner.item_for(Ref.constraint(name))
    (row,) = [item.child(k) for k in range(item.childCount())]
    assert row.toolTip(0) == row.text(0)
    return row.text(0)


def test_outliner_names_a_target_end_only_where_the_kind_uses_it(win, qtbot):
    """Child of and copy rotation follow the target bone as a whole: their target row says
    "→ head", not "→ head head"; copy location goes to a point, so its row names the end."""
    kinds = {"Child Of": "hand.L", "Copy Rotation": "hand.R", "Copy Location": "forearm.R"}
    for kind, bone in kinds.items():
        outliner_pick(win, qtbot, "chest", bone)
        add_from_menu(win, qtbot, f"Add {kind} Constraint on {bone} following chest")
    names = {type(c).label: c.name for c in win.document.scene.constraints}
    assert target_row(win, names["child of"]) == "target → chest"
    assert target_row(win, names["copy rotation"]) == "target → chest"
    assert target_row(win, names["copy location"]) == "target → chest head"


def test_a_refused_cycle_is_readable_in_the_status_bar(win, qtbot):
    """A window as small as a laptop's: the refusal starts with what went wrong and ends in
    "…" where the room ends (whole in the tooltip), not cut mid-word under the frame
    number."""
    win.resize(1024, 640)
    qtbot.wait(50)
    outliner_pick(win, qtbot, "head", "hand.L")
    add_from_menu(win, qtbot, "Add Child Of Constraint on hand.L following head")
    outliner_pick(win, qtbot, "hand.L", "head")
    add_from_menu(win, qtbot, "Add Copy Location Constraint on head following hand.L")
    assert len(win.document.scene.constraints) == 1  # refused
    status = win.statusBar()
    shown = status.currentMessage()
    assert shown.startswith("Refused: the constraints would run in a cycle, "), shown
    assert shown.endswith("…"), shown
    assert status.fontMetrics().horizontalAdvance(shown) <= message_room(win)
    assert "each reads a bone that the one before it moves" in status.toolTip()
    frame = win.frame_label
    assert frame.isVisible()
    assert frame.geometry().left() >= status.fontMetrics().horizontalAdvance(shown)


def _foot_roll_dialog(win, qtbot, answer) -> dict:
    """Rig ▸ Foot Roll Rig… from the menu bar (Alt+I, F); ``answer(dialog, seen)`` runs in
    the dialog; returns ``seen``."""
    seen = {}

    def run(dialog):
        answer(dialog, seen)
        seen["done"] = True

    gui.answer_modal(run)
    win.activateWindow()
    QTest.keyClick(win, QtCore.Qt.Key.Key_I, QtCore.Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    QTest.keyClick(QtWidgets.QApplication.activePopupWidget(), QtCore.Qt.Key.Key_F)
    qtbot.waitUntil(lambda: "done" in seen, timeout=5000)
    return seen


def _button(dialog, which):
    box = dialog.findChild(QtWidgets.QDialogButtonBox)
    return box.button(which)


def test_the_foot_roll_dialog_says_why_a_leg_cannot_take_it_before_build(win, qtbot):
    """The left leg rigged, the dialog offers the right one; choosing the left leg again
    says so in red at once and greys Build (not only after Build was pressed)."""
    ok, cancel = (
        QtWidgets.QDialogButtonBox.StandardButton.Ok,
        QtWidgets.QDialogButtonBox.StandardButton.Cancel,
    )

    def build(dialog, seen):
        seen["leg"] = dialog.findChild(QtWidgets.QComboBox, "side").currentText()
        QTest.mouseClick(_button(dialog, ok), QtCore.Qt.MouseButton.LeftButton)

    assert _foot_roll_dialog(win, qtbot, build)["leg"] == "Left leg (foot.L)"
    qtbot.waitUntil(lambda: "foot_ctrl.L" in win.document.scene.bone_names())
    # the outliner's target and pole rows show their bones whole, not "target ….L head"
    outliner = win.outliner
    for name, text in [
        ("foot_leg_ik.L", "target → foot_rolled.L head"),
        ("foot_follows_ctrl.L", "target → foot_rolled.L"),
    ]:
        row = outliner.item_for(Ref.constraint(name)).child(0)
        assert row.text(0) == text
        outliner.scrollToItem(row)
        room = outliner.visualRect(outliner.indexFromItem(row, 0)).width()
        assert outliner.fontMetrics().horizontalAdvance(text) + 8 <= room, (text, room)

    def again(dialog, seen):
        side = dialog.findChild(QtWidgets.QComboBox, "side")
        seen["offered"] = side.currentText()
        side.setFocus()
        QTest.keyClick(side, QtCore.Qt.Key.Key_Home)  # the left leg, first in the list
        seen["chosen"] = side.currentText()
        problem = dialog.findChild(QtWidgets.QLabel, "problem")
        seen["problem"] = problem.text() if problem.isVisible() else ""
        seen["build"] = _button(dialog, ok).isEnabled()
        QTest.mouseClick(_button(dialog, cancel), QtCore.Qt.MouseButton.LeftButton)

    seen = _foot_roll_dialog(win, qtbot, again)
    assert seen["offered"] == "Right leg (foot.R)" and seen["chosen"] == "Left leg (foot.L)"
    assert seen["problem"].startswith("This leg has a foot roll already (foot_ctrl.L)")
    assert not seen["build"]


def test_f1_and_about_name_what_landed(win, qtbot, dialogs):
    """F1 lists the follow kinds, the Rig menu and refused cycles; About names them too."""
    win.viewport.setFocus()
    QTest.keyClick(win.viewport, QtCore.Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: win.findChild(QtWidgets.QDialog, "controlsDialog") is not None)
    dialog = win.findChild(QtWidgets.QDialog, "controlsDialog")
    text = dialog.findChild(QtWidgets.QTextBrowser, "controlsText").toPlainText()
    dialog.close()
    for words in ("child of · copy rotation · copy location", "Rig ▸ Foot Roll Rig…", "cycle"):
        assert words in text, words
    win.actions_by_name["about"].trigger()
    ((kind, _, about),) = [c for c in dialogs.calls if c[0] == "about"]
    for words in ("Foot Roll Rig", "FBX", "order they depend on"):
        assert words in about, words


def test_a_follow_targets_row_shows_the_bone_it_follows(win, qtbot):
    """Click a copy-location's or a child-of's target row: the inspector shows the bone it
    aims at (not "a position", which these kinds cannot take); a child-of's choices are
    bones, not heads and tails; choosing the next one retargets it (one undo step)."""
    outliner_pick(win, qtbot, "chest", "forearm.R")
    add_from_menu(win, qtbot, "Add Copy Location Constraint on forearm.R following chest")
    outliner_pick(win, qtbot, "neck", "hand.L")
    add_from_menu(win, qtbot, "Add Child Of Constraint on hand.L following neck")
    copy, child = (c.name for c in win.document.scene.constraints)
    outliner_click(win, qtbot, Ref.target_of(copy))
    combo = win.inspector.findChild(QtWidgets.QComboBox, "targetKind")
    assert combo.isVisible() and combo.currentText() == "bone chest head"
    outliner_click(win, qtbot, Ref.target_of(child))
    combo = win.inspector.findChild(QtWidgets.QComboBox, "targetKind")
    items = [combo.itemText(i) for i in range(combo.count())]
    assert combo.currentText() == "bone neck"
    assert "a position" not in items and "bone hand.L" not in items  # not itself
    assert all(len(t.split()) == 2 for t in items), items  # "bone neck", no end after it
    steps = win.document.undo_stack.count()
    combo.setFocus()
    QTest.keyClick(combo, QtCore.Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: win.document.scene.constraint(child).target.bone == "head")
    assert win.document.undo_stack.count() == steps + 1
    assert win.document.undo_stack.undoText() == f"Set target of {child} to bone head"
    assert target_row(win, child) == "target → head"


def test_a_shipped_points_at_shows_the_bone_its_target_is_on(win, qtbot):
    """calf_points_at_ankle.json aims at foot.r's head: its target row's inspector says so
    (it said "a position", a choice that would have moved it)."""
    scene = Path(SCENES) / "calf_points_at_ankle.json"
    _fields.fresh(win, scene)
    (c,) = win.document.scene.constraints
    outliner_click(win, qtbot, Ref.target_of(c.name))
    combo = win.inspector.findChild(QtWidgets.QComboBox, "targetKind")
    assert combo.isVisible() and combo.currentText() == "bone foot.r head"


def test_a_fabrik_pole_on_a_bone_stays_shown(win, qtbot):
    """Choose a bone's tail as a FABRIK pole: the pole box shows that choice afterwards
    (it went back to "none" once the inspector refreshed)."""
    _fields.fresh(win, Path(SCENES) / "fabrik_arm.json")
    (c,) = win.document.scene.constraints
    outliner_click(win, qtbot, Ref.constraint(c.name))
    pole = win.inspector.findChild(QtWidgets.QComboBox, "poleKind")
    pole.setFocus()
    QTest.keyClick(pole, QtCore.Qt.Key.Key_End)  # the last bone's tail
    last = win.document.scene.bones[-1].name
    qtbot.waitUntil(lambda: win.document.scene.constraint(c.name).pole.bone == last)
    qtbot.wait(50)
    pole = win.inspector.findChild(QtWidgets.QComboBox, "poleKind")
    assert pole.currentText() == f"bone {last} tail"


def test_dragging_a_child_of_target_says_what_to_do(win, qtbot):
    """A child-of's target is a bone, never a position: dragging its handle moves nothing
    and the status bar says to move that bone or choose another one (not to "set it to a
    position", a choice it does not have)."""
    outliner_pick(win, qtbot, "head", "hand.L")
    add_from_menu(win, qtbot, "Add Child Of Constraint on hand.L following head")
    (c,) = win.document.scene.constraints
    outliner_click(win, qtbot, Ref.target_of(c.name))
    vp = win.viewport
    at = vp.handle_position(Ref.target_of(c.name))
    start = vp.project([at])[0]
    gui.drag(vp, start, start + [60, -40], qtbot=qtbot)
    assert win.document.scene.constraint(c.name).target == c.target
    shown = win.statusBar().currentMessage()
    assert shown == (
        f"The target of {c.name} follows bone head; move head itself, or choose another bone "
        "in the inspector"
    )


def test_the_foot_roll_dialog_on_a_scene_without_legs_says_so(win, qtbot):
    """The tumbling box has no leg: the dialog says none was found by its names and how to
    choose one (it said "The leg names one bone twice" after Build)."""
    _fields.fresh(win, Path(SCENES) / "tumbling_box.json")
    buttons = QtWidgets.QDialogButtonBox.StandardButton

    def look(dialog, seen):
        problem = dialog.findChild(QtWidgets.QLabel, "problem")
        seen["problem"] = problem.text() if problem.isVisible() else ""
        seen["build"] = _button(dialog, buttons.Ok).isEnabled()
        QTest.mouseClick(_button(dialog, buttons.Cancel), QtCore.Qt.MouseButton.LeftButton)

    seen = _foot_roll_dialog(win, qtbot, look)
    assert seen["problem"].startswith("No leg found by its bone names"), seen
    assert not seen["build"]
