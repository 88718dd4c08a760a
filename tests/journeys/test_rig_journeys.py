"""An animator rigs a foot (Rig ▸ Foot Roll Rig…) and animates it: a step keyed on the
control and a roll keyed on a pivot, played back; a clip whose leg keeps its motion; a foot
without length mended from the dialog; a Mixamo-sized armature whose control reads in metres
(issues 24 and 26). Real key presses and clicks; what is checked is what the person sees:
the viewport's pixels, the status bar, the inspector's fields, the bones where they are
drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.scene.builders.foot_roll import REST, build_foot_roll
from app.scene.builders.leg_names import recognised_legs
from app.scene.evaluate import bake
from app.scene.io import load_scene, save_scene
from app.scene.rig.model import Bone, Scene
from app.scene.rig.refs import Ref
from tests.editor.test_foot_roll_rig import _keyed, box_on
from tests.helpers import gui
from tests.helpers.gui import framebuffer, key
from tests.helpers.paths import CMU_DIR, SCENES
from tests.journeys import _fields
from tests.journeys._steps_a import go_to_frame, outliner_click
from tests.scene.builders.test_foot_roll_motion import centimetre_character, old_style

HUMANOID = Path(SCENES) / "humanoid.glb"
SPIN = QtWidgets.QDoubleSpinBox
OK = QtWidgets.QDialogButtonBox.StandardButton.Ok


@pytest.fixture(scope="module")
def window(qapp):
    yield from _fields.module_window(HUMANOID)


@pytest.fixture
def win(window):
    window.resize(1280, 800)
    _fields.fresh(window, HUMANOID)
    return window


def foot_roll_dialog(win, qtbot, answer) -> dict:
    """Rig ▸ Foot Roll Rig… from the menu bar (Alt+I, F); ``answer(dialog, seen)`` runs in
    the dialog (a pause first: what the dialog says shows as it opens); returns ``seen``."""
    seen = {}

    def run(dialog):
        QtWidgets.QApplication.processEvents()
        answer(dialog, seen)
        seen["done"] = True

    gui.answer_modal(run)
    win.activateWindow()
    QTest.keyClick(win, QtCore.Qt.Key.Key_I, QtCore.Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is not None)
    QTest.keyClick(QtWidgets.QApplication.activePopupWidget(), QtCore.Qt.Key.Key_F)
    qtbot.waitUntil(lambda: "done" in seen, timeout=10000)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeModalWidget() is None)
    win.activateWindow()  # the window is active again once the dialog has gone, as on a desktop
    assert QTest.qWaitForWindowActive(win)
    return seen


def click_button(dialog, which) -> None:
    button = dialog.findChild(QtWidgets.QDialogButtonBox).button(which)
    QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)


def build(dialog, seen) -> None:
    """Read what the dialog says, then press Build."""
    problem = dialog.findChild(QtWidgets.QLabel, "problem")
    seen["problem"] = problem.text() if problem.isVisible() else ""
    motion = dialog.findChild(QtWidgets.QCheckBox, "keepMotion")
    seen["motion"] = (motion.isChecked(), motion.isEnabled())
    click_button(dialog, OK)


def type_keys(widget, text: str) -> None:
    for k in text:
        key(widget, {"-": "Minus", ".": "Period"}.get(k, k))


def shown_numbers(win, name: str, n: int = 3) -> list[str]:
    """The texts of the inspector's spin boxes ``name0``.. (what the person reads)."""
    spins = [win.inspector.findChild(SPIN, f"{name}{i}") for i in range(n)]
    assert all(s is not None and s.isVisible() for s in spins), name
    return [s.lineEdit().text() for s in spins]


def near_pixels(before, after, xy, dpr, radius=6) -> int:
    """How many pixels changed within ``radius`` of the screen point ``xy``."""
    x, y = (np.asarray(xy) * dpr).astype(int)
    a = before[max(y - radius, 0) : y + radius, max(x - radius, 0) : x + radius]
    b = after[max(y - radius, 0) : y + radius, max(x - radius, 0) : x + radius]
    return int((np.abs(a - b).max(axis=2) > 40).sum())


def test_a_step_and_a_roll_keyed_on_one_foot_play_as_keyed(win, qtbot):
    """Build the rig; K the control at 0; at 24 move it 0.2 forward (G Z .2) and K; turn the
    ball 30° about the foot's own X at 12 (R X X 30): one key, and the status bar says its
    rest was keyed at 0 too. Play: the foot travels with the control and rolls on the ball
    as it goes, frame by frame where the keys put it, and the picture shows it."""
    doc, vp = win.document, win.viewport
    seen = foot_roll_dialog(win, qtbot, build)
    assert seen["problem"] == "" and seen["motion"] == (False, False)  # the legs stand still
    qtbot.waitUntil(lambda: "foot_ctrl.L" in doc.scene.bone_names())
    assert doc.selection == (Ref.bone("foot_ctrl.L"),)
    assert "move and key foot_ctrl.L to step" in win.statusBar().currentMessage()
    foot = doc.scene.bone_index("foot.L")
    ankle0 = doc.pose().heads[0, foot].copy()
    image0 = framebuffer(vp, qtbot)
    # the step
    vp.setFocus()
    key(vp, "K")
    go_to_frame(win, 24)
    vp.setFocus()
    for k in ("G", "Z"):
        key(vp, k)
    type_keys(vp, ".2")
    key(vp, "Return")
    key(vp, "K")
    control = doc.scene.bone("foot_ctrl.L")
    assert control.translation_keys.frames.tolist() == [0.0, 24.0]
    assert shown_numbers(win, "translation")[2] == f"{control.translation[2] + 0.2:.4f}"
    # the roll: the ball, one key at 12
    outliner_click(win, qtbot, Ref.pivot_of("foot_roll.L", "ball"))
    go_to_frame(win, 12)
    vp.setFocus()
    for k in ("R", "X", "X"):
        key(vp, k)
    type_keys(vp, "30")
    key(vp, "Return")
    said = win.statusBar().currentMessage()
    assert "and its rest at frame 0: a pivot turns from one key to the next" in said, said
    ball = next(p for p in doc.scene.constraint("foot_roll.L").pivots if p.name == "ball")
    assert ball.rotation_keys.frames.tolist() == [0.0, 12.0]
    # play from the start, and stop past the step
    go_to_frame(win, 0)
    vp.setFocus()
    key(vp, "Space")
    qtbot.waitUntil(lambda: doc.frame >= 26, timeout=8000)
    key(vp, "Space")
    # the path, frame by frame: the control's line, the roll about the ball on the way
    start = np.array(control.translation)
    turned = Rotation.from_quat(ball.rotation_keys.values[1], scalar_first=True)
    assert turned.magnitude() == pytest.approx(np.radians(30), abs=1e-9)
    p = np.array(ball.position)
    # the pivots are on the roll body, turned as the foot on the world-aligned control
    body = doc.scene.bone("foot_rolled.L")
    foot_turn = Rotation.from_quat(control.rotation, scalar_first=True) * Rotation.from_quat(
        body.rotation, scalar_first=True
    )
    assert Rotation.from_quat(control.rotation, scalar_first=True).magnitude() < 1e-9
    for frame in (0, 6, 12, 18, 24):
        go_to_frame(win, frame)
        roll = Rotation.from_rotvec(turned.as_rotvec() * min(frame / 12, 1.0))
        expected = start + [0, 0, 0.2 * frame / 24] + foot_turn.apply(p - roll.apply(p))
        np.testing.assert_allclose(doc.pose().heads[0, foot], expected, atol=1e-7)
    # at 24 the foot is drawn 20 cm on and tipped onto its ball: where it was is empty now
    qtbot.wait(30)
    image24 = framebuffer(vp, qtbot)
    dpr = vp.devicePixelRatioF()
    ankle24 = doc.pose().heads[0, foot]
    assert ankle24[2] - ankle0[2] > 0.15 and ankle24[1] - ankle0[1] > 0.03
    for at in vp.project(np.array([ankle0, ankle24])):
        assert near_pixels(image0, image24, at, dpr) > 10


def test_a_clips_leg_keeps_its_motion_or_is_built_at_rest(win, qtbot):
    """CMU 01_01: the dialog ticks "Keep the leg's motion" for a leg that moves; built so,
    the left foot is drawn where the capture has it on every frame played; the right leg,
    built with the box unticked, stays at rest while the body walks on."""
    doc, vp = win.document, win.viewport
    _fields.fresh(win, CMU_DIR / "01_01.bvh")
    plain = bake(load_scene(CMU_DIR / "01_01.bvh"), np.arange(0.0, 121.0))
    seen = foot_roll_dialog(win, qtbot, build)
    assert seen["problem"] == "" and seen["motion"] == (True, True)
    qtbot.waitUntil(lambda: "LeftFoot_ctrl" in doc.scene.bone_names())
    assert "carry the leg's motion" in win.statusBar().currentMessage()

    def at_rest(dialog, seen):
        side = dialog.findChild(QtWidgets.QComboBox, "side")
        side.setCurrentIndex(side.findData("right"))
        motion = dialog.findChild(QtWidgets.QCheckBox, "keepMotion")
        QTest.mouseClick(
            motion, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(8, motion.height() // 2)
        )
        build(dialog, seen)

    seen = foot_roll_dialog(win, qtbot, at_rest)
    assert seen["motion"] == (False, True)
    qtbot.waitUntil(lambda: "RightFoot_ctrl" in doc.scene.bone_names())
    played = []
    doc.frame_changed.connect(lambda f: played.append(float(f)))
    go_to_frame(win, 0)
    vp.setFocus()
    key(vp, "Space")
    qtbot.waitUntil(lambda: doc.frame >= 120, timeout=10000)
    key(vp, "Space")
    left, right = doc.scene.bone_index("LeftFoot"), doc.scene.bone_index("RightFoot")
    height = float(np.ptp(plain.heads[0, :, 1]))
    assert played and played[-1] >= 120  # it played (a loaded machine skips frames)
    shown = sorted({int(f) for f in played if f <= 120})[:10] + [30, 60, 90, 120]
    for frame in shown:
        go_to_frame(win, int(frame))
        pose = doc.pose()
        off = np.linalg.norm(pose.heads[0, left] - plain.heads[int(frame), left])
        assert off <= 1e-4 * height, (frame, off)
    go_to_frame(win, 120)
    pose = doc.pose()
    right_now = pose.heads[0, right]
    assert np.linalg.norm(right_now - plain.heads[120, right]) > 0.1 * height  # left behind
    # its control stayed where the foot stood at the first frame; the leg reaches for it
    body = pose.heads[0, doc.scene.bone_index("RightFoot_rolled")]
    np.testing.assert_allclose(body, plain.heads[0, right], atol=1e-9 * height)


def bunny(tmp_path) -> Path:
    """A leg as buntective.glb's (Bevy's example character) has it: ``upperleg.l`` →
    ``lowerleg.l`` → ``foot.l``, the foot a leaf joint without a tail (no length), a box of
    skin on the foot; saved as a scene file."""
    bones = [
        Bone(name="pelvis", translation=(0.0, 1.0, 0.0)),
        Bone(name="upperleg.l", parent="pelvis", translation=(0.15, -0.05, 0.0)),
        Bone(name="lowerleg.l", parent="upperleg.l", translation=(0.0, -0.45, 0.03)),
        Bone(name="foot.l", parent="lowerleg.l", translation=(0.0, -0.42, -0.03)),
        Bone(name="spine", parent="pelvis", translation=(0.0, 0.3, 0.0)),
    ]
    scene = Scene(bones=bones, frame_end=24)
    scene.meshes = (box_on(scene, {"foot.l": (0.15, 0.0, 0.0)}),)
    path = tmp_path / "bunny.json"
    save_scene(scene, path)
    return path


def test_a_foot_without_length_is_said_when_chosen_and_mended_in_the_dialog(win, qtbot, tmp_path):
    """The dialog says "foot.l has no length" as it opens (Build greyed), with a button that
    gives the foot a length to the ball of its foot (one undo step); then Build works."""
    doc = win.document
    _fields.fresh(win, bunny(tmp_path))

    def mend(dialog, seen):
        problem = dialog.findChild(QtWidgets.QLabel, "problem")
        fix = dialog.findChild(QtWidgets.QPushButton, "fixButton")
        ok = dialog.findChild(QtWidgets.QDialogButtonBox).button(OK)
        seen["before"] = (problem.text(), fix.isVisible() and fix.text(), ok.isEnabled())
        QTest.mouseClick(fix, QtCore.Qt.MouseButton.LeftButton)
        seen["after"] = (problem.text(), fix.isVisible(), ok.isEnabled())
        click_button(dialog, OK)

    seen = foot_roll_dialog(win, qtbot, mend)
    text, fix, can_build = seen["before"]
    assert text.startswith("foot.l has no length") and not can_build
    assert fix == "Give foot.l a length"
    assert seen["after"] == ("", False, True)
    qtbot.waitUntil(lambda: "foot_ctrl.l" in doc.scene.bone_names())
    texts = [doc.undo_stack.text(i) for i in range(doc.undo_stack.count())]
    assert texts == ["Give foot.l a length", "Add foot-roll rig on foot.l"]
    # the foot points level and forward, to 3/4 of its skin's length, above the sole
    pose = doc.pose()
    i = doc.scene.bone_index("foot.l")
    head, tail = pose.heads[0, i], pose.tails[0, i]
    assert tail[2] == pytest.approx(-0.05 + 0.75 * 0.25, abs=1e-6)
    assert 0 < tail[1] < head[1]
    pivots = {p.name: p for p in doc.scene.constraint("foot_roll.l").pivots}
    assert pivots["heel"].position[2] < pivots["ball"].position[2] < pivots["toe"].position[2]
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.scene.bone("foot.l").tail is None


def test_a_rig_on_a_centimetre_armature_reads_in_metres_at_scale_1(win, qtbot, tmp_path):
    """Mixamo's armature is scaled by 0.01, its bones in centimetres: the new control shows
    Scale 1 and the ankle's place in metres in the inspector (it showed 100 and cm)."""
    _, scene = centimetre_character()
    path = tmp_path / "xbot_like.json"
    save_scene(scene, path)
    _fields.fresh(win, path)
    foot_roll_dialog(win, qtbot, build)
    doc = win.document
    qtbot.waitUntil(lambda: "mixamorig:LeftFoot_ctrl" in doc.scene.bone_names())
    qtbot.wait(30)
    title = win.inspector.findChild(QtWidgets.QLabel, "inspectorTitle").text()
    assert ">Bone mixamorig:LeftFoot_ctrl<" in title
    assert shown_numbers(win, "scale") == ["1.0000"] * 3
    ankle = doc.pose().heads[0, doc.scene.bone_index("mixamorig:LeftFoot")]
    assert shown_numbers(win, "translation") == [f"{v:.4f}" for v in ankle]
    assert 0.0 < ankle[1] < 0.2 and abs(ankle[0]) < 0.2  # metres: an ankle of a 1.5 m body


def test_a_rig_saved_before_the_roll_body_opens_and_plays(win, qtbot, tmp_path):
    """A scene saved with the earlier rig (the multi-parent on the control) opens, says
    nothing new, and plays its roll on screen as before."""
    scene = load_scene(HUMANOID)
    built = build_foot_roll(scene, recognised_legs(scene)["left"], REST)
    scene.bones[:], scene.constraints[:] = old_style(built)
    _keyed(scene, built.roll)
    path = tmp_path / "old_rig.json"
    save_scene(scene, path)
    _fields.fresh(win, path)
    doc, vp = win.document, win.viewport
    assert doc.scene.constraint("foot_roll.L").body == "foot_ctrl.L"
    image = framebuffer(vp, qtbot)
    vp.setFocus()
    key(vp, "Space")
    qtbot.waitUntil(lambda: doc.frame >= 12, timeout=8000)
    key(vp, "Space")
    go_to_frame(win, 12)
    expected = bake(scene, [12.0])
    np.testing.assert_allclose(doc.pose().bone_to_world, expected.bone_to_world, atol=1e-12)
    foot = doc.scene.bone_index("foot.L")
    assert expected.heads[0, foot, 1] - bake(scene, [0.0]).heads[0, foot, 1] > 0.04
    qtbot.wait(30)
    at = vp.project(expected.heads[0, foot][None])[0]
    assert near_pixels(image, framebuffer(vp, qtbot), at, vp.devicePixelRatioF()) > 5
