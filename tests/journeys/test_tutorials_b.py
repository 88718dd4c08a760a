"""Journeys: five tutorials performed step by step as their texts say, with real clicks, keys,
drags and typing, checking after each step what the text says a person sees.

Basis change, points-at, FABRIK, convergence and the CMU clip; one window for the module.
The figures the texts quote are recomputed in tests/editor/test_tutorial_figures_b.py; here the
steps are done, and what they show is read off the window (the panel's table, the viewport's
labels and pixels, the Compare table, the inspector's text, the matrix chain's formula).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app.scene.rig.refs import CONSTRAINT, POINT, Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT
from tests.helpers.paths import CMU_DIR, SCENES
from tests.journeys._tutorial_steps import (
    bone_middle,
    choose,
    choose_menu,
    click_at,
    click_button,
    click_outliner,
    click_tab,
    key,
    pixels_drawn_by,
    play_for,
    press,
    screen_of,
    type_into,
    type_vector,
)


@pytest.fixture(scope="module")
def window(qapp):
    from app.editor.document import Document
    from app.window.main_window import MainWindow

    win = MainWindow(Document.from_file(SCENES / "legs.json"), restore_settings=False)
    win.resize(1400, 900)
    win.show()
    win.activateWindow()
    win.first_layout = win.saveState()
    yield win
    win.document.undo_stack.setClean()
    win.close()
    win.deleteLater()


def fresh(window) -> None:
    """The window as a person who opens it for this tutorial finds it (one window serves the
    module's journeys): no teaching dock open, spaces as authored, no trails."""
    from app.widgets.viewport.teaching_drawing import TrailSettings

    window.restoreState(window.first_layout)  # as first shown: no teaching dock open
    window.step_through.stop()
    window.document.set_compare(False)
    window.document.set_space(None)
    window.set_trails(TrailSettings())
    window.inspector_dock.raise_()


@pytest.fixture
def open_tutorial(window, qtbot):
    fresh(window)
    qtbot.waitExposed(window)

    def open_(title: str):
        choose_menu(window, qtbot, "Help", "Tutorials", title)
        assert window.tutorial_dock.isVisible()
        assert window.tutorial_panel.text.toPlainText().startswith(title)
        qtbot.wait(30)
        return window

    return open_


def shown_text(window) -> str:
    """The tutorial text as the panel shows it, white space folded."""
    return " ".join(window.tutorial_panel.text.toPlainText().split())


def rows(window) -> dict:
    """The basis-change table as shown: basis -> (the point in it, what the text says)."""
    table = window.tutorial_panel.coordinates
    return {
        table.item(r, 0).text(): (table.item(r, 1).text(), table.item(r, 2).text())
        for r in range(table.rowCount())
    }


def flush(window) -> None:
    window.tutorial_panel._throttled.flush()
    window.compare_table._throttled.flush()


def compare_rows(window) -> dict:
    """The Compare table as shown: bone -> (Δ head, Δ angle, world limit) texts."""
    flush(window)
    table = window.compare_table.table
    return {
        table.item(r, 0).text(): tuple(table.item(r, c).text() for c in (1, 2, 3))
        for r in range(table.rowCount())
    }


def all_zero(shown: dict) -> bool:
    """Every bone's Δ head reads 0.0000 and its Δ angle 0.00° (a unit after them or not)."""
    return all(h.split()[0] == "0.0000" and a.startswith("0.00°") for h, a, _ in shown.values())


def inspector_text(window) -> str:
    """Everything the inspector's labels say, one string."""
    labels = window.inspector.findChildren(QtWidgets.QLabel)
    return " ".join(label.text() for label in labels if label.isVisible())


def matrix_formula(window) -> str:
    """The matrix chain's formula as plain text (``R_calf.l^-1``; struck factors ``~~x~~``)."""
    window.matrix_panel._throttled.flush()
    html = window.matrix_panel.formula.text()
    html = re.sub(r"<s(?:\s[^>]*)?>(.*?)</s>", r"~~\1~~", html)
    html = re.sub(r"<sub>(.*?)</sub>", r"_\1", html)
    html = re.sub(r"<sup>(.*?)</sup>", r"^\1", html)
    text = re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " ")
    return " ".join(text.split())


# --- Change of basis ---------------------------------------------------------------------


def test_basis_change_step_by_step(window, open_tutorial, qtbot):
    win = open_tutorial("Change of basis: an office, a door and a bagel shop")
    doc, viewport = win.document, win.viewport
    text = shown_text(win)
    # Opening: the two answers the text gives are the ones the table shows.
    assert "In Rice208 the bagel shop is forward 10 m, down 4 m and left 2 m: (-2, -4, -10)" in text
    assert rows(win)["Rice208"] == ("(-2.00, -4.00, -10.00)", "(-2.00, -4.00, -10.00) ✓")
    assert rows(win)["RiceDoor"] == ("(-1.00, 0.00, 30.00)", "(-1.00, 0.00, 30.00) ✓")
    # Step 1: "Find both arrows in the viewport": white arrows from each basis's origin, drawn
    # along its forward (-z): the pixels there change when the tutorial's lines are hidden.
    shown = gui.framebuffer(viewport, qtbot)
    lines = viewport.teaching.tutorial_lines
    lines.setVisible(False)
    viewport.update()
    hidden = gui.framebuffer(viewport, qtbot)
    lines.setVisible(True)
    viewport.update()
    ratio = viewport.devicePixelRatioF()
    pose = doc.pose().bone_to_world[0]
    for basis in ("Rice208", "RiceDoor"):
        m = pose[doc.scene.bone_index(basis)]
        base = screen_of(viewport, m[:3, 3])
        ahead = screen_of(viewport, m[:3, 3] + m[:3, :3] @ [0, 0, -0.5])
        direction = (ahead - base) / np.linalg.norm(ahead - base)
        # White pixels in a corridor along the forward direction that the lines drew.
        h, w = shown.shape[:2]
        ys, xs = np.mgrid[0:h, 0:w] / ratio
        rel = np.stack([xs - base[0], ys - base[1]], axis=-1)
        along = rel @ direction
        across = np.abs(rel @ [-direction[1], direction[0]])
        corridor = (along > 3) & (along < 150) & (across < 6)
        white = shown.min(axis=-1) > 170
        drawn = np.abs(shown - hidden).max(axis=-1) > 30
        assert np.count_nonzero(corridor & white & drawn) >= 5, basis
    # Step 4: View ▸ Matrix Chain, from Rice208 to RiceDoor: the chain and the text's matrix.
    choose_menu(win, qtbot, "View", "Matrix Chain")
    panel = win.matrix_panel
    choose(panel.bone_combo, qtbot, "Rice208")
    choose(panel.relative_combo, qtbot, "RiceDoor")
    assert "R_RiceDoor^-1 T_RiceDoor^-1 T_Rice208 R_Rice208" in matrix_formula(win)
    assert "R_RiceDoor^-1 T_RiceDoor^-1 T_Rice208 R_Rice208" in text
    seed = np.array([[0, 0, 1, 9], [0, 1, 0, 4], [-1, 0, 0, 28], [0, 0, 0, 1]], float)
    np.testing.assert_allclose(panel.cards()[-1][1], seed, atol=1e-12)
    # Step 5: drag the yellow point; both coordinates follow; undo.
    shop = viewport.handle_position(Ref(POINT, "EinsteinBrosBagels"))
    start = screen_of(viewport, shop)
    gui.drag(viewport, start, start + [50, -30], qtbot=qtbot)
    flush(win)
    shown = rows(win)
    assert shown["Rice208"][1].endswith("(moved)") and shown["RiceDoor"][1].endswith("(moved)")
    assert shown["Rice208"][0] != "(-2.00, -4.00, -10.00)"
    key(viewport, qtbot, "Z", CTRL)
    flush(win)
    assert rows(win)["RiceDoor"][0] == "(-1.00, 0.00, 30.00)"
    # ... then turn RiceDoor (Ctrl+drag it): the shop stays, its Rice208 coordinates too;
    # its RiceDoor coordinates and the matrix change.
    at = bone_middle(win, "RiceDoor")
    gui.drag(viewport, at, at + [40, 25], modifiers=CTRL, qtbot=qtbot)
    flush(win)
    shown = rows(win)
    assert doc.selection == (Ref.bone("RiceDoor"),)
    assert shown["world"][0] == "(-26.00, 0.00, -7.00)"
    assert shown["Rice208"][0] == "(-2.00, -4.00, -10.00)"
    assert shown["RiceDoor"][1].endswith("(moved)")
    panel._throttled.flush()
    assert not np.allclose(panel.cards()[-1][1], seed, atol=1e-3)
    key(viewport, qtbot, "Z", CTRL)
    flush(win)
    assert rows(win)["RiceDoor"][0] == "(-1.00, 0.00, 30.00)"
    # ... "Undo, then move the office instead": click it, G, move the mouse, click.
    assert "move the office instead (click it, press G, move the mouse and click)" in text
    at = bone_middle(win, "Rice208")
    click_at(viewport, qtbot, at)
    assert doc.selection == (Ref.bone("Rice208"),)
    key(viewport, qtbot, "G")
    for step in range(1, 6):
        gui.QTest.mouseMove(viewport, gui.point(at + [8 * step, 0]))
        qtbot.wait(5)
    click_at(viewport, qtbot, at + [40, 0])
    flush(win)
    shown = rows(win)
    assert shown["world"][0] == "(-26.00, 0.00, -7.00)" and "(moved)" in shown["Rice208"][1]
    assert shown["RiceDoor"][0] == "(-1.00, 0.00, 30.00)"
    key(viewport, qtbot, "Z", CTRL)
    flush(win)
    # Step 6: RiceDoor at a scale of 2 (its Scale fields in the inspector): the shop's
    # RiceDoor coordinates halve.
    click_at(viewport, qtbot, bone_middle(win, "RiceDoor"))
    click_tab(win, qtbot, "Inspector")
    type_vector(win.inspector.findChild(QtWidgets.QWidget, "scale"), qtbot, (2, 2, 2))
    flush(win)
    assert rows(win)["RiceDoor"][0] == "(-0.50, 0.00, 15.00)"
    assert rows(win)["Rice208"][0] == "(-2.00, -4.00, -10.00)"
    assert "the shop's RiceDoor coordinates halve" in text
    click_tab(win, qtbot, "Tutorial")


# --- Points-at ---------------------------------------------------------------------------


def r_c(window) -> np.ndarray:
    """The constraint factor R_c's 4x4 as the matrix chain shows it."""
    window.matrix_panel._throttled.flush()
    (m,) = [m for label, m in window.matrix_panel.cards() if label.startswith("R_c(")]
    return m


def test_points_at_step_by_step(window, open_tutorial, qtbot):
    win = open_tutorial("Points-at in world space and in object space")
    doc, viewport = win.document, win.viewport
    name = "calf.l points at right ankle"
    text = shown_text(win)
    # Step 1: the constraint in the outliner, Limit none in the inspector.
    click_outliner(win, qtbot, Ref(CONSTRAINT, name))
    click_tab(win, qtbot, "Inspector")
    choose(win.inspector.findChild(QtWidgets.QComboBox, "limitKind"), qtbot, "none")
    assert doc.scene.constraint(name).limit is None
    click_button(win, qtbot, "Compare Spaces")
    assert win.compare_dock.isVisible()
    play_for(win, qtbot, 120)
    for space in ("World", "Object"):
        click_button(win, qtbot, space)
        assert doc.space == space.lower()
        assert all_zero(compare_rows(win)), compare_rows(win)
    assert "the Compare table reads 0.0000 and 0.00° for every bone" in text
    press(win, qtbot, "Z", CTRL)
    assert doc.scene.constraint(name).limit is not None  # the hinge is back
    assert not all_zero(compare_rows(win))
    # Step 2: View ▸ Matrix Chain, click the calf; R_c in each space (keys 1 and 2).
    choose_menu(win, qtbot, "View", "Matrix Chain")
    choose_menu(win, qtbot, "View", "Frame All")  # the panel took room: frame the skeleton
    click_at(viewport, qtbot, bone_middle(win, "calf.l"))
    assert doc.selection == (Ref.bone("calf.l"),)
    assert win.matrix_panel.bone_combo.currentText() == "calf.l"
    for digit, space in (("1", "world"), ("2", "object")):
        press(win, qtbot, digit)
        assert doc.space == space
        assert "R_c" in matrix_formula(win)
        before = r_c(win)
        at = bone_middle(win, "hip")  # turn the hip (Ctrl+drag), then click the calf again
        gui.drag(viewport, at, at + [35, 20], modifiers=CTRL, qtbot=qtbot)
        assert doc.selection == (Ref.bone("hip"),) and doc.undo_stack.canUndo()
        click_at(viewport, qtbot, bone_middle(win, "calf.l"))
        assert win.matrix_panel.bone_combo.currentText() == "calf.l"
        turned = r_c(win)
        if space == "world":  # its axis is a world axis: it changes with the hip
            assert not np.allclose(turned, before, atol=1e-4)
        else:  # an axis of the calf: the hip does not matter
            np.testing.assert_allclose(turned, before, atol=1e-9)
        press(win, qtbot, "Z", CTRL)
    # Step 3: from bone calf.r to calf.l; the hip terms struck through.
    choose(win.matrix_panel.bone_combo, qtbot, "calf.r")
    choose(win.matrix_panel.relative_combo, qtbot, "calf.l")
    assert doc.space == "object"
    formula = matrix_formula(win)
    assert "~~T_hip~~ ~~R_hip~~" in formula and "~~R_hip^-1~~ ~~T_hip^-1~~" in formula
    quoted = re.search(r"right-to-left transform (.*?) with", text).group(1)
    assert formula.split(" = ", 1)[1].replace("~~", "") == quoted
    click_button(win, qtbot, "World")
    assert "R_c(calf.l)" in matrix_formula(win) and "~~" not in matrix_formula(win)
    # Step 4: the hinge holds in object space; World: the inspector says by how much.
    click_button(win, qtbot, "Object")
    calf = doc.scene.bone_index("calf.l")
    assert doc.pose().limit_violation_deg[0, calf] == 0
    click_button(win, qtbot, "World")
    click_at(viewport, qtbot, bone_middle(win, "calf.l"))
    press(win, qtbot, "Home")
    assert doc.frame == 0
    click_tab(win, qtbot, "Inspector")
    win.inspector._refresh()
    assert "world space leaves its limit by 54.1°" in inspector_text(win)
    assert compare_rows(win)["calf.l"][1] == "54.07°"
    assert "54.1° at frame 0 (press Home), where the Compare table shows the two spaces" in text
    # ... a cone does the same (Limit ▸ cone, 30°).
    click_outliner(win, qtbot, Ref(CONSTRAINT, name))
    choose(win.inspector.findChild(QtWidgets.QComboBox, "limitKind"), qtbot, "cone")
    type_into(win.inspector.findChild(QtWidgets.QDoubleSpinBox, "limitCone"), qtbot, "30")
    assert doc.scene.constraint(name).limit.degrees == 30
    assert compare_rows(win)["calf.l"][2].startswith("+")  # the World limit column
    # Step 5: Limit none again, thigh.l at a scale of 1, 1.5, 1: the spaces part.
    choose(win.inspector.findChild(QtWidgets.QComboBox, "limitKind"), qtbot, "none")
    assert all_zero(compare_rows(win))
    click_at(viewport, qtbot, bone_middle(win, "thigh.l"))
    type_vector(win.inspector.findChild(QtWidgets.QWidget, "scale"), qtbot, (1, 1.5, 1))
    assert doc.scene.bone("thigh.l").scale == (1.0, 1.5, 1.0)
    apart = float(compare_rows(win)["calf.l"][1].rstrip("°"))
    assert 0.5 < apart <= 10.6
    click_button(win, qtbot, "Compare Spaces")
    click_tab(win, qtbot, "Tutorial")


# --- FABRIK ------------------------------------------------------------------------------

ARM = ("upper_arm", "forearm", "hand", "fingers")


def arm_bends(window) -> np.ndarray:
    """The angles at the arm's joints as drawn (from the pose the viewport shows)."""
    doc = window.document
    pose = doc.pose()
    idx = [doc.scene.bone_index(n) for n in ARM]
    points = np.vstack([pose.heads[0, idx], pose.tails[0, idx[-1]]])
    d = np.diff(points, axis=0)
    d /= np.linalg.norm(d, axis=1)[:, None]
    return np.degrees(np.arccos(np.clip(np.sum(d[:-1] * d[1:], axis=1), -1, 1)))


def go_to_frame(window, qtbot, frame: int) -> None:
    """Type the frame into the timeline's Frame field."""
    type_into(window.timeline.frame_spin, qtbot, str(frame))
    assert window.document.frame == frame


def violation_shown(window) -> float:
    window.inspector._refresh()
    m = re.search(r"world space leaves its limit by ([\d.]+)°", inspector_text(window))
    assert m, inspector_text(window)
    return float(m.group(1))


def test_fabrik_step_by_step(window, open_tutorial, qtbot):
    win = open_tutorial("FABRIK: an arm reaching for a moving target")
    doc, viewport = win.document, win.viewport
    name = "arm reaches"
    text = shown_text(win)
    # Step 1: pause on a frame, select the constraint, Alt+S; Alt+Right pass by pass.
    play_for(win, qtbot, 120)
    click_outliner(win, qtbot, Ref(CONSTRAINT, name))
    press(win, qtbot, "S", QtCore.Qt.KeyboardModifier.AltModifier)
    assert win.step_dock.isVisible() and win.step_through.active
    panel = win.step_dock.widget()
    count = win.step_through.count()
    assert panel.position.text().startswith(f"stage 1 of {count}")
    seen = []
    for k in range(1, count):
        press(win, qtbot, "Right", QtCore.Qt.KeyboardModifier.AltModifier)
        assert panel.position.text().startswith(f"stage {k + 1} of {count}")
        seen.append(panel.description.text())
    assert any("pass from the tip" in s and "root off by" in s for s in seen)  # the shoulder
    assert "pass from the root" in seen[-1]
    distances = [float(panel.stages.item(r, 2).text()) for r in range(panel.stages.rowCount())]
    assert distances[-1] < distances[1] and distances[-1] <= 1e-4  # "watch how fast it falls"
    last = win.step_through.trace.stages[-1].joints
    pose = doc.pose()
    heads = pose.heads[0, [doc.scene.bone_index(n) for n in ARM]]
    np.testing.assert_allclose(last[:4], heads, atol=1e-9)  # exactly the solver's answer
    # Step 2: drag the target out of reach.
    target = viewport.handle_position(Ref("target", name))
    shoulder = pose.heads[0, doc.scene.bone_index("upper_arm")]
    start = screen_of(viewport, target)
    w, h = viewport.width(), viewport.height()  # the corner farthest from the shoulder
    corners = np.array([[15, 15], [w - 15, 15], [15, h - 15], [w - 15, h - 15]], float)
    end = max(corners, key=lambda c: np.linalg.norm(c - screen_of(viewport, shoulder)))
    gui.drag(viewport, start, end, qtbot=qtbot)
    win.step_through.flush()
    assert "out of reach" in panel.description.text()
    click_button(win, qtbot, "World")
    np.testing.assert_allclose(arm_bends(win), 0, atol=0.01)  # straight
    win.step_through.flush()
    assert win.step_through.count() == 2  # the start, then laid straight: no iteration
    press(win, qtbot, "Right", QtCore.Qt.KeyboardModifier.AltModifier)
    assert "the chain laid straight towards it" in panel.description.text()
    click_button(win, qtbot, "Object")
    assert round(arm_bends(win)[0]) == 15  # the elbow stays bent by 15°
    assert "the elbow stays bent by 15°" in text
    press(win, qtbot, "Z", CTRL)
    # Step 3: the forearm's Limit none, Compare: every bone in the same place; Ctrl+Z.
    press(win, qtbot, "S", QtCore.Qt.KeyboardModifier.AltModifier)  # step-through off
    click_outliner(win, qtbot, Ref(CONSTRAINT, name))
    click_tab(win, qtbot, "Inspector")
    choose(win.inspector.findChild(QtWidgets.QComboBox, "limit_forearmKind"), qtbot, "none")
    click_button(win, qtbot, "Compare Spaces")
    assert all_zero(compare_rows(win))
    press(win, qtbot, "Z", CTRL)
    go_to_frame(win, qtbot, 36)
    assert compare_rows(win)["hand"][1] == "45.40°" and "the hand by 45.40° at frame 36" in text
    # Step 4: World, click the forearm: the inspector says by how much it leaves its hinge.
    click_button(win, qtbot, "World")
    go_to_frame(win, qtbot, 40)
    click_at(viewport, qtbot, bone_middle(win, "forearm"))
    click_tab(win, qtbot, "Inspector")
    before = violation_shown(win)
    assert before == 25.5 and "(25.5° at frame 40)" in text
    start = screen_of(viewport, viewport.handle_position(Ref("target", name)))
    gui.drag(viewport, start, start + [0, -40], qtbot=qtbot)  # upwards
    click_at(viewport, qtbot, bone_middle(win, "forearm"))
    assert violation_shown(win) > before + 3  # the number grows
    press(win, qtbot, "Z", CTRL)

    # Step 5: drag the pole: the elbow follows it (the arm bends towards it).
    def bend_towards_pole():
        """The elbow's and the pole's directions off the shoulder-target line, and the
        angle between them."""
        pose = doc.pose()
        shoulder, elbow = (pose.heads[0, doc.scene.bone_index(n)] for n in ARM[:2])
        line = viewport.handle_position(Ref("target", name)) - shoulder
        line /= np.linalg.norm(line)

        def off(p):
            v = p - shoulder - np.dot(p - shoulder, line) * line
            return v / np.linalg.norm(v)

        a, b = off(elbow), off(viewport.handle_position(Ref("pole", name)))
        return a, b, np.degrees(np.arccos(np.clip(np.dot(a, b), -1, 1)))

    elbow, pole, angle = bend_towards_pole()
    assert angle < 20
    start = screen_of(viewport, viewport.handle_position(Ref("pole", name)))
    gui.drag(viewport, start, start + [-300, 0], qtbot=qtbot)
    elbow_now, pole_now, angle_now = bend_towards_pole()
    assert np.degrees(np.arccos(np.dot(pole, pole_now))) > 10  # the pole went round the arm
    assert np.degrees(np.arccos(np.dot(elbow, elbow_now))) > 10 and angle_now < 20  # followed
    # ... straighten the arm at frame 0 and put the target on its line: it still bends.
    press(win, qtbot, "Home")
    assert doc.frame == 0
    for bone in ("upper_arm", "forearm"):
        click_at(viewport, qtbot, bone_middle(win, bone))
        assert doc.selection == (Ref.bone(bone),)
        type_vector(
            win.inspector.findChild(QtWidgets.QWidget, "rest_rotation"), qtbot, (1, 0, 0, 0)
        )
        assert doc.scene.bone(bone).rotation == (1.0, 0.0, 0.0, 0.0)
    click_at(viewport, qtbot, screen_of(viewport, viewport.handle_position(Ref("target", name))))
    assert doc.selection == (Ref("target", name),)
    type_vector(win.inspector.findChild(QtWidgets.QWidget, "position"), qtbot, (0.7, 1.42, 0))
    np.testing.assert_allclose(viewport.handle_position(Ref("target", name)), [0.7, 1.42, 0])
    np.testing.assert_allclose(
        doc.pose().heads[0, doc.scene.bone_index("upper_arm")], [0.2, 1.42, 0], atol=1e-9
    )
    assert arm_bends(win)[0] > 10  # it still bends
    # Step 6: the matrix chain on the hand: one constraint factor per arm bone.
    choose_menu(win, qtbot, "View", "Matrix Chain")
    choose_menu(win, qtbot, "View", "Frame All")
    click_at(viewport, qtbot, bone_middle(win, "hand", 0.3))
    assert win.matrix_panel.bone_combo.currentText() == "hand"
    assert matrix_formula(win).count("R_c(") == 3  # upper_arm, forearm, hand
    # Step 7: T for the trail, Shift+T for ghosts: drawn in the viewport.
    press(win, qtbot, "T")
    press(win, qtbot, "T", SHIFT)
    teaching = viewport.teaching
    assert viewport.trails.enabled and viewport.trails.ghosts
    assert pixels_drawn_by(viewport, qtbot, [teaching.trail_lines, teaching.trail_dots]) > 100
    assert pixels_drawn_by(viewport, qtbot, [teaching.ghosts]) > 100
    press(win, qtbot, "T")
    press(win, qtbot, "T", SHIFT)
    click_button(win, qtbot, "Compare Spaces")
    choose_menu(win, qtbot, "View", "Matrix Chain")
    click_tab(win, qtbot, "Tutorial")


# --- Convergence -------------------------------------------------------------------------


def slider_handle(slider) -> QtCore.QPoint:
    """The centre of a slider's handle, where a click grabs it without moving it."""
    option = QtWidgets.QStyleOptionSlider()
    slider.initStyleOption(option)
    style = slider.style()
    rect = style.subControlRect(
        QtWidgets.QStyle.ComplexControl.CC_Slider,
        option,
        QtWidgets.QStyle.SubControl.SC_SliderHandle,
        slider,
    )
    return rect.center()


def colour_pixels(widget, rgb, tolerance=40) -> int:
    """How many pixels of ``widget`` (grabbed) are within ``tolerance`` of ``rgb``."""
    image = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    w, h, stride = image.width(), image.height(), image.bytesPerLine()
    data = np.frombuffer(image.constBits(), np.uint8, count=stride * h).reshape(h, stride)
    pixels = data[:, : w * 3].reshape(h, w, 3).astype(int)
    return int(np.count_nonzero(np.abs(pixels - rgb).max(axis=-1) <= tolerance))


def test_convergence_step_by_step(window, open_tutorial, qtbot):
    from app.widgets.panels.convergence_panel import COLORS

    win = open_tutorial("Multi-parent: Δt → 0 and the exact integrator")
    doc = win.document
    # Step 1: View ▸ Convergence: white, orange and blue paths; their distances below.
    choose_menu(win, qtbot, "View", "Convergence")
    panel = win.convergence_dock.widget()
    assert win.convergence_dock.isVisible() and panel.slider.value() == 4
    for colour in COLORS.values():
        assert colour_pixels(panel.path_plot, colour) > 30, colour
    # Step 2: click the slider's handle, Page Up three times: 16; the distances a quarter.
    before = {k: panel.distance_at(k) for k in ("seed", "twist")}
    gui.click(panel.slider, slider_handle(panel.slider))
    assert panel.slider.value() == 4  # the click grabbed the handle without moving it
    for _ in range(3):
        key(panel.slider, qtbot, "PageUp")
    assert panel.slider.value() == 16
    panel._throttled.flush()
    for k in ("seed", "twist"):
        assert abs(before[k] / panel.distance_at(k) - 4) < 0.1
    assert "At 16 substeps" in panel.caption.text()
    # Step 3: at 1 substep (the handle dragged to the left end) off by about 0.02 at the end.
    at = slider_handle(panel.slider)
    gui.drag(panel.slider, (at.x(), at.y()), (-20, at.y()), qtbot=qtbot)
    panel._throttled.flush()
    assert panel.slider.value() == 1
    assert round(panel.paths.distance["seed"][-1], 2) == 0.02
    assert (
        "at 1 substep (drag the slider's handle to the left end) it is off by about 0.02 "
        "units at the end" in shown_text(win)
    )
    # Step 4: the constraint in the outliner, Integrator ▸ exact: the block on the white curve.
    click_outliner(win, qtbot, Ref(CONSTRAINT, "two_axes"))
    click_tab(win, qtbot, "Inspector")
    choose(win.inspector.findChild(QtWidgets.QComboBox, "integrator"), qtbot, "exact")
    assert doc.scene.constraint("two_axes").integrator == "exact"
    panel._throttled.flush()
    block = doc.scene.bone_index("block")
    for frame in (12, 48):
        go_to_frame(win, qtbot, frame)
        head = doc.pose().heads[0, block]
        np.testing.assert_allclose(head, panel.paths.heads["exact"][frame], atol=1e-9)
    type_into(win.inspector.findChild(QtWidgets.QSpinBox, "substeps"), qtbot, "1")
    assert doc.scene.constraint("two_axes").substeps == 1
    np.testing.assert_allclose(doc.pose().heads[0, block], head, atol=1e-12)  # no matter
    # Step 5: the foot roll: the view stays open and follows; twist on the white curve.
    choose_menu(
        win, qtbot, "Help", "Tutorials", "Multi-parent: a foot rolling over heel, ball and toe"
    )
    assert win.convergence_dock.isVisible()
    panel._throttled.flush()
    assert panel.constraint.currentText() == "foot_roll"
    assert panel.distance_at("twist") < 1e-9 < 1e-3 < panel.distance_at("seed")
    choose_menu(win, qtbot, "View", "Convergence")
    assert not win.convergence_dock.isVisible()


# --- CMU 01_01 ---------------------------------------------------------------------------


def answer_file_dialog(monkeypatch, path) -> None:
    """The save dialog (the system's: not driven here) answers ``path``."""
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), ""))
    )


def test_cmu_step_by_step(window, open_tutorial, qtbot, cmu_01_01, tmp_path, monkeypatch):
    from app.scene.io import load_scene

    assert cmu_01_01 == CMU_DIR / "01_01.bvh"
    win = open_tutorial("Motion capture: CMU subject 1, trial 1")
    doc, viewport = win.document, win.viewport
    text = shown_text(win)
    # Step 1: play, then scrub (a drag along the timeline's bar).
    play_for(win, qtbot, 120)
    bar = win.timeline.scrub_bar
    y = bar.height() // 2
    gui.drag(bar, (bar.width() * 0.2, y), (bar.width() * 0.6, y), qtbot=qtbot)
    assert 0.5 * doc.scene.frame_end < doc.frame < 0.7 * doc.scene.frame_end
    # ... click Hips in the outliner, Ctrl+click LeftFoot and RightFoot; T for their trails.
    feet = [Ref.bone(n) for n in ("Hips", "LeftFoot", "RightFoot")]
    click_outliner(win, qtbot, feet[0])
    click_outliner(win, qtbot, feet[1], CTRL)
    click_outliner(win, qtbot, feet[2], CTRL)
    assert set(doc.selection) == set(feet)
    press(win, qtbot, "F")
    for bone in ("Hips", "LeftFoot", "RightFoot"):
        bone_middle(win, bone)  # in view
    press(win, qtbot, "T")
    assert viewport.trails.enabled
    teaching = viewport.teaching
    assert len(teaching.trail_paths) == 3
    for side in ("before", "after"):
        type_into(win.trail_spins[side], qtbot, "120")
    assert (viewport.trails.before, viewport.trails.after) == (120, 120)
    assert all(len(frames) == 241 for frames, _ in teaching.trail_paths.values())
    assert pixels_drawn_by(viewport, qtbot, [teaching.trail_lines, teaching.trail_dots]) > 100
    press(win, qtbot, "T")
    # ... as the text says: in the outliner Shift+click selects the rows between; in the
    # viewport Shift+click adds.
    assert "in the outliner Ctrl+click adds a row and Shift+click selects every row between" in text
    click_outliner(win, qtbot, Ref.bone("LeftUpLeg"))
    click_outliner(win, qtbot, Ref.bone("LeftFoot"), SHIFT)
    assert set(doc.selection) == {Ref.bone(n) for n in ("LeftUpLeg", "LeftLeg", "LeftFoot")}
    click_at(viewport, qtbot, bone_middle(win, "LeftLeg"))
    click_at(viewport, qtbot, bone_middle(win, "RightLeg"), SHIFT)
    assert set(doc.selection) == {Ref.bone("LeftLeg"), Ref.bone("RightLeg")}
    # Step 2: View ▸ Curves on Hips: its height below, its rotation angle half a turn twice.
    click_outliner(win, qtbot, Ref.bone("Hips"))
    choose_menu(win, qtbot, "View", "Curves")
    curves = win.curve_view
    curves.flush()
    series = curves.series()
    hips = doc.scene.bone("Hips")
    np.testing.assert_allclose(series["ty"][1], hips.translation_keys.values[:, 1])
    angle = series["angle"][1]
    turns = np.flatnonzero(np.diff(angle > 90)) + 1
    assert len(turns) == 2 and np.median(angle[turns[0] : turns[1]]) > 170
    choose_menu(win, qtbot, "View", "Curves")
    # Step 3: View ▸ Matrix Chain on LeftToeBase; then RightToeBase -> LeftToeBase.
    choose_menu(win, qtbot, "View", "Matrix Chain")
    click_outliner(win, qtbot, Ref.bone("LeftToeBase"))
    formula = matrix_formula(win)
    assert formula.startswith("LeftToeBase → world = T_Hips R_Hips T_LHipJoint R_LHipJoint")
    assert formula.endswith("T_LeftToeBase R_LeftToeBase") and formula.count("R_") == 6
    choose(win.matrix_panel.bone_combo, qtbot, "RightToeBase")
    choose(win.matrix_panel.relative_combo, qtbot, "LeftToeBase")
    formula = matrix_formula(win)
    assert "~~R_Hips^-1~~ ~~T_Hips^-1~~ ~~T_Hips~~ ~~R_Hips~~" in formula
    choose_menu(win, qtbot, "View", "Matrix Chain")
    # Step 4: File ▸ Export ▸ BVH: other channels, other angles, the same joints.
    copy = tmp_path / "copy.bvh"
    answer_file_dialog(monkeypatch, copy)
    choose_menu(win, qtbot, "File", "Export", "BVH…")
    qtbot.waitUntil(copy.exists, timeout=10000)
    written = copy.read_text()
    assert "CHANNELS 3 Zrotation Xrotation Yrotation" in written
    assert "Zrotation Yrotation Xrotation" not in written
    original = CMU_DIR.joinpath("01_01.bvh").read_text()
    assert "CHANNELS 3 Zrotation Yrotation Xrotation" in original
    frames = [0.0, 1000.0, 2751.0]
    from app.scene.evaluate import bake

    again, before = load_scene(copy), doc.scene
    np.testing.assert_allclose(bake(again, frames).heads, bake(before, frames).heads, atol=1e-4)

    def angles(text):  # (frames, joints, 3): the rotation channels, the root's position left out
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("Frame Time")) + 1
        values = np.array([line.split() for line in lines[first:]], float)
        return np.concatenate([values[:, 3:6], values[:, 6:]], axis=1).reshape(len(values), -1, 3)

    changed = np.abs(angles(written) - angles(original)).max(axis=(0, 2)) > 1e-3
    assert changed.sum() == 25 and len(changed) == 31
    assert "The angles of 25 of the 31 joints change" in shown_text(win)
