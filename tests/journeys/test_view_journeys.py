"""Journeys through what the viewport shows and what a click picks (issue 26, items 1 to 3):
the action stays in view when the space changes, a click on a bone's middle picks that bone,
labels sit at their handles without overlapping. One window on the demo for the module, the
size ``make run`` opens on the tests' screen; real clicks and keys drive it.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtTest import QTest

from app.cli import DEMO_SCENE
from tests.gui import LEFT, NO_MODS, key, point
from tests.journeys._camera import drawn_near_bones, frames_out_of_view, joints, outside

from . import _fields


@pytest.fixture
def win(window):
    window.document.set_compare(False)
    window.document.set_space(None)
    _fields.fresh(window, DEMO_SCENE)
    yield window
    window.document.set_compare(False)
    window.document.set_space(None)


#: A handle's dot as drawn (13 pixels across when selected), with a pixel of air: a click
#: there may pick the handle first.
DOT_PX = 7.5


def _follow_shift(vp, frames):
    """How far Follow moves the camera's centre from now at each of ``frames`` (``None``: a
    still camera)."""
    if not vp.follow.enabled:
        return None
    return vp.follow.path(frames) - vp.follow.path(vp.document.frame)


def _click_button(button) -> None:
    QTest.mouseClick(button, LEFT, NO_MODS, button.rect().center())


def _in_view_every_frame(vp, result) -> list[float]:
    """Frames of ``result`` (a timeline) with a joint outside the view, Follow included."""
    return frames_out_of_view(vp, result, _follow_shift(vp, result.frames))


def test_a_space_switch_keeps_the_skeleton_and_the_ghost_in_view(win, qtbot):
    """Issue 26 item 1: on the demo at its last frame, World put the foot 3 units away and
    the view stayed empty on every frame until Ctrl+F; with Compare on, the ghost too."""
    doc, vp = win.document, win.viewport
    toggle = win.space_toggle.buttons
    key(win, "End")
    assert doc.frame == doc.scene.frame_end
    _click_button(toggle["world"])
    assert doc.space == "world"
    qtbot.wait(30)
    assert not outside(vp, joints(doc.pose())[0]).any(), "the world-space pose left the view"
    assert drawn_near_bones(vp, qtbot, doc.pose()) >= 0.9  # its pixels show
    assert _in_view_every_frame(vp, doc.timeline()) == []
    # Compare: the object-space ghost joins the picture; both stay in view on every frame
    _click_button(win.findChild(type(toggle["world"]), "compareToggle"))
    assert doc.compare and doc.ghost_space() == "object"
    qtbot.wait(30)
    assert _in_view_every_frame(vp, doc.timeline()) == []
    assert _in_view_every_frame(vp, doc.timeline_in(doc.ghost_space())) == []
    # and back to object space, the ghost now in world space
    _click_button(toggle["object"])
    assert doc.space == "object" and doc.ghost_space() == "world"
    qtbot.wait(30)
    assert _in_view_every_frame(vp, doc.timeline()) == []
    assert _in_view_every_frame(vp, doc.timeline_in("world")) == []
    assert drawn_near_bones(vp, qtbot, doc.pose()) >= 0.9
    assert doc.undo_stack.count() == 0  # a view, not an edit


def test_a_space_switch_that_stays_in_view_keeps_the_camera(win, qtbot):
    """Where the other space stays in view, the camera does not move (the person compares
    the two from the same place)."""
    doc, vp = win.document, win.viewport
    key(win, "Home")
    toggle = win.space_toggle.buttons
    _click_button(toggle["object"])  # the demo is authored in object space: the same pose
    before = (vp.opts["distance"], vp.opts["azimuth"], vp.opts["elevation"],
              tuple(vp.opts["center"].toTuple()))  # fmt: skip
    _click_button(toggle[None])
    after = (vp.opts["distance"], vp.opts["azimuth"], vp.opts["elevation"],
             tuple(vp.opts["center"].toTuple()))  # fmt: skip
    assert np.allclose(before[:3], after[:3]) and np.allclose(before[3], after[3])


def _inspector_title(win) -> str:
    """The inspector's heading as the person reads it ("Bone hand.L", "Pivot ball")."""
    from PySide6 import QtGui, QtWidgets

    label = win.inspector.findChild(QtWidgets.QLabel, "inspectorTitle")
    doc = QtGui.QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText().splitlines()[0]


def _click_every_bone(win, qtbot) -> list[str]:
    """Click the middle of every bone as drawn; where a handle's dot or another bone covers
    that spot, click again there (the next thing under the cursor, as in Blender). Returns
    what went wrong: a bone that no click picked, or that needed a click it did not need."""
    doc, vp = win.document, win.viewport
    wrong = []
    pose = doc.pose()
    heads, tails = vp.project(pose.heads[0]), vp.project(pose.tails[0])
    handles = vp.project(np.array([p for _, p in vp.handles()]).reshape(-1, 3))
    for i, name in enumerate(map(str, pose.bone_names)):
        middle = (heads[i] + tails[i]) / 2
        if not (0 < middle[0] < vp.width() and 0 < middle[1] < vp.height()):
            wrong.append(f"{name} is out of view")
            continue
        same = [
            j
            for j in range(len(heads))
            if j != i
            and np.linalg.norm(heads[j] - heads[i]) < 1
            and np.linalg.norm(tails[j] - tails[i]) < 1
        ]
        dots = np.flatnonzero(np.linalg.norm(handles - middle, axis=1) <= DOT_PX)
        allowed = 1 + len(same) + len(dots)
        doc.set_selection([])
        seen = []
        for _ in range(allowed):
            QTest.mouseClick(vp, LEFT, NO_MODS, point(middle))
            seen.append(_inspector_title(win))
            if seen[-1] == f"Bone {name}":
                break
        else:
            wrong.append(f"{name}: clicks on its middle showed {seen}")
    return wrong


@pytest.mark.parametrize("scene", ["demo", "humanoid", "rigged humanoid"])
def test_a_click_on_the_middle_of_a_bone_picks_that_bone(window, qtbot, scene):
    """Issue 26 item 2: the middle of ``hand.L`` picked ``forearm.L`` (a zero-length hand at
    the forearm's tail), the demo's toes their toe pivot, the rigged humanoid's ``calf.R``
    the left knee's pole; a handle that merely sits on a bone no longer takes its clicks."""
    from app.editor.authoring.rig_operations import add_foot_roll_rig, suggested_leg
    from tests.conftest import SCENES

    doc = window.document
    doc.set_compare(False)
    doc.set_space(None)
    if scene == "demo":
        _fields.fresh(window, DEMO_SCENE)
        doc.set_frame(20)  # the toes' toe pivot sits at their middle's side
    else:
        _fields.fresh(window, SCENES / "humanoid.glb")
        if scene == "rigged humanoid":
            for side in ("right", "left"):
                add_foot_roll_rig(doc, suggested_leg(doc, side))
            window.viewport.frame_opened()
    qtbot.wait(20)
    assert _click_every_bone(window, qtbot) == []
