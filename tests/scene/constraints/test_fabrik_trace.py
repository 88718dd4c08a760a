"""FABRIK one pass at a time: the trace is the solver's own run, pass by pass."""

import numpy as np
import pytest

from app.scene.constraints.fabrik import solver as fabrik
from app.scene.constraints.fabrik.chains import ChainPose, solve
from app.scene.constraints.fabrik.trace import trace
from app.scene.evaluate import Evaluator, bake
from app.scene.io import load_scene
from app.scene.rig.model import ConeLimit
from tests.helpers.paths import SCENES
from tests.scene.constraints.test_fabrik_chains import random_chains, random_targets


def paper_passes(p, t, tol, max_iterations):
    """Aristidou & Lasenby 2011, Algorithm 1, keeping the joints after every stage.

    Written from the paper, independently of the solver: a reachable target alternates the
    stage from the end effector (the paper's "forward reaching") and the one from the root
    ("backward reaching"); an unreachable one lays the chain straight in one stage.
    """
    p = [np.array(x, dtype=float) for x in p]
    n = len(p)
    d = [np.linalg.norm(p[i + 1] - p[i]) for i in range(n - 1)]
    stages = [("start", np.array(p))]
    if np.linalg.norm(p[0] - t) > sum(d):
        for i in range(n - 1):
            lam = d[i] / np.linalg.norm(t - p[i])
            p[i + 1] = (1 - lam) * p[i] + lam * t
        return stages + [("straight", np.array(p))]
    b = p[0].copy()
    iterations = 0
    while np.linalg.norm(p[n - 1] - t) > tol and iterations < max_iterations:
        p[n - 1] = t.copy()
        for i in range(n - 2, -1, -1):
            lam = d[i] / np.linalg.norm(p[i + 1] - p[i])
            p[i] = (1 - lam) * p[i + 1] + lam * p[i]
        stages.append(("from_tip", np.array(p)))
        p[0] = b.copy()
        for i in range(n - 1):
            lam = d[i] / np.linalg.norm(p[i + 1] - p[i])
            p[i + 1] = (1 - lam) * p[i] + lam * p[i + 1]
        stages.append(("from_root", np.array(p)))
        iterations += 1
    return stages


@pytest.mark.parametrize("bones", [1, 3, 6])
def test_every_pass_matches_the_papers_algorithm(rng, bones):
    joints = random_chains(rng, 60, bones)
    targets = random_targets(rng, joints)
    for j, t in zip(joints, targets):
        ours = trace(j, t, tolerance=1e-6, max_iterations=25)
        expected = paper_passes(j, t, 1e-6, 25)
        assert [s.kind for s in ours.stages] == [k for k, _ in expected]
        for stage, (_, joints_then) in zip(ours.stages, expected):
            np.testing.assert_allclose(stage.joints, joints_then, rtol=0, atol=1e-9)
            assert stage.tail_distance == pytest.approx(np.linalg.norm(joints_then[-1] - t))
        iterations = [s.iteration for s in ours.stages if s.kind in ("from_root", "straight")]
        assert iterations == list(range(1, int(ours.solution.iterations[0]) + 1))


@pytest.mark.parametrize("bones", [2, 4])
def test_the_last_pass_is_the_solvers_result_bit_for_bit(rng, bones):
    joints = random_chains(rng, 40, bones)
    targets = random_targets(rng, joints)
    poles = joints[:, 0] + rng.normal(size=(40, 3))
    for k in range(40):
        for pole in (None, poles[k]):  # the pole takes the vectorized path
            kwargs = dict(tolerance=1e-5, max_iterations=20)
            ours = trace(joints[k], targets[k], pole=pole, **kwargs)
            alone = solve(
                joints[k][None],
                targets[k][None],
                pole=None if pole is None else pole[None],
                **kwargs,
            )
            np.testing.assert_array_equal(ours.stages[-1].joints, alone.joints[0])
            np.testing.assert_array_equal(ours.solution.joints, alone.joints)
            assert ours.solution.iterations[0] == alone.iterations[0]
            if pole is not None and alone.reachable[0]:
                assert ours.stages[1].kind == "shaped"  # swung towards the pole first


def test_passes_from_the_tip_move_the_root_and_passes_from_the_root_put_it_back(rng):
    joints = random_chains(rng, 1, 4)[0]
    target = random_targets(rng, joints[None], reachable_fraction=1.0)[0]
    ours = trace(joints, target, tolerance=1e-9, max_iterations=8)
    for stage in ours.stages[1:]:
        if stage.kind == "from_tip":
            assert stage.tail_distance == pytest.approx(0.0, abs=1e-12)
            assert stage.root_offset > 0
        else:
            assert stage.root_offset == 0.0
    # Every stage keeps the bones' lengths.
    lengths = np.linalg.norm(np.diff(joints, axis=0), axis=1)
    for stage in ours.stages:
        np.testing.assert_allclose(
            np.linalg.norm(np.diff(stage.joints, axis=0), axis=1), lengths, rtol=1e-12
        )
    assert ours.distances()[-1] < ours.distances()[0]


def test_limits_and_an_out_of_reach_target_are_traced_too(rng):
    joints = np.array([[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0]], float)
    rest = np.tile([1.0, 0, 0, 0], (3, 1))
    pose = ChainPose(
        np.array([[1.0, 0, 0, 0]]),
        rest,
        np.tile(rest, (1, 1, 1)),
        np.tile([0.0, 1.0, 0.0], (1, 3, 1)),
        (None, ConeLimit(degrees=30.0), ConeLimit(degrees=30.0)),
    )
    for target in ([2.0, 1.0, 0.0], [9.0, 9.0, 0.0]):
        ours = trace(joints, target, tolerance=1e-6, max_iterations=20, pose=pose)
        alone = solve(
            joints[None], np.array([target]), tolerance=1e-6, max_iterations=20, pose=pose
        )
        np.testing.assert_array_equal(ours.stages[-1].joints, alone.joints[0])
        assert ours.stages[1].kind == "limits"


def test_recording_follows_one_chain_only(rng):
    joints = random_chains(rng, 2, 3)
    with pytest.raises(ValueError, match="one chain"):
        solve(joints, joints[:, -1], record=lambda *a: None)


@pytest.mark.parametrize("space", ["object", "world"])
@pytest.mark.parametrize("frame", [0.0, 17.0, 63.0, 101.0])
def test_the_constraint_trace_ends_where_the_evaluation_puts_the_joints(space, frame):
    scene = load_scene(SCENES / "fabrik_arm.json")
    c = scene.constraints[0]
    ctx = Evaluator(scene).context([frame], space, until=c.name)
    ours = fabrik.trace(c, ctx)
    baked = bake(scene, [frame], space=space)
    idx = [scene.bone_index(n) for n in c.chain]
    expected = np.concatenate([baked.heads[0, idx], baked.tails[0, idx[-1:]]])
    # The bones are turned towards the solved joints: equal up to that rotation's rounding
    # (in object space the hinge may hold a joint back: then only the root and the
    # unconstrained part agree, which the scene's frames here do not need).
    np.testing.assert_allclose(ours.stages[-1].joints, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.stages[0].joints[0], baked.heads[0, idx[0]], atol=1e-12)
    assert ours.solution.iterations[0] == baked.info[c.name]["iterations"][0]
