"""The status bar's hint for a constraint's part is its kind's view's (issue 29 item 1): a
pivot moves on the body and turns, a target or a pole moves in the world."""

from __future__ import annotations

from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import open_window
from tests.helpers.paths import SCENES


def test_a_pivot_moves_on_the_body_and_turns(qtbot):
    win = open_window(qtbot, SCENES / "foot_roll.json", frame=0)
    doc = win.document
    heel = doc.scene.constraint("foot_roll").pivots[0].name
    doc.set_selection([Ref.pivot_of("foot_roll", heel)])
    assert win.hint_label.text().startswith("Drag: move on the body · Shift: on the ground")
    assert "Ctrl+drag: rotate & key" in win.hint_label.text()
    doc.set_selection([Ref.bone("foot")])
    assert win.hint_label.text().startswith("Ctrl+drag: rotate")


def test_a_target_and_a_pole_move_as_themselves(qtbot):
    win = open_window(qtbot, SCENES / "fabrik_arm.json", frame=0)
    doc = win.document
    chain = next(c for c in doc.scene.constraints if ("pole", None) in c.parts())
    doc.set_selection([Ref.target_of(chain.name)])
    assert win.hint_label.text().startswith("Drag: move the target · Shift: on the ground")
    assert "rotate" not in win.hint_label.text()
    doc.set_selection([Ref.pole_of(chain.name)])
    assert win.hint_label.text().startswith("Drag: move the pole · Shift: on the ground")


def test_a_pivot_is_renamed_and_deleted_like_a_bone_a_target_is_not(qtbot):
    """F2 and X on a named part (a pivot) rename and delete it; on a target F2 says what it
    renames and X asks for the constraint (``Ref.is_named_part``)."""
    win = open_window(qtbot, SCENES / "foot_roll.json", frame=0)
    doc, vp = win.document, win.viewport
    pivots = [p.name for p in doc.scene.constraint("foot_roll").pivots]
    doc.set_selection([Ref.pivot_of("foot_roll", pivots[0])])
    gui.rename_with_f2(vp, "heel_pad")
    renamed = [p.name for p in doc.scene.constraint("foot_roll").pivots]
    assert renamed == ["heel_pad", *pivots[1:]]
    doc.set_selection([Ref.pivot_of("foot_roll", "heel_pad")])
    vp.setFocus()
    gui.key(vp, "X")
    assert [p.name for p in doc.scene.constraint("foot_roll").pivots] == pivots[1:]

    win = open_window(qtbot, SCENES / "fabrik_arm.json", frame=0)
    doc, vp = win.document, win.viewport
    chain = next(c for c in doc.scene.constraints if c.targets())
    doc.set_selection([Ref.target_of(chain.name)])
    vp.setFocus()
    gui.key(vp, "F2")
    assert win.statusBar().currentMessage() == "Select a bone or a pivot to rename it"
    before = list(doc.scene.constraints)
    gui.key(vp, "X")
    assert list(doc.scene.constraints) == before
