"""Constraint settings in the inspector with real mouse and key events: a points-at's
limit (none, cone with twist, hinge) and up vector, a FABRIK's per-bone limits and pole,
a pivot's name. Each edit is checked in the scene, in the pose and in the undo history."""

import dataclasses

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.scene.constraints.points_at.model import UpVector
from app.scene.evaluate import bake
from app.scene.rig.model import ConeLimit, HingeLimit
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import LEFT, NO_MODS, click
from tests.helpers.gui import enter_text as type_into
from tests.helpers.paths import SCENES

AIM = "calf.l points at right ankle"


def select_in_outliner(win, ref):
    outliner = win.outliner
    rect = outliner.visualItemRect(outliner.item_for(ref))
    click(outliner.viewport(), rect.center())
    assert win.document.active == ref


def find(win, kind, name):
    widget = win.inspector.findChild(kind, name)
    assert widget is not None, name
    return widget


def pick(combo, letter):
    """Choose a combo box item by typing its first letter (the keyboard way), after the
    keyboard-search interval (else two letters make one search)."""
    QTest.qWait(QtWidgets.QApplication.keyboardInputInterval() + 20)
    combo.setFocus()
    QTest.keyClicks(combo, letter)


def test_points_at_limit_cone_twist_hinge_and_up(qtbot):
    win = gui.open_window(qtbot, SCENES / "calf_points_at_ankle.json", frame=30)
    doc = win.document
    select_in_outliner(win, Ref.constraint(AIM))
    kind = find(win, QtWidgets.QComboBox, "limitKind")
    assert kind.currentText() == "hinge"  # as the file says
    pick(kind, "c")
    assert doc.scene.constraint(AIM).limit == ConeLimit(degrees=45.0)
    assert doc.undo_stack.undoText() == f"Set limit of {AIM} to cone 45°"
    type_into(find(win, QtWidgets.QDoubleSpinBox, "limitCone"), "20")
    assert doc.scene.constraint(AIM).limit == ConeLimit(degrees=20.0)
    # the calf's tail stays within 20° of its rest direction: rest read from a bake of the
    # scene with no constraint and the calf's animation removed (its rest frame)
    calf = doc.scene.bone_index("calf.l")
    rest = doc.scene.copy()
    rest.constraints = []
    rest.bones[calf] = dataclasses.replace(rest.bones[calf], rotation_keys=None)
    free = bake(rest, [30])
    posed = bake(doc.scene, [30])
    d_rest = free.tails[0, calf] - free.heads[0, calf]
    d_pose = posed.tails[0, calf] - posed.heads[0, calf]
    cos = d_rest @ d_pose / np.linalg.norm(d_rest) / np.linalg.norm(d_pose)
    assert np.degrees(np.arccos(np.clip(cos, -1, 1))) <= 20 + 1e-6
    assert np.allclose(doc.pose().tails, posed.tails)  # the editor shows that pose
    # a twist range: tick the box, type the range
    click(find(win, QtWidgets.QCheckBox, "limitTwist"), (8, 8))
    assert doc.scene.constraint(AIM).limit.twist == (-180.0, 180.0)
    type_into(find(win, QtWidgets.QDoubleSpinBox, "limitTwistRange0"), "-15")
    type_into(find(win, QtWidgets.QDoubleSpinBox, "limitTwistRange1"), "25")
    assert doc.scene.constraint(AIM).limit == ConeLimit(degrees=20.0, twist=(-15.0, 25.0))
    # spin edits of one cone merge into one undo entry; kind changes are their own
    texts = [doc.undo_stack.text(i) for i in range(doc.undo_stack.count())]
    assert texts == [
        f"Set limit of {AIM} to cone 45°",
        f"Set limit of {AIM} to cone 20°, twist -15..25°",
    ]
    # back to a hinge, then its range; a range with min > max is refused, nothing changes
    pick(find(win, QtWidgets.QComboBox, "limitKind"), "h")
    type_into(find(win, QtWidgets.QDoubleSpinBox, "limitHingeRange1"), "60")
    assert doc.scene.constraint(AIM).limit == HingeLimit(axis=(1.0, 0.0, 0.0), min=-90.0, max=60.0)
    before = doc.scene.constraint(AIM)
    type_into(find(win, QtWidgets.QDoubleSpinBox, "limitHingeRange0"), "80")
    assert doc.scene.constraint(AIM) == before
    assert "min <= max" in win.statusBar().currentMessage()
    # up vector: tick it (Blender's Track To defaults: the bone's Z toward world up)
    click(find(win, QtWidgets.QCheckBox, "upEnabled"), (8, 8))
    assert doc.scene.constraint(AIM).up == UpVector(axis=(0.0, 0.0, 1.0), toward=(0.0, 1.0, 0.0))
    type_into(find(win, QtWidgets.QDoubleSpinBox, "upToward0"), "1")
    assert doc.scene.constraint(AIM).up.toward == (1.0, 1.0, 0.0)
    # none: no limit
    pick(find(win, QtWidgets.QComboBox, "limitKind"), "n")
    assert doc.scene.constraint(AIM).limit is None
    gui.key(win.viewport, "Z", gui.CTRL)
    assert isinstance(doc.scene.constraint(AIM).limit, HingeLimit)


def test_fabrik_limits_per_bone_and_pole(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json", frame=20)
    doc = win.document
    name = "arm reaches"
    select_in_outliner(win, Ref.constraint(name))
    assert find(win, QtWidgets.QComboBox, "limit_forearmKind").currentText() == "hinge"
    pick(find(win, QtWidgets.QComboBox, "limit_handKind"), "c")
    type_into(find(win, QtWidgets.QDoubleSpinBox, "limit_handCone"), "10")
    c = doc.scene.constraint(name)
    assert c.limits["hand"] == ConeLimit(degrees=10.0)
    assert list(c.limits) == ["forearm", "hand"]  # in chain order
    assert doc.undo_stack.undoText() == f"Set limit of {name} on hand to cone 10°"
    # the hand keeps within 10° of its rest direction in its forearm's frame
    pose = bake(doc.scene, [20])
    i, j = doc.scene.bone_index("forearm"), doc.scene.bone_index("hand")
    hand = doc.scene.bone("hand")
    local = np.linalg.inv(pose.bone_to_world[0, i]) @ pose.bone_to_world[0, j]
    tail = np.asarray(doc.scene.tail_of(j))
    rest_dir = Rotation.from_quat(hand.rotation, scalar_first=True).apply(tail)
    now = local[:3, :3] @ tail
    cos = rest_dir @ now / np.linalg.norm(rest_dir) / np.linalg.norm(now)
    assert np.degrees(np.arccos(np.clip(cos, -1, 1))) <= 10 + 1e-5
    # the pole: none, then the chest's tail
    pole = find(win, QtWidgets.QComboBox, "poleKind")
    pole.setFocus()
    QTest.keyClick(pole, QtCore.Qt.Key.Key_Home)
    assert doc.scene.constraint(name).pole is None
    assert doc.undo_stack.undoText() == f"Set pole of {name} to none"
    QTest.keyClick(find(win, QtWidgets.QComboBox, "poleKind"), QtCore.Qt.Key.Key_End)
    last = doc.scene.bones[-1].name
    assert doc.scene.constraint(name).pole.bone == last
    assert doc.scene.constraint(name).pole.at == "tail"


def test_renaming_a_pivot_in_the_inspector_and_the_outliner(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", frame=10)
    doc = win.document
    select_in_outliner(win, Ref.pivot_of("foot_roll", "heel"))
    type_into(find(win, QtWidgets.QLineEdit, "pivotName"), "heel_pivot")
    c = doc.scene.constraint("foot_roll")
    assert [p.name for p in c.pivots] == ["heel_pivot", "ball", "toe", "swing"]
    assert doc.selection == (Ref.pivot_of("foot_roll", "heel_pivot"),)
    assert doc.undo_stack.undoText() == "Rename pivot heel of foot_roll to heel_pivot"
    # the pose does not change with a name
    assert np.allclose(doc.pose().bone_to_world, bake(doc.scene, [10]).bone_to_world)
    # in place in the outliner: double-click, type, Enter
    outliner = win.outliner
    rect = outliner.visualItemRect(outliner.item_for(Ref.pivot_of("foot_roll", "toe")))
    QTest.mouseClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    QTest.mouseDClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    qtbot.waitUntil(lambda: isinstance(QtWidgets.QApplication.focusWidget(), QtWidgets.QLineEdit))
    editor = QtWidgets.QApplication.focusWidget()
    editor.selectAll()
    QTest.keyClicks(editor, "tip")
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "tip" in [p.name for p in doc.scene.constraint("foot_roll").pivots])
    # a name another pivot has is refused, with the reason in the status bar
    type_into(find(win, QtWidgets.QLineEdit, "pivotName"), "ball")
    assert [p.name for p in doc.scene.constraint("foot_roll").pivots] == [
        "heel_pivot",
        "ball",
        "tip",
        "swing",
    ]
    assert "already has a pivot named" in win.statusBar().currentMessage()


def test_multi_parent_and_fabrik_solver_settings(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", frame=40)
    doc = win.document
    select_in_outliner(win, Ref.constraint("foot_roll"))
    before = doc.pose().bone_to_world.copy()
    pick(find(win, QtWidgets.QComboBox, "constraintSpace"), "w")
    assert doc.scene.constraint("foot_roll").space == "world"
    assert doc.undo_stack.undoText() == "Set space of foot_roll to world"
    world = bake(doc.scene, [40])
    assert np.allclose(doc.pose().bone_to_world, world.bone_to_world)
    assert not np.allclose(world.bone_to_world, before)  # the foot rolls sideways now
    type_into(find(win, QtWidgets.QSpinBox, "substeps"), "8")
    assert doc.scene.constraint("foot_roll").substeps == 8
    pick(find(win, QtWidgets.QComboBox, "integrator"), "t")
    assert doc.scene.constraint("foot_roll").integrator == "twist"
    assert np.allclose(doc.pose().bone_to_world, bake(doc.scene, [40]).bone_to_world)
    assert doc.undo_stack.count() == 3

    win2 = gui.open_window(qtbot, SCENES / "fabrik_arm.json", frame=20)
    doc2 = win2.document
    select_in_outliner(win2, Ref.constraint("arm reaches"))
    type_into(find(win2, QtWidgets.QDoubleSpinBox, "tolerance"), "0.01")
    type_into(find(win2, QtWidgets.QSpinBox, "maxIterations"), "3")
    c = doc2.scene.constraint("arm reaches")
    assert (c.tolerance, c.max_iterations) == (0.01, 3)
    assert doc2.pose().info["arm reaches"]["iterations"] <= 3
    assert [doc2.undo_stack.text(i) for i in range(2)] == [
        "Set tolerance of arm reaches to 0.01",
        "Set max_iterations of arm reaches to 3",
    ]
