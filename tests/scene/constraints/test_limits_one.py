"""The scalar (one-frame) limits and limited FABRIK pass against the vectorized ones."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.fabrik.chains import ChainPose, reach_from_root_limited, solve
from app.scene.constraints.fabrik.one_limited import reach_from_root_limited_one
from app.scene.rig.limits import limited_rotation
from app.scene.rig.limits_one import limited_rotation_one
from app.scene.rig.model import ConeLimit, HingeLimit

LIMITS = [
    None,
    HingeLimit(axis=(0.0, 0.0, 1.0), min=-30.0, max=120.0),
    HingeLimit(axis=(0.3, -1.0, 0.2), min=150.0, max=210.0),  # a range through 180
    HingeLimit(axis=(1.0, 0.0, 0.0), min=-400.0, max=400.0),  # the whole circle
    ConeLimit(degrees=35.0),
    ConeLimit(degrees=170.0),
    ConeLimit(degrees=50.0, twist=(-20.0, 40.0)),
]


def unit_vectors(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def rotations(rng, n):
    return Rotation.random(n, random_state=rng).as_quat(scalar_first=True)


@pytest.mark.parametrize("limit", LIMITS, ids=repr)
def test_one_bone_matches_the_vectorized_limited_rotation(rng, limit):
    n = 300
    d0, u = rotations(rng, n), unit_vectors(rng, n)
    desired = rng.normal(size=(n, 3)) * rng.uniform(0.1, 3.0, (n, 1))
    # The degenerate rows each branch has: no desired direction, the desired direction along
    # the tail now or opposite it, along the hinge axis, along the rest direction.
    current = Rotation.from_quat(d0, scalar_first=True).apply(u)
    desired[0] = 0.0
    desired[1] = 2.0 * current[1]
    desired[2] = -current[2]
    desired[3] = -current[3] + 1e-9 * unit_vectors(rng, 1)[0]
    desired[4] = -u[4]
    desired[5] = u[5]
    if isinstance(limit, HingeLimit):
        desired[6] = np.array(limit.axis) * 1.5
        u[7] = np.array(limit.axis) / np.linalg.norm(limit.axis)
    expected = limited_rotation(limit, d0, u, desired)
    got = np.array(
        [
            limited_rotation_one(limit, tuple(d0[i]), tuple(u[i]), tuple(desired[i]))
            for i in range(n)
        ]
    )
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def random_pose(rng, count, bones, limits):
    return ChainPose(
        rotations(rng, count),
        rotations(rng, bones),
        rotations(rng, count * bones).reshape(count, bones, 4),
        unit_vectors(rng, count * bones).reshape(count, bones, 3),
        tuple(limits),
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_scalar_limited_pass_matches_the_vectorized_pass(seed):
    rng = np.random.default_rng(seed)
    count, bones = 40, int(rng.integers(2, 7))
    limits = [LIMITS[int(i)] for i in rng.integers(0, len(LIMITS), bones)]
    limits[-1] = None  # a free bone after the last limit takes the plain step
    pose = random_pose(rng, count, bones, limits)
    P = rng.normal(size=(bones + 1, 3, count))
    P[2, :, :5] = P[1, :, :5]  # joints that meet: the plain step's fallback direction
    lengths = rng.uniform(0.2, 1.5, (bones, count))
    root = rng.normal(size=(3, count))
    for target in (None, rng.normal(size=(3, count)) * 5):
        expected = P.copy()
        reach_from_root_limited(expected, root, lengths, pose, target)  # vectorized (N > 1)
        for i in range(count):
            one, col = P[:, :, i : i + 1].copy(), slice(i, i + 1)
            reach_from_root_limited_one(
                one,
                root[:, col],
                lengths[:, col],
                pose.take([i]),
                None if target is None else target[:, col],
            )
            np.testing.assert_allclose(one[:, :, 0], expected[:, :, i], rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_a_limited_chain_with_a_pole_solves_alone_as_in_a_stack(seed):
    """A chain solved alone (scalar iterations) ends where the same chain solved among others
    (vectorized passes) does: every iteration done (tolerance 0), so both take the same
    steps and only rounding can differ."""
    rng = np.random.default_rng(100 + seed)
    count, bones = 30, 4
    directions = unit_vectors(rng, count * bones).reshape(count, bones, 3)
    joints = np.concatenate(
        [
            np.zeros((count, 1, 3)),
            np.cumsum(directions * rng.uniform(0.3, 1.0, (count, bones, 1)), axis=1),
        ],
        axis=1,
    )
    target = rng.normal(size=(count, 3)) * 1.5
    pole = rng.normal(size=(count, 3)) * 3
    limits = [LIMITS[1], LIMITS[4], LIMITS[6], None]
    pose = random_pose(rng, count, bones, limits)
    kwargs = dict(tolerance=0.0, max_iterations=6)
    for limited in (pose, None):  # a pole alone also takes the scalar iterations
        stacked = solve(joints, target, pole=pole, pose=limited, **kwargs)
        for i in range(count):
            one = None if limited is None else limited.take([i])
            alone = solve(
                joints[i : i + 1], target[i : i + 1], pole=pole[i : i + 1], pose=one, **kwargs
            )
            np.testing.assert_allclose(alone.joints, stacked.joints[i : i + 1], rtol=0, atol=1e-12)
            assert alone.iterations[0] == stacked.iterations[i]


@pytest.mark.parametrize("rigid", [True, False])
def test_one_frames_rotation_in_the_bone_matches_object_rotation(rng, rigid):
    from app.scene.constraints.fabrik.one_limited import object_rotation_one
    from app.scene.constraints.points_at.solver import object_rotation
    from app.scene.math.transforms import trs

    n = 60
    scale = np.ones((n, 3)) if rigid else rng.uniform(0.5, 2.0, (n, 3))
    bone_to_world = trs(rng.normal(size=(n, 3)), rotations(rng, n), scale)
    segment, aim, d0 = rng.normal(size=(n, 3)), rng.normal(size=(n, 3)) * 2, rotations(rng, n)
    for limit in LIMITS:
        expected = object_rotation(
            bone_to_world, segment, aim, rigid, limit=limit, d0=None if limit is None else d0
        )
        for i in range(n):
            got = object_rotation_one(
                bone_to_world[i : i + 1],
                segment[i : i + 1],
                aim[i : i + 1],
                rigid,
                limit,
                d0[i : i + 1],
            )
            np.testing.assert_allclose(got, expected[i : i + 1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("rigid", [True, False])
def test_the_free_bones_lean_arc_is_object_rotation_bit_for_bit(rng, rigid):
    from app.scene.constraints.fabrik.solver import _free_rotation
    from app.scene.constraints.points_at.solver import object_rotation
    from app.scene.math.transforms import transform_points, trs

    n = 50
    scale = np.ones((n, 3)) if rigid else rng.uniform(0.5, 2.0, (n, 3))
    bone_to_world = trs(rng.normal(size=(n, 3)), rotations(rng, n), scale)
    segment, aim = rng.normal(size=(n, 3)), rng.normal(size=(n, 3)) * 2
    expected = object_rotation(bone_to_world, segment, aim, rigid)
    assert np.array_equal(_free_rotation(bone_to_world, segment, aim, rigid), expected)
    # An aim on the head (no direction) and one straight behind the segment: the general path.
    aim[3] = bone_to_world[3, :3, 3]
    aim[4] = transform_points(bone_to_world[4], -segment[4])
    expected = object_rotation(bone_to_world, segment, aim, rigid)
    np.testing.assert_allclose(np.abs(expected[3]), [1, 0, 0, 0], atol=1e-9)  # identity
    assert np.array_equal(_free_rotation(bone_to_world, segment, aim, rigid), expected)
