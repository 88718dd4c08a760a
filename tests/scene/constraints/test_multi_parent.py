"""The multi-parent constraint against the seed's equations, its closed forms and its promises."""

import dataclasses

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.multi_parent.plan import MAX_PIVOT_STEP_ANGLE
from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene
from tests.scene.rig.test_multi_parent_reference import literal, pivot_rotation, rotation_keys

X, Y, Z = np.eye(3)


def about(axis, degrees):
    return Rotation.from_rotvec(np.radians(np.asarray(degrees, float))[..., None] * axis)


def body_matrix(q, p, scale):
    """``T(p) R(q) S(scale)`` from scipy, ``(F, 4, 4)``."""
    m = np.zeros((len(q), 4, 4))
    m[:, :3, :3] = Rotation.from_quat(q, scalar_first=True).as_matrix() * np.asarray(scale)
    m[:, :3, 3] = p
    m[:, 3, 3] = 1.0
    return m


def make_scene(
    pivots,
    *,
    body=None,
    substeps=4,
    space="object",
    integrator="seed",
    frame_start=0,
    frame_end=24,
    bones=(),
):
    body = body or Bone(name="body", translation=(0.2, 1.0, -0.3))
    constraint = MultiParent(
        name="mp",
        body=body.name,
        pivots=tuple(pivots),
        substeps=substeps,
        space=space,
        integrator=integrator,
    )
    return Scene(
        bones=[body, *bones], constraints=[constraint], frame_start=frame_start, frame_end=frame_end
    )


def random_pivots(rng, spread=25.0):
    """Three pivots with keys on and off the grid, one sliding along the body."""

    def keys(frames):
        turns = [Rotation.identity()]
        for _ in frames[1:]:
            turns.append(about(rng.normal(size=3) / 1.7, rng.uniform(-spread, spread)) * turns[-1])
        return rotation_keys(frames, Rotation.concatenate(turns))

    return [
        Pivot(name="heel", position=(0.1, -0.2, -0.3), rotation_keys=keys([0, 5, 12, 20])),
        Pivot(name="ball", position=(-0.1, -0.2, 0.4), rotation_keys=keys([2, 7.5, 10.3, 16])),
        Pivot(
            name="slide",
            position=(0.0, 0.3, 0.0),
            rotation_keys=keys([1, 9, 18]),
            position_keys=Keys([3.0, 11.0], [[0.0, 0.3, 0.0], [0.2, -0.1, 0.5]]),
        ),
    ]


@pytest.mark.parametrize("space", ["world", "object"])
@pytest.mark.parametrize("integrator", ["seed", "twist"])
@pytest.mark.parametrize("substeps", [1, 3, 4])
def test_agrees_with_a_literal_loop_of_the_update_equations(rng, space, integrator, substeps):
    body = Bone(
        name="body",
        translation=(0.2, 1.0, -0.3),
        scale=(1.0, 2.0, 0.5),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    pivots = random_pivots(rng)
    scene = make_scene(pivots, body=body, substeps=substeps, space=space, integrator=integrator)
    frames = np.concatenate([np.arange(-2.0, 23.0), [0.3, 7.7, 10.31, 15.125]])
    result = bake(scene, frames)
    q, p = literal(
        pivots, body.rotation, body.translation, body.scale, 0, substeps, frames, space, integrator
    )
    np.testing.assert_allclose(
        result.bone_to_world[:, 0], body_matrix(q, p, body.scale), atol=1e-10, rtol=0
    )


@pytest.mark.parametrize("integrator", ["seed", "twist"])
@pytest.mark.parametrize("substeps", [1, 2, 3, 8])
def test_one_pivot_reproduces_the_seeds_closed_form(rng, integrator, substeps):
    """``p0(t) = p1(t0) - R1(t) v1(t0) R1*(t)``, ``q0(t) = R1(t) q0(t0)``, at any step size.

    The keys include turns of 150 degrees in one frame, so large steps are subdivided.
    """
    turns = Rotation.concatenate(
        [Rotation.identity(), Rotation.random(3, rng=rng), about(Z, 150) * Rotation.identity()]
    )
    keys = rotation_keys([0, 4, 9, 10, 11], turns)
    pivot = Pivot(name="p", position=(0.3, -0.4, 0.2), rotation_keys=keys)
    body = Bone(
        name="body",
        translation=(1.0, 2.0, 3.0),
        scale=(2.0, 1.0, 0.5),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    scene = make_scene(
        [pivot], body=body, substeps=substeps, space="world", integrator=integrator, frame_end=14
    )
    frames = np.arange(0, 14.0, 0.5)
    result = bake(scene, frames)
    q_start = Rotation.from_quat(body.rotation, scalar_first=True)
    v1 = q_start.apply(np.multiply(pivot.position, body.scale))
    p1 = np.asarray(body.translation) + v1
    for f, m in zip(frames, result.bone_to_world[:, 0]):
        turn = pivot_rotation(pivot, f) * pivot_rotation(pivot, 0).inv()
        np.testing.assert_allclose(m[:3, 3], p1 - turn.apply(v1), atol=1e-10)
        expected = (turn * q_start).as_matrix() * body.scale
        np.testing.assert_allclose(m[:3, :3], expected, atol=1e-10)


def test_reordering_the_pivots_changes_nothing(rng):
    pivots = random_pivots(rng)
    results = [
        bake(make_scene([pivots[i] for i in order], substeps=3)).bone_to_world
        for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0])
    ]
    for other in results[1:]:
        np.testing.assert_allclose(other, results[0], atol=1e-12, rtol=0)


@pytest.mark.parametrize("space", ["world", "object"])
def test_opposite_turns_on_parallel_axes_translate_without_rotating(space):
    """Two pivots on parallel axes turning by equal and opposite angles: a pure translation."""
    forward = Keys([0.0, 12.0], about(Z, [0, 60]).as_quat(scalar_first=True))
    backward = Keys([0.0, 12.0], about(Z, [0, -60]).as_quat(scalar_first=True))
    pivots = [
        Pivot(name="left", position=(-0.5, 0.0, 0.0), rotation_keys=forward),
        Pivot(name="right", position=(0.5, 0.0, 0.0), rotation_keys=backward),
    ]
    result = bake(make_scene(pivots, space=space, frame_end=12))
    rotations = result.bone_to_world[:, 0, :3, :3]
    np.testing.assert_allclose(rotations, np.broadcast_to(np.eye(3), rotations.shape), atol=1e-12)
    travel = result.heads[:, 0] - result.heads[0, 0]
    assert np.linalg.norm(travel[-1]) > 0.3  # it moved ...
    np.testing.assert_allclose(travel[:, 2], 0.0, atol=1e-12)  # ... in the plane of the turns


def test_pivots_stay_rigid_on_the_body_over_1e5_steps(rng):
    """After 10^5 steps the pivots are as far from ``p0`` (and each other) as at the start."""
    pivots = random_pivots(rng, spread=40)
    pivots = [dataclasses.replace(p, position_keys=None) for p in pivots]
    frames = np.arange(0, 25000.0, 97.0)
    keys = [
        Keys(
            np.arange(0, 25001.0, 50.0) + 7 * i,
            Rotation.random(501, rng=rng).as_quat(scalar_first=True),
        )
        for i in range(3)
    ]
    pivots = [dataclasses.replace(p, rotation_keys=k) for p, k in zip(pivots, keys)]
    scene = make_scene(pivots, substeps=4, frame_end=25000)
    result = bake(scene, frames)
    assert result.info["mp"]["grid_steps"] >= 100_000
    m = result.bone_to_world[:, 0]
    rotation = m[:, :3, :3]
    np.testing.assert_allclose(
        np.swapaxes(rotation, 1, 2) @ rotation,
        np.broadcast_to(np.eye(3), rotation.shape),
        atol=1e-12,
    )
    on_body = np.array([p.position for p in pivots])
    in_world = np.einsum("fij,pj->fpi", rotation, on_body) + m[:, None, :3, 3]
    distances = np.linalg.norm(in_world[:, :, None] - in_world[:, None, :], axis=-1)
    np.testing.assert_allclose(distances, np.broadcast_to(distances[0], distances.shape), atol=1e-9)
    to_head = np.linalg.norm(in_world - m[:, None, :3, 3], axis=-1)
    np.testing.assert_allclose(to_head, np.broadcast_to(to_head[0], to_head.shape), atol=1e-9)


@pytest.mark.parametrize("integrator", ["seed", "twist"])
def test_object_space_rolls_a_yawed_body_along_its_length_world_space_sideways(integrator):
    """A body yawed 90 degrees, its length along its own z (now world x), rolls about its own
    x axis: in object space it tumbles over its front edge along its length (world x); in
    world space the same keys turn it about world x, its length, so it rolls sideways (z)."""
    yaw = about(Y, 90)
    body = Bone(
        name="plank", translation=(0.0, 0.1, 0.0), rotation=tuple(yaw.as_quat(scalar_first=True))
    )
    roll = Keys([0.0, 12.0], about(X, [0, 90]).as_quat(scalar_first=True))
    edge = Pivot(name="edge", position=(0.0, -0.1, 0.5), rotation_keys=roll)  # front bottom edge
    moves = {}
    for space in ("object", "world"):
        result = bake(
            make_scene([edge], body=body, space=space, integrator=integrator, frame_end=12)
        )
        moves[space] = result.heads[-1, 0] - result.heads[0, 0]
    length, sideways = np.abs(moves["object"][[0, 2]])
    assert length > 0.5 and sideways < 1e-12
    length, sideways = np.abs(moves["world"][[0, 2]])
    assert sideways > 0.05 and length < 1e-12


def test_q_and_minus_q_keys_give_the_same_motion(rng):
    pivots = random_pivots(rng)
    flipped = []
    for p in pivots:
        values = p.rotation_keys.values.copy()
        values[1::2] *= -1  # every other key by its antipode
        flipped.append(dataclasses.replace(p, rotation_keys=Keys(p.rotation_keys.frames, values)))
    for integrator in ("seed", "twist"):
        a = bake(make_scene(pivots, integrator=integrator), np.arange(0, 24, 0.25))
        b = bake(make_scene(flipped, integrator=integrator), np.arange(0, 24, 0.25))
        np.testing.assert_allclose(a.bone_to_world, b.bone_to_world, atol=1e-12, rtol=0)


def huge_jump_scene(substeps, integrator="seed"):
    """Half turns about perpendicular axes between adjacent frames, on two pivots at once."""
    half_x = Keys([4.0, 5.0], about(X, [0, 180]).as_quat(scalar_first=True))
    half_y = Keys([4.0, 5.0], about(Y, [0, 180]).as_quat(scalar_first=True))
    pivots = [
        Pivot(name="a", position=(0.3, 0.0, 0.0), rotation_keys=half_x),
        Pivot(name="b", position=(0.0, 0.0, 0.4), rotation_keys=half_y),
    ]
    return make_scene(pivots, substeps=substeps, integrator=integrator, space="world", frame_end=8)


@pytest.mark.parametrize("integrator", ["seed", "twist"])
def test_huge_key_jumps_stay_finite_and_converge(integrator):
    frames = np.arange(0, 8.0, 0.25)
    results = {s: bake(huge_jump_scene(s, integrator), frames) for s in (1, 2, 4, 32, 64, 128)}
    for s, r in results.items():
        assert np.all(np.isfinite(r.bone_to_world)), s
        assert r.info["mp"]["subdivided_steps"] > 0 or s >= 32
    reference = bake(huge_jump_scene(1024, integrator), frames).bone_to_world
    errors = [np.abs(results[s].bone_to_world - reference).max() for s in (32, 64, 128)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.6 * errors[1]


def test_subdivision_follows_the_stated_bound():
    """A step in which each of two pivots turns by pi runs as pi / MAX_PIVOT_STEP_ANGLE
    substeps: frame 4 -> 5 at one substep per frame equals 8 substeps per frame there."""
    coarse = bake(huge_jump_scene(1), [5.0])
    assert coarse.info["mp"]["subdivided_steps"] == 1
    steps = int(np.ceil(np.pi / MAX_PIVOT_STEP_ANGLE))
    fine = bake(huge_jump_scene(steps), [5.0])
    assert fine.info["mp"]["subdivided_steps"] == 0
    np.testing.assert_allclose(coarse.bone_to_world, fine.bone_to_world, atol=1e-12)


def test_a_pivot_sliding_to_a_new_place_does_not_pop():
    """The foot rolls about one pivot that slides from heel to toe within one frame (10 -> 11)
    while the roll continues. The incremental scheme keeps the trajectory continuous; the
    closed form about the pivot's current place would jump at the switch."""
    roll = Keys([0.0, 20.0], about(X, [0, 60]).as_quat(scalar_first=True))
    slide = Keys([10.0, 11.0], [[0.0, -0.1, -0.1], [0.0, -0.1, 0.2]])
    pivot = Pivot(name="roll", position=(0.0, -0.1, -0.1), rotation_keys=roll, position_keys=slide)
    body = Bone(name="foot", translation=(0.0, 0.1, 0.0))
    frames = np.arange(0, 20.0, 0.25)
    result = bake(make_scene([pivot], body=body, substeps=4, frame_end=20), frames)
    path = result.heads[:, 0]
    ours = np.linalg.norm(np.diff(path, axis=0), axis=1).max()

    # The closed form about the pivot's new place, from frame_start: p0 + v - R(t) v R*(t).
    p0, v_new = np.array(body.translation), np.array([0.0, -0.1, 0.2])
    turn = pivot_rotation(pivot, 11.0) * pivot_rotation(pivot, 0.0).inv()
    closed_at_switch = p0 + v_new - turn.apply(v_new)
    jump = np.linalg.norm(closed_at_switch - path[frames == 10.75][0])
    assert ours < 0.01  # a quarter frame never moves the body more than this
    assert jump > 10 * ours


def test_the_twist_is_the_limit_of_the_seed():
    """Both integrators converge to the same motion as the steps shrink."""
    pivots = random_pivots(np.random.default_rng(5))
    frames = np.arange(0, 21.0)
    twist = bake(make_scene(pivots, substeps=512, integrator="twist", space="world"), frames)
    errors = []
    for s in (4, 16, 64):
        seed = bake(make_scene(pivots, substeps=s, space="world"), frames)
        errors.append(np.abs(seed.heads - twist.heads).max())
    assert errors[0] > 3 * errors[1] > 9 * errors[2]


def test_the_twist_is_exact_in_object_space_for_steady_pivots():
    """Pivots fixed on the body turning steadily in its frame give the body a constant body
    twist: its exponential is the exact motion, whatever the step size."""
    rng = np.random.default_rng(9)
    pivots = [dataclasses.replace(p, position_keys=None) for p in random_pivots(rng)]
    pivots = [
        dataclasses.replace(
            p, rotation_keys=Keys(p.rotation_keys.frames.round(), p.rotation_keys.values)
        )
        for p in pivots
    ]
    frames = np.arange(0, 21.0)
    results = [
        bake(make_scene(pivots, substeps=s, integrator="twist"), frames).bone_to_world
        for s in (1, 7, 64)
    ]
    for other in results[1:]:
        np.testing.assert_allclose(other, results[0], atol=1e-10)


def test_state_at_frame_start_comes_from_forward_kinematics(rng):
    """The body under an animated, scaled parent starts where FK puts it at frame_start (the
    parent's own scale is not part of ``T(p0) R(q0) S``); frames before it hold; its children
    follow it with their local transforms."""
    parent = Bone(
        name="parent",
        translation=(1.0, 0.0, 0.0),
        scale=(2.0, 2.0, 2.0),
        rotation_keys=Keys([0.0, 10.0], Rotation.random(2, rng=rng).as_quat(scalar_first=True)),
    )
    body = Bone(name="body", parent="parent", translation=(0.0, 0.5, 0.0), scale=(1.0, 3.0, 1.0))
    child = Bone(name="child", parent="body", translation=(0.0, 1.0, 0.0))
    still = Pivot(name="still", position=(0.1, 0.2, 0.3))
    scene = Scene(
        bones=[parent, body, child],
        frame_start=4,
        frame_end=12,
        constraints=[MultiParent(name="mp", body="body", pivots=(still,))],
    )
    result = bake(scene, [0.0, 4.0, 8.0])
    plain = bake(Scene(bones=scene.bones, frame_start=4, frame_end=12), [4.0])
    fk = plain.bone_to_world[0, 1]
    rotation = fk[:3, :3] / np.array([2.0, 6.0, 2.0])  # parent's and body's scale out
    expected = np.eye(4)
    expected[:3, :3] = rotation * np.array(body.scale)
    expected[:3, 3] = fk[:3, 3]
    for m in result.bone_to_world[:, 1]:  # a pivot that never turns: the body stays put
        np.testing.assert_allclose(m, expected, atol=1e-12)
    child_to_body = np.eye(4)
    child_to_body[:3, 3] = child.translation
    np.testing.assert_allclose(
        result.bone_to_world[:, 2], result.bone_to_world[:, 1] @ child_to_body, atol=1e-12
    )


def test_after_the_last_key_the_body_holds_still(rng):
    scene = make_scene(random_pivots(rng), substeps=3, frame_end=40)
    result = bake(scene, [20.0, 25.5, 40.0, 1000.0])
    for m in result.bone_to_world[1:, 0]:
        np.testing.assert_array_equal(m, result.bone_to_world[0, 0])


def test_too_many_pivots_are_refused_with_their_path():
    pivots = [Pivot(name=f"p{i}", position=(i, 0, 0)) for i in range(11)]
    with pytest.raises(SceneError, match=r"constraints\[0\]\.pivots.*at most 10"):
        bake(make_scene(pivots))


def test_keys_beyond_any_timeline_are_refused():
    far = Keys([0.0, 1e9], about(X, [0, 90]).as_quat(scalar_first=True))
    with pytest.raises(SceneError, match=r"constraints\[0\]\.pivots.*1e\+09"):
        bake(make_scene([Pivot(name="far", rotation_keys=far)]))


@pytest.mark.parametrize("space", ["world", "object"])
def test_a_looping_animation_does_not_drift_over_1e6_steps(space):
    """Issue 10: 10^6 steps of a looping rock (heel out and back, then toe out and back,
    every 40 frames) keep ``|q0| - 1`` within 1e-12 at every frame, hold the turning pivot
    still in the world to 1e-9 (the pivots stay rigid on the body), and bring the body back
    to where it started at the end of every loop (the closed form: each half of the loop is
    a turn about one fixed point and its inverse) to 1e-9."""
    loops, period = 6250, 40
    starts = period * np.arange(loops, dtype=float)
    heel_turn, toe_turn = about(X, 35) * about(Z, -20), about(X, -28) * about(Y, 15)

    def looping_keys(offset, turn):
        frames = (starts[:, None] + offset + np.array([0.0, 10.0, 20.0])).reshape(-1)
        cycle = Rotation.concatenate([Rotation.identity(), turn, Rotation.identity()])
        return rotation_keys(frames, cycle[np.tile(np.arange(3), loops)])

    heel = Pivot(name="heel", position=(0.05, -0.2, -0.3), rotation_keys=looping_keys(0, heel_turn))
    toe = Pivot(name="toe", position=(-0.05, -0.2, 0.4), rotation_keys=looping_keys(20, toe_turn))
    body = Bone(
        name="body",
        translation=(0.2, 1.0, -0.3),
        scale=(1.0, 1.5, 0.8),
        rotation=tuple(about(Y, 30).as_quat(scalar_first=True)),
    )
    scene = make_scene([heel, toe], body=body, substeps=4, space=space, frame_end=loops * period)
    frames = np.arange(0.0, loops * period + 1)
    evaluator = Evaluator(scene)
    result = evaluator.evaluate(frames)
    integral = evaluator.cache["mp"][space]
    assert integral.n_steps >= 10**6 - 100
    q0 = integral.frame_rotation
    assert q0.shape[1] == len(frames)
    assert np.abs(np.linalg.norm(q0, axis=0) - 1).max() < 1e-12

    m = result.bone_to_world[:, 0]
    pivots_in_body = np.array([heel.position, toe.position])
    in_world = np.einsum("fij,pj->fpi", m[:, :3, :3], pivots_in_body) + m[:, None, :3, 3]
    phase = frames % period
    # While the heel turns (phase 0..20) it stays where it was at the loop's start; the toe
    # likewise from phase 20 to 40 (the next loop's start).
    heel_still = in_world[:, 0] - in_world[(frames - phase).astype(int), 0]
    toe_from = np.clip(frames - phase + 20, 0, frames[-1]).astype(int)
    toe_still = in_world[:, 1] - in_world[toe_from, 1]
    assert np.abs(heel_still[phase <= 20]).max() < 1e-9
    assert np.abs(toe_still[phase >= 20]).max() < 1e-9
    # Back where it started at the end of every loop: no drift, however many loops.
    loop_ends = m[::period]
    assert len(loop_ends) == loops + 1
    assert np.abs(loop_ends - m[0]).max() < 1e-9
