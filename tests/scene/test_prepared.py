"""The prepared rig (app.scene.rig.prepared): what evaluation reads once per edit gives
exactly what reading it every time gave, and an edit is never served stale data."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from app.scene.evaluate import Evaluator, bake
from app.scene.io import load_scene
from app.scene.rig.prepared import prepare
from app.scene.rig.skeleton import Skeleton, forward_kinematics, local_transforms

ROOT = Path(__file__).resolve().parents[2]
CMU = Path("/usr/share/assimp/models/BVH/01_01.bvh")
SCENES = ROOT / "resources" / "scenes"


def test_local_transforms_match_the_unprepared_reading_bit_for_bit():
    for scene in (
        load_scene(CMU),
        load_scene(SCENES / "fabrik_arm.json"),
        load_scene(SCENES / "foot_roll.json"),
    ):
        frames = np.array([scene.frame_start, scene.frame_start + 2.5, scene.frame_end + 3.0])
        expected = local_transforms(scene, frames)
        got = prepare(scene).local_transforms(frames)
        assert np.array_equal(got, expected)


def test_descendant_levels_match_a_walk_up_the_parents():
    scene = load_scene(CMU)
    skeleton = Skeleton.from_scene(scene)
    for bone in range(len(scene.bones)):
        below = set()
        for b in range(len(scene.bones)):  # independent: walk up from every bone
            node = skeleton.parents[b]
            while node >= 0:
                if node == bone:
                    below.add(b)
                node = skeleton.parents[node]
        assert set(skeleton.descendants(bone).tolist()) == below
        for level in skeleton.descendant_levels(bone):  # parents come in an earlier level
            assert all(skeleton.parents[b] == bone or skeleton.parents[b] in below for b in level)


def test_replacing_a_bone_or_a_constraint_is_seen_at_once():
    scene = load_scene(SCENES / "fabrik_arm.json")
    evaluator = Evaluator(scene)
    frames = [10.0, 37.0]
    first = evaluator.evaluate(frames)
    rig = prepare(scene)
    assert prepare(scene) is rig  # nothing changed: the same preparation
    # Lengthen the last chain bone (a new immutable item, as the editor's commands do).
    chain = scene.constraints[0].chain
    i = scene.bone_index(chain[-1])
    scene.bones[i] = dataclasses.replace(scene.bones[i], tail=(0.0, 0.4, 0.0))
    assert prepare(scene) is not rig
    edited = evaluator.evaluate(frames)
    assert np.array_equal(edited.bone_to_world, bake(scene.copy(), frames).bone_to_world)
    assert not np.allclose(edited.tails, first.tails)
    # Take the limits off: the constraint's static data is rebuilt.
    scene.constraints[0] = dataclasses.replace(scene.constraints[0], limits={})
    unlimited = evaluator.evaluate(frames)
    assert np.array_equal(unlimited.bone_to_world, bake(scene.copy(), frames).bone_to_world)


def test_world_at_is_forward_kinematics_and_read_only():
    scene = load_scene(SCENES / "foot_roll.json")
    f = float(scene.frame_start)
    world = prepare(scene).world_at(f)
    expected = forward_kinematics(Skeleton.from_scene(scene), local_transforms(scene, [f]))[0]
    assert np.array_equal(world, expected)
    assert not world.flags.writeable


def _one_by_one(scene, frames):
    """Each constraint applied alone, in file order: the evaluation without batches."""
    from app.scene.constraints.registry import solver_for

    evaluator = Evaluator(scene)
    ctx = evaluator.context(frames, until=scene.constraints[0].name)  # FK only
    for c in scene.constraints:
        solver_for(c).apply(c, ctx)
    return ctx


def test_batched_chains_give_what_one_by_one_gives():
    from tools.make_scale_scenes import rig_scene

    scene = rig_scene(tentacles=6, bodies=2, frames=48)
    frames = np.array([0.0, 13.0, 29.5, 48.0])
    evaluator = Evaluator(scene)
    batched = evaluator.context(frames)
    assert sorted(len(r) for r in evaluator._planned[3]) == [1, 1, 6]  # the chains at once
    alone = _one_by_one(scene, frames)
    assert np.array_equal(batched.bone_to_world, alone.bone_to_world)
    for c in scene.constraints[:6]:
        for key in ("iterations", "distance", "reachable"):
            assert np.array_equal(batched.info[c.name][key], alone.info[c.name][key])


def test_a_chain_reaching_for_a_bone_another_chain_moves_is_not_batched():
    from tools.make_scale_scenes import rig_scene

    scene = rig_scene(tentacles=3, bodies=0, frames=24)
    # Chain 1 now reaches for the tail of chain 0's last bone: it must see chain 0 solved.
    target = dataclasses.replace(
        scene.constraints[1].target, bone=scene.constraints[0].chain[-1], at="tail"
    )
    scene.constraints[1] = dataclasses.replace(scene.constraints[1], target=target)
    frames = np.array([0.0, 11.0])
    evaluator = Evaluator(scene)
    batched = evaluator.context(frames)
    assert [len(r) for r in evaluator._planned[3]] == [1, 2]  # 0 alone; 1 and 2 together
    alone = _one_by_one(scene, frames)
    assert np.array_equal(batched.bone_to_world, alone.bone_to_world)


def test_what_is_derived_from_a_scene_is_kept_with_it_under_one_rule(monkeypatch):
    """The prepared rig and the constraints' order live in the scene's ``derived`` cache,
    valid while the items they read are the same objects; not part of the scene's value."""
    from app.scene.constraints import order

    runs = []
    run_order = order.run_order
    monkeypatch.setattr(order, "run_order", lambda *a: runs.append(1) or run_order(*a))
    scene = load_scene(SCENES / "fabrik_arm.json")
    rig, _ = prepare(scene), order.order_of(scene)
    runs.clear()
    assert all(not isinstance(v, type(rig)) for v in vars(scene).values())  # none stashed
    copy = scene.copy()
    assert copy == scene and prepare(copy) is not rig  # a copy starts without it
    scene.bones[:] = list(scene.bones)  # the same bones in a new list: still valid
    assert prepare(scene) is rig and order.order_of(scene) and runs == []
    scene.constraints[0] = dataclasses.replace(scene.constraints[0], limits={})
    assert prepare(scene) is rig  # the rig reads the bones only
    order.order_of(scene)
    order.order_of(scene)
    assert runs == [1]  # the order reads the constraints: computed again, once
