"""The inspector's key edits as pure functions (app.scene.rig.key_edits): a key's
interpolation at a frame and a bone's scale at a frame, checked by forward kinematics and
sampling written here (scipy Rotation/Slerp, scalar_first=True)."""

import dataclasses

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.evaluate import bake
from app.scene.rig import key_edits
from tests.scene.rig.test_reparent_scale_keys import scaled_parents, trs


def smoothstep(u):
    return u * u * (3 - 2 * u)


def test_the_key_at_or_before_a_frame_owns_its_segment():
    keys = scaled_parents().bone("arm").scale_keys  # frames 0, 6, 15, 24
    for frame, index in ((-3, 0), (0, 0), (5.9, 0), (6, 1), (10, 1), (15, 2), (24, 3), (30, 3)):
        assert key_edits.key_at_or_before(keys, frame) == index


def test_setting_a_segment_interpolation_changes_only_that_segment():
    scene = scaled_parents()
    arm = scene.bone("arm")
    eased = key_edits.with_key_interpolation(arm, "rotation_keys", 10.0, "ease")
    assert eased.rotation_keys.interpolation == ("ease", "ease", "linear", "linear")
    assert np.array_equal(eased.rotation_keys.values, arm.rotation_keys.values)
    assert eased.translation_keys is arm.translation_keys and eased.scale_keys is arm.scale_keys
    # the rotation at frame 10 is the slerp at the smoothstep of u (scipy)
    q = arm.rotation_keys.values
    u = (10 - 6) / (15 - 6)
    slerp = Slerp([0, 1], Rotation.from_quat(q[1:3], scalar_first=True))
    expected = slerp([smoothstep(u)]).as_quat(scalar_first=True)[0]
    got = key_edits.rotation_at(eased, 10.0)
    assert np.allclose(got * np.sign(got @ expected), expected, atol=1e-12)
    # constant scale from the key at 15: frame 20 holds key 15's value
    held = key_edits.with_key_interpolation(arm, "scale_keys", 20.0, "constant")
    assert held.scale_keys.interpolation[2] == "constant"
    assert np.array_equal(key_edits.scale_at(held, 20.0), arm.scale_keys.values[2])
    # before the first key: the first key's segment
    first = key_edits.with_key_interpolation(arm, "translation_keys", -5.0, "constant")
    assert first.translation_keys.interpolation[0] == "constant"
    with pytest.raises(ValueError, match="not animated"):
        key_edits.with_key_interpolation(scene.bone("hand"), "scale_keys", 3.0, "ease")
    with pytest.raises(ValueError, match="unknown interpolation"):
        key_edits.with_key_interpolation(arm, "scale_keys", 3.0, "bezier")


def test_scale_at_a_frame_follows_each_segment_interpolation():
    arm = scaled_parents().bone("arm")
    v = arm.scale_keys.values  # segments: linear, constant, ease
    assert np.allclose(key_edits.scale_at(arm, 3.0), v[0] + (3 / 6) * (v[1] - v[0]))
    assert np.array_equal(key_edits.scale_at(arm, 14.0), v[1])
    u = smoothstep((20 - 15) / 9)
    assert np.allclose(key_edits.scale_at(arm, 20.0), (1 - u) * v[2] + u * v[3])


def test_scale_edits_key_an_animated_scale_and_set_a_static_one():
    scene = scaled_parents()
    arm = scene.bone("arm")
    new = key_edits.with_bone_scale(arm, 10.0, (1.25, 0.5, 2.0))
    assert np.array_equal(new.scale_keys.frames, [0, 6, 10, 15, 24])
    assert new.scale_keys.interpolation[2] == "linear"  # a new key is linear
    assert new.scale == arm.scale and new.rotation_keys is arm.rotation_keys
    # the world transform at frame 10 is FK with the new scale (scipy, written here)
    edited = scene.copy()
    edited.bones[scene.bone_index("arm")] = new
    world = bake(edited, [10.0]).bone_to_world[0, scene.bone_index("arm")]
    u = (10 - 6) / 9
    t = arm.translation_keys.values
    translation = t[1] + smoothstep(u) * (t[2] - t[1])  # the key at 6 eases
    q = arm.rotation_keys.values
    rotation = Slerp([0, 1], Rotation.from_quat(q[1:3], scalar_first=True))([u])
    expected = (
        trs(scene.bone("root").translation, scene.bone("root").rotation, scene.bone("root").scale)
        @ trs(scene.bone("wide").translation, scene.bone("wide").rotation, scene.bone("wide").scale)
        @ trs(translation, rotation.as_quat(scalar_first=True)[0], (1.25, 0.5, 2.0))
    )
    assert np.allclose(world, expected, atol=1e-12)
    # not animated: the static scale changes for the whole timeline
    hand = scene.bone("hand")
    assert key_edits.with_bone_scale(hand, 10.0, (2, 2, 2)) == dataclasses.replace(
        hand, scale=(2.0, 2.0, 2.0)
    )
    for bad in ((1, -2, 1), (1, np.nan, 1)):
        with pytest.raises(ValueError, match=">= 0"):
            key_edits.with_bone_scale(arm, 10.0, bad)
        with pytest.raises(ValueError):
            key_edits.with_bone_scale(hand, 10.0, bad)
