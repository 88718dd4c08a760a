"""Journeys through what the viewport shows and what a click picks (issue 26, items 1 to 3):
the action stays in view when the space changes, a click on a bone's middle picks that bone,
labels sit at their handles without overlapping. One window on the demo for the module, the
size ``make run`` opens on the tests' screen; real clicks and keys drive it.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from app.cli import DEMO_SCENE
from tests.helpers.gui import LEFT, NO_MODS, key, point
from tests.journeys import _fields
from tests.journeys._camera import drawn_near_bones, frames_out_of_view, joints, outside


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
    assert _in_view_every_frame(vp, doc.evaluations.timeline(doc.ghost_space())) == []
    # and back to object space, the ghost now in world space
    _click_button(toggle["object"])
    assert doc.space == "object" and doc.ghost_space() == "world"
    qtbot.wait(30)
    assert _in_view_every_frame(vp, doc.timeline()) == []
    assert _in_view_every_frame(vp, doc.evaluations.timeline("world")) == []
    assert drawn_near_bones(vp, qtbot, doc.pose()) >= 0.9
    assert doc.undo_stack.count() == 0  # a view, not an edit


def test_a_space_switch_that_stays_in_view_keeps_the_camera(win, qtbot):
    """Where the other space stays in view, the camera does not move (the person compares
    the two from the same place)."""
    vp = win.viewport
    key(win, "Home")
    toggle = win.space_toggle.buttons
    _click_button(toggle["object"])  # the demo is authored in object space: the same pose
    before = (
        vp.opts["distance"],
        vp.opts["azimuth"],
        vp.opts["elevation"],
        tuple(vp.opts["center"].toTuple()),
    )
    _click_button(toggle[None])
    after = (
        vp.opts["distance"],
        vp.opts["azimuth"],
        vp.opts["elevation"],
        tuple(vp.opts["center"].toTuple()),
    )
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
    from app.editor.operations.rig_operations import add_foot_roll_rig, suggested_leg
    from tests.helpers.paths import SCENES

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


def _label_text(ref) -> str:
    """What a handle's label says (a pivot's name; "target · foot_leg_ik.L")."""
    return ref.part_name if ref.kind == "pivot" else f"{ref.kind} · {ref.name}"


def _drawn_labels(vp) -> list[tuple[str, object]]:
    """The labels drawn: their text and box (logical pixels)."""
    return [(text, rect) for rect, _spot, text, _color in vp.drawing.labels.layout()]


def _gap(rect, xy) -> float:
    """Pixels from point ``xy`` to the nearest point of ``rect``."""
    dx = max(rect.left() - xy[0], 0.0, xy[0] - rect.right())
    dy = max(rect.top() - xy[1], 0.0, xy[1] - rect.bottom())
    return float(np.hypot(dx, dy))


def test_labels_sit_at_their_handles_without_overlapping(window, qtbot):
    """Issue 26 item 3, on the rigged humanoid of the README's screenshot: every label drawn
    sits beside its handle and over no other label; the selection's label shows where
    labels crowd; View ▸ Labels (Alt+L) hides them all and brings them back."""
    from app.editor.operations.rig_operations import add_foot_roll_rig, suggested_leg
    from app.scene.constraints.multi_parent.model import PIVOT_PART
    from app.scene.rig.refs import Ref

    PIVOT_COLOR = np.array(PIVOT_PART.color)
    from tests.helpers.gui import framebuffer
    from tests.helpers.paths import SCENES

    doc, vp = window.document, window.viewport
    doc.set_compare(False)
    doc.set_space(None)
    _fields.fresh(window, SCENES / "humanoid.glb")
    for side in ("right", "left"):
        add_foot_roll_rig(doc, suggested_leg(doc, side))
    vp.frame_opened()
    doc.set_selection([])
    qtbot.wait(30)

    def check() -> list[tuple[str, object]]:
        anchors = {}
        for ref, world in vp.handles():
            anchors.setdefault(_label_text(ref), []).append(vp.project(world[None])[0])
        drawn = _drawn_labels(vp)
        for k, (text, rect) in enumerate(drawn):
            gap = min(_gap(rect, a) for a in anchors[text])
            assert gap <= 12, f"{text} is {gap:.0f} pixels from its handle"
            for other, box in drawn[k + 1 :]:
                assert not rect.intersects(box), f"{text} and {other} overlap"
        return drawn

    drawn = check()
    assert drawn, "no labels"
    # the left foot's heel, selected in the outliner: its label shows, beside it
    heel = Ref.pivot_of(
        next(c.name for c in doc.scene.constraints if c.name.endswith(".L") and "roll" in c.name),
        "heel",
    )
    item = window.outliner.item_for(heel)
    window.outliner.scrollToItem(item)
    QTest.mouseClick(
        window.outliner.viewport(), LEFT, NO_MODS, window.outliner.visualItemRect(item).center()
    )
    assert doc.selection == (heel,)
    qtbot.wait(20)
    texts = [t for t, _ in check()]
    assert "heel" in texts
    heel_px = vp.project(vp.handle_position(heel)[None])[0]
    assert any(t == "heel" and _gap(r, heel_px) <= 12 for t, r in _drawn_labels(vp))
    # View ▸ Labels off: no label is drawn, the handles still are
    image = framebuffer(vp, qtbot)
    box = next(r for t, r in _drawn_labels(vp) if t == "heel")
    orange = np.round(PIVOT_COLOR[:3][::-1] * 255)

    def orange_in_box(pixels) -> int:
        r = vp.devicePixelRatioF()
        inside = pixels[
            int(box.top() * r) : int(box.bottom() * r) + 1,
            int(box.left() * r) : int(box.right() * r) + 1,
        ]
        return int((np.abs(inside - orange).max(axis=-1) <= 12).sum())

    assert orange_in_box(image) >= 10  # the word "heel" in the picture
    vp.setFocus()
    key(vp, "L", QtCore.Qt.KeyboardModifier.AltModifier)
    assert not window.actions_by_name["labels"].isChecked()
    assert _drawn_labels(vp) == []
    assert orange_in_box(framebuffer(vp, qtbot)) == 0
    key(vp, "L", QtCore.Qt.KeyboardModifier.AltModifier)
    assert any(t == "heel" for t, _ in _drawn_labels(vp))


def test_the_tutorial_panel_leaves_the_panels_its_steps_use_in_view(win, qtbot):
    """Issue 26 item 6: the Tutorial panel was a tab over the Inspector, so every "type in
    the inspector" step hid its own instructions. Opened from Help ▸ Tutorials, it shows
    with the inspector, the outliner and the viewport, overlapping none of them."""
    from PySide6 import QtCore as Qc

    from tests.journeys._steps_a import open_tutorial

    def seen(widget) -> Qc.QRect:
        assert widget.isVisible() and not widget.visibleRegion().isEmpty(), widget.objectName()
        return Qc.QRect(widget.mapToGlobal(Qc.QPoint(0, 0)), widget.size())

    for tutorial in ("build_foot_roll", "humanoid_gltf"):
        text = open_tutorial(win, qtbot, tutorial)
        assert "inspector" in text.lower()  # its steps use the inspector
        panel = seen(win.tutorial_panel)
        assert panel.height() >= 200 and panel.width() >= 200, panel  # room to read
        for widget in (win.inspector, win.outliner, win.viewport):
            assert not seen(widget).intersects(panel), widget.objectName()
        assert win.layout_keeper.keeps_rule()
    win.tutorial_dock.hide()
