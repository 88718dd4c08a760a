"""The batch FABRIK solver against the paper's pseudocode, and what the paper leaves out."""

import numpy as np
import pytest

from app.scene.constraints.fabrik.chains import ChainError, segment_lengths, solve


def paper_fabrik(p, t, tol, max_iterations):
    """Aristidou & Lasenby 2011, Algorithm 1, line by line (plus the iteration cap).

    ``p`` are the joints p_1 .. p_n, ``t`` the target, ``d_i = |p_{i+1} - p_i|``.
    """
    p = [np.array(x, dtype=float) for x in p]
    n = len(p)
    d = [np.linalg.norm(p[i + 1] - p[i]) for i in range(n - 1)]
    dist = np.linalg.norm(p[0] - t)
    if dist > sum(d):  # the target is unreachable
        for i in range(n - 1):
            r = np.linalg.norm(t - p[i])
            lam = d[i] / r
            p[i + 1] = (1 - lam) * p[i] + lam * t
        return np.array(p), 1
    b = p[0].copy()  # the target is reachable; b is the initial position of p_1
    dif_a = np.linalg.norm(p[n - 1] - t)
    iterations = 0
    while dif_a > tol and iterations < max_iterations:
        # Stage 1: forward reaching
        p[n - 1] = t.copy()
        for i in range(n - 2, -1, -1):
            r = np.linalg.norm(p[i + 1] - p[i])
            lam = d[i] / r
            p[i] = (1 - lam) * p[i + 1] + lam * p[i]
        # Stage 2: backward reaching
        p[0] = b.copy()
        for i in range(n - 1):
            r = np.linalg.norm(p[i + 1] - p[i])
            lam = d[i] / r
            p[i + 1] = (1 - lam) * p[i] + lam * p[i + 1]
        dif_a = np.linalg.norm(p[n - 1] - t)
        iterations += 1
    return np.array(p), iterations


def random_chains(rng, count, bones):
    directions = rng.normal(size=(count, bones, 3))
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    lengths = rng.uniform(0.2, 1.5, (count, bones, 1))
    start = rng.normal(size=(count, 1, 3))
    return np.concatenate([start, start + np.cumsum(directions * lengths, axis=1)], axis=1)


def random_targets(rng, joints, reachable_fraction=0.7):
    """Targets in the chain's workspace (between its inner and outer reach) or beyond it.

    Reachable ones keep 2% away from the workspace's boundaries, where FABRIK (like every
    iterative solver) converges slowly: the chain is then nearly straight or folded.
    """
    lengths = segment_lengths(joints)
    reach = lengths.sum(axis=1)
    inner = np.maximum(2 * lengths.max(axis=1) - reach, 0.0)  # a long bone leaves a hole
    direction = rng.normal(size=(len(joints), 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    near = rng.uniform(size=len(joints)) < reachable_fraction
    lo, hi = inner + 0.02 * reach, 0.98 * reach
    inside = lo + (hi - lo) * rng.uniform(0.0, 1.0, len(joints)) ** (1 / 3)
    radius = np.where(near, inside, reach * rng.uniform(1.01, 2, len(joints)))
    return joints[:, 0] + direction * radius[:, None]


@pytest.mark.parametrize("bones", [1, 2, 3, 10])
def test_agrees_with_the_papers_pseudocode(rng, bones):
    joints = random_chains(rng, 400, bones)
    targets = random_targets(rng, joints)
    ours = solve(joints, targets, tolerance=1e-5, max_iterations=30)
    for i in range(len(joints)):
        expected, iterations = paper_fabrik(joints[i], targets[i], 1e-5, 30)
        np.testing.assert_allclose(ours.joints[i], expected, rtol=0, atol=1e-9)
        assert ours.iterations[i] == iterations
    one = solve(joints[:1], targets[:1], tolerance=1e-5, max_iterations=30)  # the scalar path
    np.testing.assert_allclose(one.joints, ours.joints[:1], rtol=0, atol=1e-12)
    assert one.iterations[0] == ours.iterations[0]


def test_batch_equals_a_loop_over_single_chains(rng):
    joints = random_chains(rng, 300, 6)
    targets = random_targets(rng, joints)
    pole = targets + rng.normal(size=targets.shape)
    for kwargs in ({}, {"pole": pole}):
        batch = solve(joints, targets, tolerance=1e-6, max_iterations=50, **kwargs)
        for i in range(len(joints)):
            single = solve(
                joints[i : i + 1],
                targets[i],
                tolerance=1e-6,
                max_iterations=50,
                **{k: v[i] for k, v in kwargs.items()},
            )
            np.testing.assert_allclose(single.joints[0], batch.joints[i], rtol=0, atol=1e-11)
            assert single.iterations[0] == batch.iterations[i]


def test_reachable_targets_are_reached_and_lengths_kept(rng):
    joints = random_chains(rng, 2000, 10)
    targets = random_targets(rng, joints, reachable_fraction=1.0)
    result = solve(joints, targets, tolerance=1e-6, max_iterations=1000)
    assert result.reachable.all()
    assert result.distance.max() <= 1e-6
    np.testing.assert_allclose(segment_lengths(result.joints), segment_lengths(joints), atol=1e-9)
    np.testing.assert_array_equal(result.joints[:, 0], joints[:, 0])
    assert np.median(result.iterations) > 1


def test_unreachable_targets_leave_the_chain_straight_and_pointing_at_them(rng):
    joints = random_chains(rng, 500, 7)
    targets = random_targets(rng, joints, reachable_fraction=0.0)
    result = solve(joints, targets)
    assert not result.reachable.any()
    aim = targets - joints[:, 0]
    aim /= np.linalg.norm(aim, axis=-1, keepdims=True)
    segments = np.diff(result.joints, axis=1)
    directions = segments / np.linalg.norm(segments, axis=-1, keepdims=True)
    np.testing.assert_allclose(
        directions, np.broadcast_to(aim[:, None], directions.shape), atol=1e-12
    )
    np.testing.assert_allclose(segment_lengths(result.joints), segment_lengths(joints), atol=1e-12)
    reach = segment_lengths(joints).sum(axis=1)
    np.testing.assert_allclose(
        result.distance, np.linalg.norm(targets - joints[:, 0], axis=-1) - reach, atol=1e-12
    )
    assert np.all(result.iterations == 1)


def test_a_pole_sets_the_bend_plane_and_side(rng):
    joints = random_chains(rng, 500, 4)
    targets = random_targets(rng, joints, reachable_fraction=1.0) * 0.999
    targets = joints[:, 0] + 0.9 * (targets - joints[:, 0])
    pole = joints[:, 0] + rng.normal(size=targets.shape) * 3
    result = solve(joints, targets, tolerance=1e-7, max_iterations=500, pole=pole)
    assert result.distance.max() <= 1e-7
    root = joints[:, 0]
    normal = np.cross(targets - root, pole - root)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
    off_plane = np.einsum("njk,nk->nj", result.joints - root[:, None], normal)
    assert np.abs(off_plane).max() < 1e-9
    axis = (targets - root) / np.linalg.norm(targets - root, axis=-1, keepdims=True)
    side = np.cross(normal, axis)  # in the plane, across the axis, towards the pole
    side *= np.sign(np.einsum("nk,nk->n", pole - root, side))[:, None]
    across = np.einsum("njk,nk->nj", result.joints[:, 1:-1] - root[:, None], side)
    assert np.mean(across.max(axis=1) > 1e-6) > 0.99  # the chains bend towards the pole
    assert np.mean(across >= -1e-9) > 0.95  # and almost every joint lies on its side


def straight_chain(bones=4, length=1.0):
    return np.array([[[0.0, k * length, 0.0] for k in range(bones + 1)]])


@pytest.mark.parametrize("where", [0.6, -0.3])
def test_a_straight_chain_with_the_target_on_its_axis_still_bends(where):
    joints = straight_chain()
    target = np.array([0.0, where * 4.0, 0.0])
    expected, _ = paper_fabrik(joints[0], target, 1e-6, 100)
    assert np.linalg.norm(expected[-1] - target) > 0.1  # the known failure: folds on its line
    result = solve(joints, target, tolerance=1e-6, max_iterations=100)
    assert result.distance[0] <= 1e-6
    assert np.abs(result.joints[0, :, [0, 2]]).max() > 0.05  # off the line
    again = solve(joints, target, tolerance=1e-6, max_iterations=100)
    np.testing.assert_array_equal(again.joints, result.joints)  # deterministic
    bent = solve(joints, target, tolerance=1e-6, max_iterations=100, bend=[0.0, 0.0, -1.0])
    assert bent.distance[0] <= 1e-6
    assert np.abs(bent.joints[0, :, 0]).max() < 1e-12  # in the plane of the hint
    assert bent.joints[0, 1:-1, 2].min() < -0.05
    pole = solve(joints, target, tolerance=1e-6, max_iterations=100, pole=[3.0, 1.0, 0.0])
    assert pole.distance[0] <= 1e-6
    assert np.abs(pole.joints[0, :, 2]).max() < 1e-12  # in the plane of root, target and pole
    assert pole.joints[0, 1:-1, 0].max() > 0.05
    if where > 0:  # reaching forwards, the chain bows out to one side: the hint's, the pole's
        assert bent.joints[0, 1:-1, 2].max() <= 1e-12
        assert pole.joints[0, 1:-1, 0].min() >= -1e-12


def test_bad_chains_are_refused_naming_the_chain_and_segment(rng):
    joints = random_chains(rng, 5, 3)
    joints[3, 2] = joints[3, 1]
    with pytest.raises(ChainError, match="chain 3, segment 1: segment has zero length") as e:
        solve(joints, joints[:, -1])
    assert (e.value.chain, e.value.segment) == (3, 1)
    joints = random_chains(rng, 5, 3)
    targets = joints[:, -1].copy()
    targets[2, 1] = np.nan
    with pytest.raises(ChainError, match="chain 2: the target is not finite"):
        solve(joints, targets)
    with pytest.raises(ChainError, match="chain 0: the pole is not finite"):
        solve(joints, joints[:, -1], pole=np.full(3, np.inf))
