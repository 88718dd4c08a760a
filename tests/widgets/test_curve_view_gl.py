"""The curve view, driven with real mouse events: what it plots, scrubbing, picking keys."""

import numpy as np
import pytest
from PySide6 import QtWidgets
from scipy.spatial.transform import Rotation, Slerp

from app.scene import evaluate
from app.scene.evaluate import bake
from app.scene.math.transforms import rotation_from_matrix
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import click, drag
from tests.helpers.paths import SCENES

ROLL = "foot_roll"


@pytest.fixture
def window(qtbot):
    return open_curves(qtbot, SCENES / "foot_roll.json")


def select_in_outliner(window, qtbot, ref):
    outliner = window.outliner
    item = outliner.item_for(ref)
    outliner.scrollToItem(item)
    click(outliner.viewport(), outliner.visualItemRect(item).center())
    qtbot.waitUntil(lambda: window.document.active == ref)
    qtbot.wait(20)


def scipy_curve(keys, frames):
    """The keyed rotation at ``frames`` by scipy's Slerp, holding before and after."""
    slerp = Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))
    return slerp(np.clip(frames, keys.frames[0], keys.frames[-1])).as_quat(scalar_first=True)


def test_the_curve_view_plots_the_keyed_quaternion(window, qtbot):
    doc = window.document
    view = window.findChild(QtWidgets.QWidget, "curveView")
    assert view is window.curve_view.plot  # the PlotWidget the issue names
    select_in_outliner(window, qtbot, Ref.pivot_of(ROLL, "heel"))
    pivot = doc.scene.constraint(ROLL).pivots[0]
    assert pivot.name == "heel"
    series = window.curve_view.series()
    frames = series["w"][0]
    assert frames[0] == doc.scene.frame_start and frames[-1] == doc.scene.frame_end
    plotted = np.stack([series[c][1] for c in "wxyz"], axis=1)
    expected = scipy_curve(pivot.rotation_keys, frames)
    # The same rotation at every plotted frame (q and -q are one rotation) ...
    np.testing.assert_allclose(np.abs(np.einsum("fi,fi->f", plotted, expected)), 1.0, atol=1e-9)
    # ... drawn without sign flips, so the curves are continuous.
    assert np.all(np.einsum("fi,fi->f", plotted[1:], plotted[:-1]) > 0)
    np.testing.assert_allclose(
        series["angle"][1],
        np.degrees(Rotation.from_quat(expected, scalar_first=True).magnitude()),
        atol=1e-7,
    )
    markers = window.curve_view.key_markers()
    np.testing.assert_array_equal(markers["w"][0], pivot.rotation_keys.frames)
    keyed = np.stack([markers[c][1] for c in "wxyz"], axis=1)
    np.testing.assert_allclose(
        np.abs(np.einsum("ki,ki->k", keyed, pivot.rotation_keys.values)), 1.0, atol=1e-12
    )


def test_dragging_the_frame_line_scrubs(window, qtbot):
    doc = window.document
    select_in_outliner(window, qtbot, Ref.pivot_of(ROLL, "heel"))
    plot = window.curve_view.plot
    doc.prepare_timeline()
    calls = []
    original = evaluate.Evaluator.evaluate
    evaluate.Evaluator.evaluate = lambda self, *a, **k: calls.append(a) or original(self, *a, **k)
    try:
        start = plot.pixel_of(doc.frame, 0.0)
        end = plot.pixel_of(30.0, 0.0)
        drag(plot.viewport(), (start.x(), start.y()), (end.x(), end.y()), steps=12, qtbot=qtbot)
    finally:
        evaluate.Evaluator.evaluate = original
    assert doc.frame == 30
    assert calls == []  # every frame of the scrub came from the whole-timeline cache
    assert plot.frame_line.value() == pytest.approx(30.0)
    np.testing.assert_allclose(doc.pose().heads, bake(doc.scene, [30.0]).heads, atol=1e-12)
    assert window.timeline.frame_spin.value() == 30
    # A click on the plot's background scrubs there too.
    spot = plot.pixel_of(70.0, -0.9)
    click(plot.viewport(), (spot.x(), spot.y()))
    assert doc.frame == 70


def test_clicking_a_key_jumps_to_it(window, qtbot):
    doc = window.document
    select_in_outliner(window, qtbot, Ref.pivot_of(ROLL, "heel"))
    frames, values = window.curve_view.key_markers()["x"]
    k = int(np.flatnonzero(frames == 48)[0])
    spot = window.curve_view.plot.pixel_of(frames[k], values[k])
    click(window.curve_view.plot.viewport(), (spot.x(), spot.y()))
    assert doc.frame == 48 and window.curve_view.picked_key == 48
    assert doc.selection == (Ref.pivot_of(ROLL, "heel"),)  # Shift+K would delete this key


def test_a_driven_body_shows_its_path_and_world_against_object(window, qtbot):
    doc = window.document
    select_in_outliner(window, qtbot, Ref.constraint(ROLL))
    view = window.curve_view
    assert view.subject.kind == "driven" and view.lower.isVisible()
    series = view.series()
    result = bake(doc.scene)
    foot = doc.scene.bone_index("foot")
    for i, axis in enumerate("xyz"):
        np.testing.assert_array_equal(series[f"p{axis}"][0], result.frames)
        np.testing.assert_allclose(series[f"p{axis}"][1], result.heads[:, foot, i], atol=1e-12)
    world, obj = bake(doc.scene, space="world"), bake(doc.scene, space="object")
    np.testing.assert_allclose(
        series["distance"][1],
        np.linalg.norm(world.heads[:, foot] - obj.heads[:, foot], axis=1),
        atol=1e-12,
    )
    relative = Rotation.from_quat(
        rotation_from_matrix(world.bone_to_world[:, foot]), scalar_first=True
    ).inv() * Rotation.from_quat(
        rotation_from_matrix(obj.bone_to_world[:, foot]), scalar_first=True
    )
    np.testing.assert_allclose(
        series["angle difference"][1], np.degrees(relative.magnitude()), atol=1e-6
    )
    assert series["distance"][1].max() > 0.1  # the foot rolls another way about world axes
    # The diamonds are the pivots' keys; clicking one selects that pivot at its frame.
    frames, values = view.key_markers()["px"]
    k = int(np.flatnonzero(frames == 20)[0])
    spot = view.plot.pixel_of(frames[k], values[k])
    click(view.plot.viewport(), (spot.x(), spot.y()))
    assert doc.frame == 20
    owner = doc.active
    assert owner.kind == "pivot" and owner.name == ROLL
    pivot = doc.scene.constraint(ROLL).pivots
    assert any(p.name == owner.part_name and 20 in p.rotation_keys.frames for p in pivot)


def test_an_edit_redraws_the_curve(window, qtbot):
    doc = window.document
    select_in_outliner(window, qtbot, Ref.pivot_of(ROLL, "heel"))
    doc.set_frame(30)
    from app.editor.operations import key_operations

    key_operations.set_rotation(doc, Ref.pivot_of(ROLL, "heel"), [0.0, 0.0, 1.0, 0.0])
    window.curve_view._throttled.flush()
    qtbot.wait(150)
    window.curve_view._throttled.flush()
    frames, values = window.curve_view.key_markers()["y"]
    assert 30 in frames and abs(values[list(frames).index(30)]) == pytest.approx(1.0, abs=1e-12)


def open_curves(qtbot, path):
    """The window on ``path`` with View ▸ Curves shown (the dock's own toggle action)."""
    # Tall: the viewport keeps half of the window's middle, and the curves want room too.
    win = gui.open_window(qtbot, path, size=(1280, 990))
    win.curves_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: win.curve_view.isVisible())
    gui.settle_layout(win, qtbot)
    return win


def test_a_tumbling_box_turns_a_quarter_turn_per_tip(qtbot):
    win = open_curves(qtbot, SCENES / "tumbling_box.json")
    select_in_outliner(win, qtbot, Ref.constraint("tumble"))
    frames, turn = win.curve_view.series()["turn"]
    box = win.document.scene.bone_index("box")
    result = bake(win.document.scene)
    rotations = Rotation.from_quat(
        rotation_from_matrix(result.bone_to_world[:, box]), scalar_first=True
    )
    # Every frame's turn from the last one is scipy's; they add up, 90 degrees per edge.
    steps = (rotations[1:] * rotations[:-1].inv()).magnitude()
    np.testing.assert_allclose(turn, np.degrees(np.concatenate([[0], np.cumsum(steps)])), atol=1e-6)
    at_rest = frames[np.flatnonzero(np.isin(frames, [16, 32, 48, 64]))]
    np.testing.assert_allclose(turn[at_rest.astype(int)], [90, 180, 270, 360], atol=1e-6)


def test_a_motion_capture_root_shows_its_keyed_translation(qtbot, cmu_01_01):
    win = open_curves(qtbot, cmu_01_01)
    select_in_outliner(win, qtbot, Ref.bone("Hips"))
    view = win.curve_view
    assert view.lower.isVisible()
    hips = win.document.scene.bone("Hips")
    frames, _ = view.series()["ty"]
    keys = hips.translation_keys
    rows = np.searchsorted(frames, keys.frames)  # every key frame is a plotted frame
    for i, axis in enumerate("xyz"):
        np.testing.assert_allclose(
            view.series()[f"t{axis}"][1][rows], keys.values[:, i], atol=1e-12
        )
    assert "ty" not in view.key_markers()  # a key on every frame: no diamonds


def test_a_driven_body_on_a_timeline_too_long_to_cache_is_plotted_from_spread_frames(window, qtbot):
    from app.editor.operations import timeline_operations
    from app.scene.evaluations import PLOT_FRAMES, TIMELINE_CACHE_BONE_FRAMES

    doc = window.document
    end = doc.scene.frame_start + TIMELINE_CACHE_BONE_FRAMES // len(doc.scene.bones) + 1000
    timeline_operations.set_timeline(doc, frame_end=end)
    assert not doc.evaluations.timeline_fits_cache()
    select_in_outliner(window, qtbot, Ref.constraint(ROLL))
    series = window.curve_view.series()
    frames = series["px"][0]
    # At most PLOT_FRAMES whole frames from the first to the last, and nothing cached whole.
    assert len(frames) <= PLOT_FRAMES and frames[0] == doc.scene.frame_start
    assert frames[-1] == end and np.all(np.diff(frames) > 0) and np.all(frames % 1 == 0)
    assert doc.evaluations.cached_timeline() is None
    foot = doc.scene.bone_index("foot")
    result = bake(doc.scene, frames=frames)
    np.testing.assert_allclose(series["py"][1], result.heads[:, foot, 1], atol=1e-12)
    world, obj = bake(doc.scene, frames, space="world"), bake(doc.scene, frames, space="object")
    np.testing.assert_allclose(
        series["distance"][1],
        np.linalg.norm(world.heads[:, foot] - obj.heads[:, foot], axis=1),
        atol=1e-12,
    )
    assert f"{len(frames)} frames" in window.curve_view.lower_note.text()
