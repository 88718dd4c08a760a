"""Keys in the curve view, with real mouse and key events: select, drag in time and value,
replace on drop, delete, copy/paste, Ctrl+click insert, the T menu; and the drawn shape of
constant and eased segments. Each checks the scene afterwards (and one undo step)."""

import json

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.editor.operations import key_operations
from app.scene.math.euler import euler_xyz_from_quat
from app.scene.rig.keys import sample
from app.scene.rig.refs import Ref
from tests.helpers.gui import CTRL, SHIFT, click, drag, key
from tests.helpers.gui import point as gui_point
from tests.widgets.test_curve_view_gl import open_curves, select_in_outliner

ARM = Ref.bone("arm")
TARGET = Ref.target_of("aim")


def _quat(axis, degrees):
    return list(
        Rotation.from_rotvec(np.radians(degrees) * np.asarray(axis, float)).as_quat(
            scalar_first=True
        )
    )


SCENE = {
    "format": "pivotal-scene",
    "version": 1,
    "fps": 24,
    "frame_start": 0,
    "frame_end": 40,
    "bones": [
        {
            "name": "arm",
            "translation": [0.0, 0.0, 0.0],
            "rotation": [1.0, 0.0, 0.0, 0.0],
            "rotation_keys": [
                [0, [1.0, 0.0, 0.0, 0.0], "constant"],
                [10, _quat([0, 0, 1], 60)],
                [20, _quat([0, 0, 1], 120), "ease"],
                [30, _quat([1, 0, 0], 90)],
            ],
            "translation_keys": [
                [0, [0.0, 0.0, 0.0]],
                [10, [0.0, 1.0, 0.0]],
                [20, [0.0, 2.0, 0.0]],
            ],
            "scale_keys": [[0, [1.0, 1.0, 1.0], "ease"], [20, [1.5, 1.0, 1.0]]],
        },
        {"name": "hand", "parent": "arm", "translation": [0.0, 1.0, 0.0], "tail": [0, 0.5, 0]},
    ],
    "constraints": [
        {
            "type": "points_at",
            "name": "aim",
            "bone": "hand",
            "target": {
                "position": [0.0, 0.0, 0.0],
                "position_keys": [
                    [0, [1.0, 0.0, 0.0]],
                    [20, [1.0, 2.0, 0.0]],
                    [30, [0.0, 2.0, 1.0]],
                ],
            },
        },
    ],
}


@pytest.fixture
def window(qtbot, tmp_path):
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(SCENE))
    return open_curves(qtbot, path)


def _rotation_keys(window):
    return window.document.scene.bone("arm").rotation_keys


def _target_keys(window):
    return window.document.scene.constraint("aim").target.position_keys


def _diamond(view, name, frame):
    """Viewport pixel of the diamond of curve ``name`` at ``frame``, and its plot."""
    d = next(d for d in view.diamonds if d.name == name)
    k = int(np.flatnonzero(d.frames == frame)[0])
    p = d.plot.pixel_of(float(d.frames[k]), float(d.values[k]), d.right)
    return d.plot, (p.x(), p.y())


def _settle(window, qtbot):
    window.curve_view._throttled.flush()
    qtbot.wait(10)


def test_constant_and_eased_segments_are_drawn_as_they_evaluate(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    frames, w = window.curve_view.series()["w"]
    keys = _rotation_keys(window)
    # The constant segment 0 -> 10: flat, then a vertical step just before frame 10.
    before = frames[(frames < 10) & (frames > 10 - 1e-4)]
    assert len(before) == 1
    np.testing.assert_allclose(w[frames < 10], 1.0, atol=1e-15)
    assert w[frames == 10][0] == pytest.approx(keys.values[1, 0], abs=1e-12)
    # The eased segment 20 -> 30 is sampled densely and follows 3u^2 - 2u^3.
    inside = (frames > 20) & (frames < 30)
    assert np.count_nonzero(inside) >= 32
    expected = sample(None, keys, frames[inside], rotation=True)
    np.testing.assert_allclose(np.abs(w[inside]), np.abs(expected[:, 0]), atol=1e-12)


def test_click_shift_click_and_box_select_keys(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    view = window.curve_view
    plot, at10 = _diamond(view, "x", 10)
    click(plot.viewport(), at10)
    channel = (ARM, "rotation_keys")
    assert view.selected_keys() == {channel: [10.0]}
    assert window.document.frame == 10  # a click on a key still jumps to it
    _, at20 = _diamond(view, "w", 20)
    click(plot.viewport(), at20, SHIFT)
    assert view.selected_keys() == {channel: [10.0, 20.0]}
    click(plot.viewport(), at20, SHIFT)  # Shift+click again takes it out
    assert view.selected_keys() == {channel: [10.0]}
    # A box from frame 15 to 35 around every curve selects the keys at 20 and 30.
    top_left = plot.pixel_of(15.0, 1.2)
    bottom_right = plot.pixel_of(35.0, -1.2)
    drag(
        plot.viewport(),
        (top_left.x(), top_left.y()),
        (bottom_right.x(), bottom_right.y()),
        qtbot=qtbot,
    )
    assert view.selected_keys() == {channel: [20.0, 30.0]}


def test_dragging_keys_in_time_moves_them_and_one_undo_restores(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    view, doc = window.curve_view, window.document
    before = _rotation_keys(window)
    plot, at20 = _diamond(view, "x", 20)
    click(plot.viewport(), at20)
    target = plot.pixel_of(24.0, 0.0)
    depth = doc.undo_stack.count()
    drag(plot.viewport(), at20, (target.x(), at20[1]), qtbot=qtbot)
    keys = _rotation_keys(window)
    np.testing.assert_array_equal(keys.frames, [0, 10, 24, 30])
    np.testing.assert_array_equal(keys.values[2], before.values[2])
    assert keys.interpolation == ("constant", "linear", "ease", "linear")
    assert doc.undo_stack.count() == depth + 1
    assert view.selected_keys() == {(ARM, "rotation_keys"): [24.0]}
    doc.undo_stack.undo()
    assert _rotation_keys(window) == before


def test_dropping_a_key_onto_another_replaces_it(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    view, doc = window.curve_view, window.document
    before = _rotation_keys(window)
    plot, at10 = _diamond(view, "w", 10)
    click(plot.viewport(), at10)
    _settle(window, qtbot)
    plot, at10 = _diamond(view, "w", 10)
    onto = plot.pixel_of(20.0, 0.0)
    depth = doc.undo_stack.count()
    drag(plot.viewport(), at10, (onto.x(), at10[1]), qtbot=qtbot)
    keys = _rotation_keys(window)
    np.testing.assert_array_equal(keys.frames, [0, 20, 30])
    np.testing.assert_array_equal(keys.values[1], before.values[1])  # the moved key won
    assert doc.undo_stack.count() == depth + 1
    doc.undo_stack.undo()
    assert _rotation_keys(window) == before


def test_shift_dragging_a_position_key_changes_its_value(window, qtbot):
    select_in_outliner(window, qtbot, TARGET)
    view = window.curve_view
    plot, at20 = _diamond(view, "py", 20)
    click(plot.viewport(), at20)
    _settle(window, qtbot)
    plot, at20 = _diamond(view, "py", 20)
    up = plot.pixel_of(20.0, 2.5)
    drag(plot.viewport(), at20, (at20[0], up.y()), SHIFT, qtbot=qtbot)
    keys = _target_keys(window)
    np.testing.assert_array_equal(keys.frames, [0, 20, 30])  # not moved in time
    assert keys.values[1, 1] == pytest.approx(2.5, abs=0.02)  # a pixel's worth
    np.testing.assert_array_equal(keys.values[1, [0, 2]], [1.0, 0.0])
    np.testing.assert_array_equal(keys.values[[0, 2]], [[1, 0, 0], [0, 2, 1]])


def test_shift_dragging_an_euler_angle_turns_the_rotation_key(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    view = window.curve_view
    view.euler.click()  # the Euler display option
    _settle(window, qtbot)
    assert {"ex", "ey", "ez"} <= set(view.series())
    plot, at10 = _diamond(view, "ez", 10)
    click(plot.viewport(), at10)
    _settle(window, qtbot)
    plot, at10 = _diamond(view, "ez", 10)
    to = plot.pixel_of(10.0, 90.0)
    drag(plot.viewport(), at10, (at10[0], to.y()), SHIFT, qtbot=qtbot)
    angles = euler_xyz_from_quat(_rotation_keys(window).values[1])
    assert angles[2] == pytest.approx(90.0, abs=1.0)
    np.testing.assert_allclose(angles[:2], 0.0, atol=1e-9)


def test_delete_copy_and_paste_keys_at_the_current_frame(window, qtbot):
    select_in_outliner(window, qtbot, TARGET)
    view, doc = window.curve_view, window.document
    plot, at20 = _diamond(view, "px", 20)
    click(plot.viewport(), at20)
    _, at30 = _diamond(view, "px", 30)
    click(plot.viewport(), at30, SHIFT)
    key(plot, "C", CTRL)
    assert key_operations.CLIPBOARD.clip is not None
    doc.set_frame(36)
    depth = doc.undo_stack.count()
    key(plot, "V", CTRL)
    keys = _target_keys(window)
    np.testing.assert_array_equal(keys.frames, [0, 20, 30, 36, 46])
    np.testing.assert_array_equal(keys.values[3:], keys.values[1:3])
    assert doc.undo_stack.count() == depth + 1
    # Delete removes the selected (the pasted) keys, in one step; the window's Delete
    # (delete the selected item) does not fire.
    key(plot, "Delete")
    np.testing.assert_array_equal(_target_keys(window).frames, [0, 20, 30])
    assert doc.scene.constraints and doc.scene.constraint("aim") is not None
    assert doc.undo_stack.count() == depth + 2


def test_ctrl_click_on_a_curve_inserts_a_key_there(window, qtbot):
    select_in_outliner(window, qtbot, TARGET)
    view = window.curve_view
    plot = view.plot
    frames, py = view.series()["py"]
    y = float(np.interp(5.0, frames, py))
    spot = plot.pixel_of(5.0, y + 0.05)
    click(plot.viewport(), (spot.x(), spot.y()), CTRL)
    keys = _target_keys(window)
    np.testing.assert_array_equal(keys.frames, [0, 5, 20, 30])
    assert keys.values[1, 1] == pytest.approx(y + 0.05, abs=0.02)  # the clicked value
    np.testing.assert_allclose(keys.values[1, [0, 2]], [1.0, 0.0], atol=1e-12)


def test_t_sets_the_interpolation_of_the_selected_keys(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    view, doc = window.curve_view, window.document
    plot, at10 = _diamond(view, "x", 10)
    click(plot.viewport(), at10)
    _, at0 = _diamond(view, "w", 0)
    click(plot.viewport(), at0, SHIFT)
    depth = doc.undo_stack.count()
    trails = window.actions_by_name["trails"].isChecked()
    key(plot, "T")
    editor = view.keys_editor
    qtbot.waitUntil(lambda: editor.menu is not None and editor.menu.isVisible())
    menu = editor.menu
    act = next(a for a in menu.actions() if a.objectName() == "interpolation_ease")
    QTest.mouseClick(
        menu,
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier(0),
        menu.actionGeometry(act).center(),
    )
    assert _rotation_keys(window).interpolation == ("ease", "ease", "ease", "linear")
    assert doc.undo_stack.count() == depth + 1
    assert window.actions_by_name["trails"].isChecked() == trails  # T went to the keys


def test_esc_cancels_a_drag_and_value_and_insert_edits_are_one_step_each(window, qtbot):
    select_in_outliner(window, qtbot, TARGET)
    view, doc = window.curve_view, window.document
    before = _target_keys(window)
    plot, at20 = _diamond(view, "px", 20)
    click(plot.viewport(), at20)
    _settle(window, qtbot)
    plot, at20 = _diamond(view, "px", 20)
    depth = doc.undo_stack.count()
    to = plot.pixel_of(26.0, 0.0)
    QTest.mousePress(
        plot.viewport(),
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier(0),
        gui_point(at20),
    )
    for x in np.linspace(at20[0], to.x(), 6)[1:]:
        QTest.mouseMove(plot.viewport(), gui_point((x, at20[1])))
        qtbot.wait(5)
    assert not np.array_equal(_target_keys(window).frames, before.frames)  # previewed
    key(plot, "Escape")
    QTest.mouseRelease(
        plot.viewport(),
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier(0),
        gui_point((to.x(), at20[1])),
    )
    assert _target_keys(window) == before
    assert doc.undo_stack.count() == depth
    # A Shift+drag in value: one step, undone whole.
    up = plot.pixel_of(20.0, 1.5)
    drag(plot.viewport(), at20, (at20[0], up.y()), SHIFT, qtbot=qtbot)
    assert _target_keys(window).values[1, 0] == pytest.approx(1.5, abs=0.02)
    assert doc.undo_stack.count() == depth + 1
    doc.undo_stack.undo()
    assert _target_keys(window) == before
    # Ctrl+click: one step.
    _settle(window, qtbot)
    frames, px = view.series()["px"]
    spot = plot.pixel_of(12.0, float(np.interp(12.0, frames, px)))
    click(plot.viewport(), (spot.x(), spot.y()), CTRL)
    assert 12.0 in _target_keys(window).frames
    assert doc.undo_stack.count() == depth + 1
    doc.undo_stack.undo()
    assert _target_keys(window) == before


def test_a_bones_scale_keys_are_plotted_dashed_and_drag_in_value(window, qtbot):
    select_in_outliner(window, qtbot, ARM)
    view, doc = window.curve_view, window.document
    frames, sx = view.series()["sx"]
    keys = doc.scene.bone("arm").scale_keys
    np.testing.assert_allclose(sx, sample(None, keys, frames)[:, 0], atol=1e-15)  # eased
    plot, at20 = _diamond(view, "sx", 20)
    assert plot is view.lower
    click(plot.viewport(), at20)
    _settle(window, qtbot)
    plot, at20 = _diamond(view, "sx", 20)
    to = plot.pixel_of(20.0, 2.0)
    drag(plot.viewport(), at20, (at20[0], to.y()), SHIFT, qtbot=qtbot)
    scale = doc.scene.bone("arm").scale_keys
    per_pixel = 1.0 / abs(to.y() - plot.pixel_of(20.0, 3.0).y())  # a small plot: coarse
    assert scale.values[1, 0] == pytest.approx(2.0, abs=1.5 * per_pixel)  # the mouse's rounding
    np.testing.assert_array_equal(scale.values[0], [1, 1, 1])
    np.testing.assert_array_equal(doc.scene.bone("arm").translation_keys.frames, [0, 10, 20])


def test_a_right_click_on_a_key_offers_its_interpolation(window, qtbot):
    select_in_outliner(window, qtbot, TARGET)
    view, doc = window.curve_view, window.document
    plot, at20 = _diamond(view, "pz", 20)
    depth = doc.undo_stack.count()
    QTest.mouseClick(
        plot.viewport(),
        QtCore.Qt.MouseButton.RightButton,
        QtCore.Qt.KeyboardModifier(0),
        gui_point(at20),
    )
    editor = view.keys_editor
    qtbot.waitUntil(lambda: editor.menu is not None and editor.menu.isVisible())
    assert view.selected_keys() == {(TARGET, "position_keys"): [20.0]}
    menu = editor.menu
    act = next(a for a in menu.actions() if a.objectName() == "interpolation_constant")
    QTest.mouseClick(
        menu,
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier(0),
        menu.actionGeometry(act).center(),
    )
    assert _target_keys(window).interpolation == ("linear", "constant", "linear")
    assert doc.undo_stack.count() == depth + 1
