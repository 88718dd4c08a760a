"""The timeline's key diamonds with real mouse and key events: drag in time, Alt+drag to
duplicate, drop onto a key to replace it, T and the right-click menu for interpolation."""

import json

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import drag, key
from tests.widgets.test_curve_keys_gl import SCENE
from tests.widgets.test_curve_view_gl import select_in_outliner

ALT = QtCore.Qt.KeyboardModifier.AltModifier
ARM = Ref.bone("arm")


@pytest.fixture
def window(qtbot, tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(SCENE))
    win = gui.open_window(qtbot, path)
    select_in_outliner(win, qtbot, ARM)
    return win


def _at(bar, frame):
    return (bar.x_of(frame), bar.height() - 12)


def _arm(window):
    return window.document.scene.bone("arm")


def test_dragging_a_diamond_moves_the_selections_keys_in_one_step(window, qtbot):
    bar, doc = window.timeline.scrub_bar, window.document
    before = _arm(window)
    depth = doc.undo_stack.count()
    drag(bar, _at(bar, 10), _at(bar, 14), qtbot=qtbot)
    arm = _arm(window)
    np.testing.assert_array_equal(arm.rotation_keys.frames, [0, 14, 20, 30])
    np.testing.assert_array_equal(arm.translation_keys.frames, [0, 14, 20])
    np.testing.assert_array_equal(arm.rotation_keys.values[1], before.rotation_keys.values[1])
    assert doc.undo_stack.count() == depth + 1
    doc.undo_stack.undo()
    assert _arm(window) == before


def test_alt_drag_duplicates_and_a_drop_onto_a_key_replaces_it(window, qtbot):
    bar, doc = window.timeline.scrub_bar, window.document
    before = _arm(window)
    drag(bar, _at(bar, 20), _at(bar, 25), ALT, qtbot=qtbot)
    arm = _arm(window)
    np.testing.assert_array_equal(arm.rotation_keys.frames, [0, 10, 20, 25, 30])
    np.testing.assert_array_equal(arm.rotation_keys.values[3], arm.rotation_keys.values[2])
    assert arm.rotation_keys.interpolation[3] == "ease"  # the copy keeps its interpolation
    np.testing.assert_array_equal(arm.translation_keys.frames, [0, 10, 20, 25])
    # The key at 10 dropped onto the one at 20: it replaces it.
    depth = doc.undo_stack.count()
    drag(bar, _at(bar, 10), _at(bar, 20), qtbot=qtbot)
    arm = _arm(window)
    np.testing.assert_array_equal(arm.rotation_keys.frames, [0, 20, 25, 30])
    np.testing.assert_array_equal(arm.rotation_keys.values[1], before.rotation_keys.values[1])
    np.testing.assert_array_equal(arm.translation_keys.values[1], [0.0, 1.0, 0.0])
    assert doc.undo_stack.count() == depth + 1


def _click_action(menu, name):
    action = next(a for a in menu.actions() if a.objectName() == name)
    QTest.mouseClick(
        menu,
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier(0),
        menu.actionGeometry(action).center(),
    )


def test_t_on_the_timeline_sets_the_current_frames_keys_interpolation(window, qtbot):
    bar, doc = window.timeline.scrub_bar, window.document
    gui.click(bar, _at(bar, 10))  # focuses the bar and goes to frame 10
    assert doc.frame == 10
    trails = window.actions_by_name["trails"].isChecked()
    depth = doc.undo_stack.count()
    key(bar, "T")
    qtbot.waitUntil(lambda: bar.menu is not None and bar.menu.isVisible())
    _click_action(bar.menu, "interpolation_constant")
    arm = _arm(window)
    assert arm.rotation_keys.interpolation == ("constant", "constant", "ease", "linear")
    assert arm.translation_keys.interpolation == ("linear", "constant", "linear")
    assert doc.undo_stack.count() == depth + 1
    assert window.actions_by_name["trails"].isChecked() == trails


def test_the_context_menu_sets_the_interpolation_of_the_diamond_under_the_mouse(window, qtbot):
    bar = window.timeline.scrub_bar
    x, y = _at(bar, 20)
    QTest.mouseClick(
        bar, QtCore.Qt.MouseButton.RightButton, QtCore.Qt.KeyboardModifier(0), gui.point((x, y))
    )
    qtbot.waitUntil(lambda: bar.menu is not None and bar.menu.isVisible())
    sub = bar.menu.actions()[0].menu()
    QTest.mouseClick(
        bar.menu,
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier(0),
        bar.menu.actionGeometry(bar.menu.actions()[0]).center(),
    )
    qtbot.waitUntil(lambda: sub.isVisible())
    _click_action(sub, "interpolation_linear")
    arm = _arm(window)
    assert arm.rotation_keys.interpolation == ("constant", "linear", "linear", "linear")
    assert window.document.frame != 20  # a right click does not scrub
