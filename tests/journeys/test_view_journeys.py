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
from tests.gui import LEFT, NO_MODS, key
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
