"""app.scene.words: every count the interface shows, with its noun in the right number."""

import numpy as np

from app.scene.words import plural


def test_one_is_singular_and_every_other_count_plural():
    assert plural(1, "key") == "1 key"
    assert plural(0, "key") == "0 keys" and plural(3, "key") == "3 keys"
    assert plural(np.int64(1), "constraint") == "1 constraint"
    assert plural(1.0, "frame") == "1 frame" and plural(2.5, "frame") == "2.5 frames"
    assert plural(2, "mesh") == "2 meshes" and plural(2, "vertex") == "2 vertices"
    assert plural(2, "child", "children") == "2 children"


def test_signed_offsets_and_integers_of_any_size():
    assert plural(1.0, "frame", fmt="+g") == "+1 frame"
    assert plural(-3, "frame", fmt="+g") == "-3 frames"
    assert plural(10**400, "frame") == "1" + "0" * 400 + " frames"  # no float overflow
