"""Key interpolation (format §B): constant and eased segments, scale keys, and the file format.

Oracles: scipy's ``Slerp`` (``scalar_first=True``) on the eased parameter, closed forms
(``3u² − 2u³``, a held value), and per-frame loops written here.
"""

import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.io import dumps_scene, loads_scene
from app.scene.rig.keys import Keys, sample, sample_many
from tests.helpers.paths import SCENES

KEY_FRAMES = np.array([0.0, 6.0, 7.5, 20.0, 31.0])


def _segment(frame, key_frames):
    """Segment index and its linear parameter, by a plain loop (clamped outside the keys)."""
    if frame <= key_frames[0]:
        return 0, 0.0
    if frame >= key_frames[-1]:
        return len(key_frames) - 2, 1.0
    for k in range(len(key_frames) - 1):
        if key_frames[k] <= frame < key_frames[k + 1]:
            return k, (frame - key_frames[k]) / (key_frames[k + 1] - key_frames[k])
    raise AssertionError(frame)


def _expected_u(kind, u):
    if kind == "constant":
        return 1.0 if u >= 1.0 else 0.0
    if kind == "ease":
        return 3 * u**2 - 2 * u**3
    return u


def test_vector_keys_follow_each_segments_interpolation(rng):
    values = rng.normal(size=(5, 3))
    kinds = ("constant", "ease", "linear", "ease", "constant")
    keys = Keys(KEY_FRAMES, values, kinds)
    frames = np.concatenate([np.linspace(-4, 36, 301), KEY_FRAMES, KEY_FRAMES - 1e-9])
    out = sample(None, keys, frames)
    for frame, got in zip(frames, out):
        k, u = _segment(frame, KEY_FRAMES)
        s = _expected_u(kinds[k], u)
        np.testing.assert_allclose(got, (1 - s) * values[k] + s * values[k + 1], atol=1e-14)


def test_constant_holds_the_value_until_the_next_key_exactly(rng):
    values = rng.normal(size=(5, 3))
    keys = Keys(KEY_FRAMES, values, ("constant",) * 5)
    out = sample(None, keys, [6.0 - 1e-9, 6.0, 7.4999, 7.5, 30.99, 31.0, 40.0])
    np.testing.assert_array_equal(out, values[[0, 1, 1, 2, 3, 4, 4]])


def test_eased_rotations_match_scipy_slerp_on_the_eased_parameter(rng):
    q = Rotation.random(5, rng=rng).as_quat(scalar_first=True)
    kinds = ("ease", "linear", "ease", "constant", "linear")
    keys = Keys(KEY_FRAMES, q, kinds)
    frames = np.linspace(-2, 33, 211)
    ours = sample(None, keys, frames, rotation=True)
    rotations = Rotation.from_quat(q, scalar_first=True)
    for frame, got in zip(frames, ours):
        k, u = _segment(frame, KEY_FRAMES)
        s = _expected_u(kinds[k], u)
        ref = Slerp([0.0, 1.0], rotations[[k, k + 1]])([s]).as_quat(scalar_first=True)[0]
        assert abs(np.dot(got, ref)) == pytest.approx(1.0, abs=1e-12)
    # Eased: slow out and slow in — the turn rate at both ends of a segment is zero.
    angle = lambda a, b: 2 * np.arccos(min(1.0, abs(np.dot(a, b))))  # noqa: E731
    near = sample(None, keys, [1e-3, 6.0 - 1e-3], rotation=True)
    assert angle(near[0], q[0]) < 1e-5 and angle(near[1], sample(None, keys, 6.0, True)) < 1e-5


def test_sample_many_groups_by_interpolation_and_matches_sample(rng):
    frames = np.linspace(-1, 32, 97)
    q = [Rotation.random(5, rng=rng).as_quat(scalar_first=True) for _ in range(4)]
    mixed = ("linear", "ease", "constant", "ease", "linear")
    kinds = [None, ("ease",) * 5, ("constant",) * 5, mixed]
    keys = [Keys(KEY_FRAMES, qi, k) for qi, k in zip(q, kinds)]
    together = sample_many([None] * 4, keys, frames, rotation=True)
    for i, k in enumerate(keys):
        alone = sample(None, k, frames, rotation=True)
        np.testing.assert_allclose(together[i], alone, atol=1e-15)
    # Different interpolations really give different samples (the groups are not merged).
    assert np.max(np.abs(together[1] - together[0])) > 1e-3
    assert np.max(np.abs(together[2] - together[1])) > 1e-3


def test_key_edits_keep_add_and_drop_interpolations():
    keys = Keys([0, 10, 20], np.eye(3), ("constant", "ease", "linear"))
    assert keys.interpolation == ("constant", "ease", "linear")
    assert Keys([0, 10], np.eye(2, 3)).interpolation == ("linear", "linear")
    replaced = keys.with_key(10, [5, 5, 5])
    assert replaced.interpolation == ("constant", "ease", "linear")
    assert keys.with_key(10, [5, 5, 5], "constant").interpolation[1] == "constant"
    assert keys.with_key(15, [5, 5, 5]).interpolation == ("constant", "ease", "linear", "linear")
    assert keys.with_key(15, [5, 5, 5], "ease").interpolation[2] == "ease"
    assert keys.without_key(0).interpolation == ("ease", "linear")
    assert keys.with_interpolation([0, 20], "ease").interpolation == ("ease", "ease", "ease")
    assert keys.with_interpolation(10, "linear").interpolation == ("constant", "linear", "linear")
    with pytest.raises(KeyError):
        keys.with_interpolation([5], "ease")
    with pytest.raises(ValueError, match="bezier"):
        keys.with_interpolation([0], "bezier")
    # Equality includes interpolation; the input is untouched.
    assert keys != Keys([0, 10, 20], np.eye(3))
    assert keys == Keys([0, 10, 20], np.eye(3), ["constant", "ease", "linear"])
    assert keys.interpolation == ("constant", "ease", "linear")


@pytest.mark.parametrize(
    "kinds, message",
    [(("linear", "cubic"), "cubic"), (("linear",), "2 interpolation"), ("linear", "sequence")],
)
def test_bad_interpolations_are_refused(kinds, message):
    with pytest.raises(ValueError, match=message):
        Keys([0, 1], np.eye(2, 3), kinds)


def _scene(bone_extra: dict) -> dict:
    return {
        "format": "pivotal-scene",
        "version": 1,
        "fps": 24,
        "frame_start": 0,
        "frame_end": 20,
        "bones": [
            {
                "name": "root",
                "translation": [0.0, 0.0, 0.0],
                "rotation": [1.0, 0, 0, 0],
                **bone_extra,
            },
            {
                "name": "tip",
                "parent": "root",
                "translation": [0.0, 1.0, 0.0],
                "rotation": [1.0, 0, 0, 0],
            },
        ],
        "constraints": [],
    }


def test_three_element_keys_load_and_save_only_when_not_linear():
    bone = {
        "translation_keys": [
            [0, [0.0, 0.0, 0.0], "constant"],
            [10, [1.0, 0.0, 0.0]],
            [20, [2.0, 0.0, 0.0], "ease"],
        ],
        "rotation_keys": [[0, [1.0, 0.0, 0.0, 0.0], "ease"], [20, [0.0, 1.0, 0.0, 0.0]]],
        "scale_keys": [[0, [1.0, 1.0, 1.0], "linear"], [20, [2.0, 1.0, 1.0]]],
    }
    scene = loads_scene(json.dumps(_scene(bone)))
    root = scene.bones[0]
    assert root.translation_keys.interpolation == ("constant", "linear", "ease")
    assert root.rotation_keys.interpolation == ("ease", "linear")
    assert root.scale_keys.interpolation == ("linear", "linear")
    saved = json.loads(dumps_scene(scene))["bones"][0]
    assert [len(k) for k in saved["translation_keys"]] == [3, 2, 3]
    assert saved["translation_keys"][0][2] == "constant"
    assert saved["translation_keys"][2][2] == "ease"
    assert [len(k) for k in saved["rotation_keys"]] == [3, 2]
    assert [len(k) for k in saved["scale_keys"]] == [2, 2]  # "linear" is written as two
    assert loads_scene(dumps_scene(scene)).bones[0] == root


@pytest.mark.parametrize(
    "key, where",
    [
        ([10, [1.0, 0.0, 0.0], "bezier"], "bones[0].translation_keys[1][2]"),
        ([10, [1.0, 0.0, 0.0], 3], "bones[0].translation_keys[1][2]"),
        ([10, [1.0, 0.0, 0.0], "ease", 1], "bones[0].translation_keys[1]"),
    ],
)
def test_unknown_interpolations_are_refused_naming_the_key(key, where):
    bone = {"translation_keys": [[0, [0.0, 0.0, 0.0]], key]}
    with pytest.raises(SceneError) as e:
        loads_scene(json.dumps(_scene(bone)), "x.json")
    assert e.value.path == where
    assert "x.json" in str(e.value)


def test_scale_keys_must_not_be_negative():
    bone = {"scale_keys": [[0, [1.0, 1.0, 1.0]], [5, [1.0, -1.0, 1.0]]]}
    with pytest.raises(SceneError) as e:
        loads_scene(json.dumps(_scene(bone)))
    assert e.value.path == "bones[0].scale_keys[1][1]"


@pytest.mark.parametrize("path", sorted(SCENES.glob("*.json")), ids=lambda p: p.name)
def test_saving_existing_files_is_byte_stable(path):
    text = path.read_text()
    once = dumps_scene(loads_scene(text))
    assert dumps_scene(loads_scene(once)) == once

    # No key grew a third element: every key list in the saved file is [frame, value].
    def keys_lists(value):
        if isinstance(value, dict):
            for k, v in value.items():
                if k.endswith("_keys"):
                    yield v
                else:
                    yield from keys_lists(v)
        elif isinstance(value, list):
            for v in value:
                yield from keys_lists(v)

    lists = list(keys_lists(json.loads(once)))
    assert all(len(key) == 2 for keys in lists for key in keys)


@pytest.mark.parametrize("name", ["calf_points_at_ankle.json", "fabrik_arm.json"])
def test_canonical_files_save_to_the_same_bytes(name):
    text = (SCENES / name).read_text()
    assert dumps_scene(loads_scene(text)) == text


def test_fk_honours_scale_keys_and_every_interpolation():
    bone = {
        "translation_keys": [[0, [0.0, 0.0, 0.0], "constant"], [10, [1.0, 0.0, 0.0]]],
        "rotation_keys": [
            [0, [1.0, 0.0, 0.0, 0.0], "ease"],
            [20, [0.7071067811865476, 0.0, 0.0, 0.7071067811865476]],
        ],
        "scale_keys": [[0, [1.0, 1.0, 1.0], "ease"], [20, [1.0, 3.0, 1.0]]],
    }
    scene = loads_scene(json.dumps(_scene(bone)))
    frames = np.arange(0.0, 20.25, 0.5)
    result = bake(scene, frames)
    for f, tip in zip(frames, result.heads[:, 1]):
        head = np.array([0.0 if f < 10 else 1.0, 0.0, 0.0])
        s = 3 * (f / 20) ** 2 - 2 * (f / 20) ** 3
        angle = s * np.pi / 2  # about Z, eased
        length = 1.0 + 2.0 * s  # the child's offset scaled by sy, eased
        expected = head + length * np.array([-np.sin(angle), np.cos(angle), 0.0])
        np.testing.assert_allclose(tip, expected, atol=1e-12)
    np.testing.assert_allclose(result.heads[:, 0, 0], np.where(frames < 10, 0.0, 1.0))
