"""Animation keys: linear and slerp interpolation, held outside the keyed range."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.math import quat
from app.scene.rig.keys import Keys, interpolate_linear, interpolate_slerp, sample


def test_linear_keys_interpolate_and_hold():
    keys = Keys([0, 10, 30], [[0, 0, 0], [10, 0, 0], [10, 20, 0]])
    out = interpolate_linear(keys, [-5, 0, 5, 10, 20, 30, 99])
    np.testing.assert_allclose(
        out, [[0, 0, 0], [0, 0, 0], [5, 0, 0], [10, 0, 0], [10, 10, 0], [10, 20, 0], [10, 20, 0]]
    )


def test_slerp_keys_match_scipy(rng):
    q = Rotation.random(4, rng=rng).as_quat(scalar_first=True)
    key_frames = np.array([0.0, 7.0, 8.5, 20.0])
    keys = Keys(key_frames, q)
    frames = np.linspace(-3, 25, 200)
    ours = interpolate_slerp(keys, frames)
    ref = Slerp(key_frames, Rotation.from_quat(q, scalar_first=True))(np.clip(frames, 0, 20))
    np.testing.assert_allclose(
        np.abs(np.sum(ours * ref.as_quat(scalar_first=True), axis=1)), 1, atol=1e-12
    )


def test_slerp_keys_are_exact_at_key_frames_and_any_shape(rng):
    q = Rotation.random(5, rng=rng).as_quat(scalar_first=True)
    keys = Keys(np.arange(5) * 3.0, q)
    np.testing.assert_array_equal(interpolate_slerp(keys, np.arange(5) * 3.0)[:4], q[:4])
    assert interpolate_slerp(keys, np.zeros((2, 3))).shape == (2, 3, 4)


def test_negated_keys_give_the_same_rotations(rng):
    q = Rotation.random(3, rng=rng).as_quat(scalar_first=True)
    flipped = q * np.array([[1], [-1], [1]])
    frames = np.linspace(0, 2, 41)
    a = interpolate_slerp(Keys([0, 1, 2], q), frames)
    b = interpolate_slerp(Keys([0, 1, 2], flipped), frames)
    np.testing.assert_allclose(quat.matrix_from_quat(a), quat.matrix_from_quat(b), atol=1e-12)


def test_single_key_and_static_values():
    keys = Keys([5], [[1, 2, 3]])
    np.testing.assert_array_equal(interpolate_linear(keys, [0, 5, 9]), [[1, 2, 3]] * 3)
    np.testing.assert_array_equal(sample((4, 5, 6), None, [1, 2]), [[4, 5, 6]] * 2)


def test_key_editing_and_validation():
    keys = Keys([0, 10], [[0, 0, 0], [1, 1, 1]])
    assert list(keys.with_key(5, [2, 2, 2]).frames) == [0, 5, 10]
    assert np.array_equal(keys.with_key(10, [3, 3, 3]).values[-1], [3, 3, 3])
    assert list(keys.without_key(0).frames) == [10]
    assert Keys([1], [[0, 0, 0]]).without_key(1) is None
    with pytest.raises(KeyError):
        keys.without_key(3)
    with pytest.raises(ValueError, match="increasing"):
        Keys([0, 0], [[0, 0, 0], [1, 1, 1]])


def test_read_only_key_frames_are_shared_and_writable_ones_copied(cmu_01_01):
    from app.scene.io import load_scene

    shared = np.arange(3.0)
    shared.setflags(write=False)
    assert Keys(shared, np.zeros((3, 3))).frames is shared
    mine = np.arange(3.0)
    keys = Keys(mine, np.zeros((3, 3)))
    mine[0] = 5.0  # the caller's array changes; the keys do not
    assert keys.frames is not mine and keys.frames[0] == 0.0
    # every joint of a motion-capture clip keys the same frames: one array, not one per joint
    scene = load_scene(cmu_01_01)
    arrays = {
        id(k.frames)
        for b in scene.bones
        for k in (b.rotation_keys, b.translation_keys)
        if k is not None
    }
    assert len(scene.bones) > 30 and len(arrays) == 1


def test_all_linear_keys_of_one_length_share_their_interpolation_tuple():
    a, b = Keys(np.arange(5.0), np.zeros((5, 3))), Keys(np.arange(1.0, 6.0), np.ones((5, 4)))
    assert a.interpolation == ("linear",) * 5 and a.interpolation is b.interpolation
    edited = a.with_interpolation([2.0], "constant")
    assert edited.interpolation[2] == "constant" and a.interpolation == ("linear",) * 5
