"""Reparenting a scale-keyed bone by dragging it in the outliner (real mouse events): its
world transforms at every key frame stay, and undo gives back the very bone it had."""

import numpy as np

from app.scene.io import save_scene
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.gui import drag, key
from tests.scene.rig.test_reparent_scale_keys import KEY_FRAMES, scaled_parents, world_at_key


def test_dragging_a_scale_keyed_bone_onto_a_new_parent_keeps_its_place(qtbot, tmp_path):
    path = tmp_path / "scaled.json"
    save_scene(scaled_parents(), path)
    win = gui.open_window(qtbot, path)
    doc, outliner = win.document, win.outliner
    original = list(doc.scene.bones)
    before = doc.evaluations.evaluate(KEY_FRAMES).bone_to_world.copy()
    start = outliner.visualItemRect(outliner.item_for(Ref.bone("arm"))).center()
    end = outliner.visualItemRect(outliner.item_for(Ref.bone("narrow"))).center()
    drag(outliner.viewport(), start, end, qtbot=qtbot)
    qtbot.waitUntil(lambda: doc.scene.bone("arm").parent == "narrow")
    assert doc.undo_stack.undoText() == "Make arm child of narrow, keeping its place"
    assert doc.undo_stack.count() == 1
    done = list(doc.scene.bones)

    def check_in_place():
        after = doc.evaluations.evaluate(KEY_FRAMES).bone_to_world
        assert np.allclose(after, before, atol=1e-12)
        for k in range(len(KEY_FRAMES)):  # FK written in the test, from the key values
            i = doc.scene.bone_index("arm")
            assert np.allclose(world_at_key(doc.scene, "arm", k), before[k, i], atol=1e-12)

    check_in_place()
    scale = doc.scene.bone("arm").scale_keys.values
    assert np.allclose(scale, 2 * original[3].scale_keys.values)
    key(win, "Z", gui.CTRL)
    assert all(a is b for a, b in zip(doc.scene.bones, original))  # the very items
    assert doc.scene.bones == original
    assert np.array_equal(doc.evaluations.evaluate(KEY_FRAMES).bone_to_world, before)  # bit for bit
    key(win, "Z", gui.CTRL | gui.SHIFT)
    assert doc.scene.bones == done and doc.scene.bone("arm").parent == "narrow"
    check_in_place()
