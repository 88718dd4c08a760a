"""Deterministic scrubbing: the integral from frame_start, whatever was evaluated before."""

import dataclasses
import math

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.constraints.multi_parent.cache import BLOCK_STEPS, agrees_until
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.evaluate import Evaluator, bake
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene


def long_scene(rng, frame_end=600, substeps=4, space="object"):
    """Three pivots keyed every 6 to 10 frames over a timeline several scan blocks long."""
    pivots = []
    for i, (every, position) in enumerate(
        [(6, (0.1, -0.2, 0.3)), (8, (-0.3, 0.1, 0.0)), (10, (0.0, 0.4, -0.2))]
    ):
        frames = np.arange(i, frame_end + 1, every, dtype=float)
        turns = [Rotation.identity()]
        for _ in frames[1:]:
            turns.append(Rotation.from_rotvec(rng.normal(size=3) * 0.2) * turns[-1])
        keys = Keys(frames, Rotation.concatenate(turns).as_quat(scalar_first=True))
        pivots.append(Pivot(name=f"p{i}", position=position, rotation_keys=keys))
    body = Bone(name="body", translation=(0.0, 1.0, 0.0))
    mp = MultiParent(name="mp", body="body", pivots=tuple(pivots), substeps=substeps, space=space)
    return Scene(
        bones=[body, Bone(name="child", parent="body", translation=(0, 0.5, 0))],
        constraints=[mp],
        frame_end=frame_end,
    )


def edit_key(scene, pivot_index, key_index, turn):
    """The scene with one rotation key of one pivot turned further (an editor's edit)."""
    mp = scene.constraints[0]
    pivot = mp.pivots[pivot_index]
    keys = pivot.rotation_keys
    value = Rotation.from_rotvec(turn) * Rotation.from_quat(
        keys.values[key_index], scalar_first=True
    )
    new_keys = keys.with_key(keys.frames[key_index], value.as_quat(scalar_first=True))
    pivots = list(mp.pivots)
    pivots[pivot_index] = dataclasses.replace(pivot, rotation_keys=new_keys)
    scene.constraints[0] = dataclasses.replace(mp, pivots=tuple(pivots))
    return keys.frames[key_index - 1]  # the motion changes after the key before it


def test_any_evaluation_order_gives_the_same_bits(rng):
    scene = long_scene(rng)
    frames = np.concatenate([np.arange(0, 601.0), [12.25, 333.5, 599.75]])
    at_once = bake(scene, frames).bone_to_world
    one_by_one = Evaluator(scene)
    for i in np.argsort(-frames):  # backwards, one frame at a time, on one evaluator
        np.testing.assert_array_equal(one_by_one.evaluate([frames[i]]).bone_to_world[0], at_once[i])
    for i in rng.permutation(len(frames))[:40]:  # random frames, each on a fresh evaluator
        np.testing.assert_array_equal(bake(scene, [frames[i]]).bone_to_world[0], at_once[i])


def test_an_edit_recomputes_from_its_block_and_keeps_the_frames_before(rng):
    scene = long_scene(rng)
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    before = evaluator.cache["mp"]["object"]
    assert evaluator.stale_constraints() == []

    changed_after = edit_key(scene, 1, 50, [0.0, 0.3, 0.0])  # key at frame 401, previous 393
    assert evaluator.stale_constraints() == ["mp"]
    result = evaluator.evaluate()
    after = evaluator.cache["mp"]["object"]
    assert evaluator.stale_constraints() == []

    # It recomputed from the start of the scan block holding the first changed step ...
    restart = result.info["mp"]["recomputed_from_frame"]
    block_frames = BLOCK_STEPS / 4
    assert changed_after - block_frames <= restart <= changed_after
    assert restart == math.floor(changed_after * 4 // BLOCK_STEPS) * block_frames
    # ... kept every cached frame before it as it was, bit for bit ...
    kept = int(restart)
    np.testing.assert_array_equal(after.frame_rotation[:, :kept], before.frame_rotation[:, :kept])
    np.testing.assert_array_equal(after.frame_position[:, :kept], before.frame_position[:, :kept])
    # ... and changed the motion only after the key before the edited one.
    unchanged = int(changed_after) + 1
    np.testing.assert_array_equal(
        after.frame_rotation[:, :unchanged], before.frame_rotation[:, :unchanged]
    )
    assert np.abs(after.frame_position[:, -1] - before.frame_position[:, -1]).max() > 1e-3
    # The result is the one a fresh evaluation gives, bit for bit.
    np.testing.assert_array_equal(result.bone_to_world, bake(scene).bone_to_world)


def test_partial_recomputation_equals_full_recomputation_bit_for_bit(rng):
    scene = long_scene(rng, space="world")
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    frames = np.arange(0, 601.0, 0.5)
    for pivot, key in [(0, 90), (2, 12), (1, 70), (0, 3), (2, 59)]:
        edit_key(scene, pivot, key, rng.normal(size=3) * 0.2)
        incremental = evaluator.evaluate(frames).bone_to_world
        np.testing.assert_array_equal(incremental, bake(scene, frames).bone_to_world)


def test_changes_that_do_not_move_the_body_keep_the_cache(rng):
    scene = long_scene(rng)
    mp = scene.constraints[0]
    still = Pivot(name="still", position=(0.5, 0.0, 0.0))  # never turns
    scene.constraints[0] = mp = dataclasses.replace(mp, pivots=mp.pivots + (still,))
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    pivots = list(mp.pivots)
    pivots[-1] = dataclasses.replace(still, rotation=(0.0, 1.0, 0.0, 0.0))  # still never turns
    scene.constraints[0] = dataclasses.replace(mp, pivots=tuple(pivots), name="mp")
    assert evaluator.stale_constraints() == []
    assert evaluator.evaluate().info["mp"]["recomputed_from_frame"] is None
    scene.frame_end = 300  # the integral does not depend on the timeline's end
    assert evaluator.evaluate().info["mp"]["recomputed_from_frame"] is None


def test_each_space_keeps_its_own_integral(rng):
    scene = long_scene(rng)
    evaluator = Evaluator(scene)
    world = evaluator.evaluate(space="world")
    assert world.info["mp"]["recomputed_from_frame"] == 0.0
    obj = evaluator.evaluate(space="object")
    assert obj.info["mp"]["recomputed_from_frame"] == 0.0
    again = evaluator.evaluate(space="world")
    assert again.info["mp"]["recomputed_from_frame"] is None
    np.testing.assert_array_equal(again.bone_to_world, world.bone_to_world)
    assert np.abs(world.heads - obj.heads).max() > 0.1


def test_moving_the_body_at_frame_start_recomputes_everything(rng):
    scene = long_scene(rng)
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    scene.bones[0] = dataclasses.replace(scene.bones[0], translation=(0.0, 1.5, 0.0))
    assert evaluator.stale_constraints() == ["mp"]
    result = evaluator.evaluate()
    assert result.info["mp"]["recomputed_from_frame"] == 0.0
    np.testing.assert_array_equal(result.bone_to_world, bake(scene).bone_to_world)


def test_agrees_until_the_key_before_the_first_difference():
    keys = Keys([0.0, 10.0, 20.0, 30.0], Rotation.random(4, rng=1).as_quat(scalar_first=True))
    a = Pivot(name="a", rotation_keys=keys)
    value = Rotation.random(rng=2).as_quat(scalar_first=True)
    assert agrees_until((a,), (a,)) == math.inf
    assert (
        agrees_until((a,), (dataclasses.replace(a, rotation_keys=keys.with_key(20, value)),)) == 10
    )
    assert (
        agrees_until((a,), (dataclasses.replace(a, rotation_keys=keys.with_key(35, value)),)) == 30
    )
    assert (
        agrees_until((a,), (dataclasses.replace(a, rotation_keys=keys.with_key(15, value)),)) == 10
    )
    assert (
        agrees_until((a,), (dataclasses.replace(a, rotation_keys=keys.with_key(0, value)),))
        == -math.inf
    )
    assert agrees_until((a,), (dataclasses.replace(a, rotation_keys=keys.without_key(30)),)) == 20
    moved = dataclasses.replace(a, position=(1.0, 0.0, 0.0))
    assert agrees_until((a,), (moved,)) == -math.inf
    slid = dataclasses.replace(a, position_keys=Keys([5.0, 8.0], [[0, 0, 0], [1, 0, 0]]))
    slid_more = dataclasses.replace(a, position_keys=Keys([5.0, 8.0], [[0, 0, 0], [2, 0, 0]]))
    assert agrees_until((slid,), (slid_more,)) == 5


def test_moving_a_body_whose_pivots_never_turn_moves_it():
    """No keys at all: an empty grid, and still the start state is an input."""
    body = Bone(name="body", translation=(0.0, 1.0, 0.0))
    mp = MultiParent(name="mp", body="body", pivots=(Pivot(name="p", position=(1, 0, 0)),))
    scene = Scene(bones=[body], constraints=[mp], frame_end=10)
    evaluator = Evaluator(scene)
    assert np.allclose(evaluator.evaluate([5.0]).heads[0, 0], [0.0, 1.0, 0.0])
    scene.bones[0] = dataclasses.replace(body, translation=(2.0, 1.0, 0.0))
    assert evaluator.stale_constraints() == ["mp"]
    np.testing.assert_array_equal(evaluator.evaluate([5.0]).heads[0, 0], [2.0, 1.0, 0.0])


def test_asking_whether_it_is_stale_then_evaluating_compares_the_keys_once(rng, monkeypatch):
    """The editor asks :meth:`Evaluator.stale_constraints` before each evaluation; the
    evaluation then uses that verdict rather than comparing every pivot's keys again."""
    from app.scene.constraints.multi_parent import cache

    compared = []
    agrees = cache.agrees_until
    monkeypatch.setattr(cache, "agrees_until", lambda *a: compared.append(1) or agrees(*a))
    scene = long_scene(rng, frame_end=120)
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    for turn in (0.3, 0.0):  # an edit, then none
        if turn:
            edit_key(scene, 1, 5, [0.0, turn, 0.0])
        compared.clear()
        stale = evaluator.stale_constraints()
        result = evaluator.evaluate([7.0, 90.0])
        assert stale == (["mp"] if turn else []) and len(compared) == 1, turn
        np.testing.assert_array_equal(result.bone_to_world, bake(scene, [7.0, 90.0]).bone_to_world)
    compared.clear()
    evaluator.evaluate([8.0])  # asked without the question: compared once there
    assert len(compared) == 1
