"""The exact integrator's fast paths against independent forms of the same quantities.

Oracles: scipy ``Rotation`` (matrices, products in a plain loop, relative rotations between
keys), the left Jacobian built as a 3x3 matrix here from its series definition, and the
module's own paths asked the other way (a whole batch against one frame at a time, a scan
restarted at a block against the whole scan: those must agree bit for bit).
"""

import dataclasses
from math import factorial

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.multi_parent.cache import BLOCK_STEPS, Inputs
from app.scene.constraints.multi_parent.exact import plan_exact
from app.scene.constraints.multi_parent.exact_terms import exact_world_terms
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.multi_parent.plan import _track, ordered_pivots
from app.scene.constraints.multi_parent.scan import _block_layout, _piece_orientations, integrate
from app.scene.evaluate import Evaluator, bake
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene
from tests.scene.constraints.test_multi_parent_scan import assert_restarts_match


def jacobian(phi):
    """``J(phi) = sum_k [phi]x^k / (k + 1)!`` for one rotation vector, as a 3x3 matrix."""
    hat = -np.cross(np.eye(3), phi).T  # [phi]x: hat @ v == phi x v (columns phi x e_j)
    out, power = np.zeros((3, 3)), np.eye(3)
    for k in range(40):
        out += power / factorial(k + 1)
        power = power @ hat
    return out


@pytest.mark.parametrize("fixed", [True, False])
def test_the_world_terms_are_the_per_pivot_formulas(rng, fixed):
    """x0 = -sum phi_i x J R u_i, x1 with w - n (n.w), x2 with n x w, piece by piece."""
    P, X = 4, 50
    Q = Rotation.random(X, rng=rng)
    phi = rng.normal(size=(X, P, 3)) * rng.uniform(0.001, 0.4, size=(X, 1, 1))
    Phi = phi.sum(axis=1)
    t = np.linalg.norm(Phi, axis=1)
    n = Phi / t[:, None]
    u = (
        np.broadcast_to(rng.normal(size=(1, P, 3)), (X, P, 3))
        if fixed
        else rng.normal(size=(X, P, 3))
    )
    a = (1 - np.cos(t)) / t**2
    b = (t - np.sin(t)) / t**3
    u_cm = np.transpose(u, (2, 1, 0))  # (3, P, X), a broadcast view when fixed
    assert (u_cm.strides[-1] == 0) == fixed
    ours = exact_world_terms(
        Q.as_quat(scalar_first=True).T, Phi.T, n.T, a, b, np.transpose(phi, (2, 1, 0)), u_cm
    )
    first = exact_world_terms(
        Q.as_quat(scalar_first=True).T,
        Phi.T,
        n.T,
        a,
        b,
        np.transpose(phi, (2, 1, 0)),
        u_cm,
        full=False,
    )
    assert len(first) == 1
    np.testing.assert_array_equal(first[0], ours[0])
    for x in range(X):
        J, R = jacobian(Phi[x]), Q[x].as_matrix()
        w = u[x] @ R.T  # (P, 3): each offset in world axes
        expected = [
            -sum(np.cross(phi[x, i], J @ w[i]) for i in range(P)),
            -sum(np.cross(phi[x, i], J @ (w[i] - n[x] * (n[x] @ w[i]))) for i in range(P)),
            -sum(np.cross(phi[x, i], J @ np.cross(n[x], w[i])) for i in range(P)),
        ]
        for got, want in zip(ours, expected):
            np.testing.assert_allclose(got[:, x], want, rtol=0, atol=1e-14)


@pytest.mark.parametrize("world", [True, False])
@pytest.mark.parametrize("per_block", [1024, 37, 5])
def test_the_grouped_orientation_scan_is_the_product_in_order(rng, world, per_block):
    """Each piece starts at the product of every earlier piece's turn (later ones on the
    left in world space, on the right in object space), blocks one after another."""
    n = 3 * per_block + 11 if per_block > 100 else 40 * per_block + 3
    block = np.arange(n) // per_block
    _, count, rank = _block_layout(block, block[-1] + 1)
    turns = Rotation.from_rotvec(rng.normal(size=(n, 3)) * 0.05)
    start = Rotation.random(rng=rng)
    q_start = tuple(start.as_quat(scalar_first=True).tolist())
    Q, block_rotation = _piece_orientations(
        turns.as_quat(scalar_first=True).T, block, rank, count, world, q_start
    )
    state = start
    for k in range(n):
        if rank[k] == 0:  # a block starts here
            assert Rotation.from_quat(block_rotation[:, block[k]], scalar_first=True).approx_equal(
                state, atol=1e-12
            )
        assert Rotation.from_quat(Q[:, k], scalar_first=True).approx_equal(state, atol=1e-12)
        state = turns[k] * state if world else state * turns[k]
    assert Rotation.from_quat(block_rotation[:, -1], scalar_first=True).approx_equal(
        state, atol=1e-12
    )
    assert np.abs(np.linalg.norm(Q, axis=0) - 1).max() < 1e-14


def every_frame_scene(rng, space="world", frames=3 * BLOCK_STEPS + 40, sliding=False):
    """Three pivots keyed every frame (one-substep pieces), over several scan blocks.

    With ``sliding``, the every-frame keys stop at frame 600, one pivot slides and another
    turns over long key intervals: after 600 the pieces are many frames long.
    """
    keyed = np.arange(0.0, frames + 1)
    pivots = []
    for i in range(3):
        turns = Rotation.from_rotvec(rng.normal(size=(frames, 3)) * 0.03)
        values = [Rotation.identity()]
        for turn in turns:
            values.append(turn * values[-1])
        values = Rotation.concatenate(values).as_quat(scalar_first=True)
        last = 601 if sliding else frames + 1
        pivots.append(
            Pivot(
                name=f"p{i}",
                position=tuple(rng.normal(size=3) * 0.3),
                rotation_keys=Keys(keyed[:last], values[:last]),
            )
        )
    if sliding:
        pivots[1] = dataclasses.replace(
            pivots[1],
            position_keys=Keys(
                [0.0, 300.0, float(frames)], [[0.1, 0.2, 0.0], [0.3, -0.1, 0.2], [0.0, 0.0, 0.4]]
            ),
        )
        pivots[2] = dataclasses.replace(
            pivots[2],
            rotation_keys=Keys(
                [0.0, 500.0, float(frames)],
                Rotation.from_rotvec([[0, 0, 0], [0, 3.0, 0], [1.0, 3.0, 0]]).as_quat(
                    scalar_first=True
                ),
            ),
        )
    mp = MultiParent(name="mp", body="body", pivots=tuple(pivots), space=space, integrator="exact")
    return Scene(
        bones=[
            Bone(name="body", translation=(0.0, 1.0, 0.0)),
            Bone(name="child", parent="body", translation=(0, 0.5, 0)),
        ],
        constraints=[mp],
        frame_end=frames,
    )


@pytest.mark.parametrize("space", ["world", "object"])
@pytest.mark.parametrize("sliding", [False, True])
def test_restarting_the_exact_scan_at_any_block_gives_the_same_bits(rng, space, sliding):
    scene = every_frame_scene(rng, space, sliding=sliding)
    mp = scene.constraints[0]
    inputs = Inputs(
        space,
        "exact",
        1,
        0,
        (1.0, 1.0, 1.0),
        (1.0, 0.0, 0.0, 0.0),
        (0.0, 1.0, 0.0),
        ordered_pivots(mp.pivots),
    )
    plan = plan_exact(inputs.pivots, 0, 1, scene.frame_end, inputs.scale, BLOCK_STEPS)
    assert plan.rotation is None and np.all(plan.length[:10] == 1)
    full = integrate(plan, "exact", space, inputs.rotation, inputs.position)
    if sliding:
        assert np.any(plan.length > 1)  # pieces with their x1, x2 and Y
    assert_restarts_match(plan, "exact", space, full, (1, 3))


@pytest.mark.parametrize("space", ["world", "object"])
def test_every_frame_keys_give_the_same_bits_batched_or_one_by_one(rng, space):
    scene = every_frame_scene(rng, space, frames=1100, sliding=True)
    frames = np.concatenate([np.arange(0.0, 1101.0, 7.0), rng.uniform(0, 1100, 25), [1100.0]])
    at_once = bake(scene, frames).bone_to_world
    evaluator = Evaluator(scene)
    for i in rng.permutation(len(frames))[:60]:
        np.testing.assert_array_equal(evaluator.evaluate([frames[i]]).bone_to_world[0], at_once[i])
    # and a frame is where the pieces' one-substep states put it: the body's own transform
    body = Rotation.from_matrix(at_once[:, 0, :3, :3])
    assert np.all(np.isfinite(at_once)) and np.allclose(np.linalg.det(body.as_matrix()), 1)


def test_a_track_is_each_key_intervals_relative_rotation(rng):
    frames = np.cumsum(rng.uniform(0.5, 3.0, 300))
    values = Rotation.random(300, rng=rng)
    values = Rotation.concatenate(
        [values[0]] + [Rotation.from_rotvec(rng.normal(size=3) * 0.8) * v for v in values[:-1]]
    )
    quats = values.as_quat(scalar_first=True) * rng.choice([-1.0, 1.0], size=(300, 1))
    track = _track(Pivot(name="p", rotation_keys=Keys(frames, quats)), np.ones(3))
    relative = values[1:] * values[:-1].inv()
    rotvec = relative.as_rotvec()  # the shorter arc, whatever the keys' signs
    np.testing.assert_allclose(
        track.speed * np.diff(frames), np.linalg.norm(rotvec, axis=1), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        track.axis * np.linalg.norm(rotvec, axis=1)[:, None], rotvec, rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        track.angular_velocity.T * np.diff(frames)[:, None], rotvec, rtol=0, atol=1e-12
    )


def test_the_exact_plans_increments_are_the_slerped_keys(rng):
    scene = every_frame_scene(rng, frames=200)
    pivots = ordered_pivots(scene.constraints[0].pivots)
    plan = plan_exact(pivots, 0, 1, 200, (1.0, 1.0, 1.0), BLOCK_STEPS)
    R = plan.pivot_rotations(np.arange(len(plan.length)))  # (4, P, Np), from the vectors
    for i, pivot in enumerate(pivots):
        keys = Rotation.from_quat(pivot.rotation_keys.values, scalar_first=True)
        expected = (keys[1:] * keys[:-1].inv()).as_quat(canonical=True, scalar_first=True)
        np.testing.assert_allclose(R[:, i].T, expected, rtol=0, atol=1e-14)
