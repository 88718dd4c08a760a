"""Motion onto a character in the editor (issue 25, issue 24 item 4), with real events and
what a person sees (pixels, the time range, the history, the status bar):

- an animator puts a captured walk on their Mixamo character: File ▸ Import Motion onto
  Character…, checks the map while the clip plays as a ghost beside the character, corrects a
  row, imports, plays, and undoes;
- corrects a character's humanoid map bone by bone and keeps it (Rig ▸ Humanoid Map…);
- opens a file holding several animations and chooses one;
- chooses a leg the rig does not find bone by bone, and the scene remembers it.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.formats.gltf.export import write_meshes_glb
from app.scene.io import load_scene, save_scene
from app.scene.retarget.map_file import map_of, saved_map
from app.scene.rig.model import Bone, Scene
from tests.helpers import gui
from tests.helpers.paths import CMU_DIR, ROOT
from tests.journeys import _fields
from tests.journeys._steps_a import changed_pixels, pick_from_menu

FRAMES = 120  # CMU's walk cut to its first second, as another tool would export it
CORPUS = ROOT / "tests" / "data" / "gltf-corpus"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from tests.helpers.retarget_judge import mixamo_body, mixamo_character

    folder = tmp_path_factory.mktemp("journey")
    character = mixamo_character()
    character.meshes = (mixamo_body(character, 4000),)
    path = folder / "hero.glb"
    write_meshes_glb(character, path)
    lines = (CMU_DIR / "01_01.bvh").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Frames:"))
    clip = folder / "walk.bvh"
    clip.write_text(
        "\n".join(lines[:at] + [f"Frames: {FRAMES}"] + lines[at + 1 : at + 2 + FRAMES]) + "\n"
    )
    return path, clip


@pytest.fixture(scope="module")
def window(qapp, files):
    yield from _fields.module_window(files[0])


def green(image: np.ndarray) -> int:
    """Pixels of the import's ghost (translucent green over the dark background; BGR)."""
    b, g, r = image[..., 0], image[..., 1], image[..., 2]
    return int(np.sum((g - r > 45) & (g - b > 25)))


def test_a_captured_walk_onto_a_mixamo_character(window, files, qtbot, monkeypatch):
    win = _fresh(window, files[0])
    doc = win.document
    clip = files[1]
    viewport = win.viewport
    before_range = (doc.scene.frame_start, doc.scene.frame_end)
    assert green(gui.framebuffer(viewport, qtbot)) == 0
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(clip), ""))
    )
    seen = {}

    def check(dialog):
        qtbot.waitUntil(
            lambda: "mapped on both" in dialog.findChild(QtWidgets.QLabel, "summary").text()
        )
        seen["summary"] = dialog.findChild(QtWidgets.QLabel, "summary").text()
        # the clip plays beside the character: its ghost shows, and the picture moves
        qtbot.waitUntil(lambda: green(gui.framebuffer(viewport, qtbot)) > 200, timeout=5000)
        first = gui.framebuffer(viewport, qtbot)
        qtbot.wait(300)
        seen["moving"] = changed_pixels(first, gui.framebuffer(viewport, qtbot))
        # the animator unmaps the character's left forearm: one bone fewer moves
        box = dialog.findChild(QtWidgets.QComboBox, "character.left_forearm")
        table = dialog.findChild(QtWidgets.QTreeWidget, "humanoidTable")
        rows = [
            table.topLevelItem(g).child(r)
            for g in range(table.topLevelItemCount())
            for r in range(table.topLevelItem(g).childCount())
        ]
        table.scrollToItem(next(r for r in rows if table.itemWidget(r, 1) is box))
        gui.click(box, box.rect().center())  # its list opens; Home and Return pick "—"
        qtbot.waitUntil(lambda: box.view().isVisible())
        QTest.keyClick(box.view(), QtCore.Qt.Key.Key_Home)
        QTest.keyClick(box.view(), QtCore.Qt.Key.Key_Return)
        qtbot.waitUntil(
            lambda: dialog.findChild(QtWidgets.QLabel, "summary").text() != seen["summary"]
        )
        seen["after"] = dialog.findChild(QtWidgets.QLabel, "summary").text()
        button = dialog.findChild(QtWidgets.QDialogButtonBox).button(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
        )
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
    # it plays: the character is elsewhere half a second later
    _back_in_window(win)
    gui.key(viewport, "Home")
    start = gui.framebuffer(viewport, qtbot)
    for _ in range(60):
        gui.key(viewport, "Right")
    assert changed_pixels(start, gui.framebuffer(viewport, qtbot)) > 300
    # one undo takes it all away
    gui.key(viewport, "Z", gui.CTRL)
    qtbot.waitUntil(
        lambda: (timeline.start_spin.value(), timeline.end_spin.value()) == before_range
    )
    assert all(b.rotation_keys is None for b in doc.scene.bones)
    assert "humanoid" not in doc.scene.extra


def _back_in_window(win) -> None:
    """The person clicks back into the window after a dialog (Xvfb has no window manager to
    give it back the focus the dialog had): window shortcuts work again."""
    win.activateWindow()
    assert QTest.qWaitForWindowActive(win)
    win.viewport.setFocus()


def _fresh(window, path):
    """The module window on ``path``, as just opened, with an empty history."""
    _fields.fresh(window, path)
    window.document.undo_stack.clear()
    return window


def _pick(box: QtWidgets.QComboBox, text: str) -> None:
    """Open ``box``'s list with a click and choose ``text`` with the keys, as a person does."""
    gui.click(box, box.rect().center())
    view = box.view()
    QtCore.QCoreApplication.processEvents()
    target = box.findText(text)
    for _ in range(abs(target - box.currentIndex())):
        key = QtCore.Qt.Key.Key_Down if target > box.currentIndex() else QtCore.Qt.Key.Key_Up
        QTest.keyClick(view, key)
    QTest.keyClick(view, QtCore.Qt.Key.Key_Return)
    assert box.currentText() == text


def _ok(dialog) -> None:
    button = dialog.findChild(QtWidgets.QDialogButtonBox).button(
        QtWidgets.QDialogButtonBox.StandardButton.Ok
    )
    QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def _in_dialog(qtbot, win, action: str, answer) -> dict:
    seen = {}

    def run(dialog):
        answer(dialog, seen)
        seen["done"] = True

    gui.answer_modal(run)
    win.actions_by_name[action].trigger()
    qtbot.waitUntil(lambda: "done" in seen, timeout=10000)
    return seen


def test_the_map_is_corrected_bone_by_bone_and_kept_as_one_undo_step(window, qtbot):
    """RobotExpressive: the map reads UpperLegL as the thigh and Body as the hips; the
    animator makes ``Hips`` the hips instead and keeps the map. One undo puts it back."""
    win = _fresh(window, CORPUS / "RobotExpressive.glb")
    doc = win.document
    assert saved_map(doc.scene) is None

    def correct(dialog, seen):
        box = dialog.findChild(QtWidgets.QComboBox, "character.hips")
        seen["read"] = box.currentText()
        seen["thigh"] = dialog.findChild(QtWidgets.QComboBox, "character.left_thigh").currentText()
        _pick(box, "Hips")
        seen["problem"] = dialog.findChild(QtWidgets.QLabel, "problem").text()
        _ok(dialog)

    seen = _in_dialog(qtbot, win, "humanoidMap", correct)
    assert (seen["read"], seen["thigh"]) == ("Body", "UpperLegL")
    # the dialog said what the correction means before it was kept
    assert "Left thigh UpperLegL is not below the hips Hips" in seen["problem"]
    kept = saved_map(doc.scene)
    assert kept is not None and kept.get("hips") == "Hips" and kept.get("spine") is None
    assert doc.undo_stack.text(doc.undo_stack.index() - 1) == "Set humanoid map"
    assert (
        "Humanoid map kept in the scene" in win.statusBar().currentMessage()
        or "Humanoid map kept" in win.statusBar().toolTip()
    )
    _back_in_window(win)
    gui.key(win.viewport, "Z", gui.CTRL)
    qtbot.waitUntil(lambda: saved_map(doc.scene) is None)
    assert map_of(doc.scene).get("hips") == "Body"


def test_open_asks_which_animation_of_the_file(window, qtbot, monkeypatch):
    """Fox.glb holds Survey, Walk and Run: Open lists them and opens the one chosen."""
    win = _fresh(window, ROOT / "resources" / "scenes" / "legs.json")
    fox = CORPUS / "Fox.glb"
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(fox), ""))
    )
    seen = {}

    def choose(dialog):
        choices = dialog.findChild(QtWidgets.QListWidget, "animations")
        seen["listed"] = [choices.item(k).text() for k in range(choices.count())]
        choices.setFocus()
        QTest.keyClick(choices, QtCore.Qt.Key.Key_End)  # Run, the last
        QTest.keyClick(choices, QtCore.Qt.Key.Key_Return)
        seen["done"] = True

    gui.answer_modal(choose)
    win.actions_by_name["open"].trigger()
    qtbot.waitUntil(lambda: "done" in seen)
    qtbot.waitUntil(lambda: (win.document.path or "").endswith("Fox.glb"))
    assert seen["listed"] == ["Survey", "Walk", "Run"]
    run = load_scene(fox, animation="Run")
    scene = win.document.scene
    assert (scene.frame_start, scene.frame_end) == (run.frame_start, run.frame_end)
    assert scene.bones == run.bones
    said = win.statusBar().currentMessage()
    whole = win.statusBar().toolTip() if said.endswith("…") else said
    assert "'Run' is imported" in whole and "'Survey', 'Walk'" in whole


def _one_leg(tmp_path):
    """A single leg no name or shape reads (one leg is no pair of legs), saved as a scene."""
    bones = [
        Bone(name="pelvis_x", translation=(0.0, 1.0, 0.0)),
        Bone(name="a", parent="pelvis_x", translation=(0.12, -0.05, 0.0)),
        Bone(name="b", parent="a", translation=(0.0, -0.45, 0.03)),
        Bone(name="c", parent="b", translation=(0.0, -0.42, -0.03)),
        Bone(name="d", parent="c", translation=(0.0, -0.06, 0.12), tail=(0.0, 0.0, 0.06)),
    ]
    path = tmp_path / "one_leg.json"
    save_scene(Scene(bones=bones), path)
    return path


def test_a_leg_chosen_bone_by_bone_is_remembered(window, qtbot, tmp_path):
    path = _one_leg(tmp_path)
    win = _fresh(window, path)
    doc = win.document

    def choose(dialog, seen):
        seen["offered"] = dialog.findChild(QtWidgets.QComboBox, "side").currentText()
        for part, bone in (("thigh", "a"), ("calf", "b"), ("foot", "c"), ("toes", "d")):
            _pick(dialog.findChild(QtWidgets.QComboBox, part), bone)
        remember = dialog.findChild(QtWidgets.QComboBox, "remember")
        seen["remember"] = remember.currentText() if remember.isVisible() else None
        _ok(dialog)

    seen = _in_dialog(qtbot, win, "footRollRig", choose)
    assert seen["offered"] == "Bones chosen below"
    assert seen["remember"] == "Left leg"  # its thigh sits to the character's left (+X)
    qtbot.waitUntil(lambda: "c_ctrl" in doc.scene.bone_names())
    assert map_of(doc.scene).leg("left") == ("a", "b", "c", "d")
    said = win.statusBar().currentMessage()
    whole = win.statusBar().toolTip() if said.endswith("…") else said
    assert "the scene remembers these bones as its left leg" in whole
    saved = tmp_path / "saved.json"
    save_scene(doc.scene, saved)
    assert load_scene(saved) == doc.scene  # kept in the file, and loaded back equal

    def again(dialog, seen):
        seen["offered"] = dialog.findChild(QtWidgets.QComboBox, "side").currentText()
        dialog.reject()

    # the dialog now offers the leg by its side (it has its rig, and says so)
    assert _in_dialog(qtbot, win, "footRollRig", again)["offered"] == "Left leg (c)"
    _back_in_window(win)
    gui.key(win.viewport, "Z", gui.CTRL)  # one undo takes the rig and the memory away
    qtbot.waitUntil(lambda: "c_ctrl" not in doc.scene.bone_names())
    assert saved_map(doc.scene) is None
    assert _in_dialog(qtbot, win, "footRollRig", again)["offered"] == "Bones chosen below"
