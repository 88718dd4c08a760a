"""Four tutorials performed step by step as their texts say, with real clicks, key presses,
typing and drags (issue 18, item 6): the foot roll, building a foot roll from nothing, the
tumbling box and the glTF humanoid. After each step the test checks what the text says a
person sees; the figures it checks are read from the text the panel shows, so the text and
the scene cannot drift apart (``tests/test_tutorial_figures.py`` recomputes them too).
"""

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.evaluate import bake
from app.scene.math.transforms import transform_points
from app.scene.rig.editing import Ref
from tests import gui
from tests.conftest import SCENES
from tests.gui import CTRL, LEFT, SHIFT, drag, framebuffer, key

from ._steps_a import (
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
    rename_with_f2,
    shown_text,
    type_into,
)

SPIN = QtWidgets.QDoubleSpinBox


def window(qtbot):
    """A window on another scene, as a person has it before opening a tutorial."""
    return gui.open_window(qtbot, SCENES / "legs.json", size=(1280, 860))


def step_labels(vp) -> list[str]:
    """The pivots whose contribution arrow the step-through labels in the viewport."""
    return sorted(t.split(":")[0] for t in vp.labels() if t.endswith("v−RvR*"))


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
        turning.append(np.any([(a < mids) & (mids < b) for a, b, m in
                               zip(at[:-1], at[1:], moves) if m], axis=0))  # fmt: skip
    assert np.sum(turning, axis=0).max() == 2  # "never more than two of them turn at a time"
    assert "never more than two of them turn at a time" in text
    plot = win.curve_view.plot
    key_frames, values = win.curve_view.key_markers()["w"]  # the last pivot's (swing) keys
    spot = plot.pixel_of(key_frames[2], values[2])
    gui.click(plot.viewport(), (spot.x(), spot.y()))  # click a diamond: jump to that key
    assert doc.frame == key_frames[2]
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
    assert any(t.startswith("Σ = Δp0") for t in vp.labels())  # the white sum arrow
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
    assert np.array_equal(bake(doc.scene, frames.astype(float)).bone_to_world,
                          shipped.bone_to_world)  # fmt: skip
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
