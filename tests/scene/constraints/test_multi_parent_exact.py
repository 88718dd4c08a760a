"""The exact integrator against the seed's equations as Δt -> 0, and its closed forms.

The oracle is a per-step loop of the seed's update equations written here from the seed
alone (scipy ``Slerp`` for the keys, Hamilton products summed over every order, the state
stepped one step at a time); nothing in it comes from ``app.scene`` but the model's data.
"""

import itertools
import math
from functools import reduce

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.formats.scene_json import scene_to_json
from app.scene.formats.schema import scene_from_json
from app.scene.math.jacobians import jacobian_matrices
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene

X, Y, Z = np.eye(3)


def hamilton(a, b):
    """Hamilton products of ``(N, 4)`` quaternion stacks ``[w, x, y, z]``."""
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def orientation_steps(combined, start, space):
    """``q0`` after each step, one step at a time: ``{R_n} q0`` (world) or ``q0 {R_n}``
    (object), normalized (``hamilton``'s formula on Python floats: a step is a few
    microseconds, not a numpy call's tens)."""
    w, x, y, z = map(float, start)
    out = []
    for cw, cx, cy, cz in combined.tolist():
        if space == "world":
            aw, ax, ay, az, bw, bx, by, bz = cw, cx, cy, cz, w, x, y, z
        else:
            aw, ax, ay, az, bw, bx, by, bz = w, x, y, z, cw, cx, cy, cz
        w = aw * bw - ax * bx - ay * by - az * bz
        x = aw * bx + ax * bw + ay * bz - az * by
        y = aw * by - ax * bz + ay * bw + az * bx
        z = aw * bz + ax * by - ay * bx + az * bw
        norm = math.sqrt(w * w + x * x + y * y + z * z)
        w, x, y, z = w / norm, x / norm, y / norm, z / norm
        out.append((w, x, y, z))
    return np.array(out).reshape(-1, 4)


def slerped(pivot, times):
    """``q_i(t)`` at ``times`` as scipy rotations (held outside the keys)."""
    keys = pivot.rotation_keys
    if keys is None:
        return Rotation.from_quat(np.tile(pivot.rotation, (len(times), 1)), scalar_first=True)
    t = np.clip(times, keys.frames[0], keys.frames[-1])
    return Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))(t)


def offsets(pivot, times, scale):
    """``S pos_i(t)`` at ``times``, ``(N, 3)``: linear between keys, held outside."""
    keys = pivot.position_keys
    if keys is None:
        return np.tile(np.multiply(pivot.position, scale), (len(times), 1))
    pos = np.stack([np.interp(times, keys.frames, keys.values[:, c]) for c in range(3)], -1)
    return pos * scale


def left_jacobians(phi):
    """``J(phi)`` for rotation vectors ``(N, 3)``: ``(N, 3, 3)`` (closed form, series near 0)."""
    t = np.linalg.norm(phi, axis=1)[:, None, None]
    K = np.cross(np.eye(3)[None], phi[:, None, :])  # rows e_j x phi = -(phi x e_j)
    K = -np.transpose(K, (0, 2, 1))  # [phi]x
    small = t < 1e-4
    s = np.where(small, 1.0, t)
    a = np.where(small, 0.5 - t * t / 24, (1 - np.cos(s)) / s**2)
    b = np.where(small, 1 / 6 - t * t / 120, (s - np.sin(s)) / s**3)
    return np.eye(3) + a * K + b * K @ K


def seed_loop(
    pivots,
    body,
    substeps,
    frames,
    space,
    integrator="seed",
    sample_rotation=None,
    sample_offset=None,
):
    """The seed's update equations stepped one grid step at a time from frame 0.

    ``integrator="twist"`` steps their limit with the twist frozen over each step instead.
    ``sample_rotation(pivot, times)`` and ``sample_offset(pivot, times, scale)`` read the keys
    (slerp and lerp unless given). Returns ``q0 (F, 4)`` and ``p0 (F, 3)`` at the whole
    ``frames`` (grid points).
    """
    sample_rotation = sample_rotation or slerped
    sample_offset = sample_offset or offsets
    n_steps = int(max(frames) * substeps)
    t = np.arange(n_steps + 1) / substeps
    increments = []
    for pv in pivots:  # R_i = q_i(t_(n+1)) q_i(t_n)^-1, on the shorter arc
        q = sample_rotation(pv, t)
        r = (q[1:] * q[:-1].inv()).as_quat(canonical=True, scalar_first=True)
        increments.append(r)
    if integrator == "twist":
        phis = [Rotation.from_quat(r, scalar_first=True).as_rotvec() for r in increments]
        total = Rotation.from_rotvec(sum(phis)).as_quat(scalar_first=True)
    else:
        total = np.zeros((n_steps, 4))
        for order in itertools.permutations(increments):
            total += reduce(hamilton, order)
    combined = total / np.linalg.norm(total, axis=1, keepdims=True)  # {R_i}
    q0 = np.empty((n_steps + 1, 4))
    q0[0] = body.rotation
    q0[1:] = orientation_steps(combined, body.rotation, space)
    body_rot = Rotation.from_quat(q0[:-1], scalar_first=True)
    step = np.zeros((n_steps, 3))
    for pv, r in zip(pivots, increments):
        R = Rotation.from_quat(r, scalar_first=True)
        u = sample_offset(pv, t[:-1], body.scale)
        if integrator == "twist":  # -J(Phi) sum_i phi_i x v_i, in the frame R_i is read in
            J = left_jacobians(sum(phis))
            x = -np.cross(R.as_rotvec(), body_rot.apply(u) if space == "world" else u)
            x = np.einsum("nij,nj->ni", J, x)
            step += x if space == "world" else body_rot.apply(x)
        elif space == "world":  # v_i - R_i v_i R_i*, v_i = R(q0) u_i
            v = body_rot.apply(u)
            step += v - R.apply(v)
        else:  # R_i read in the body frame
            step += body_rot.apply(u - R.apply(u))
    p0 = np.concatenate([[body.translation], body.translation + np.cumsum(step, axis=0)])
    index = np.rint(np.asarray(frames) * substeps).astype(int)
    return q0[index], p0[index]


def random_turns(rng, frames, spread=40.0):
    turns = [Rotation.identity()]
    for _ in frames[1:]:
        axis = rng.normal(size=3)
        turns.append(
            Rotation.from_rotvec(
                np.radians(rng.uniform(-spread, spread)) * axis / np.linalg.norm(axis)
            )
            * turns[-1]
        )
    return Keys(frames, Rotation.concatenate(turns).as_quat(scalar_first=True))


def random_rig(rng, sliding=True):
    """Three pivots on random axes, keys on dyadic frames (grid points at 4^k substeps)."""
    body = Bone(
        name="body",
        translation=tuple(rng.normal(size=3)),
        scale=(1.0, 1.5, 0.75),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    slide = Keys([0.5, 3.25], [[0.0, 0.3, 0.0], [0.2, -0.1, 0.5]]) if sliding else None
    pivots = [
        Pivot(name="heel", position=(0.1, -0.2, -0.3), rotation_keys=random_turns(rng, [0, 2, 4])),
        Pivot(
            name="ball",
            position=(-0.1, -0.2, 0.4),
            rotation_keys=random_turns(rng, [0.25, 1.5, 3.75]),
        ),
        Pivot(
            name="slide",
            position=(0.0, 0.3, 0.0),
            rotation_keys=random_turns(rng, [1, 2.5, 4]),
            position_keys=slide,
        ),
    ]
    return body, pivots


def make_scene(pivots, body, *, space="world", integrator="exact", substeps=4, frame_end=5):
    constraint = MultiParent(
        name="mp",
        body=body.name,
        pivots=tuple(pivots),
        substeps=substeps,
        space=space,
        integrator=integrator,
    )
    return Scene(bones=[body], constraints=[constraint], frame_start=0, frame_end=frame_end)


def state(scene, frames):
    """``q0 (F, 4)`` (w >= 0) and ``p0 (F, 3)`` of the body from a bake."""
    m = bake(scene, np.asarray(frames, dtype=float)).bone_to_world[:, 0]
    scale = np.asarray(scene.bones[0].scale)
    q = Rotation.from_matrix(m[:, :3, :3] / scale).as_quat(canonical=True, scalar_first=True)
    return q, m[:, :3, 3]


def rotation_distance(a, b):
    """Angles (radians) between quaternion stacks."""
    return (
        Rotation.from_quat(a, scalar_first=True).inv() * Rotation.from_quat(b, scalar_first=True)
    ).magnitude()


FRAMES = np.arange(0.0, 5.0)


@pytest.mark.parametrize("space", ["world", "object"])
def test_the_seed_loop_converges_to_exact_at_first_order(rng, space):
    """4x the substeps: position error / 4 (first order), orientation error / 16 or better."""
    body, pivots = random_rig(rng)
    q_exact, p_exact = state(make_scene(pivots, body, space=space), FRAMES)
    errors = []
    for substeps in (4, 16, 64):
        q, p = seed_loop(pivots, body, substeps, FRAMES, space)
        errors.append((np.abs(p - p_exact).max(), rotation_distance(q, q_exact).max()))
    (p4, r4), (p16, r16), (p64, r64) = errors
    assert p4 > 1e-4  # the seed's error is visible at 4 substeps ...
    for coarse, fine in ((p4, p16), (p16, p64)):
        assert 3.6 < coarse / fine < 4.4  # ... and first order in position
    for coarse, fine in ((r4, r16), (r16, r64)):
        assert coarse / fine > 12  # second order in orientation


@pytest.mark.parametrize("space", ["world", "object"])
def test_richardson_extrapolation_of_the_loop_agrees_with_exact(rng, space):
    """``2 x(2n) - x(n)`` cancels the seed's first-order term: it is the limit to 1e-6."""
    body, pivots = random_rig(rng)
    frames = np.arange(0.0, 5.0)
    q_exact, p_exact = state(make_scene(pivots, body, space=space), frames)
    q1, p1 = seed_loop(pivots, body, 256, frames, space)
    q2, p2 = seed_loop(pivots, body, 512, frames, space)
    p_rich = 2 * p2 - p1
    assert np.abs(p1 - p_exact).max() > 1e-5  # the loop alone is far from it
    np.testing.assert_allclose(p_rich, p_exact, atol=1e-6, rtol=0)
    q_rich = 2 * q2 - q1
    q_rich /= np.linalg.norm(q_rich, axis=1, keepdims=True)
    assert rotation_distance(q_rich, q_exact).max() < 1e-6


@pytest.mark.parametrize("space", ["world", "object"])
def test_one_pivot_is_the_seeds_closed_form(rng, space):
    """``p0(t) = p1 - R1(t) v1 R1*(t)``, ``q0(t) = R1(t) q0``, at any frame, to 1e-12.

    The keys include a 150-degree turn within one frame and keys between whole frames. In
    object space the pivot's increments are applied in the body's frame in the order they
    come, so the closed form holds there when they commute: turns about one axis.
    """
    if space == "world":
        turns = Rotation.concatenate(
            [
                Rotation.identity(),
                Rotation.random(3, rng=rng),
                Rotation.from_rotvec(np.radians(150) * Z),
            ]
        )
    else:
        axis = rng.normal(size=3)
        angles = np.radians([0, 70, -40, 30, 180])
        turns = Rotation.from_rotvec(angles[:, None] * axis / np.linalg.norm(axis))
    keys = Keys([0, 2.6, 4, 7.3, 8.3], turns.as_quat(scalar_first=True))
    pivot = Pivot(name="p", position=(0.3, -0.4, 0.2), rotation_keys=keys)
    body = Bone(
        name="body",
        translation=(1.0, 2.0, 3.0),
        scale=(2.0, 1.0, 0.5),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    frames = np.concatenate([np.arange(0, 10.0), rng.uniform(0, 10, 12), [2.6, 7.3, 8.0, 8.29]])
    q, p = state(make_scene([pivot], body, space=space, frame_end=10), frames)
    q_start = Rotation.from_quat(body.rotation, scalar_first=True)
    v1 = q_start.apply(np.multiply(pivot.position, body.scale))
    turn = slerped(pivot, frames) * slerped(pivot, np.zeros(1))[0].inv()  # R1(t), world
    if space == "object":  # the same keys read in the body frame
        turn = q_start * turn * q_start.inv()
    np.testing.assert_allclose(p, body.translation + v1 - turn.apply(v1), atol=1e-12, rtol=0)
    assert rotation_distance(q, (turn * q_start).as_quat(scalar_first=True)).max() < 1e-12


@pytest.mark.parametrize("space", ["world", "object"])
def test_a_fractional_frame_is_the_piece_cut_there(rng, space):
    """Exact at 10.37 equals exact with keys inserted at 10.37 (the same motion, cut there)."""
    body = Bone(
        name="body",
        translation=(0.2, 1.0, -0.3),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    frames = [0, 5, 12.5, 20]
    pivots = [
        Pivot(name="a", position=(0.1, -0.2, -0.3), rotation_keys=random_turns(rng, frames)),
        Pivot(
            name="b",
            position=(-0.3, 0.1, 0.4),
            rotation_keys=random_turns(rng, frames),
            position_keys=Keys([2.0, 16.0], [[-0.3, 0.1, 0.4], [0.5, 0.2, -0.1]]),
        ),
    ]

    def cut(pv, t):  # the same keys with one more, on the motion, at t
        rot = pv.rotation_keys.with_key(t, slerped(pv, np.array([t]))[0].as_quat(scalar_first=True))
        pos = pv.position_keys
        if pos is not None:
            pos = pos.with_key(t, offsets(pv, np.array([t]), 1.0)[0])
        return Pivot(name=pv.name, position=pv.position, rotation_keys=rot, position_keys=pos)

    whole = make_scene(pivots, body, space=space, frame_end=24)
    split = make_scene([cut(pv, 10.37) for pv in pivots], body, space=space, frame_end=24)
    queries = [10.37, 10.5, 11.0, 15.2, 22.0]
    q_a, p_a = state(whole, queries)
    q_b, p_b = state(split, queries)
    np.testing.assert_allclose(p_a, p_b, atol=1e-12, rtol=0)
    assert rotation_distance(q_a, q_b).max() < 1e-12
    # and a fractional frame moves continuously into the whole frames around it
    q_c, p_c = state(whole, [10.0, 10.0 + 1e-9, 11.0 - 1e-9, 11.0])
    assert np.abs(p_c[1] - p_c[0]).max() < 1e-8 and np.abs(p_c[3] - p_c[2]).max() < 1e-8


def test_the_pivots_order_changes_no_bit(rng):
    body, pivots = random_rig(rng)
    frames = np.concatenate([FRAMES, [0.3, 2.7, 3.9]])
    results = [
        bake(make_scene([pivots[i] for i in order], body), frames).bone_to_world
        for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0])
    ]
    for other in results[1:]:
        assert np.array_equal(other, results[0])


def test_substeps_are_ignored_and_the_result_is_order_free(rng):
    body, pivots = random_rig(rng)
    frames = np.array([4.0, 0.5, 3.0, 1.25, 2.0, 0.0])
    a = bake(make_scene(pivots, body, substeps=1), frames).bone_to_world
    b = bake(make_scene(pivots, body, substeps=7), frames).bone_to_world
    assert np.array_equal(a, b)
    evaluator = Evaluator(make_scene(pivots, body))
    one_by_one = np.stack([evaluator.evaluate([f]).bone_to_world[0] for f in frames[::-1]])
    assert np.array_equal(one_by_one[::-1], a)


@pytest.mark.parametrize("space", ["world", "object"])
def test_a_long_shot_stays_on_the_limit(rng, space):
    """Over 600 frames with keys every 7 frames (many scan blocks), the exact integral agrees
    with the seed loop's Richardson extrapolation at its far end, and |q0| stays 1."""
    frames = np.arange(0.0, 601.0, 7.0)
    pivots = [
        Pivot(
            name=n,
            position=tuple(rng.normal(size=3) * 0.3),
            rotation_keys=random_turns(rng, frames, spread=10.0),
        )
        for n in "abc"
    ]

    body = Bone(name="body", translation=(0.0, 1.0, 0.0))
    scene = make_scene(pivots, body, space=space, frame_end=600)
    ends = np.array([0.0, 300.0, 600.0])
    q_exact, p_exact = state(scene, ends)
    q1, p1 = seed_loop(pivots, body, 32, ends, space)
    q2, p2 = seed_loop(pivots, body, 64, ends, space)
    np.testing.assert_allclose(2 * p2 - p1, p_exact, atol=2e-5, rtol=0)
    assert np.abs(p2 - p_exact).max() > 10 * np.abs(2 * p2 - p1 - p_exact).max()


def test_the_jacobians_are_the_integrals_of_a_turning_vector(rng):
    """J and K against a 2000-point Gauss-Legendre quadrature of exp(s [phi]x), s in [0, 1],
    for angles from 1e-7 to 3, on both sides of the series' switch."""
    nodes, weights = np.polynomial.legendre.leggauss(40)
    s, w = 0.5 * (nodes + 1), 0.5 * weights
    for angle in (1e-7, 1e-3, 0.3, 0.999, 1.001, 2.0, 3.0):
        axis = rng.normal(size=3)
        phi = angle * axis / np.linalg.norm(axis)
        turns = Rotation.from_rotvec(s[:, None] * phi).as_matrix()
        J, K = jacobian_matrices(phi)
        np.testing.assert_allclose(J, np.einsum("s,sij->ij", w, turns), atol=1e-14, rtol=0)
        np.testing.assert_allclose(K, np.einsum("s,sij->ij", w * s, turns), atol=1e-14, rtol=0)


def test_the_format_reads_and_writes_exact():
    doc = {
        "format": "pivotal-scene",
        "version": 1,
        "fps": 24,
        "frame_start": 0,
        "frame_end": 4,
        "bones": [{"name": "b"}],
        "constraints": [
            {
                "type": "multi_parent",
                "name": "mp",
                "body": "b",
                "integrator": "exact",
                "pivots": [{"name": "p"}],
            }
        ],
    }
    scene = scene_from_json(doc)
    assert scene.constraints[0].integrator == "exact"
    assert scene_to_json(scene)["constraints"][0]["integrator"] == "exact"
    doc["constraints"][0]["integrator"] = "exakt"
    with pytest.raises(SceneError) as error:
        scene_from_json(doc)
    assert "constraints[0].integrator" in str(error.value) and "exact" in str(error.value)


@pytest.mark.parametrize("space", ["world", "object"])
def test_the_step_through_shows_the_exact_pieces(rng, space):
    """The step-through of an exact constraint: its pieces' displacements (sliding pivots'
    moment included) add up to the motion, and it ends on the evaluated pose."""
    from app.scene.constraints.multi_parent.steps import steps

    body, pivots = random_rig(rng)
    scene = make_scene(pivots, body, space=space)
    for frame in (1, 2, 3, 4):
        st = steps(scene.constraints[0], scene, frame)
        assert len(st) >= 1 and st.integrator == "exact"
        assert np.all(np.diff(st.times) > 0) and st.times[-1] == frame
        keys = {
            float(f)
            for pv in pivots
            for k in (pv.rotation_keys, pv.position_keys)
            if k is not None
            for f in k.frames
            if frame - 1 < f < frame
        }
        assert keys <= {float(t) for t in st.times}  # the pieces are cut at the keys
        np.testing.assert_allclose(np.diff(st.position, axis=0), st.displacement(), atol=1e-13)
        _, p = state(scene, [frame])
        np.testing.assert_allclose(st.position[-1], p[0], atol=1e-13)
