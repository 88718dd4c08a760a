"""The inspector's key fields with real mouse and key events: each keyed property's
interpolation at the current frame, and a bone's scale (keyed or static). Each edit is
checked in the scene (against sampling written here) after do, undo and redo, and in the
viewport's pixels."""

import dataclasses

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.evaluate import bake
from app.scene.io import save_scene
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import LEFT, NO_MODS, framebuffer, key
from tests.helpers.gui import enter_text as type_into
from tests.helpers.paths import SCENES
from tests.scene.rig.test_reparent_scale_keys import scaled_parents
from tests.scene.test_key_field_edits import smoothstep


def changed_pixels(a, b, threshold=40):
    return int((np.abs(a - b).max(axis=2) > threshold).sum())


def open_arm(qtbot, tmp_path, bone="arm", frame=10.0):
    path = tmp_path / "scaled.json"
    save_scene(scaled_parents(), path)
    win = gui.open_window(qtbot, path, frame=frame)
    outliner = win.outliner
    rect = outliner.visualItemRect(outliner.item_for(Ref.bone(bone)))
    QTest.mouseClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    qtbot.waitUntil(lambda: win.document.selection == (Ref.bone(bone),))
    return win


def child(win, cls, name):
    widget = win.inspector.findChild(cls, name)
    assert widget is not None, name
    return widget


def test_each_keyed_property_shows_and_edits_its_key_interpolation(qtbot, tmp_path):
    win = open_arm(qtbot, tmp_path)
    doc = win.document
    original = doc.scene.bone("arm")
    combos = {
        w: child(win, QtWidgets.QComboBox, f"interpolation_{w}")
        for w in ("rotation", "translation", "scale")
    }
    # frame 10 lies in the segments from the keys at frame 6
    assert {w: c.currentData() for w, c in combos.items()} == {
        "rotation": "linear",
        "translation": "ease",
        "scale": "constant",
    }
    label = child(win, QtWidgets.QLabel, "interpolationLabel_scale")
    assert "frame 6" in label.text()
    # scrubbing onto the next key shows that key's entries
    doc.set_frame(15.0)
    qtbot.waitUntil(lambda: combos["scale"].currentData() == "ease")
    assert "frame 15" in label.text()
    doc.set_frame(10.0)
    qtbot.waitUntil(lambda: combos["scale"].currentData() == "constant")
    image = framebuffer(win.viewport, qtbot)
    # Down in the focused combo: constant -> ease, one undo step
    combos["scale"].setFocus()
    QTest.keyClick(combos["scale"], QtCore.Qt.Key.Key_Down)
    arm = doc.scene.bone("arm")
    assert arm.scale_keys.interpolation == ("linear", "ease", "ease", "linear")
    assert arm.rotation_keys is original.rotation_keys
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == "Set scale key of bone arm at frame 6 to ease"
    v = original.scale_keys.values
    u = smoothstep((10 - 6) / 9)

    def scale_now():
        i = doc.scene.bone_index("arm")
        m = doc.pose().bone_to_world[0, i]
        parent = doc.pose().bone_to_world[0, doc.scene.bone_index("wide")]
        return np.linalg.norm((np.linalg.inv(parent) @ m)[:3, :3], axis=0)

    assert np.allclose(scale_now(), (1 - u) * v[1] + u * v[2], atol=1e-12)
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(win.viewport, qtbot)) > 30  # the arm grew
    key(win, "Z", gui.CTRL)
    assert doc.scene.bone("arm") == original
    assert np.allclose(scale_now(), v[1], atol=1e-12)  # held until frame 15
    qtbot.waitUntil(lambda: combos["scale"].currentData() == "constant")
    key(win, "Z", gui.CTRL | gui.SHIFT)
    assert doc.scene.bone("arm").scale_keys.interpolation[1] == "ease"
    qtbot.waitUntil(lambda: combos["scale"].currentData() == "ease")
    # the rotation's combo by mouse and keys: open its list, go down to "Constant", Enter
    combo = combos["rotation"]
    QTest.mouseClick(combo, LEFT)
    qtbot.waitUntil(lambda: combo.view().isVisible())
    QTest.keyClick(combo.view(), QtCore.Qt.Key.Key_Down)
    QTest.keyClick(combo.view(), QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: doc.scene.bone("arm").rotation_keys.interpolation[1] == "constant")
    assert doc.undo_stack.count() == 2
    q = doc.scene.bone("arm").rotation_keys.values[1]
    i = doc.scene.bone_index("arm")
    local = (
        np.linalg.inv(doc.pose().bone_to_world[0, doc.scene.bone_index("wide")])
        @ doc.pose().bone_to_world[0, i]
    )
    from scipy.spatial.transform import Rotation

    turn = local[:3, :3] / np.linalg.norm(local[:3, :3], axis=0)
    assert np.allclose(turn, Rotation.from_quat(q, scalar_first=True).as_matrix(), atol=1e-9)


def test_the_scale_fields_key_an_animated_scale_and_merge_into_one_step(qtbot, tmp_path):
    win = open_arm(qtbot, tmp_path)
    doc, vp = win.document, win.viewport
    original = doc.scene.bone("arm")
    sampled = doc.scene.bone("arm").scale_keys.values[1]  # constant from frame 6
    assert np.allclose(child(win, QtWidgets.QDoubleSpinBox, "scale1").value(), sampled[1])
    image = framebuffer(vp, qtbot)
    type_into(child(win, QtWidgets.QDoubleSpinBox, "scale0"), "1.25")
    type_into(child(win, QtWidgets.QDoubleSpinBox, "scale1"), "1.5")  # along the bone
    assert doc.undo_stack.count() == 1  # two fields, one merged step
    assert doc.undo_stack.undoText() == "Scale bone arm at frame 10"
    keys = doc.scene.bone("arm").scale_keys
    assert np.array_equal(keys.frames, [0, 6, 10, 15, 24])
    assert np.allclose(keys.values[2], [1.25, 1.5, sampled[2]])
    assert doc.scene.bone("arm").scale == original.scale
    qtbot.wait(30)
    assert changed_pixels(image, framebuffer(vp, qtbot)) > 30
    key(win, "Z", gui.CTRL)
    assert doc.scene.bone("arm") == original and doc.undo_stack.count() == 1
    qtbot.waitUntil(
        lambda: np.isclose(child(win, QtWidgets.QDoubleSpinBox, "scale0").value(), sampled[0])
    )
    key(win, "Z", gui.CTRL | gui.SHIFT)
    assert np.allclose(doc.scene.bone("arm").scale_keys.values[2], [1.25, 1.5, sampled[2]])
    # a bad factor is refused, nothing changes
    type_into(child(win, QtWidgets.QDoubleSpinBox, "scale2"), "-1")
    assert doc.undo_stack.count() == 1
    assert np.allclose(doc.scene.bone("arm").scale_keys.values[2], [1.25, 1.5, sampled[2]])


def test_a_static_scale_is_edited_for_the_whole_timeline(qtbot, tmp_path):
    win = open_arm(qtbot, tmp_path, bone="hand")
    doc = win.document
    row = child(win, QtWidgets.QWidget, "interpolationRow_scale")
    assert not row.isVisible()  # no scale keys: nothing to interpolate
    assert child(win, QtWidgets.QWidget, "interpolationRow_rotation").isHidden()
    type_into(child(win, QtWidgets.QDoubleSpinBox, "scale1"), "2")
    hand = doc.scene.bone("hand")
    assert hand.scale == (0.8, 2.0, 1.3) and hand.scale_keys is None
    assert doc.undo_stack.undoText() == "Scale bone hand"
    rest = child(win, QtWidgets.QDoubleSpinBox, "rest_scale1")
    qtbot.waitUntil(lambda: rest.value() == 2.0)  # the static scale is the rest scale
    key(win, "Z", gui.CTRL)
    assert doc.scene.bone("hand").scale == (0.8, 1.0, 1.3)
    key(win, "Z", gui.CTRL | gui.SHIFT)
    assert doc.scene.bone("hand").scale == (0.8, 2.0, 1.3)


def _select(qtbot, win, bone):
    outliner = win.outliner
    rect = outliner.visualItemRect(outliner.item_for(Ref.bone(bone)))
    QTest.mouseClick(outliner.viewport(), LEFT, NO_MODS, rect.center())
    qtbot.waitUntil(lambda: win.document.selection == (Ref.bone(bone),))


def test_playing_solves_world_space_for_the_inspector_only_for_a_bone_with_a_limit(qtbot):
    """The "World at the current frame" note follows playback; the world-space solve it
    asks for a limit's violation (a whole evaluation when the scene is authored in object
    space) runs only for a bone some constraint limits."""
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json")
    doc = win.document
    limited = {b for c in doc.scene.constraints for b, _ in c.limits_by_bone()}
    frames = (doc.scene.frame_start + 5, doc.scene.frame_start + 20)
    heads = bake(doc.scene, np.array(frames, dtype=float)).heads
    moving = np.linalg.norm(heads[1] - heads[0], axis=1) > 1e-3
    free = next(b.name for b, m in zip(doc.scene.bones, moving) if m and b.name not in limited)
    asked = []
    pose = doc.evaluations.pose

    def counted(*space):
        if space == ("world",):
            asked.append(doc.frame)
        return pose(*space)

    doc.evaluations.pose = counted
    for bone, expect_world in ((free, False), (sorted(limited)[0], True)):
        _select(qtbot, win, bone)
        asked.clear()
        texts = set()
        for frame in frames:
            doc.set_frame(frame)  # a frame change, as playing makes
            qtbot.wait(150)  # the inspector refreshes ten times a second
            note = next(
                w
                for w in win.inspector.findChildren(QtWidgets.QLabel)
                if w.text().startswith("head (")
            )
            texts.add(note.text())
        assert len(texts) == 2, bone  # the note follows the frame
        assert bool(asked) == expect_world, bone


def test_a_drag_step_refreshes_the_inspector_once_and_a_frame_change_still_shows(qtbot):
    """Each step of a drag (the document's live ``set_item``) emits ``scene_changed`` then
    ``pose_changed``: the inspector refreshes at once, and once, with nothing trailing."""
    from app.editor.document import Document
    from app.scene.io import load_scene
    from app.widgets.panels.inspector import Inspector

    doc = Document(load_scene(SCENES / "fabrik_arm.json"))
    inspector = Inspector(doc)
    qtbot.addWidget(inspector)
    bone = doc.scene.bones[1]
    doc.set_selection([Ref.bone(bone.name)])
    refreshes = []
    inspector._refreshers.append(lambda: refreshes.append(doc.frame))
    i = doc.scene.bone_index(bone.name)
    for step in range(1, 6):
        moved = dataclasses.replace(bone, translation=(0.01 * step, 0.3, 0.0))
        doc.set_item("bones", i, moved)
        assert len(refreshes) == step  # at once, once
        qtbot.wait(30)  # a drag's pace: faster than the throttle's interval
    qtbot.wait(150)
    assert len(refreshes) == 5  # nothing trailing
    doc.set_frame(doc.frame + 3)
    qtbot.waitUntil(lambda: len(refreshes) == 6)
    assert refreshes[-1] == doc.frame
