"""What a frame change costs the window: which widgets repaint, which regions, and whether
anything re-lays the window out; the bone meshes of a cached timeline are built once per edit
and are exactly the per-frame ones. Real OpenGL (Xvfb), real key events."""

from __future__ import annotations

import collections
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.cli import DEMO_SCENE
from app.editor.document import Document
from app.scene.analysis.bone_shapes import octahedra
from app.widgets.viewport.bone_frames import TimelineShapes, face_corners
from app.widgets.viewport.handle_frames import TimelineHandles
from app.widgets.viewport.scene_drawing import handles_of
from tests.helpers.gui import key, open_window

SCENES = Path(DEMO_SCENE).parent
PAINT = QtCore.QEvent.Type.Paint
LAYOUT = QtCore.QEvent.Type.LayoutRequest


class Events(QtCore.QObject):
    """Paint regions and layout requests per widget, while ``on``; and the paints of the
    ``watched`` widgets all the time (a throttled widget paints on its timer, which may fire
    between the key presses)."""

    def __init__(self, watched=()):
        super().__init__()
        self.on = False
        self.paints = collections.defaultdict(list)  # widget -> [QRegion]
        self.layouts = collections.Counter()
        self.watched = {w: 0 for w in watched}

    def eventFilter(self, obj, ev):
        if obj in self.watched and ev.type() == PAINT:
            self.watched[obj] += 1
        if self.on and isinstance(obj, QtWidgets.QWidget):
            if ev.type() == PAINT:
                self.paints[obj].append(QtGui.QRegion(ev.region()))
            elif ev.type() == LAYOUT:
                self.layouts[obj] += 1
        return False


def _area(region: QtGui.QRegion) -> int:
    return sum(r.width() * r.height() for r in region)


def test_a_frame_change_repaints_the_viewport_and_only_what_shows_the_frame(qtbot):
    win = open_window(qtbot, DEMO_SCENE, frame=0)
    doc, vp = win.document, win.viewport
    doc.set_compare(True)
    doc.prepare_timeline()
    scrub, spin, status = win.timeline.scrub_bar, win.timeline.frame_spin, win.statusBar()
    for _ in range(3):  # settle the first paints of Compare
        key(win.outliner, "Right")
        qtbot.wait(30)
    # The "Recomputed … in N ms" note fades 2.5 s after the timeline's recomputation, which
    # may fall inside the steps below on a slow machine: a text change of its own, not of the
    # frame, so it fades before they start.
    win.timeline.recompute_label.clear()
    qtbot.wait(30)
    table = win.compare_table.table.viewport()
    events = Events(watched=[table])
    app = QtWidgets.QApplication.instance()
    app.installEventFilter(events)
    swaps = []
    vp.frameSwapped.connect(lambda: swaps.append(doc.frame))
    steps = 24
    began = time.perf_counter()
    try:
        for _ in range(steps):
            qtbot.wait(30)  # longer than nothing, shorter than the table's 100 ms throttle
            events.on = True
            key(win.outliner, "Right")
            qtbot.waitUntil(lambda: bool(swaps) and swaps[-1] == doc.frame)
            qtbot.wait(5)
            events.on = False
    finally:
        app.removeEventFilter(events)
    elapsed = time.perf_counter() - began
    assert doc.frame == 3 + steps
    paints = events.paints
    # The viewport draws one frame per frame change in its own window: no raster paint of
    # it, nothing under it (the window's own paints never touch the viewport's rectangle).
    assert len(swaps) == steps
    assert not paints[vp]
    under = QtCore.QRect(vp.mapTo(win, QtCore.QPoint(0, 0)), vp.size())
    assert all(not r.intersects(under) for r in paints[win])
    # The scrub bar: only around the old and the new playhead (a frame is ~7 px here).
    assert len(paints[scrub]) == steps
    assert max(_area(r) for r in paints[scrub]) <= 2 * 44 * scrub.height()
    assert all(r.boundingRect().width() < scrub.width() / 4 for r in paints[scrub])
    # The spin box's text changed: its line edit repaints; the status bar only its frame
    # label (the space and hint labels beside it do not change).
    assert len(paints[spin.lineEdit()]) == steps
    assert len(paints[win.frame_label]) == steps
    assert not paints[win.space_label] and not paints[win.hint_label]
    assert max(r.boundingRect().width() for r in paints[status]) <= win.frame_label.width()
    # The Compare table at its throttle (100 ms), not every frame: it repaints, at most once
    # or twice (its cells, its caption) per throttle period of the steps' time; nothing
    # re-lays out the window.
    assert 0 < events.watched[table] <= 2 * (elapsed / 0.1 + 1)
    assert events.watched[table] < steps or elapsed > steps * 0.1
    assert events.layouts[win] == 0
    assert events.layouts[win.compare_table] == 0
    # And what they show is the frame.
    win.compare_table._throttled.flush()
    assert spin.value() == doc.frame == 27
    assert win.frame_label.text().startswith("Frame 27 ")
    assert win.compare_table.frame_caption.text() == "at frame 27"
    assert "ghost: <b>world</b>" in win.compare_table.caption.text()


def _per_frame(heads, tails):
    """What a frame drew before the timeline cache: octahedra, face corners, normals."""
    verts, faces, bone_of_vertex = octahedra(heads, tails)
    corners = verts[faces]
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    return (
        corners.reshape(-1, 3).astype(np.float32),
        np.repeat(normals, 3, axis=0).astype(np.float32),
        bone_of_vertex[::6],
    )


def test_timeline_shapes_are_the_per_frame_meshes_and_built_once():
    doc = Document.from_file(DEMO_SCENE)
    timeline = doc.timeline()
    shapes = TimelineShapes()
    for k in range(len(timeline.frames)):
        got = shapes.frame(timeline, k)
        want = _per_frame(timeline.heads[k], timeline.tails[k])
        assert all(np.array_equal(g, w) for g, w in zip(got, want)), k
    assert shapes.builds == 1
    # A bone of zero length in some frames has no mesh there (as octahedra drops it).
    heads = np.random.default_rng(3).normal(size=(4, 3, 3))
    tails = heads + np.random.default_rng(4).normal(size=(4, 3, 3))
    tails[1, 0] = heads[1, 0]
    tails[2, 2] = heads[2, 2]
    timeline = SimpleNamespace(heads=heads, tails=tails)
    for k in range(4):
        corners, normals, bones = shapes.frame(timeline, k)
        want = _per_frame(heads[k], tails[k])
        assert np.array_equal(corners, want[0]) and np.array_equal(normals, want[1])
        assert np.array_equal(bones, want[2])
    assert [len(shapes.frame(timeline, k)[2]) for k in range(4)] == [3, 2, 2, 3]
    assert shapes.builds == 2
    # Too long a timeline is not kept: each frame is meshed when it is drawn.
    assert TimelineShapes(max_bone_frames=11).frame(timeline, 0) is None
    # face_corners is the per-frame path itself.
    assert all(
        np.array_equal(np.asarray(a, np.float32), b)
        for a, b in zip(face_corners(heads[0], tails[0]), _per_frame(heads[0], tails[0]))
    )


def test_playback_draws_from_the_timeline_shapes_once_per_edit(qtbot):
    win = open_window(qtbot, DEMO_SCENE, frame=0)
    doc, drawing = win.document, win.viewport._drawing
    doc.prepare_timeline()
    mesh = drawing._skeleton._mesh
    for frame in (5, 6, 40):
        doc.set_frame(frame)
        want = _per_frame(doc.pose().heads[0], doc.pose().tails[0])
        n = 24 * mesh.count
        assert np.array_equal(mesh._positions[:n], want[0])
        assert np.array_equal(mesh._normals[:n], want[1])
    assert drawing.shapes.builds == 1 and drawing.handle_frames.builds == 1
    # An edit replaces the timeline: the next drawn frame builds the new one's meshes.
    doc.scene_edited()
    doc.prepare_timeline()
    doc.set_frame(41)
    assert drawing.shapes.builds == 2 and drawing.handle_frames.builds == 2


def _per_frame_handles(doc, frame):
    doc.set_frame(frame)
    return handles_of(doc)


def _tail_target(doc):
    """The scene's points-at target moved to its bone's tail (no scene has one)."""
    import dataclasses

    scene = doc.scene
    c = scene.constraints[0]
    scene.constraints[0] = dataclasses.replace(c, target=dataclasses.replace(c.target, at="tail"))
    doc.scene_edited()


def test_timeline_handles_are_handles_of_at_every_frame():
    from app.scene.constraints.fabrik.model import Fabrik
    from app.scene.constraints.multi_parent.model import MultiParent
    from app.scene.constraints.points_at.model import PointsAt

    kinds = set()
    for name, change in (
        ("foot_roll.json", None),
        ("rig_200_bones.json", None),
        ("fabrik_arm.json", None),
        ("calf_points_at_ankle.json", None),
        ("calf_points_at_ankle.json", _tail_target),
    ):
        doc = Document.from_file(SCENES / name)
        if change is not None:
            change(doc)
        kinds |= {
            (type(c), getattr(getattr(c, "target", None), "at", None))
            for c in doc.scene.constraints
        }
        timeline = doc.timeline()
        cached = TimelineHandles()
        step = max(len(timeline.frames) // 13, 1)
        for k in range(0, len(timeline.frames), step):
            want = _per_frame_handles(doc, doc.scene.frame_start + k)
            got = cached.of_document(doc)
            assert [r for r, _ in got] == [r for r, _ in want], name
            np.testing.assert_allclose(
                [p for _, p in got], [p for _, p in want], rtol=0, atol=1e-12, err_msg=name
            )
        assert cached.builds == 1
        # Off the cached timeline (a fractional frame) it gives way to handles_of.
        doc.set_frame(doc.scene.frame_start + 0.5)
        assert cached.of_document(doc) is None
    assert {(MultiParent, None), (Fabrik, "head"), (PointsAt, "head"), (PointsAt, "tail")} <= kinds
