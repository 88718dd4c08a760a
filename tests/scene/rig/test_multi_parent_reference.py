"""A literal implementation of the multi-parent update equations, to check the real one against.

Written from the seed and ``docs/scene-format.md`` only: a plain Python loop over the grid,
scipy's ``Rotation``/``Slerp`` for the keys and the quaternion products, permutations summed
one by one. Nothing here comes from ``app.scene`` except the model's plain data. The tests at
the bottom check the reference itself against the seed's own closed form.
"""

import itertools
from functools import reduce

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.math.anticommutator import VanishingAnticommutatorError, normalized_anticommutator
from app.scene.rig.keys import Keys
from app.scene.rig.model import Pivot


def pivot_rotation(pivot: Pivot, t: float) -> Rotation:
    """``q_i(t)``: slerp between keys (scipy takes the shorter way), held outside them."""
    keys = pivot.rotation_keys
    if keys is None:
        return Rotation.from_quat(pivot.rotation, scalar_first=True)
    if len(keys) == 1:
        return Rotation.from_quat(keys.values[0], scalar_first=True)
    t = min(max(t, keys.frames[0]), keys.frames[-1])
    return Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))(t)


def pivot_position(pivot: Pivot, t: float) -> np.ndarray:
    """``pos_i(t)`` in the body frame: linear between keys, held outside them."""
    keys = pivot.position_keys
    if keys is None:
        return np.array(pivot.position, dtype=float)
    return np.array([np.interp(t, keys.frames, keys.values[:, c]) for c in range(3)])


def anticommutator(rotations) -> Rotation:
    """``{R_i}``: the products in every order, summed, normalized."""
    total = np.zeros(4)
    for order in itertools.permutations(rotations):
        # Each R_i on its shorter arc (w >= 0); with small steps every product of them stays
        # near the identity, so it is the product's own canonical quaternion.
        product = reduce(lambda a, b: a * b, order).as_quat(canonical=True, scalar_first=True)
        assert product[0] > 0.5, "the reference is meant for steps well below a half turn"
        total += product
    return Rotation.from_quat(total, scalar_first=True)


def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def step(q0: Rotation, p0, pivots, t0, t1, scale, space, integrator):
    """One step of the update equations from ``t0`` to ``t1``."""
    increments = [pivot_rotation(pv, t1) * pivot_rotation(pv, t0).inv() for pv in pivots]
    if space == "object":  # q_i read in the body's frame
        increments = [q0 * r * q0.inv() for r in increments]
    offsets = [q0.apply(scale * pivot_position(pv, t0)) for pv in pivots]  # v_i
    if integrator == "seed":
        p1 = p0 + sum(v - r.apply(v) for r, v in zip(increments, offsets))
        return anticommutator(increments) * q0, p1
    # The twist: summed angular velocity, velocity at p0 -sum phi_i x v_i, exact exponential.
    phis = [r.as_rotvec() for r in increments]
    phi = sum(phis)
    c = -sum(np.cross(f, v) for f, v in zip(phis, offsets))
    angle = np.linalg.norm(phi)
    K = skew(phi)
    if angle < 1e-8:
        J = np.eye(3) + K / 2 + K @ K / 6
    else:
        J = (
            np.eye(3)
            + (1 - np.cos(angle)) / angle**2 * K
            + (angle - np.sin(angle)) / angle**3 * K @ K
        )
    return Rotation.from_rotvec(phi) * q0, p0 + J @ c


def literal(
    pivots, q0, p0, scale, frame_start, substeps, frames, space="object", integrator="seed"
):
    """The body's ``(q0 (F, 4), p0 (F, 3))`` at ``frames`` by the plain per-step loop.

    The grid is ``frame_start + k / substeps``; a frame between grid points is one partial step
    from the grid point before it; frames before ``frame_start`` hold its state.
    """
    scale = np.asarray(scale, dtype=float)
    q = Rotation.from_quat(q0, scalar_first=True)
    p = np.asarray(p0, dtype=float)
    frames = np.asarray(frames, dtype=float)
    last = int(np.ceil((frames.max() - frame_start) * substeps)) if len(frames) else 0
    grid = [(q, p)]
    for n in range(max(last, 0)):
        t0, t1 = frame_start + n / substeps, frame_start + (n + 1) / substeps
        q, p = step(q, p, pivots, t0, t1, scale, space, integrator)
        grid.append((q, p))
    out_q, out_p = [], []
    for f in frames:
        n = max(0, int(np.floor((f - frame_start) * substeps)))
        if frame_start + (n + 1) / substeps <= f:
            n += 1
        q, p = grid[min(n, len(grid) - 1)]
        t0 = frame_start + n / substeps
        if f > t0:
            q, p = step(q, p, pivots, t0, f, scale, space, integrator)
        out_q.append(q.as_quat(scalar_first=True))
        out_p.append(p)
    return np.array(out_q), np.array(out_p)


def rotation_keys(frames, rotations) -> Keys:
    return Keys(np.asarray(frames, float), rotations.as_quat(scalar_first=True))


# --- the reference against the seed's own statements ---------------------------------------


def test_reference_single_pivot_is_the_seeds_closed_form(rng):
    """One turning pivot: ``p0(t) = p1(t0) - R1(t) v1(t0) R1*(t)``, ``q0(t) = R1(t) q0(t0)``."""
    keys = rotation_keys([0, 3, 6], Rotation.random(3, rng=rng))
    pivot = Pivot(name="p", position=(0.3, -0.2, 0.5), rotation_keys=keys)
    q_start = Rotation.random(rng=rng)
    p_start = rng.normal(size=3)
    frames = np.arange(0, 7.0)
    q, p = literal(
        [pivot],
        q_start.as_quat(scalar_first=True),
        p_start,
        (1, 1, 1),
        0,
        64,
        frames,
        space="world",
    )
    v1 = q_start.apply(pivot.position)
    p1 = p_start + v1
    for f, qf, pf in zip(frames, q, p):
        turn = pivot_rotation(pivot, f) * pivot_rotation(pivot, 0).inv()
        np.testing.assert_allclose(pf, p1 - turn.apply(v1), atol=1e-10)
        expected = (turn * q_start).as_quat(scalar_first=True)
        assert abs(abs(np.dot(qf, expected)) - 1) < 1e-12


def test_literal_equations_fail_on_half_turns_about_perpendicular_axes():
    """Why large steps are subdivided: the seed's sum vanishes for these two increments."""
    half_x = np.array([0.0, 1.0, 0.0, 0.0])
    half_y = np.array([0.0, 0.0, 1.0, 0.0])
    with pytest.raises(VanishingAnticommutatorError):
        normalized_anticommutator(np.array([half_x, half_y]))
