"""The evaluations of a scene being edited (app.scene.evaluations): no Qt involved."""

import dataclasses

import numpy as np
import pytest

from app.scene.constraints.multi_parent import solver as multi_parent_solver
from app.scene.evaluate import bake
from app.scene.evaluations import AUTHORED, CURRENT, Evaluations
from app.scene.io import load_scene
from tests.helpers.paths import SCENES


@pytest.fixture
def integrations(monkeypatch):
    """How many times a multi-parent integral was computed (not read from the cache)."""
    count = [0]
    update = multi_parent_solver.update

    def counted(integral, inputs, *known):
        result = update(integral, inputs, *known)
        count[0] += result is not integral
        return result

    monkeypatch.setattr(multi_parent_solver, "update", counted)
    return count


@pytest.fixture
def evaluations():
    return Evaluations(load_scene(SCENES / "foot_roll.json"))


def test_none_and_the_current_space_share_one_evaluator_and_one_integration(
    evaluations, integrations
):
    whole = evaluations.timeline()
    assert integrations[0] == 1
    frames = [3.0, 40.5]
    some = evaluations.evaluate(frames)
    assert (
        evaluations.evaluate(frames, evaluations.space).bone_to_world.tobytes()
        == some.bone_to_world.tobytes()
    )
    evaluations.pose()
    assert integrations[0] == 1  # every question read the one integral
    assert evaluations.evaluator(None) is evaluations.evaluator(evaluations.space)
    np.testing.assert_array_equal(some.bone_to_world[0], whole.bone_to_world[3])
    # Another space integrates once more, then None means that space.
    assert evaluations.set_space("world")
    world = evaluations.evaluate(frames)
    assert integrations[0] == 2
    assert (
        evaluations.evaluate(frames, "world").bone_to_world.tobytes()
        == world.bone_to_world.tobytes()
    )
    assert integrations[0] == 2
    np.testing.assert_array_equal(
        world.bone_to_world, bake(evaluations.scene, frames, "world").bone_to_world
    )


def test_as_authored_in_one_space_is_that_space(evaluations):
    assert {c.space for c in evaluations.scene.constraints} == {"object"}
    assert evaluations.key(None) == evaluations.key("object") == "object"
    assert evaluations.key("world") == "world"
    assert evaluations.timeline(None) is evaluations.timeline("object")


def test_none_is_as_authored_and_current_is_the_current_space_each_with_its_own_key():
    """An argument of ``None`` means "as authored" (as ``set_space(None)`` does), the default
    :data:`CURRENT` the current space; no key is ``None``, and "as authored" over both
    spaces has its own key."""
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    aim = scene.constraints[0]  # in object space; the same aim in world space runs first
    scene.constraints.insert(0, dataclasses.replace(aim, name="aim first", space="world"))
    evaluations = Evaluations(scene)
    assert evaluations.set_space("world")
    assert evaluations.key() == evaluations.key(CURRENT) == "world"
    assert evaluations.key(None) == AUTHORED
    frames = [4.0, 50.0]
    authored = evaluations.evaluate(frames, None)
    world = evaluations.evaluate(frames)
    np.testing.assert_array_equal(authored.bone_to_world, bake(scene, frames).bone_to_world)
    np.testing.assert_array_equal(world.bone_to_world, bake(scene, frames, "world").bone_to_world)
    assert not np.allclose(authored.bone_to_world, world.bone_to_world)
    assert evaluations.timeline(None) is evaluations.timeline(None) is not evaluations.timeline()
    assert evaluations.cached_timeline(None) is evaluations.timeline(None)
    assert evaluations.set_space(None)
    assert evaluations.key() == AUTHORED and evaluations.timeline() is evaluations.timeline(None)


def test_poses_and_timelines_are_kept_until_an_edit(evaluations, integrations):
    timeline = evaluations.timeline()
    pose = evaluations.pose()
    assert evaluations.timeline() is timeline and evaluations.pose() is pose
    assert evaluations.cached_timeline() is timeline
    np.testing.assert_array_equal(pose.bone_to_world[0], timeline.bone_to_world[0])
    assert evaluations.set_frame(10) and not evaluations.set_frame(10)
    assert evaluations.pose().bone_to_world[0].tobytes() == timeline.bone_to_world[10].tobytes()
    # An edit: a pivot moves, so the integral and every pose are computed again.
    scene = evaluations.scene
    i = next(i for i, c in enumerate(scene.constraints) if c.type == "multi_parent")
    c = scene.constraints[i]
    pivot = dataclasses.replace(c.pivots[0], position=tuple(np.add(c.pivots[0].position, 0.25)))
    scene.constraints[i] = dataclasses.replace(c, pivots=(pivot, *c.pivots[1:]))
    assert evaluations.evaluator().stale_constraints() == [c.name]
    evaluations.edited()
    assert evaluations.cached_timeline() is None
    after = evaluations.timeline()
    assert after is not timeline and integrations[0] == 2
    assert not np.allclose(after.bone_to_world, timeline.bone_to_world)
    np.testing.assert_array_equal(after.bone_to_world, bake(scene).bone_to_world)


def test_a_scene_that_cannot_be_evaluated_says_why_and_shows_the_skeleton(evaluations):
    said = []
    evaluations.error_changed = said.append
    scene = evaluations.scene
    i = next(i for i, c in enumerate(scene.constraints) if c.type == "multi_parent")
    # Pivot keys so long that the integral would not fit in memory: refused with its place.
    scene.constraints[i] = dataclasses.replace(scene.constraints[i], substeps=10**9)
    evaluations.edited()
    pose = evaluations.pose()
    assert said and "integration steps" in said[-1] and evaluations.error == said[-1]
    assert f"constraints[{i}]" in said[-1]
    bare = scene.copy()
    bare.constraints = []
    np.testing.assert_array_equal(pose.bone_to_world, bake(bare, [0.0]).bone_to_world)
