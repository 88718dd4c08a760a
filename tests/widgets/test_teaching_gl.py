"""Motion trails, the matrix-chain panel and step-through in the editor (real GL, real events)."""

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.editor.document import Document
from app.scene.constraints.fabrik import solver as fabrik
from app.scene.constraints.fabrik.chains import solve
from app.scene.constraints.multi_parent.steps import steps
from app.scene.evaluate import Evaluator, bake
from app.scene.rig.refs import Ref
from app.window.main_window import MainWindow
from tests.helpers import gui
from tests.helpers.gui import SHIFT, click, framebuffer, key
from tests.helpers.paths import SCENES

ALT = QtCore.Qt.KeyboardModifier.AltModifier


def open_window(qtbot, name, frame=0.0, size=(1280, 860)):
    return gui.open_window(qtbot, SCENES / name, frame, size)


def select_in_outliner(window, qtbot, ref):
    outliner = window.outliner
    item = outliner.item_for(ref)
    outliner.scrollToItem(item)
    click(outliner.viewport(), outliner.visualItemRect(item).center())
    qtbot.waitUntil(lambda: window.document.active == ref)


def pixel_at(pixels, viewport, point):
    x, y = (viewport.project(np.asarray(point)[None])[0] * viewport.devicePixelRatioF()).astype(int)
    return pixels[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3)


# --- motion trails and ghosts ----------------------------------------------------------------


def test_trails_pass_through_the_baked_positions(qtbot):
    win = open_window(qtbot, "fabrik_arm.json", frame=40.0)
    doc, viewport = win.document, win.viewport
    viewport.setFocus()
    key(viewport, "T")
    assert viewport.trails.enabled and win.trails_bar.isVisible()
    teaching = viewport.teaching
    result = bake(doc.scene)
    frames, path = teaching.trail_paths["fingers tip"]
    np.testing.assert_array_equal(frames, np.arange(28.0, 53.0))  # 12 before, 12 after
    fingers = doc.scene.bone_index("fingers")
    np.testing.assert_allclose(path, result.tails[frames.astype(int), fingers], atol=1e-12)
    # The path is drawn: its dot 12 frames back is on screen, warm (the past), and goes
    # when the range no longer reaches back that far (the Trails bar).
    qtbot.wait(30)
    drawn = framebuffer(viewport, qtbot)
    spin = win.findChild(QtWidgets.QSpinBox, "trails_before")
    spin.setValue(5)
    qtbot.wait(30)
    shorter = framebuffer(viewport, qtbot)
    dot = pixel_at(drawn, viewport, path[0])
    assert ((dot[:, 2] > dot[:, 0] + 40) & (dot[:, 2] > 120)).any()  # BGR: red over blue
    assert (np.abs(pixel_at(shorter, viewport, path[0]) - dot).max(axis=1) > 40).any()
    frames, _ = teaching.trail_paths["fingers tip"]
    np.testing.assert_array_equal(frames, np.arange(35.0, 53.0))
    # Ghosts every 4 frames: Shift+T.
    key(viewport, "T", SHIFT)
    np.testing.assert_array_equal(teaching.ghost_frames, [36, 44, 48, 52])
    assert teaching.ghosts.visible()
    # Scrubbing carries the window along, from the whole-timeline cache.
    doc.set_frame(100.0)
    frames, path = teaching.trail_paths["fingers tip"]
    np.testing.assert_array_equal(frames, np.arange(95.0, 113.0))
    np.testing.assert_allclose(path, result.tails[frames.astype(int), fingers], atol=1e-12)
    key(viewport, "T")
    key(viewport, "T", SHIFT)
    assert teaching.trail_paths == {} and not teaching.ghosts.visible()


def test_a_selected_bone_gets_a_trail_too(qtbot):
    win = open_window(qtbot, "legs.json", frame=30.0)
    select_in_outliner(win, qtbot, Ref.bone("foot.r"))
    win.viewport.setFocus()
    key(win.viewport, "T")
    # The trail is drawn with the next frame the viewport draws (later on a loaded machine).
    qtbot.waitUntil(lambda: "foot.r tip" in win.viewport.teaching.trail_paths)
    frames, path = win.viewport.teaching.trail_paths["foot.r tip"]
    result = bake(win.document.scene, frames)
    np.testing.assert_allclose(
        path, result.tails[:, win.document.scene.bone_index("foot.r")], atol=1e-12
    )


# --- the matrix chain ------------------------------------------------------------------------


def show_matrix(win, qtbot):
    win.matrix_dock.toggleViewAction().trigger()
    win.curves_dock.hide()
    qtbot.waitUntil(lambda: win.matrix_panel.isVisible())


@pytest.mark.parametrize(
    "space, formula",
    [
        (
            "1",
            "T(calf.l head) R_c(calf.l) T(-calf.l head) "
            "[T_hip R_hip T_thigh.l R_thigh.l T_calf.l R_calf.l]",
        ),
        ("2", "[T_hip R_hip T_thigh.l R_thigh.l T_calf.l R_calf.l] R_c(calf.l)"),
    ],
)
def test_the_matrix_panel_writes_the_seeds_chain_and_its_product_is_bone_to_world(
    qtbot, space, formula
):
    win = open_window(qtbot, "calf_points_at_ankle.json", frame=37.0)
    show_matrix(win, qtbot)
    select_in_outliner(win, qtbot, Ref.bone("calf.l"))
    win.viewport.setFocus()
    key(win.viewport, space)  # 1: world space (option 1), 2: object space (option 2)
    win.matrix_panel._throttled.flush()
    panel, doc = win.matrix_panel, win.document
    assert panel.chain.text() == formula
    calf = doc.scene.bone_index("calf.l")
    expected = bake(doc.scene, [37.0], space=doc.space).bone_to_world[0, calf]
    label, product = panel.cards()[-1]
    assert label == "calf.l → world"
    np.testing.assert_allclose(product, expected, atol=1e-12)
    shown_label, shown_rows = panel.cards_view.texts()[0]  # the product first
    assert shown_label == "calf.l → world ="
    assert shown_rows == [[f"{v:.3f}".replace("-0.000", "0.000") for v in row] for row in expected]
    assert "✓ product − evaluated pose" in panel.notes.text()


def test_the_right_to_left_transform_strikes_the_hip_terms(qtbot):
    win = open_window(qtbot, "legs.json", frame=12.0)
    show_matrix(win, qtbot)
    panel, doc = win.matrix_panel, win.document
    for combo, name in ((panel.bone_combo, "calf.r"), (panel.relative_combo, "calf.l")):
        QTest.mouseClick(combo, QtCore.Qt.MouseButton.LeftButton)  # open the list ...
        view = combo.view()
        qtbot.waitUntil(view.isVisible)
        qtbot.wait(QtWidgets.QApplication.doubleClickInterval() + 50)  # not the opening click
        row = view.visualRect(view.model().index(combo.findText(name), 0))
        QTest.mouseClick(
            view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=row.center()
        )  # ... and pick the bone
        qtbot.waitUntil(lambda c=combo, n=name: c.currentText() == n)
    chain = panel.chain
    assert chain.text() == (
        "R_calf.l^-1 T_calf.l^-1 R_thigh.l^-1 T_thigh.l^-1 ~~R_hip^-1~~ "
        "~~T_hip^-1~~ ~~T_hip~~ ~~R_hip~~ T_thigh.r R_thigh.r T_calf.r "
        "R_calf.r"
    )
    pose = bake(doc.scene, [12.0]).bone_to_world[0]
    l, r = doc.scene.bone_index("calf.l"), doc.scene.bone_index("calf.r")
    np.testing.assert_allclose(panel.cards()[-1][1], np.linalg.inv(pose[l]) @ pose[r], atol=1e-12)
    np.testing.assert_allclose(chain.product(skip_cancelled=True), panel.cards()[-1][1], atol=1e-12)
    assert panel.formula.text().count("<s ") == 4  # the struck hip terms, in the formula
    struck = [label for label, _ in panel.cards_view.texts()][5:9]
    assert struck == ["Rhip-1", "Thip-1", "Thip", "Rhip"]  # subscripts, superscripts as text
    assert [c.struck for c in panel.cards_view._cards][4:10] == [False] + [True] * 4 + [False]
    # Following the selection: clicking a bone in the outliner shows its chain.
    select_in_outliner(win, qtbot, Ref.bone("foot.l"))
    assert panel.bone_combo.currentText() == "foot.l"


# --- step-through ----------------------------------------------------------------------------


def test_fabrik_step_through_runs_pass_by_pass_to_the_solvers_result(qtbot):
    win = open_window(qtbot, "fabrik_arm.json", frame=17.0)
    doc, model = win.document, win.step_through
    select_in_outliner(win, qtbot, Ref.constraint("arm reaches"))
    win.viewport.setFocus()
    key(win.viewport, "S", ALT)
    assert model.active and model.kind == "fabrik" and win.step_dock.isVisible()
    assert model.index == 0 and model.trace.stages[0].kind == "start"
    next_button = win.step_panel.buttons["stepNext"]
    shown = []
    for _ in range(model.count() - 1):
        QTest.mouseClick(next_button, QtCore.Qt.MouseButton.LeftButton)
        shown.append(win.viewport.teaching.step_joints.copy())
        np.testing.assert_array_equal(shown[-1], model.trace.stages[model.index].joints)
    assert model.index == model.count() - 1
    assert "tail → target" in win.step_panel.description.text()
    # The last pass is the solver's result, bit for bit, and where the bones end up.
    c = doc.scene.constraint("arm reaches")
    ctx = Evaluator(doc.scene).context([17.0], None, until=c.name)
    s = fabrik.setup(c, ctx)
    solution = solve(
        s.joints,
        s.target,
        tolerance=c.tolerance,
        max_iterations=c.max_iterations,
        pole=s.pole,
        bend=s.bend,
        pose=s.pose,
    )
    np.testing.assert_array_equal(shown[-1], solution.joints[0])
    result = bake(doc.scene, [17.0])
    idx = [doc.scene.bone_index(n) for n in c.chain]
    joints = np.concatenate([result.heads[0, idx], result.tails[0, idx[-1:]]])
    np.testing.assert_allclose(shown[-1], joints, atol=1e-9)
    # The stage is drawn: the yellow chain shows at the middle of its second segment.
    key(win.viewport, "Left", ALT)
    qtbot.wait(30)
    stage = model.trace.stages[model.index].joints
    pixels = framebuffer(win.viewport, qtbot)
    patch = pixel_at(pixels, win.viewport, 0.5 * (stage[1] + stage[2]))
    assert ((patch[:, 2] > 180) & (patch[:, 1] > 170) & (patch[:, 0] < 150)).any()  # BGR
    # Scrubbing traces the new frame; Alt+S again leaves the mode.
    doc.set_frame(60.0)
    model.flush()
    ctx = Evaluator(doc.scene).context([60.0], None, until=c.name)
    np.testing.assert_array_equal(model.trace.stages[0].joints, fabrik.setup(c, ctx).joints[0])
    key(win.viewport, "S", ALT)
    assert not model.active and win.viewport.teaching.step_joints is None


def test_multi_parent_step_through_shows_each_pivots_contribution(qtbot):
    win = open_window(qtbot, "foot_roll.json", frame=40.0)
    doc, model = win.document, win.step_through
    select_in_outliner(win, qtbot, Ref.pivot_of("foot_roll", "ball"))
    win.viewport.setFocus()
    key(win.viewport, "S", ALT)
    assert model.active and model.kind == "multi_parent"
    expected = steps(doc.scene.constraint("foot_roll"), doc.scene, 40)
    assert model.count() == len(expected) == 4  # 4 substeps per frame
    key(win.viewport, "Right", ALT)
    key(win.viewport, "Right", ALT)
    assert model.index == 2
    table = win.step_panel.pivots
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    for i, name in enumerate(expected.pivot_names):
        c = expected.contributions[2, i]
        assert table.item(rows[name], 3).text() == "\n".join(f"{x:+.5f}" for x in c)
    assert win.viewport.teaching.arrow_scale > 0
    labels = win.viewport.labels()
    assert any(text.startswith("Σ = Δp0") for text in labels)
    assert any(text.startswith("{Rᵢ}") for text in labels)
    # The last step lands on the evaluated pose.
    QTest.mouseClick(win.step_panel.buttons["stepLast"], QtCore.Qt.MouseButton.LeftButton)
    st = model.trace
    foot = doc.scene.bone_index("foot")
    np.testing.assert_array_equal(st.position[-1], bake(doc.scene, [40.0]).heads[0, foot])


def test_trail_settings_persist(qtbot):
    from app.editor import settings
    from app.widgets.viewport.teaching_drawing import TrailSettings

    win = MainWindow(Document.from_file(SCENES / "legs.json"))
    qtbot.addWidget(win)
    win.show()
    win.set_trails(TrailSettings(enabled=True, before=7, after=3, ghosts=True, every=2))
    win.close()
    again = MainWindow(Document.from_file(SCENES / "legs.json"))
    qtbot.addWidget(again)
    assert again.viewport.trails == TrailSettings(True, 7, 3, True, 2)
    assert again.actions_by_name["trails"].isChecked()
    assert again.findChild(QtWidgets.QSpinBox, "trails_before").value() == 7
    settings.settings().clear()  # later tests start from the default layout
