"""What a solver reports about the shown frame is said by its kind's view (issue 29 item 1:
the inspector no longer branches on the keys a solver returns)."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from app.scene.rig.refs import Ref
from app.widgets.kinds import fabrik, multi_parent, points_at
from tests.helpers import gui
from tests.helpers.paths import SCENES


def test_each_kind_says_what_its_own_solver_reports():
    reach = {"iterations": np.array([3]), "distance": np.array([0.25]), "reachable": [False]}
    assert fabrik.report(reach) == (
        "Solved in 3 iterations: the chain's end is 0.25 units from the target (out of reach)."
    )
    assert points_at.report({"degenerate_frames": np.array([])}) == (
        "The target gives the bone a direction."
    )
    assert points_at.report({"degenerate_frames": np.array([7.0, 8.0])}) == (
        "At frame 7 the target is on the bone's head: it gives no direction, so the bone "
        "keeps its pose."
    )
    steps = {"grid_steps": 1, "subdivided_steps": 2, "recomputed_from_frame": 12.0}
    assert multi_parent.report(steps) == (
        "1 integration step (2 subdivided); the last change recomputed them from frame 12."
    )
    # a kind reads only its own keys: another kind's report says nothing
    assert fabrik.report(steps) == points_at.report(reach) == multi_parent.report(reach) == ""


def test_the_inspector_shows_the_report_of_the_constraints_kind(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json", frame=0)
    doc = win.document
    doc.set_selection([Ref.constraint("arm reaches")])
    info = doc.pose().info["arm reaches"]
    said = [w.text() for w in win.inspector.findChildren(QtWidgets.QLabel) if w.isVisible()]
    assert fabrik.report(info).startswith("Solved in")
    assert fabrik.report(info) in said
