"""Four tutorials performed step by step as their texts say, with real clicks, key presses,
typing and drags (issue 18, item 6): the foot roll, building a foot roll from nothing, the
tumbling box and the glTF humanoid. After each step the test checks what the text says a
person sees; the figures it checks are read from the text the panel shows, so the text and
the scene cannot drift apart (``tests/editor/test_tutorial_figures.py`` recomputes them too).
"""

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.evaluate import bake
from app.scene.math.transforms import transform_points
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, drag, framebuffer, key
from tests.helpers.paths import SCENES
from tests.journeys._steps_a import (
    ALT,
    changed_pixels,
    field,
    figure,
    go_to_frame,
    list_click,
    list_texts,
    open_tutorial,
    outliner_click,
    outliner_rows,
    pick_from_menu,
    press,
    shown_text,
    tool,
    type_into,
)

SPIN = QtWidgets.QDoubleSpinBox


def window(qtbot):
    """A window on another scene, as a person has it before opening a tutorial."""
    return gui.open_window(qtbot, SCENES / "legs.json", size=(1280, 860))


def step_labels(vp) -> list[str]:
    """The pivots whose contribution arrow the step-through labels in the viewport (a label
    "<pivot>: <what>" at the arrow's tip; a handle's label is the bare name)."""
    pivots = {ref.part_name for ref, _ in vp.handles() if ref.kind == "pivot"}
    return sorted(t.split(":")[0] for t in vp.labels() if ":" in t and t.split(":")[0] in pivots)


def foot_heads(doc, frames, space=None):
    return bake(doc.scene, np.asarray(frames, float), space).heads[:, doc.scene.bone_index("foot")]


def test_the_foot_roll_tutorial_step_by_step(qtbot):
    win = window(qtbot)
    doc, vp = win.document, win.viewport
    text = open_tutorial(win, qtbot, "foot_roll")
    roll = Ref.constraint("foot_roll")
    frames = np.arange(doc.scene.frame_start, doc.scene.frame_end + 1)
    shipped = bake(doc.scene, frames.astype(float))
    # 1. play the walk (Space twice): the foot moves on screen
    image = framebuffer(vp, qtbot)
    vp.setFocus()
    key(vp, "Space")
    qtbot.waitUntil(lambda: doc.frame >= 8, timeout=5000)
    key(vp, "Space")
    assert not doc.player.playing
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 100
    win.curves_dock.toggleViewAction().trigger()  # View ▸ Curves
    qtbot.waitUntil(lambda: win.curve_view.isVisible())
    qtbot.wait(200)  # as a person does: the docks settle (the viewport keeps its half)
    turning = []
    for pivot in outliner_rows(win, roll):
        outliner_click(win, qtbot, Ref.pivot_of("foot_roll", pivot))
        assert win.curve_view.series()["angle"][0][-1] == frames[-1]
        # where two neighbouring diamonds differ, the pivot turns between them
        markers = win.curve_view.key_markers()
        at = markers["w"][0]
        values = np.stack([markers[c][1] for c in "wxyz"], axis=1)
        moves = np.abs(np.diff(values, axis=0)).max(axis=1) > 1e-12
        mids = frames[:-1] + 0.5
        turning.append(
            np.any(
                [(a < mids) & (mids < b) for a, b, m in zip(at[:-1], at[1:], moves) if m], axis=0
            )
        )
    assert np.sum(turning, axis=0).max() == 2  # "never more than two of them turn at a time"
    assert "never more than two of them turn at a time" in text
    plot = win.curve_view.plot
    key_frames, values = win.curve_view.key_markers()["w"]  # the last pivot's (swing) keys
    spot = plot.pixel_of(key_frames[2], values[2])
    gui.click(plot.viewport(), (spot.x(), spot.y()))  # click a diamond: jump to that key
    assert doc.frame == key_frames[2]
    qtbot.wait(100)  # the plot as it is drawn now (its axes laid out after the jump)
    start, end = plot.pixel_of(doc.frame, 0.5), plot.pixel_of(60.0, 0.5)  # off the diamonds
    drag(plot.viewport(), (start.x(), start.y()), (end.x(), end.y()), steps=10, qtbot=qtbot)
    assert abs(doc.frame - 60) <= 1 and not doc.dirty  # drag the blue line to scrub
    win.curves_dock.toggleViewAction().trigger()
    # 2. frame 20, the constraint, Alt+S, Alt+Right: arrows for heel and swing only
    go_to_frame(win, 20)
    outliner_click(win, qtbot, roll)
    vp.setFocus()
    key(vp, "S", ALT)
    key(vp, "Right", ALT)
    qtbot.waitUntil(lambda: win.step_through.active and win.step_through.index == 1)
    vp.refresh()
    assert "Between frames 19 and 20 only heel and swing turn" in text
    assert step_labels(vp) == ["heel", "swing"]
    assert any(t.startswith("Σ") for t in vp.labels())  # the white sum arrow
    key(vp, "S", ALT)
    assert not win.step_through.active
    # 3. reorder: swing, Move Up three times; nothing changes to the last bit; Ctrl+Z back
    assert "press Move Up three times" in text
    pivots = field(win, QtWidgets.QListWidget, "pivotList")
    assert list_texts(pivots) == ["heel", "ball", "toe", "swing"]
    list_click(pivots, "swing")
    for _ in range(3):
        press(win, "pivotUpButton")
    pivots = field(win, QtWidgets.QListWidget, "pivotList")  # the page was rebuilt
    assert list_texts(pivots) == ["swing", "heel", "ball", "toe"]
    assert outliner_rows(win, roll) == ["swing", "heel", "ball", "toe"]
    assert pivots.currentItem().text() == "swing"
    assert not field(win, QtWidgets.QPushButton, "pivotUpButton").isEnabled()
    assert np.array_equal(
        bake(doc.scene, frames.astype(float)).bone_to_world, shipped.bone_to_world
    )
    assert "Nothing changes, at any frame, to the last bit" in text
    assert doc.undo_stack.text(doc.undo_stack.index() - 1) == "Move pivot swing of foot_roll up"
    vp.setFocus()
    for _ in range(3):
        key(vp, "Z", CTRL)
    assert outliner_rows(win, roll) == ["heel", "ball", "toe", "swing"]
    # 4. frame 45, ball, the last position number 0.13 -> 0.15
    go_to_frame(win, 45)
    outliner_click(win, qtbot, Ref.pivot_of("foot_roll", "ball"))
    position = field(win, SPIN, "position2")
    assert round(position.value(), 2) == 0.13
    before = foot_heads(doc, frames)
    image = framebuffer(vp, qtbot)
    type_into(position, "0.15")
    after = foot_heads(doc, frames)
    apart = np.linalg.norm(after - before, axis=1)
    first = int(figure(text, r"The first \d+ frames \(0 to (\d+), before the ball"))
    assert np.all(apart[: first + 1] == 0) and apart[first + 1] > 0
    at_45 = figure(text, r"([\d.]+) cm at frame 45")
    at_end = figure(text, r"([\d.]+) cm at the end")
    assert (round(100 * apart[45], 2), round(100 * apart[-1], 2)) == (at_45, at_end)
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 0  # the foot moved on screen
    vp.setFocus()
    key(vp, "Z", CTRL)
    assert np.array_equal(foot_heads(doc, frames), before)
    # 5. substeps 4 -> 1 -> 16 -> 4, then twist and exact
    outliner_click(win, qtbot, roll)
    substeps = field(win, QtWidgets.QSpinBox, "substeps")
    assert substeps.value() == 4 and "from 4 to 1, then 16" in text
    ends = {}
    for n in (1, 16, 4):
        type_into(field(win, QtWidgets.QSpinBox, "substeps"), str(n))
        assert doc.scene.constraint("foot_roll").substeps == n
        ends[n] = foot_heads(doc, [96.0])[0]
    combo = field(win, QtWidgets.QComboBox, "integrator")
    for name in ("twist", "exact"):
        combo = field(win, QtWidgets.QComboBox, "integrator")
        combo.setFocus()
        QTest.keyClick(combo, QtCore.Qt.Key.Key_Down)  # seed, twist, exact
        assert combo.currentText() == name
        ends[name] = foot_heads(doc, [96.0])[0]
    off = {k: 100 * np.linalg.norm(v - ends["exact"]) for k, v in ends.items()}
    assert off["twist"] < 1e-12
    for n, words in ((1, "with 1 substep"), (4, "with 4"), (16, "with 16")):
        assert round(off[n], 2) == figure(text, rf"([\d.]+) cm (?:from the exact limit )?{words}")
    combo = field(win, QtWidgets.QComboBox, "integrator")
    combo.setFocus()
    QTest.keyClick(combo, QtCore.Qt.Key.Key_Home)
    assert doc.scene.constraint("foot_roll").integrator == "seed"
    # 6. world (1) and object (2) space at the last frame
    go_to_frame(win, 96)
    vp.setFocus()
    key(vp, "1")
    world = doc.pose().heads[0, doc.scene.bone_index("foot")]
    key(vp, "2")
    obj = doc.pose().heads[0, doc.scene.bone_index("foot")]
    start = shipped.heads[0, doc.scene.bone_index("foot")]
    assert round(obj[0] - start[0], 2) == figure(text, r"walks ([\d.]+) m forward")
    assert round(world[2] - start[2], 2) == figure(text, r"walks ([\d.]+) m off to the side")
    assert round(-world[1], 2) == figure(text, r"its ankle ([\d.]+) m below the floor")


def test_building_a_foot_roll_from_nothing_step_by_step(qtbot, dialogs):
    win = window(qtbot)
    doc, vp = win.document, win.viewport
    text = open_tutorial(win, qtbot, "build_foot_roll")
    # 1. File ▸ New (Ctrl+N): one upright root bone, and the tutorial stays open
    assert "File ▸ New (Ctrl+N)" in text and "this text stays open" in text
    vp.setFocus()
    key(vp, "N", CTRL)
    assert doc.scene.bone_names() == ["root"] and not doc.scene.constraints
    assert win.tutorial_dock.isVisible() and shown_text(win) == text
    pose = doc.pose()
    gui.click(vp, vp.project([0.5 * (pose.heads[0, 0] + pose.tails[0, 0])])[0])
    assert doc.selection == (Ref.bone("root"),)
    # 2. F2 foot; its Tail 0, 0, 0.2 in the inspector
    gui.rename_with_f2(vp, "foot")
    for i, v in enumerate((0, 0, 0.2)):
        type_into(field(win, SPIN, f"rest_tail{i}"), str(v))
    assert doc.scene.bone_names() == ["foot"] and doc.scene.bone("foot").tail == (0, 0, 0.2)
    # 3. E: the toes from the foot's tail; F2 toes; Tail 0, 0, 0.06
    vp.setFocus()
    key(vp, "E")
    gui.rename_with_f2(vp, "toes")
    for i, v in enumerate((0, 0, 0.06)):
        type_into(field(win, SPIN, f"rest_tail{i}"), str(v))
    toes = doc.scene.bone("toes")
    assert (toes.parent, toes.translation, toes.tail) == ("foot", (0, 0, 0.2), (0, 0, 0.06))
    # 4. the foot in the outliner; Shift+A over the viewport ▸ the multi-parent constraint
    outliner_click(win, qtbot, Ref.bone("foot"))
    vp.setFocus()
    QTest.mouseMove(vp, vp.rect().center())
    key(vp, "A", SHIFT)
    pick_from_menu(qtbot, "Add Multi-Parent Constraint on foot")
    qtbot.waitUntil(lambda: len(doc.scene.constraints) == 1)
    (c,) = doc.scene.constraints
    assert c.body == "foot" and [p.position for p in c.pivots] == [(0, 0, 0)]  # the heel
    # 5. Add pivot: at the foot's tail, the ball; name them heel and ball
    press(win, "addPivotButton")
    roll = Ref.constraint(c.name)
    assert [p.position for p in doc.scene.constraint(c.name).pivots] == [(0, 0, 0), (0, 0, 0.2)]
    for row, name in zip(outliner_rows(win, roll), ("heel", "ball")):
        outliner_click(win, qtbot, Ref.pivot_of(c.name, row))
        type_into(field(win, QtWidgets.QLineEdit, "pivotName"), name)
    assert outliner_rows(win, roll) == ["heel", "ball"]
    # 6. the heel: K at 0, X -20 at 10 (toes up), 0 at 20 (flat)
    outliner_click(win, qtbot, Ref.pivot_of(c.name, "heel"))
    go_to_frame(win, 0)
    vp.setFocus()
    key(vp, "K")
    go_to_frame(win, 10)
    type_into(field(win, SPIN, "rotationEuler0"), "-20")
    foot = doc.pose()
    assert np.allclose(foot.heads[0, 0], 0, atol=1e-9)  # the heel stays
    assert foot.tails[0, 0, 1] > 0.06  # toes up: tipped back on the heel
    go_to_frame(win, 20)
    type_into(field(win, SPIN, "rotationEuler0"), "0")
    assert np.allclose(doc.pose().tails[0, 0], [0, 0, 0.2], atol=1e-6)  # flat again
    # 7. the ball: K at 20, X 30 at 32: the heel lifts, the ball stays
    outliner_click(win, qtbot, Ref.pivot_of(c.name, "ball"))
    vp.setFocus()
    key(vp, "K")
    assert (
        win.statusBar()
        .currentMessage()
        .startswith("Keyed pivot ball at frame 20, and its rest at frame 0: a pivot turns")
    )
    image = framebuffer(vp, qtbot)
    go_to_frame(win, 32)
    type_into(field(win, SPIN, "rotationEuler0"), "30")
    foot = doc.pose()
    assert foot.heads[0, 0, 1] > 0.09 and np.allclose(foot.tails[0, 0], [0, 0, 0.2], atol=1e-6)
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 100  # the roll shows
    # 8. play it; the curves show the two pivots taking turns
    go_to_frame(win, 0)
    vp.setFocus()
    key(vp, "Space")
    qtbot.waitUntil(lambda: doc.frame >= 4, timeout=5000)
    key(vp, "Space")
    win.curves_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: win.curve_view.isVisible())
    spans = []
    for name in ("heel", "ball"):
        outliner_click(win, qtbot, Ref.pivot_of(c.name, name))
        spans.append(win.curve_view.key_markers()["w"][0])
    # the heel's keys end where the ball's turn begins (its rest keyed at 0 by its first K)
    assert spans[1].tolist() == [0, 20, 32] and spans[0].max() <= spans[1][1]
    win.curves_dock.toggleViewAction().trigger()
    # what to notice: both spaces agree; the body followed the rename
    vp.setFocus()
    go_to_frame(win, 32)
    key(vp, "1")
    world = doc.pose().bone_to_world
    key(vp, "2")
    assert np.allclose(world, doc.pose().bone_to_world, atol=1e-12)
    assert doc.scene.constraints[0].body == "foot"
    # New again, with unsaved changes: asked first; Cancel keeps everything, tutorial too
    built = doc.scene
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Cancel
    key(vp, "N", CTRL)
    assert dialogs.kinds() == ["question"] and doc.scene == built
    assert win.tutorial_dock.isVisible()
    # every step was one entry in the History: Ctrl+Z takes them all back, to New's bone
    count = doc.undo_stack.index()
    assert count >= 14
    for _ in range(count):
        key(vp, "Z", CTRL)
    assert doc.scene.bone_names() == ["root"] and not doc.scene.constraints


CORNERS = np.array([[x, y, z] for x in (-0.25, 0.25) for y in (-0.25, 0.25) for z in (-0.5, 0.5)])


def test_the_tumbling_box_tutorial_step_by_step(qtbot):
    win = window(qtbot)
    doc, vp = win.document, win.viewport
    text = open_tutorial(win, qtbot, "tumbling_box")
    box = doc.scene.bone_index("box")
    tumble = Ref.constraint("tumble")
    edges = {ref.part_name: p for ref, p in vp.handles() if ref.kind == "pivot"}
    # 1. T: the trail; before and after 128 in the Trails bar: quarter circles of 0.56 m
    vp.setFocus()
    key(vp, "T")
    assert win.trails_bar.isVisible()
    for name in ("trails_before", "trails_after"):
        type_into(win.trails_bar.findChild(QtWidgets.QSpinBox, name), "128")
    ((frames, path),) = vp.teaching.trail_paths.values()
    assert frames[0] == 0 and frames[-1] == 128
    radius = figure(text, r"\(([\d.]+) m away")
    on_a = np.linalg.norm(path[:13] - edges["edge_a"], axis=1)  # frames 0..12 about edge_a
    assert np.allclose(np.round(on_a, 2), radius)
    heights = path[:, 1]
    assert round(heights.min(), 2) == figure(text, r"climbs from ([\d.]+) m")
    assert round(heights.max(), 2) == figure(text, r"climbs from [\d.]+ m to ([\d.]+) m")
    assert round(heights[12], 2) == figure(text, r"comes down to ([\d.]+) m standing")
    steps_ = np.linalg.norm(np.diff(path[:13], axis=0), axis=1)
    assert np.allclose(steps_, steps_[0])  # evenly spaced dots
    assert np.allclose(path[12:17], path[12])  # four frames' dots on one point
    # 2. the curves of the constraint: 90 degrees per tip, 720 in all; spaces part at frame 1
    win.curves_dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: win.curve_view.isVisible())
    outliner_click(win, qtbot, tumble)
    series = win.curve_view.series()
    turn_frames, turn = series["turn"]
    assert round(turn[-1]) == figure(text, r"(\d+) degrees over the shot's eight tips")
    assert abs(np.interp(12, turn_frames, turn) - 90) < 1e-6  # the first tip
    part_frames, distance = series["distance"]
    parted = part_frames[np.argmax(distance > 1e-9)]
    assert 0 < parted <= figure(text, r"part from frame (\d+)")
    win.curves_dock.toggleViewAction().trigger()
    # 3. the handover: frame 12 edge_a's arrow; 14 none; 17 edge_b's
    go_to_frame(win, 12)
    vp.setFocus()
    key(vp, "S", ALT)
    key(vp, "Right", ALT)
    for frame, expected in ((12, ["edge_a"]), (14, []), (17, ["edge_b"])):
        go_to_frame(win, frame)
        win.step_through.flush()
        vp.refresh()
        assert step_labels(vp) == expected, frame
    assert "At frame 17 only edge_b's arrow is drawn" in text
    vp.setFocus()
    key(vp, "S", ALT)
    assert not win.step_through.active
    # 4. edge_b's diamond from 16 to 6 in the scrub bar; then edge_b to the top of the list
    shipped = bake(doc.scene)
    outliner_click(win, qtbot, Ref.pivot_of("tumble", "edge_b"))
    bar = win.timeline.scrub_bar
    y = bar.height() - 10
    drag(bar, (bar.x_of(16), y), (bar.x_of(6), y), steps=10, qtbot=qtbot)
    keys = doc.scene.constraint("tumble").pivots[1].rotation_keys.frames
    assert list(keys[:3]) == [0, 6, 28]
    both = bake(doc.scene)
    short = 100 * (shipped.heads[-1, box, 0] - both.heads[-1, box, 0])
    assert round(short, 1) == figure(text, r"lands ([\d.]+) cm short")
    outliner_click(win, qtbot, tumble)
    list_click(field(win, QtWidgets.QListWidget, "pivotList"), "edge_b")
    press(win, "pivotUpButton")
    assert outliner_rows(win, tumble)[0] == "edge_b"
    assert np.array_equal(bake(doc.scene).bone_to_world, both.bone_to_world)
    vp.setFocus()
    key(vp, "Z", CTRL)
    key(vp, "Z", CTRL)
    assert outliner_rows(win, tumble)[:2] == ["edge_a", "edge_b"]
    assert np.array_equal(bake(doc.scene).bone_to_world, shipped.bone_to_world)
    # 5. object space 6 m along +X; world space 2 m along +Z, a corner 0.25 m under the floor
    go_to_frame(win, 128)
    start = shipped.heads[0, box]
    vp.setFocus()
    key(vp, "2")
    assert round(doc.pose().heads[0, box, 0] - start[0]) == figure(text, r"length, (\d+) m along")
    key(vp, "1")
    assert round(doc.pose().heads[0, box, 2] - start[2]) == figure(text, r"sideways \((\d+) m")
    go_to_frame(win, 12)
    lowest = transform_points(doc.pose().bone_to_world[0, box], CORNERS)[:, 1].min()
    assert round(-lowest, 2) == figure(text, r"its lowest corner ([\d.]+) m under it")
    key(vp, "2")
    assert transform_points(doc.pose().bone_to_world[0, box], CORNERS)[:, 1].min() > -1e-9


def test_the_humanoid_tutorial_step_by_step(qtbot, tmp_path, monkeypatch):
    from app.cli import main as command_line
    from app.editor.document import Document
    from app.scene.io import load_scene

    win = window(qtbot)
    doc, vp = win.document, win.viewport
    text = open_tutorial(win, qtbot, "humanoid_gltf")
    actions = win.actions_by_name
    foot = doc.scene.bone_index("foot.L")
    # 1. mesh only, bones only, both; X-ray (Alt+Z); scrubbing moves the body
    words = {
        name: actions[name].text().replace("&", "")
        for name in ("showBoth", "showMesh", "showBones", "xray")
    }
    assert "View ▸ {}, {}, {} choose".format(*list(words.values())[:3]) in text
    assert f"View ▸ {words['xray']} (Alt+Z)" in text
    rig_menu = win.findChild(QtWidgets.QMenu, "rigMenu")
    build = actions["footRollRig"].text().replace("&", "")
    assert f"{rig_menu.title().replace('&', '')} ▸ {build}" in text
    shown = {}
    for name in ("showMesh", "showBones", "showBoth"):
        actions[name].trigger()  # View ▸ Mesh Only, Bones Only, Mesh and Bones
        qtbot.wait(20)
        shown[name] = framebuffer(vp, qtbot)
    assert changed_pixels(shown["showMesh"], shown["showBones"]) > 1000
    vp.setFocus()
    assert vp.xray  # on at first: the bones over the body
    key(vp, "Z", ALT)
    qtbot.wait(20)
    assert not vp.xray and changed_pixels(shown["showBoth"], framebuffer(vp, qtbot)) > 50
    key(vp, "Z", ALT)
    assert vp.xray
    go_to_frame(win, 12)
    qtbot.wait(20)
    assert changed_pixels(shown["showBoth"], framebuffer(vp, qtbot)) > 100
    go_to_frame(win, 0)
    # 2. click thigh.L (X-ray on); Rig ▸ Foot Roll Rig…; Build; the same for the right leg
    thigh = doc.scene.bone_index("thigh.L")
    pose = doc.pose()
    vp.setFocus()
    gui.click(vp, vp.project([0.5 * (pose.heads[0, thigh] + pose.tails[0, thigh])])[0])
    assert doc.selection == (Ref.bone("thigh.L"),)
    offered = []

    def build_leg(side):
        def answer(dialog):
            combo = dialog.findChild(QtWidgets.QComboBox, "side")
            if side is not None:
                combo.setCurrentIndex(combo.findData(side))
            offered.append(
                [
                    dialog.findChild(QtWidgets.QComboBox, p).currentText()
                    for p in ("thigh", "calf", "foot", "toes")
                ]
            )
            box = dialog.findChild(QtWidgets.QDialogButtonBox)
            QTest.mouseClick(
                box.button(QtWidgets.QDialogButtonBox.StandardButton.Ok),
                QtCore.Qt.MouseButton.LeftButton,
            )

        gui.answer_modal(answer)
        actions["footRollRig"].trigger()

    build_leg(None)
    assert offered[0] == ["thigh.L", "calf.L", "foot.L", "toes.L"]
    for word in offered[0]:
        assert word in text
    names = [c.name for c in doc.scene.constraints]
    assert names == ["foot_roll.L", "foot_leg_ik.L", "foot_follows_ctrl.L"]
    for name in names + ["foot_ctrl.L", "foot_rolled.L", "calf_pole.L"]:
        assert name in text
    c = doc.scene.constraint("foot_roll.L")
    for pivot in c.pivots:  # where the text says the builder put them
        assert "(" + ", ".join(f"{round(v, 3) + 0.0:g}" for v in pivot.position) + ")" in text
    build_leg(None)  # offered by itself now: the left leg has its rig
    assert offered[1] == ["thigh.R", "calf.R", "foot.R", "toes.R"] and "right leg now" in text
    assert len(doc.scene.constraints) == 6
    # 3. the keys, as the text lists them
    for pivot, keys in (
        ("ball", ((2, "K"), (12, "28"), (30, "K"), (34, "0"))),
        ("toe", ((12, "K"), (18, "12"), (26, "K"), (30, "0"))),
        ("heel", ((34, "K"), (40, "-14"), (46, "0"))),
    ):
        outliner_click(win, qtbot, Ref.pivot_of(c.name, pivot))
        for frame, what in keys:
            go_to_frame(win, frame)
            if what == "K":
                vp.setFocus()
                key(vp, "K")
            else:
                type_into(field(win, SPIN, "rotationEuler0"), what)
    frames = np.arange(doc.scene.frame_start, doc.scene.frame_end + 1.0)
    m = bake(doc.scene, frames).bone_to_world[:, doc.scene.bone_index(c.body)]
    pivots = doc.scene.constraint(c.name).pivots
    up = {p.name: transform_points(m, np.array(p.position))[:, 1] for p in pivots}
    up = {name: 100 * (h - h[2]) for name, h in up.items()}  # cm above frame 2
    assert round(up["heel"][12], 1) == figure(text, r"about the ball \(([\d.]+) cm by frame 12")
    assert round(up["heel"][24], 1) == figure(text, r"the heel ([\d.]+) cm up at frame 24")
    assert round(up["toe"][40], 1) == figure(text, r"the toe tip ([\d.]+) cm up at frame 40")
    # tools/add_foot_roll.py does the same steps: the same foot, frame by frame
    scripted = Document.from_file(SCENES / "humanoid.glb")
    tool("add_foot_roll").add_foot_roll(scripted)
    by_hand = bake(doc.scene, frames).bone_to_world[:, foot]
    np.testing.assert_allclose(
        bake(scripted.scene, frames).bone_to_world[:, foot], by_hand, atol=1e-9
    )
    # play: the foot rolls on screen
    go_to_frame(win, 0)
    image = framebuffer(vp, qtbot)
    vp.setFocus()
    key(vp, "Space")
    qtbot.waitUntil(lambda: doc.frame >= 10, timeout=5000)
    key(vp, "Space")
    qtbot.wait(20)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 100
    # 4. world (1), object (2), Compare (C): the foot is turned out 40°
    go_to_frame(win, 12)
    m0 = bake(doc.scene, [0.0]).bone_to_world[0, foot]
    out = np.degrees(np.arctan2(m0[0, 2], m0[2, 2]))
    assert round(out) == figure(text, r"The foot is turned out (\d+)°")
    body = doc.scene.bone_index(c.body)

    def sole_tilt() -> float:  # the roll body's X axis (across the sole) off level, degrees
        across = doc.pose().bone_to_world[0, body, :3, 0]
        return float(np.degrees(np.arcsin(abs(across[1]) / np.linalg.norm(across))))

    vp.setFocus()
    key(vp, "1")
    world = doc.pose().heads[0, foot]
    assert round(sole_tilt(), 1) == figure(text, r"its sole ([\d.]+)° off level at frame 12")
    qtbot.wait(20)
    tipped = framebuffer(vp, qtbot)
    key(vp, "2")
    assert sole_tilt() < 1e-6  # about the foot's own X: the sole stays level
    assert np.linalg.norm(world - doc.pose().heads[0, foot]) > 0.01  # the spaces part
    qtbot.wait(20)
    image = framebuffer(vp, qtbot)
    assert changed_pixels(tipped, image) > 100  # and the person sees it
    key(vp, "C")
    assert doc.compare
    qtbot.wait(20)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 50  # the ghost body
    key(vp, "C")
    # 5. save the scene (untitled: Save asks where), then the command line's export
    scene_path = tmp_path / "rolled.json"
    monkeypatch.setattr(
        QtWidgets.QFileDialog,
        "getSaveFileName",
        staticmethod(lambda *a, **k: (str(scene_path), "")),
    )
    key(vp, "S", CTRL)
    assert load_scene(scene_path) == doc.scene
    out_glb = tmp_path / "rolled.glb"
    assert "main.py export SCENE.json --out rolled.glb (each constraint in its own space" in text
    assert command_line(["export", str(scene_path), "--out", str(out_glb)]) == 0
    back = load_scene(out_glb)
    assert back.meshes and len(back.bones) == len(doc.scene.bones)
    heads = bake(back, [12.0]).heads[0, back.bone_index("foot.L")]
    assert np.allclose(heads, bake(doc.scene, [12.0]).heads[0, foot], atol=1e-5)  # as authored
