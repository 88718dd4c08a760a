"""The editor refuses an edit that would make constraints read each other in a cycle
(contract §F1), with real mouse events: the scene and the undo history stay as they were."""

import json

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import click


def _scene_file(tmp_path):
    bones = [
        {"name": "a", "translation": [0, 0, 0], "tail": [0, 1, 0]},
        {"name": "b", "translation": [1, 0, 0], "tail": [0, 1, 0]},
    ]
    constraints = [
        {"type": "points_at", "name": "p1", "bone": "a", "target": {"position": [0, 2, 1]}},
        {"type": "points_at", "name": "p2", "bone": "b", "target": {"bone": "a", "at": "tail"}},
    ]
    path = tmp_path / "two_aims.json"
    path.write_text(
        json.dumps(
            {
                "format": "pivotal-scene",
                "version": 1,
                "frame_end": 10,
                "bones": bones,
                "constraints": constraints,
            }
        )
    )
    return path


def _choose(qtbot, combo, text):
    """Open the combo box with a click and click the item ``text`` in its list."""
    click(combo, combo.rect().center())
    view = combo.view()
    qtbot.waitUntil(view.isVisible)
    row = combo.findText(text)
    assert row >= 0, text
    qtbot.wait(QtWidgets.QApplication.doubleClickInterval() + 50)  # a popup's own guard
    view.scrollTo(view.model().index(row, 0))
    rect = view.visualRect(view.model().index(row, 0))
    QTest.mouseClick(
        view.viewport(),
        QtCore.Qt.MouseButton.LeftButton,
        QtCore.Qt.KeyboardModifier.NoModifier,
        rect.center(),
    )
    qtbot.waitUntil(lambda: not view.isVisible())


def test_choosing_a_target_that_makes_a_cycle_is_refused(qtbot, tmp_path):
    win = gui.open_window(qtbot, _scene_file(tmp_path), frame=3)
    doc = win.document
    outliner = win.outliner
    click(
        outliner.viewport(),
        outliner.visualItemRect(outliner.item_for(Ref.target_of("p1"))).center(),
    )
    assert doc.active == Ref.target_of("p1")
    combo = win.inspector.findChild(QtWidgets.QComboBox, "targetKind")
    assert combo.currentText() == "a position"
    bones, constraints = list(doc.scene.bones), list(doc.scene.constraints)
    count, index = doc.undo_stack.count(), doc.undo_stack.index()

    _choose(qtbot, combo, "bone b head")  # b is what p2 moves, and p2 reads a

    message = win.statusBar().currentMessage()
    assert "cycle" in message and "p1 → p2 → p1" in message, message
    assert all(x is y for x, y in zip(doc.scene.constraints, constraints))
    assert all(x is y for x, y in zip(doc.scene.bones, bones))
    assert len(doc.scene.constraints) == len(constraints)
    assert (doc.undo_stack.count(), doc.undo_stack.index()) == (count, index)
    combo = win.inspector.findChild(QtWidgets.QComboBox, "targetKind")
    assert combo.currentText() == "a position"  # the inspector shows the target unchanged

    # a target that makes no cycle is taken, as one undo step
    _choose(qtbot, combo, "bone a tail")
    assert doc.scene.constraint("p1").target.bone == "a"
    assert doc.undo_stack.count() == count + 1


def test_adding_a_constraint_or_reparenting_into_a_cycle_is_refused(qtbot):
    import pytest

    from app.editor.document import Document
    from app.editor.operations import bone_operations, constraint_operations
    from app.editor.operations.base import OperationError
    from app.scene.constraints.points_at.model import PointsAt
    from app.scene.rig.model import Bone, Scene, Target

    bones = [Bone(name=n, translation=(i, 0, 0), tail=(0, 1, 0)) for i, n in enumerate("abc")]
    x = PointsAt(name="x", bone="a", target=Target(bone="c"))
    doc = Document(Scene(bones=bones, constraints=[x]))
    selection = (Ref.bone("b"),)
    doc.set_selection(selection)

    with pytest.raises(OperationError, match="cycle, x → Points-At c → x "):
        constraint_operations.add_points_at(doc, ["a", "c"])  # c aims at a, which aims at c
    assert doc.scene.bones == bones and doc.scene.constraints == [x]
    assert doc.undo_stack.count() == 0 and doc.selection == selection
    y = constraint_operations.add_points_at(doc, ["b", "c"])  # c aims at b: x runs after it
    assert doc.undo_stack.count() == 1 and y.name == "Points-At c"
    # b under a: then c reads b, which moves with a, which reads c
    with pytest.raises(OperationError, match="cycle, x → Points-At c → x "):
        bone_operations.reparent_bone(doc, "b", "a")
    assert doc.scene.bone("b").parent is None and doc.undo_stack.count() == 1
