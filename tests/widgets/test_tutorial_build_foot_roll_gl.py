"""The "Build a foot roll from nothing" tutorial, every step as its text says, with real
mouse and key events, as ONE test: File ▸ New, rename, the tail in the inspector, E, the
add menu's multi-parent constraint, Add pivot, pivot names, keys through the inspector.

The result is checked against an independent closed form: a body turned only about one
pivot at a time (the other's rotation is constant) turns rigidly about that pivot, so the
heel stays put while the heel pivot turns, and the ball while the ball pivot turns.
"""

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.editor import tutorials
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.evaluate import bake
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import CTRL, LEFT, SHIFT, framebuffer, key
from tests.helpers.gui import enter_text as type_into
from tests.helpers.paths import SCENES

BODY = "Multi-Parent foot"


def inspector_field(win, kind, name):
    widget = win.inspector.findChild(kind, name)
    assert widget is not None, name
    return widget


def set_tail(win, values):
    for i, v in enumerate(values):
        type_into(inspector_field(win, QtWidgets.QDoubleSpinBox, f"rest_tail{i}"), str(v))


def outliner_click(win, ref):
    outliner = win.outliner
    index = outliner.indexFromItem(outliner.item_for(ref), 0)
    QTest.mouseClick(outliner.viewport(), LEFT, gui.NO_MODS, outliner.visualRect(index).center())
    assert win.document.active == ref


def go_to_frame(win, frame):
    type_into(win.timeline.findChild(QtWidgets.QSpinBox, "frameSpin"), str(frame))
    assert win.document.frame == frame


def turn_about_x(win, degrees):
    type_into(inspector_field(win, QtWidgets.QDoubleSpinBox, "rotationEuler0"), str(degrees))


def test_build_the_foot_roll_from_an_empty_scene(qtbot):
    (entry,) = [t for t in tutorials.load_tutorials() if t.id == "build_foot_roll"]
    text = entry.markdown()
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json")
    doc, vp = win.document, win.viewport
    # 1. File ▸ New: one upright root bone
    assert "Ctrl+N" in text
    qtbot.waitUntil(win.isActiveWindow)  # a window's shortcuts need it active
    key(win, "N", CTRL)
    assert doc.scene.bone_names() == ["root"] and not doc.scene.constraints
    # 2. select it, rename it foot (F2), lay it along the ground (its tail in the inspector)
    pose = doc.pose()
    gui.click(vp, vp.project([0.5 * (pose.heads[0, 0] + pose.tails[0, 0])])[0])
    assert doc.selection == (Ref.bone("root"),)
    gui.rename_with_f2(vp, "foot")
    assert doc.scene.bone_names() == ["foot"]
    set_tail(win, (0, 0, 0.2))
    assert doc.scene.bone("foot").tail == (0.0, 0.0, 0.2)
    # 3. E: the toes from the foot's tail, renamed and shortened
    vp.setFocus()
    key(vp, "E")
    assert doc.scene.bone_names() == ["foot", "foot.001"]
    gui.rename_with_f2(vp, "toes")
    set_tail(win, (0, 0, 0.06))
    toes = doc.scene.bone("toes")
    assert (toes.parent, toes.translation, toes.tail) == ("foot", (0.0, 0.0, 0.2), (0.0, 0.0, 0.06))
    # 4. select the foot; Shift+A ▸ Add Multi-Parent Constraint on foot
    outliner_click(win, Ref.bone("foot"))
    vp.setFocus()
    key(vp, "A", SHIFT)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    menu = QtWidgets.QApplication.activePopupWidget()
    for _ in range(len(menu.actions())):
        if menu.activeAction().text() == "Add Multi-Parent Constraint on foot":
            break
        QTest.keyClick(menu, QtCore.Qt.Key.Key_Down)
    QTest.keyClick(menu, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(doc.scene.constraints) == 1)
    assert doc.selection == (Ref.constraint(BODY),)
    # 5. Add pivot (at the foot's tail: the ball); name the pivots heel and ball
    QTest.mouseClick(inspector_field(win, QtWidgets.QPushButton, "addPivotButton"), LEFT)
    c = doc.scene.constraint(BODY)
    assert [p.position for p in c.pivots] == [(0.0, 0.0, 0.0), (0.0, 0.0, 0.2)]
    outliner_click(win, Ref.pivot_of(BODY, "pivot 1"))
    type_into(inspector_field(win, QtWidgets.QLineEdit, "pivotName"), "heel")
    outliner_click(win, Ref.pivot_of(BODY, "pivot 2"))
    type_into(inspector_field(win, QtWidgets.QLineEdit, "pivotName"), "ball")
    assert [p.name for p in doc.scene.constraint(BODY).pivots] == ["heel", "ball"]
    # 6. keys: the heel turns back 20° by frame 10 and down again by 20; the ball 30° by 32
    image = framebuffer(vp, qtbot)
    outliner_click(win, Ref.pivot_of(BODY, "heel"))
    go_to_frame(win, 0)
    key(vp, "K")
    go_to_frame(win, 10)
    turn_about_x(win, -20)
    go_to_frame(win, 20)
    turn_about_x(win, 0)
    outliner_click(win, Ref.pivot_of(BODY, "ball"))
    key(vp, "K")
    go_to_frame(win, 32)
    turn_about_x(win, 30)
    c = doc.scene.constraint(BODY)
    assert isinstance(c, MultiParent)
    heel, ball = c.pivots
    assert list(heel.rotation_keys.frames) == [0, 10, 20]
    assert list(ball.rotation_keys.frames) == [0, 20, 32]  # its first key keyed its rest at 0
    # the history reads as the steps did, one entry each
    texts = [doc.undo_stack.text(i) for i in range(doc.undo_stack.count())]
    assert texts[:3] == [
        "Rename bone root to foot",
        "Set rest tail of bone foot",
        "Extrude foot.001 from foot",
    ]
    assert f"Add {BODY}" in texts
    assert f"Add pivot pivot 2 to {BODY}" in texts
    # closed form: frames 0..10 turn the foot about the heel (0, 0, 0) by -20° about X;
    # 20..32 about the ball, which is then back where it started, by +30°
    frames = np.array([0.0, 10.0, 20.0, 32.0])
    i = doc.scene.bone_index("foot")
    heel_turn = Rotation.from_euler("x", -20, degrees=True)
    for space in ("object", "world"):  # a turn about X only: both spaces agree
        result = bake(doc.scene, frames, space)
        assert np.allclose(result.heads[:3, i], 0, atol=1e-9)  # the heel stays till 20
        assert np.allclose(result.tails[1, i], heel_turn.apply([0, 0, 0.2]), atol=1e-6)
        assert np.allclose(result.tails[2, i], [0, 0, 0.2], atol=1e-6)  # flat again
    ball_turn = Rotation.from_euler("x", 30, degrees=True)
    heel_at_32 = np.array([0, 0, 0.2]) + ball_turn.apply([0, 0, -0.2])
    assert np.allclose(result.heads[3, i], heel_at_32, atol=1e-6)
    assert np.allclose(result.tails[3, i], [0, 0, 0.2], atol=1e-6)  # the ball stays
    # the viewport shows the rolled foot
    qtbot.wait(30)
    assert int((np.abs(image - framebuffer(vp, qtbot)).max(axis=2) > 40).sum()) > 100
