"""The one-frame FABRIK path in plain floats against the vectorized (many-frame) one.

Oracles: scipy's ``Rotation`` for the rigid-frame helpers, numpy's inverse and products,
the vectorized limits (``violation_deg``, ``limited_rotation``), the vectorized solve of a
stack of chains, and the many-frame bake of the same scene (``bake`` of every frame runs the
general path; one frame at a time runs the float path wherever it applies).
"""

from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.fabrik import one_frame
from app.scene.constraints.fabrik.chains import solve
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.fabrik.one_limited import limited_lists, one_pose, pose_lists
from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.io import load_scene
from app.scene.math import rigid_one
from app.scene.math.transforms import inverse, trs
from app.scene.rig.keys import Keys, sample, sample_one, sample_stacked
from app.scene.rig.limits import violation_deg
from app.scene.rig.limits_one import limit_turn, limited_rotation_one, violation_deg_one
from app.scene.rig.model import Bone, ConeLimit, HingeLimit, Target
from tests.helpers.paths import SCENES
from tests.scene.constraints.test_limits_one import LIMITS, random_pose, rotations, unit_vectors
from tests.scene.constraints.test_points_at import FRAMES, random_chain_scene

CHAIN = ("b0", "b1", "b2", "b3")


def affine_rows(m):
    return m[:3].tolist()


# --- the rigid-frame helpers -----------------------------------------------------------------


def test_rotations_are_read_as_scipy_reads_them_on_every_pivot(rng):
    q = rotations(rng, 200)
    # Half turns about each axis and near them: Shepperd's x, y and z pivots.
    q[:3] = [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    q[3:6] = Rotation.from_rotvec(np.eye(3) * (np.pi - 1e-3)).as_quat(scalar_first=True)
    matrices = Rotation.from_quat(q, scalar_first=True).as_matrix()
    for quat, m in zip(q, matrices):
        rows = [list(r) + [0.0] for r in m.tolist()]
        assert rigid_one.is_rotation(rows)
        got = np.array(rigid_one.quat_from_rotation(rows))
        assert got[0] >= 0
        np.testing.assert_allclose(got, quat if quat[0] >= 0 else -quat, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rigid_one.rotation_rows(got), m, rtol=0, atol=1e-15)


def test_only_rotations_to_rounding_are_read_directly(rng):
    m = Rotation.random(random_state=rng).as_matrix()
    rows = lambda a: [list(r) + [0.0] for r in a.tolist()]  # noqa: E731
    assert rigid_one.is_rotation(rows(m))
    assert rigid_one.is_rotation(rows(m * (1 + 1e-14)))  # rounding of sampled keys
    assert not rigid_one.is_rotation(rows(m * 1.001))  # a uniform scale
    assert not rigid_one.is_rotation(rows(m @ np.diag([1.0, 1.0, 1.2])))  # non-uniform
    assert not rigid_one.is_rotation(rows(m @ np.array([[1, 0.01, 0], [0, 1, 0], [0, 0, 1]])))
    assert not rigid_one.is_rotation(rows(m @ np.diag([1.0, 1.0, -1.0])))  # a reflection


def test_products_and_inverses_match_numpy(rng):
    n = 40
    a = trs(rng.normal(size=(n, 3)), rotations(rng, n), np.ones((n, 3)))
    b = trs(rng.normal(size=(n, 3)), rotations(rng, n), rng.uniform(0.5, 2, (n, 3)))
    q, p = rotations(rng, n), rng.normal(size=(n, 3))
    rot4 = trs(np.zeros((n, 3)), q, np.ones((n, 3)))
    for i in range(n):
        A, B = affine_rows(a[i]), affine_rows(b[i])
        np.testing.assert_allclose(rigid_one.compose(A, B), (a[i] @ b[i])[:3], atol=1e-14)
        np.testing.assert_allclose(rigid_one.relative(A, B), (inverse(a[i]) @ b[i])[:3], atol=1e-14)
        np.testing.assert_allclose(
            rigid_one.turned(B, tuple(q[i])), (b[i] @ rot4[i])[:3], atol=1e-14
        )
        np.testing.assert_allclose(
            rigid_one.point_in(A, p[i]), (inverse(a[i]) @ np.append(p[i], 1))[:3], atol=1e-14
        )
        np.testing.assert_allclose(
            rigid_one.point_out(B, p[i]), (b[i] @ np.append(p[i], 1))[:3], atol=1e-14
        )


# --- limits: the violation and the prepared turn ------------------------------------------------


@pytest.mark.parametrize("limit", LIMITS, ids=repr)
def test_the_scalar_violation_matches_the_vectorized_one(rng, limit):
    n = 300
    d, u = rotations(rng, n), unit_vectors(rng, n)
    if limit is not None and isinstance(limit, HingeLimit):  # allowed rotations measure 0
        axis = np.array(limit.axis) / np.linalg.norm(limit.axis)
        angles = np.radians(rng.uniform(limit.min, limit.max, 50))
        d[:50] = Rotation.from_rotvec(angles[:, None] * axis).as_quat(scalar_first=True)
    expected = violation_deg(limit, d, u)
    got = np.array([violation_deg_one(limit, tuple(d[i]), tuple(u[i])) for i in range(n)])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert np.array_equal(got == 0, expected == 0)
    if isinstance(limit, HingeLimit):
        assert np.all(got[:50] == 0) and np.any(got[50:] > 1)


@pytest.mark.parametrize("limit", LIMITS, ids=repr)
def test_the_prepared_turn_is_the_limited_rotation_bit_for_bit(rng, limit):
    n = 200
    d0, u = rotations(rng, n), unit_vectors(rng, n)
    desired = rng.normal(size=(n, 3))
    current = Rotation.from_quat(d0, scalar_first=True).apply(u)
    desired[0] = 0.0  # nowhere to point
    desired[1] = -current[1]  # straight behind: the half turn
    desired[2] = 3.0 * current[2]
    if isinstance(limit, HingeLimit):
        desired[3] = np.array(limit.axis) * 2.0  # along the axis: the current angle
        u[4] = np.array(limit.axis) / np.linalg.norm(limit.axis)
    for i in range(n):
        args = tuple(d0[i]), tuple(u[i])
        turn = limit_turn(limit, *args)
        assert turn(tuple(desired[i])) == limited_rotation_one(
            limit, args[0], args[1], tuple(desired[i])
        )


def test_the_limited_stage_reads_one_pose_as_from_a_chain_pose(rng):
    limits = (LIMITS[1], None, LIMITS[6], LIMITS[4], None)
    pose = random_pose(rng, 1, 5, limits)
    joints = rng.normal(size=(6, 3)).tolist()
    lengths = rng.uniform(0.3, 1.0, 5).tolist()
    a, b = [list(p) for p in joints], [list(p) for p in joints]
    limited_lists(a, joints[0], lengths, pose_lists(pose), None)
    limited_lists(
        b,
        joints[0],
        lengths,
        one_pose(
            tuple(pose.parent_rotation[0]),
            pose.rest_rotation.tolist(),
            pose.d0[0].tolist(),
            pose.segment[0].tolist(),
            limits,
        ),
        None,
    )
    assert a == b and a != joints


# --- the solve ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_the_float_solve_matches_the_vectorized_solve_of_a_stack(seed):
    """Chains with and without pole and limits, reachable or not: each solved alone on
    floats ends where the stack of all of them (vectorized passes) does."""
    rng = np.random.default_rng(300 + seed)
    count, bones = 24, 4
    directions = unit_vectors(rng, count * bones).reshape(count, bones, 3)
    joints = np.concatenate(
        [
            np.zeros((count, 1, 3)),
            np.cumsum(directions * rng.uniform(0.3, 1.0, (count, bones, 1)), axis=1),
        ],
        axis=1,
    )
    target = rng.normal(size=(count, 3)) * 1.5
    target[:4] *= 10  # out of reach
    pole = rng.normal(size=(count, 3)) * 3
    limits = [LIMITS[int(i)] for i in rng.integers(0, len(LIMITS), bones)]
    pose = random_pose(rng, count, bones, limits) if seed % 3 else None
    use_pole = seed % 2 == 0
    kwargs = dict(tolerance=1e-6 if seed < 3 else 0.0, max_iterations=8)
    stacked = solve(joints, target, pole=pole if use_pole else None, pose=pose, **kwargs)
    limited = pose is not None and any(lim is not None for lim in limits)
    for i in range(count):
        lists = pose_lists(pose.take([i])) if limited else None
        got = one_frame.solve_lists(
            joints[i].tolist(),
            target[i].tolist(),
            kwargs["tolerance"],
            kwargs["max_iterations"],
            pole[i].tolist() if use_pole else None,
            lists,
        )
        assert got is not None
        P, iterations, reachable = got
        np.testing.assert_allclose(P, stacked.joints[i], rtol=0, atol=1e-12)
        assert iterations == stacked.iterations[i]
        assert reachable == stacked.reachable[i]


def test_the_float_solve_hands_a_straight_chain_to_the_vectorized_one():
    joints = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]]
    pose = one_pose(
        (1.0, 0.0, 0.0, 0.0),
        [(1.0, 0.0, 0.0, 0.0)] * 3,
        [(1.0, 0.0, 0.0, 0.0)] * 3,
        [(1.0, 0.0, 0.0)] * 3,
        (None, HingeLimit(axis=(0, 0, 1), min=0, max=90), None),
    )
    assert one_frame.solve_lists(joints, [2.0, 0.0, 0.0], 1e-4, 10, None, pose) is None
    assert one_frame.solve_lists(joints, [2.0, 1.0, 0.0], 1e-4, 10, None, pose) is not None


# --- the constraint at one frame against the bake of every frame ----------------------------


def limited_scene(rng, *, scale="none", pole=True, limits=True, keyed_target=True, branch=False):
    scene = random_chain_scene(rng, 4, scale=scale)
    if keyed_target:
        target = Target(
            position_keys=Keys(
                np.array([0.0, 5.0, 12.0]), rng.normal(size=(3, 3)), ("ease", "constant", "linear")
            )
        )
    else:
        target = Target(bone="mover", at="tail")
    chosen = {}
    if limits:
        chosen = {
            "b1": HingeLimit(axis=tuple(rng.normal(size=3)), min=-20.0, max=110.0),
            "b2": ConeLimit(degrees=40.0, twist=(-30.0, 30.0)),
            "b0": ConeLimit(degrees=70.0),
        }
    scene.constraints = [
        Fabrik(
            name="ik",
            chain=CHAIN,
            target=target,
            limits=chosen,
            pole=Target(position=tuple(rng.normal(size=3) * 3)) if pole else None,
            tolerance=1e-5,
            max_iterations=30,
        )
    ]
    if branch:  # a side bone on the chain: it follows the turned b1
        side = Bone(name="side", parent="b1", translation=(0.2, 0.1, 0.0))
        scene.bones = list(scene.bones) + [side]
    return scene


def assert_one_frame_is_the_bake(scene, frames=FRAMES, space=None):
    every = bake(scene, frames, space=space)
    evaluator = Evaluator(scene)
    for i, f in enumerate(frames):
        one = evaluator.evaluate([f], space=space)
        np.testing.assert_allclose(one.bone_to_world[0], every.bone_to_world[i], rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            one.limit_violation_deg[0], every.limit_violation_deg[i], rtol=0, atol=1e-9
        )
        for key, values in every.info["ik"].items():
            np.testing.assert_allclose(one.info["ik"][key], values[i : i + 1], rtol=0, atol=1e-12)
            assert one.info["ik"][key].dtype == values.dtype


@pytest.mark.parametrize("seed", range(6))
def test_one_frame_of_a_rigid_chain_is_the_bake_of_that_frame(seed, monkeypatch):
    rng = np.random.default_rng(400 + seed)
    scene = limited_scene(
        rng, pole=seed % 2 == 0, limits=seed % 3 != 2, keyed_target=seed < 4, branch=seed in (1, 4)
    )
    taken = []
    original = one_frame.apply_one
    monkeypatch.setattr(
        "app.scene.constraints.fabrik.solver.apply_one",
        lambda *a: taken.append(original(*a)) or taken[-1],
    )
    assert_one_frame_is_the_bake(scene)
    assert len(taken) >= len(FRAMES) and all(taken[-len(FRAMES) :])  # the float path ran


def test_a_scaled_chain_and_world_space_take_the_general_path(rng, monkeypatch):
    taken = []
    monkeypatch.setattr(
        "app.scene.constraints.fabrik.solver.apply_one", lambda *a: taken.append(a) or True
    )
    scene = limited_scene(rng, scale="uniform")
    assert_one_frame_is_the_bake(scene)
    assert_one_frame_is_the_bake(limited_scene(rng), space="world")
    assert taken == []


def test_a_frame_that_is_not_a_rotation_goes_back_to_the_general_path(rng):
    """An upstream write with scale (here: a scaled frame put into the context by hand) is
    what the polar decomposition of the general path gives its meaning."""
    scene = limited_scene(rng)
    evaluator = Evaluator(scene)
    ctx = evaluator.context([4.0], until="ik")
    b1 = scene.bone_index("b1")
    ctx.bone_to_world[0, b1, :3, :3] *= 1.01
    before = ctx.bone_to_world.copy()
    rig = ctx.rig
    from app.scene.constraints.fabrik.solver import _static_of

    static = rig.static(scene.constraints[0], lambda c: _static_of(c, scene, ctx.skeleton))
    assert one_frame.apply_one(scene.constraints[0], ctx, static) is False
    assert np.array_equal(ctx.bone_to_world, before) and ctx.info == {}


def test_bad_input_at_one_frame_is_refused_as_in_a_bake(rng):
    scene = limited_scene(rng)
    bad = replace(scene.constraints[0], target=Target(position=(np.nan, 0.0, 0.0)))
    scene.constraints = [bad]
    for frames in ([3.0], FRAMES):
        with pytest.raises(SceneError) as error:
            bake(scene, frames)
        assert error.value.path == "constraints[0].target"


def test_the_shipped_arm_at_one_frame_is_its_bake():
    scene = load_scene(SCENES / "fabrik_arm.json")
    frames = np.arange(scene.frame_start, scene.frame_end + 1, 1.0)
    every = bake(scene, frames)
    evaluator = Evaluator(scene)
    for i in range(0, len(frames), 3):
        one = evaluator.evaluate([frames[i]])
        np.testing.assert_allclose(one.bone_to_world[0], every.bone_to_world[i], rtol=0, atol=1e-12)
        assert (
            one.info["arm reaches"]["iterations"][0] == every.info["arm reaches"]["iterations"][i]
        )


# --- sampling at one frame ---------------------------------------------------------------------


def test_one_frame_sampling_is_the_many_frame_sampling_bit_for_bit(rng):
    key_frames = np.array([0.0, 3.0, 4.5, 10.0, 11.0])
    kinds = ("linear", "ease", "constant", "ease", "linear")
    frames = np.concatenate([[-2.0, 0.0, 3.0, 4.5, 10.0, 11.0, 15.0], rng.uniform(-1, 12, 30)])
    for codes_from in (None, kinds):
        keys = Keys(key_frames, rng.normal(size=(5, 3)), codes_from)
        many = sample((0.0, 0.0, 0.0), keys, frames)
        for f, expected in zip(frames, many):
            assert sample_one((0.0, 0.0, 0.0), keys, float(f)) == expected.tolist()
        for rotation in (False, True):
            values = rotations(rng, 15).reshape(3, 5, 4) if rotation else rng.normal(size=(3, 5, 3))
            stacked = sample_stacked(key_frames, values, keys.codes, frames, rotation)
            for j, f in enumerate(frames):
                one = sample_stacked(key_frames, values, keys.codes, np.array([f]), rotation)
                assert np.array_equal(one, stacked[:, j : j + 1])
    assert sample_one((1.0, 2.0, 3.0), None, 4.0) == [1.0, 2.0, 3.0]
    single = Keys(np.array([2.0]), np.array([[1.0, 2.0, 3.0]]))
    assert sample_one((0.0, 0.0, 0.0), single, 9.0) == [1.0, 2.0, 3.0]


def test_one_frame_of_the_prepared_rig_is_its_many_frame_sampling_bit_for_bit(rng):
    """Bones keyed on different frames (several groups), with every interpolation, a single
    key and no keys: the one-frame sampling interpolates all groups in one pass."""
    kinds = ("linear", "ease", "constant", "linear")
    key_sets = [
        np.array([0.0, 4.0, 9.0, 12.0]),
        np.array([1.0, 5.5, 8.0, 11.0]),
        np.array([0.0, 2.0, 3.0, 12.0]),
    ]
    bones = []
    for i in range(9):
        frames = key_sets[i % 3]
        rot = Keys(frames, rotations(rng, 4), kinds if i % 2 else None) if i != 4 else None
        pos = Keys(frames, rng.normal(size=(4, 3)), kinds if i % 3 else None) if i % 4 else None
        if i == 7:
            rot = Keys(np.array([3.0]), rotations(rng, 1))
        bones.append(
            Bone(
                name=f"b{i}",
                parent=f"b{i - 1}" if i else None,
                translation=tuple(rng.normal(size=3)),
                rotation_keys=rot,
                translation_keys=pos,
            )
        )
    from app.scene.rig.model import Scene
    from app.scene.rig.prepared import prepare

    rig = prepare(Scene(bones=bones, frame_start=0, frame_end=12))
    assert len(rig._rotation.groups) > 1 and len(rig._translation.groups) > 1
    frames = np.concatenate([np.arange(-1.0, 14.0, 0.5), rng.uniform(0, 12, 20)])
    many = rig.local_transforms(frames)
    for i, f in enumerate(frames):
        assert np.array_equal(rig.local_transforms([f])[0], many[i])


@pytest.mark.parametrize("far", [False, True])
def test_a_chain_from_a_root_bone_and_out_of_reach_targets_at_one_frame(rng, far, monkeypatch):
    """The chain's root has no parent (its frame is the world's), and targets far out of
    reach get the limited pass aiming every bone at them, as in the bake."""
    scene = random_chain_scene(rng, 3, scale="none")
    positions = rng.normal(size=(3, 3)) * (30.0 if far else 1.0)
    scene.constraints = [
        Fabrik(
            name="ik",
            chain=("base", "b0", "b1", "b2"),
            target=Target(position_keys=Keys(np.array([0.0, 6.0, 12.0]), positions)),
            limits={
                "b0": HingeLimit(axis=(0.0, 0.0, 1.0), min=-60.0, max=60.0),
                "b1": ConeLimit(degrees=30.0),
            },
            pole=Target(position=(0.5, 2.0, -1.0)),
            tolerance=1e-6,
            max_iterations=25,
        )
    ]
    taken = []
    original = one_frame.apply_one
    monkeypatch.setattr(
        "app.scene.constraints.fabrik.solver.apply_one",
        lambda *a: taken.append(original(*a)) or taken[-1],
    )
    assert_one_frame_is_the_bake(scene)
    assert all(taken[-len(FRAMES) :])
    reachable = bake(scene, FRAMES).info["ik"]["reachable"]
    assert not np.any(reachable) if far else np.any(reachable)
