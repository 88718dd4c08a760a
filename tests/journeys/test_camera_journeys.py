"""Journeys: a newcomer opens a shipped scene or a CMU clip and plays it start to end without
touching the camera; every joint of every frame stays inside the viewport (issue 18, items 1
and 9). One window for the module, the size ``make run`` opens; real key presses (Space,
Home, End, Right, Left, E, Shift+A) drive it.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from tests.helpers.gui import CTRL, SHIFT, click, key
from tests.helpers.paths import CMU_DIR, SCENES
from tests.journeys._camera import (
    camera_center,
    drawn_near_bones,
    frames_out_of_view,
    joints,
    mouse_drag,
    outside,
    project_with,
)

FOOT_ROLL = SCENES / "foot_roll.json"
TUMBLING_BOX = SCENES / "tumbling_box.json"
CMU_01_01 = CMU_DIR / "01_01.bvh"


@pytest.fixture(scope="module")
def window(qapp):
    """The editor as ``make run`` shows it: the demo, in a 1280×800 window."""
    from app.editor.document import Document
    from app.window.main_window import MainWindow

    win = MainWindow(Document.from_file(FOOT_ROLL), restore_settings=False)
    win.resize(1280, 800)
    win.show()
    assert QTest.qWaitForWindowExposed(win)
    win.activateWindow()
    QTest.qWait(50)
    yield win
    win.document.player.pause()
    win.document.undo_stack.clear()  # nothing to ask about on close
    win.autosaver.stop()
    win.close()
    win.deleteLater()


def open_scene(win, qtbot, path):
    """Open ``path`` as File ▸ Open does once its dialog has a file."""
    assert path.exists(), path
    assert win.files.open(str(path))
    win.activateWindow()
    qtbot.waitActive(win)
    qtbot.wait(30)


@pytest.mark.parametrize("path", [FOOT_ROLL, TUMBLING_BOX, CMU_01_01], ids=lambda p: p.name)
def test_playing_keeps_every_joint_in_view(window, qtbot, path):
    open_scene(window, qtbot, path)
    doc, vp = window.document, window.viewport
    timeline = doc.timeline()  # every frame, one bake, in the space shown
    if path == CMU_01_01:
        assert len(timeline.frames) == 2752
    # Space plays: every frame painted shows all of its joints
    shown = []
    vp.painted.connect(
        lambda _: shown.append((doc.frame, vp.world_to_clip(), (vp.width(), vp.height())))
    )
    key(window, "Space")
    qtbot.waitUntil(lambda: doc.frame > timeline.frames[0] + 3, timeout=3000)
    qtbot.wait(300)
    key(window, "Space")
    assert not doc.player.playing
    vp.painted.disconnect()
    played = [(f, m, s) for f, m, s in shown if f == int(f)]
    assert len({f for f, _, _ in played}) >= 3
    points = joints(timeline)
    for frame, world_to_clip, size in played:
        k = int(frame - timeline.frames[0])
        assert project_with(world_to_clip, size, points[k]).all(), f"frame {frame:g} left the view"
    # End, then Left and Right: the last frames, as the user steps to them
    before, at = camera_center(vp), doc.frame
    key(window, "End")
    assert doc.frame == timeline.frames[-1]
    end_shift = camera_center(vp) - before
    assert not outside(vp, points[-1]).any(), "the last frame leaves the view"
    for name in ("Left", "Left", "Right"):
        key(window, name)
        k = int(doc.frame - timeline.frames[0])
        assert not outside(vp, points[k]).any(), f"frame {doc.frame:g} leaves the view"
    key(window, "End")
    qtbot.wait(30)
    assert drawn_near_bones(vp, qtbot, doc.pose()) >= 0.9  # the skeleton's pixels show
    # every frame: the camera centre moves with the followed path (nothing when still)
    follow = getattr(vp, "follow", None)
    if follow is not None and follow.enabled:
        path_now = follow.path(doc.frame)
        assert np.allclose(end_shift, follow.path(doc.frame) - follow.path(at), atol=1e-6)
        shift = follow.path(timeline.frames) - path_now
    else:
        assert np.allclose(end_shift, 0)
        shift = None
    out = frames_out_of_view(vp, timeline, shift)
    assert out == [], f"{len(out)} of {len(timeline.frames)} frames leave the view: {out[:5]}…"
    if path == CMU_01_01:  # the walk leaves any still view: Follow is on by default
        assert window.actions_by_name["follow"].isChecked()


def test_new_bones_are_made_in_view(window, qtbot):
    open_scene(window, qtbot, FOOT_ROLL)
    doc, vp = window.document, window.viewport
    pose = doc.pose()
    i = list(pose.bone_names).index("thigh")
    click(vp, vp.project(0.5 * (pose.heads[0, i] + pose.tails[0, i]))[0])
    assert [r.name for r in doc.selection] == ["thigh"]
    for _ in range(4):  # E: a child from the tail, continuing the bone; again from it
        key(vp, "E")
        pose = doc.pose()
        assert not outside(vp, joints(pose)[0]).any(), f"{doc.selection[0].name} is out of view"
    opened = []

    def choose_add_bone():
        menu = QtWidgets.QApplication.activePopupWidget()
        if menu is None:
            QtCore.QTimer.singleShot(10, choose_add_bone)
            return
        opened.append(menu.activeAction().text())
        key(menu, "Return")

    QtCore.QTimer.singleShot(10, choose_add_bone)
    count = len(doc.scene.bones)
    key(vp, "A", SHIFT)
    qtbot.waitUntil(lambda: len(doc.scene.bones) == count + 1, timeout=3000)
    assert "Bone" in opened[0]
    assert not outside(vp, joints(doc.pose())[0]).any()


def follow_shift(vp, frames):
    """How far Follow moves the camera's centre from now at each of ``frames`` (``None``: the
    camera stands still)."""
    follow = getattr(vp, "follow", None)
    if follow is None or not follow.enabled:
        return None
    return follow.path(frames) - follow.path(vp._document.frame)


def test_frame_animation_and_follow_keys(window, qtbot):
    open_scene(window, qtbot, TUMBLING_BOX)
    doc, vp = window.document, window.viewport
    timeline, count = doc.timeline(), doc.undo_stack.count()
    mouse_drag(vp, (15, 15), (vp.width() - 15, vp.height() - 15), CTRL)  # pan away
    assert frames_out_of_view(vp, timeline, follow_shift(vp, timeline.frames))
    key(window, "F", CTRL)  # View ▸ Frame Animation
    assert frames_out_of_view(vp, timeline, follow_shift(vp, timeline.frames)) == []
    follows = window.actions_by_name["follow"].isChecked()
    key(window, "F", CTRL | SHIFT)  # View ▸ Follow
    assert window.actions_by_name["follow"].isChecked() != follows
    assert vp.follow.enabled != follows
    if vp.follow.enabled:
        key(window, "F", CTRL | SHIFT)
    key(window, "F", CTRL)  # a still camera: every frame at once
    assert frames_out_of_view(vp, timeline) == []
    before = camera_center(vp)
    key(window, "End")
    assert np.allclose(camera_center(vp), before)
    assert doc.undo_stack.count() == count  # framing and following are no edits
