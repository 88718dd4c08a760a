"""Pure key edits: moving with replace semantics, duplicating, deleting, values, copy/paste.

Oracle: the same edits written as a dictionary from frame to key in the test.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.math.euler import euler_xyz_from_quat
from app.scene.rig import key_edits
from app.scene.rig.keys import INTERPOLATIONS, Keys
from app.scene.rig.model import Bone, Pivot, Scene, Target
from app.scene.rig.refs import Ref


def _random_keys(rng, count=8):
    frames = np.sort(rng.choice(np.arange(0, 40), size=count, replace=False)).astype(float)
    kinds = tuple(rng.choice(INTERPOLATIONS, size=count))
    return Keys(frames, rng.normal(size=(count, 3)), kinds)


def _as_dict(keys):
    rows = zip(keys.frames, keys.values, keys.interpolation)
    return {float(f): (tuple(v), k) for f, v, k in rows}


def _from_dict(d):
    frames = sorted(d)
    return Keys(frames, [d[f][0] for f in frames], tuple(d[f][1] for f in frames))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("duplicate", [False, True])
def test_moving_and_duplicating_keys_match_a_dictionary_edit(seed, duplicate):
    rng = np.random.default_rng(seed)
    keys = _random_keys(rng)
    chosen = rng.choice(keys.frames, size=3, replace=False)
    offset = float(rng.integers(-12, 13))
    expected = _as_dict(keys)
    moving = {f: expected[f] for f in chosen}
    if not duplicate:
        for f in chosen:
            del expected[f]
    for f, key in moving.items():
        expected[f + offset] = key  # lands: replaces whatever was there
    edit = key_edits.duplicate_keys if duplicate else key_edits.move_keys
    assert edit(keys, chosen, offset) == _from_dict(expected)


def test_dropping_a_key_onto_another_replaces_it():
    keys = Keys([0, 10, 20], [[0, 0, 0], [1, 1, 1], [2, 2, 2]], ("ease", "constant", "linear"))
    moved = key_edits.move_keys(keys, [10], 10)
    assert moved == Keys([0, 20], [[0, 0, 0], [1, 1, 1]], ("ease", "constant"))
    # Several moving keys keep their order and each other: none replaces a moving one.
    both = key_edits.move_keys(keys, [0, 10], 10)
    assert both == Keys([10, 20], [[0, 0, 0], [1, 1, 1]], ("ease", "constant"))
    with pytest.raises(KeyError):
        key_edits.move_keys(keys, [5], 1)


def test_deleting_and_value_edits():
    keys = Keys([0, 10, 20], np.arange(9.0).reshape(3, 3), ("ease", "constant", "linear"))
    assert key_edits.delete_keys(keys, [0, 20]) == Keys([10], [[3, 4, 5]], ("constant",))
    assert key_edits.delete_keys(keys, keys.frames) is None
    raised = key_edits.offset_component(keys, [10, 20], 1, 0.5)
    np.testing.assert_array_equal(raised.values[:, 1], [1, 4.5, 7.5])
    np.testing.assert_array_equal(raised.values[:, [0, 2]], keys.values[:, [0, 2]])
    assert raised.interpolation == keys.interpolation


def test_an_euler_offset_turns_one_angle_of_the_selected_rotation_keys():
    q = Rotation.from_euler("xyz", [[10, 20, 30], [-40, 15, 100]], degrees=True)
    keys = Keys([0, 8], q.as_quat(scalar_first=True), ("ease", "linear"))
    turned = key_edits.offset_euler(keys, [8], 2, 25.0)
    # scipy's extrinsic "xyz" is Blender's XYZ Euler (x first, fixed axes).
    ref = Rotation.from_euler("xyz", [-40, 15, 125], degrees=True)
    dot = np.dot(turned.values[1], ref.as_quat(scalar_first=True))
    assert abs(dot) == pytest.approx(1, abs=1e-12)
    np.testing.assert_array_equal(turned.values[0], keys.values[0])
    np.testing.assert_allclose(euler_xyz_from_quat(turned.values[1]), [-40, 15, 125], atol=1e-9)


def test_copy_and_paste_keep_spacing_values_and_interpolation():
    a = Keys([4, 6, 9], [[1, 0, 0], [2, 0, 0], [3, 0, 0]], ("constant", "ease", "linear"))
    b = Keys([5, 12], [[0, 1, 0], [0, 2, 0]], ("ease", "linear"))
    ra, rb = (Ref.bone("arm"), "translation_keys"), (Ref.bone("leg"), "translation_keys")
    clip = key_edits.copy_keys({ra: (a, [6, 9]), rb: (b, [5])})
    assert clip.first_frame == 5
    # Pasting at frame 20: the earliest copied key lands on 20, the rest keep their spacing.
    channels = dict(clip.channels)
    pasted = key_edits.paste_keys(a, channels[ra], 20 - clip.first_frame)
    assert pasted == Keys(
        [4, 6, 9, 21, 24],
        [[1, 0, 0], [2, 0, 0], [3, 0, 0], [2, 0, 0], [3, 0, 0]],
        ("constant", "ease", "linear", "ease", "linear"),
    )
    # Onto existing keys: they are replaced; into a channel without keys: it gets them.
    over = key_edits.paste_keys(a, channels[ra], 0)
    assert over == a
    assert key_edits.paste_keys(None, channels[rb], 15) == Keys([20], [[0, 1, 0]], ("ease",))


def _scene():
    bone = Bone(name="arm", rotation_keys=Keys([0, 10], [[1, 0, 0, 0], [0, 1, 0, 0]]))
    pivot = Pivot(name="heel", rotation_keys=Keys([0, 5], [[1, 0, 0, 0], [0, 0, 1, 0]]))
    mp = MultiParent(name="roll", body="arm", pivots=(pivot, Pivot(name="toe")))
    fab = Fabrik(
        name="ik", chain=("arm",), target=Target(position_keys=Keys([5, 9], np.zeros((2, 3))))
    )
    return Scene(bones=[bone], constraints=[mp, fab])


def test_channels_at_a_frame_expand_constraints_into_their_keyed_parts():
    scene = _scene()
    refs = [Ref.bone("arm"), Ref.constraint("roll"), Ref.constraint("ik")]
    assert key_edits.channels_at(scene, refs, 0) == [
        (Ref.bone("arm"), "rotation_keys"),
        (Ref.pivot_of("roll", "heel"), "rotation_keys"),
    ]
    assert key_edits.channels_at(scene, refs, 5) == [
        (Ref.pivot_of("roll", "heel"), "rotation_keys"),
        (Ref.target_of("ik"), "position_keys"),
    ]
    assert key_edits.channels_at(scene, refs, 3) == []


def test_removing_every_key_keeps_the_value_at_the_frame():
    bone = _scene().bones[0]
    out = key_edits.with_channel(bone, "rotation_keys", None, 5.0)
    assert out.rotation_keys is None
    expected = Rotation.from_rotvec([np.pi / 2, 0, 0]).as_quat(scalar_first=True)
    np.testing.assert_allclose(out.rotation, expected, atol=1e-12)
