"""A limit distance made in the editor on the demo (the foot-roll rig) with real events
(issue 29 item 1): the target bone, then the bone, chosen in the outliner; Shift+A ▸ its
add-menu entry; its distance typed in the inspector; the bone and the sphere drawn where the
closed form puts them; undo and redo; Save As (Ctrl+Shift+S) and the file opened again in a
new window; Reset Distance."""

import json

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.constraints.limit_distance.model import LimitDistance
from app.scene.io import load_scene
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, click, framebuffer, key
from tests.helpers.paths import SCENES
from tests.widgets.test_copy_kinds_gl import drawn_at

DEMO = SCENES / "foot_roll.json"
ENTRY = "Add Limit Distance Constraint on thigh about foot"
NAME = "Limit Distance thigh"


def choose_menu_entry(qtbot, text):
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    assert text in [a.text() for a in menu.actions()]
    for _ in range(len(menu.actions())):
        if menu.activeAction() is not None and menu.activeAction().text() == text:
            break
        QTest.keyClick(menu, QtCore.Qt.Key.Key_Down)
    QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)


def click_row(outliner, ref, modifiers=gui.NO_MODS):
    item = outliner.item_for(ref)
    outliner.scrollToItem(item)
    click(outliner.viewport(), outliner.visualItemRect(item).center(), modifiers)


def test_on_the_demo_add_a_limit_distance_type_its_distance_undo_save_and_reopen(
    qtbot, tmp_path, monkeypatch
):
    win = gui.open_window(qtbot, DEMO, frame=0)
    doc, vp = win.document, win.viewport
    thigh, foot = doc.scene.bone_index("thigh"), doc.scene.bone_index("foot")
    before = doc.pose()
    p, c = before.heads[0, thigh], before.heads[0, foot]
    r = np.linalg.norm(p - c)
    vp.frame_points([c - [0.5, 0.5, 0.3], c + [0.5, 1.0, 0.3]])
    qtbot.wait(30)

    # The target, then the bone, in the outliner (Ctrl adds); Shift+A in the viewport.
    click_row(win.outliner, Ref.bone("foot"))
    click_row(win.outliner, Ref.bone("thigh"), CTRL)
    assert doc.selection == (Ref.bone("foot"), Ref.bone("thigh"))
    vp.setFocus()
    key(vp, "A", SHIFT)
    choose_menu_entry(qtbot, ENTRY)
    qtbot.waitUntil(lambda: len(doc.scene.constraints) == 2)
    new = doc.scene.constraint(NAME)
    assert type(new) is LimitDistance
    assert (new.bone, new.target.bone, new.target.at, new.mode, new.distance, new.space) == (
        "thigh",
        "foot",
        "head",
        "inside",
        None,
        "world",
    )
    assert doc.undo_stack.undoText() == "Add Limit Distance thigh about foot"
    assert doc.selection == (Ref.constraint(NAME),)
    added = list(doc.scene.constraints)
    # measured at frame 0 (after the multi-parent rolled the foot): nothing moved
    np.testing.assert_allclose(doc.pose().heads[0, thigh], p, atol=1e-12)
    spin = win.inspector.findChild(QtWidgets.QDoubleSpinBox, "limitDistance")
    assert spin is not None and spin.value() == round(r, 3)
    note = win.inspector.findChild(QtWidgets.QLabel, "limitDistanceNote")
    assert note.text() == "measured at frame 0"
    qtbot.wait(30)
    added_image = framebuffer(vp, qtbot)

    # Type 0.2 in the distance: the thigh's head comes to c + (p - c) 0.2 / r.
    spin.setFocus()
    QTest.keyClick(spin, QtCore.Qt.Key.Key_A, CTRL)
    QTest.keyClicks(spin, "0.2")
    QTest.keyClick(spin, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: doc.scene.constraint(NAME).distance == 0.2)
    assert doc.undo_stack.undoText() == f"Set distance of {NAME} to 0.2"
    edited = list(doc.scene.constraints)
    head = c + (p - c) * 0.2 / r
    pose = doc.pose()
    np.testing.assert_allclose(pose.heads[0, thigh], head, atol=1e-12)
    np.testing.assert_allclose(
        pose.tails[0, thigh], before.tails[0, thigh] + head - p, atol=1e-12
    )  # the bone keeps its rotation
    qtbot.wait(30)
    limited = framebuffer(vp, qtbot)
    # The pixels, against the view before the edit (the same layout: the inspector showed
    # the constraint in both): the thigh left its old tip, and the sphere about the foot's
    # head shrank from r to 0.2 (its circle in the world's XY plane, left of and below it).
    old_tip = p + 0.9 * (before.tails[0, thigh] - p)
    assert drawn_at(added_image, vp.project([old_tip]), limited) == [True]
    circle = np.array([[-1, 0, 0], [0, -1, 0], [-np.sqrt(0.5), -np.sqrt(0.5), 0]])
    assert all(drawn_at(added_image, vp.project(c + r * circle), limited)), "the sphere of r"
    assert all(drawn_at(limited, vp.project(c + 0.2 * circle), added_image)), "the one of 0.2"
    assert note.text() == "as set"

    # Undo and redo: the items, the spin box and the pixels.
    key(win, "Z", CTRL)
    qtbot.wait(30)
    assert doc.scene.constraints == added and spin.value() == round(r, 3)
    np.testing.assert_allclose(doc.pose().heads[0, thigh], p, atol=1e-12)
    assert np.array_equal(framebuffer(vp, qtbot), added_image)
    key(win, "Z", CTRL | SHIFT)
    qtbot.wait(30)
    assert doc.scene.constraints == edited and spin.value() == 0.2
    assert np.array_equal(framebuffer(vp, qtbot), limited)

    # Save As, then open the file in a new window: the same constraint, the same pose.
    out = tmp_path / "saved.json"
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), ""))
    )
    key(vp, "S", CTRL | SHIFT)
    assert load_scene(out) == doc.scene and not doc.dirty
    written = json.loads(out.read_text())["constraints"][-1]
    assert written == {
        "type": "limit_distance",
        "name": NAME,
        "space": "world",
        "bone": "thigh",
        "target": {"bone": "foot", "at": "head"},
        "mode": "inside",
        "distance": 0.2,
    }
    again = gui.open_window(qtbot, out, frame=0)
    assert again.document.scene.constraints == edited
    np.testing.assert_allclose(again.document.pose().heads[0, thigh], head, atol=1e-12)

    # Reset Distance: measured at frame 0 again (absent in the file), the thigh back.
    doc.set_selection([Ref.constraint(NAME)])
    reset = win.inspector.findChild(QtWidgets.QPushButton, "limitResetDistance")
    assert reset.isEnabled()
    click(reset, reset.rect().center())
    qtbot.waitUntil(lambda: doc.scene.constraint(NAME).distance is None)
    assert doc.undo_stack.undoText() == f"Reset distance of {NAME}"
    np.testing.assert_allclose(doc.pose().heads[0, thigh], p, atol=1e-12)
    assert not reset.isEnabled()
