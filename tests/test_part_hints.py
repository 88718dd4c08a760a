"""The status bar's hint for a constraint's part is its kind's view's (issue 29 item 1): a
pivot moves on the body and turns, a target or a pole moves in the world."""

from __future__ import annotations

from app.scene.rig.refs import Ref
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
