"""An animator puts a captured walk on their Mixamo character (issue 25): File ▸ Import
Motion onto Character…, checks the map while the clip plays as a ghost beside the character,
corrects a row, imports, plays, and undoes. Real events throughout; what is asserted is what
they see (pixels, the time range, the history, the status bar)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.formats.gltf.export import write_meshes_glb
from tests import gui
from tests.conftest import CMU_DIR

from . import _fields
from ._steps_a import changed_pixels, pick_from_menu

FRAMES = 120  # CMU's walk cut to its first second, as another tool would export it


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from tests.retarget_judge import mixamo_body, mixamo_character

    folder = tmp_path_factory.mktemp("journey")
    character = mixamo_character()
    character.meshes = (mixamo_body(character, 4000),)
    path = folder / "hero.glb"
    write_meshes_glb(character, path)
    lines = (CMU_DIR / "01_01.bvh").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Frames:"))
    clip = folder / "walk.bvh"
    clip.write_text("\n".join(lines[:at] + [f"Frames: {FRAMES}"] + lines[at + 1:at + 2 + FRAMES])
                    + "\n")  # fmt: skip
    return path, clip


@pytest.fixture(scope="module")
def window(qapp, files):
    yield from _fields.module_window(files[0])


def green(image: np.ndarray) -> int:
    """Pixels of the import's ghost (translucent green over the dark background; BGR)."""
    b, g, r = image[..., 0], image[..., 1], image[..., 2]
    return int(np.sum((g - r > 45) & (g - b > 25)))


def test_a_captured_walk_onto_a_mixamo_character(window, files, qtbot, monkeypatch):
    win, doc = window, window.document
    clip = files[1]
    viewport = win.viewport
    before_range = (doc.scene.frame_start, doc.scene.frame_end)
    assert green(gui.framebuffer(viewport, qtbot)) == 0
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(clip), "")))  # fmt: skip
    seen = {}

    def check(dialog):
        qtbot.waitUntil(lambda: "mapped on both" in dialog.findChild(QtWidgets.QLabel,
                                                                     "summary").text())  # fmt: skip
        seen["summary"] = dialog.findChild(QtWidgets.QLabel, "summary").text()
        # the clip plays beside the character: its ghost shows, and the picture moves
        qtbot.waitUntil(lambda: green(gui.framebuffer(viewport, qtbot)) > 200, timeout=5000)
        first = gui.framebuffer(viewport, qtbot)
        qtbot.wait(300)
        seen["moving"] = changed_pixels(first, gui.framebuffer(viewport, qtbot))
        # the animator unmaps the character's left forearm: one bone fewer moves
        box = dialog.findChild(QtWidgets.QComboBox, "character.left_forearm")
        table = dialog.findChild(QtWidgets.QTreeWidget, "humanoidTable")
        rows = [table.topLevelItem(g).child(r) for g in range(table.topLevelItemCount())
                for r in range(table.topLevelItem(g).childCount())]  # fmt: skip
        table.scrollToItem(next(r for r in rows if table.itemWidget(r, 1) is box))
        gui.click(box, box.rect().center())  # its list opens; Home and Return pick "—"
        qtbot.waitUntil(lambda: box.view().isVisible())
        QTest.keyClick(box.view(), QtCore.Qt.Key.Key_Home)
        QTest.keyClick(box.view(), QtCore.Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: dialog.findChild(QtWidgets.QLabel, "summary").text()
                        != seen["summary"])  # fmt: skip
        seen["after"] = dialog.findChild(QtWidgets.QLabel, "summary").text()
        button = dialog.findChild(QtWidgets.QDialogButtonBox).button(
            QtWidgets.QDialogButtonBox.StandardButton.Ok)  # fmt: skip
        assert button.text() == "Import"
        QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
        seen["done"] = True

    gui.answer_modal(check)
    QTest.keyClick(win, QtCore.Qt.Key.Key_F, QtCore.Qt.KeyboardModifier.AltModifier)
    pick_from_menu(qtbot, "&Import Motion onto Character…")
    qtbot.waitUntil(lambda: "done" in seen, timeout=20000)

    assert f"{FRAMES} frames at 120 fps; 22 bones mapped on both move" in seen["summary"]
    assert "21 bones mapped on both move" in seen["after"]
    assert seen["moving"] > 100
    # imported: the ghost is gone, the time range is the clip's, the history has one step
    qtbot.waitUntil(lambda: green(gui.framebuffer(viewport, qtbot)) == 0)
    timeline = win.timeline
    assert (timeline.start_spin.value(), timeline.end_spin.value()) == (0, FRAMES - 1)
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.text(0) == "Import motion walk.bvh"
    said = win.statusBar().currentMessage()
    whole = win.statusBar().toolTip() if said.endswith("…") else said
    assert whole.startswith("Import motion walk.bvh: 21 bones keyed at every frame")
    # it plays: the character is elsewhere half a second later (back in the window: Xvfb has
    # no window manager to give it back the focus the dialog had)
    win.activateWindow()
    assert QTest.qWaitForWindowActive(win)
    viewport.setFocus()
    gui.key(viewport, "Home")
    start = gui.framebuffer(viewport, qtbot)
    for _ in range(60):
        gui.key(viewport, "Right")
    assert changed_pixels(start, gui.framebuffer(viewport, qtbot)) > 300
    # one undo takes it all away
    gui.key(viewport, "Z", gui.CTRL)
    qtbot.waitUntil(lambda: (timeline.start_spin.value(), timeline.end_spin.value())
                    == before_range)  # fmt: skip
    assert all(b.rotation_keys is None for b in doc.scene.bones)
    assert "humanoid" not in doc.scene.extra
