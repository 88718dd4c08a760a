"""An animator cleans a motion-capture walk: opens a CMU clip, Rig ▸ Plant Feet…, reads the
figures, sees the contacts as bars under the timeline, drags the end of one, undoes."""

from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from tests.helpers import gui
from tests.journeys import _fields

CLIP = Path("/usr/share/assimp/models/BVH/01_01.bvh")
FRAMES = 480  # four seconds: two jumps, enough contacts to drag


@pytest.fixture(scope="module")
def cut_clip(tmp_path_factory):
    """01_01 cut to its first frames (the whole clip plants as well, only slower)."""
    head, motion = CLIP.read_text().split("MOTION", 1)
    lines = motion.strip().splitlines()
    path = tmp_path_factory.mktemp("plant") / "walk.bvh"
    path.write_text(
        head
        + "MOTION\n"
        + f"Frames: {FRAMES}\n"
        + lines[1]
        + "\n"
        + "\n".join(lines[2 : 2 + FRAMES])
        + "\n"
    )
    return path


@pytest.fixture(scope="module")
def window(qapp, cut_clip):
    yield from _fields.module_window(cut_clip)


def _plant_from_menu(win, qtbot):
    """Rig ▸ Plant Feet…, Plant, read the figures, close: what the person does."""
    seen = {}

    def answer(dialog):
        assert dialog.objectName() == "plantFeetDialog"
        assert "LeftFoot" in dialog.legs.text()
        QTest.mouseClick(dialog.plant_button, QtCore.Qt.MouseButton.LeftButton)
        table = dialog.table
        seen["figures"] = [[table.item(r, c).text() for c in range(2)] for r in range(3)]
        seen["button"] = dialog.plant_button.text()
        dialog.reject()

    gui.answer_modal(answer)
    menu = win.menuBar().findChild(QtWidgets.QMenu, "rigMenu")
    action = next(a for a in menu.actions() if a.objectName() == "plantFeet")
    action.trigger()
    return seen


def test_plant_a_clip_then_drag_a_contact_end_and_undo(window, qtbot):
    win = window
    seen = _plant_from_menu(win, qtbot)
    # the figures a person reads in the dialog: the slide gone, the skating no higher
    (skate_before, skate_after), (slide_before, slide_after), (_, moved) = seen["figures"]
    assert float(slide_after.split()[0]) <= 1.0 < float(slide_before.split()[0])
    assert float(skate_after.split()[0]) <= float(skate_before.split()[0])
    assert seen["button"] == "Plant again"
    record = win.document.scene.plant
    assert record is not None and len(record.feet) == 2
    # the contacts show as bars under the scrub bar
    bars = win.timeline.contact_bars
    qtbot.waitUntil(bars.isVisible)
    assert bars.height() > 0
    foot = record.feet[0]
    point = next(p for p in range(3) if foot.contacts[p])
    first, last = foot.contacts[point][0]
    rect = bars.bar_rect(0, point, 0)
    y = int(rect.center().y())
    # drag the bar's end ten frames earlier
    target = max(first + 2, last - 10)
    end_x = int(round(rect.right()))
    to_x = int(round(bars.x_of(target + 0.5)))
    QTest.mousePress(bars, QtCore.Qt.MouseButton.LeftButton, gui.NO_MODS, QtCore.QPoint(end_x, y))
    QTest.mouseMove(bars, QtCore.QPoint((end_x + to_x) // 2, y))
    QTest.mouseMove(bars, QtCore.QPoint(to_x, y))
    QTest.mouseRelease(bars, QtCore.Qt.MouseButton.LeftButton, gui.NO_MODS, QtCore.QPoint(to_x, y))
    moved_foot = win.document.scene.plant.feet[0]
    new_first, new_last = moved_foot.contacts[point][0]
    assert (new_first, new_last) == (first, bars.frame_at(to_x))
    assert win.document.undo_stack.undoText().startswith("Move the end of a")
    # what the person sees: the bar ends where they let go
    assert abs(bars.bar_rect(0, point, 0).right() - bars.x_of(new_last + 0.5)) < 1
    # one undo puts the contact back, and the plant with it
    gui.key(win.viewport, "Z", gui.CTRL)
    assert win.document.scene.plant.feet[0].contacts[point][0] == (first, last)
    assert win.document.scene.plant == record
    # Compare draws the original motion as the ghost
    win.document.set_compare(True)
    assert win.document.ghost_space() == "original"
    ghost = win.document.ghost_pose()
    assert ghost.bone_to_world.shape == win.document.pose().bone_to_world.shape
