"""The pieces of the whole-timeline integral: closed-form sums, the scan, the step plan."""

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.multi_parent.cache import BLOCK_STEPS, Inputs, update
from app.scene.constraints.multi_parent.increments import increment
from app.scene.constraints.multi_parent.plan import (
    MAX_PIVOT_STEP_ANGLE,
    MAX_STEP_ANGLE,
    ordered_pivots,
    plan_steps,
    subdivisions,
)
from app.scene.constraints.multi_parent.scan import integrate
from app.scene.math import anticommutator, quat
from app.scene.math.rotation_sums import power_sum, rotation_sums, weighted_rotation_sums
from app.scene.rig.keys import Keys
from app.scene.rig.model import Pivot


@pytest.mark.parametrize("a", [0.0, 1e-300, 1e-9, 1e-5, 3e-3, 0.05, 0.4, 1.1, 1.5])
def test_rotation_sums_equal_the_sums_they_close(a):
    for k in [1, 2, 3, 7, 64, 1000, 5000]:
        j = np.arange(k, dtype=float)
        terms = {
            "C": np.cos(2 * j * a) - 1,
            "S": np.sin(2 * j * a),
            "TC": j * (np.cos(2 * j * a) - 1),
            "TS": j * np.sin(2 * j * a),
        }
        exact = {name: math.fsum(t) for name, t in terms.items()}
        c, s = rotation_sums(k, a)
        tc, ts = weighted_rotation_sums(k, a)
        # Absolute error a few ulps of the terms' scale: k, and k^2 for the weighted sums
        # (each summand itself carries an error of that order).
        assert abs(c - exact["C"]) <= 1e-13 * k and abs(s - exact["S"]) <= 1e-13 * k
        assert abs(tc - exact["TC"]) <= 1e-12 * k * k and abs(ts - exact["TS"]) <= 1e-12 * k * k


def test_power_sums_are_faulhabers():
    """Exact to rounding for the low powers; the high ones (whose terms cancel for small k)
    only ever enter the series with weights t^p / p!, t < 1/k."""
    for p in range(0, 19):
        for k in [0, 1, 2, 5, 17, 1000]:
            exact = sum(j**p for j in range(k))
            tolerance = (1e-12 if p <= 12 else 1e-9) * max(exact, 1)
            assert abs(power_sum(p, k) - exact) <= tolerance


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 7])
def test_the_symmetrized_product_is_the_definition_and_each_step_is_computed_alone(rng, n):
    qs = Rotation.random(5 * n, rng=rng).as_quat(scalar_first=True).reshape(5, n, 4)
    stacked = anticommutator.symmetrized_product_components(np.moveaxis(qs, (0, 1, 2), (2, 1, 0)))
    # The product in every order, left to right, summed (all orders of each row at once).
    orders = np.array(list(itertools.permutations(range(n))))
    products = qs[:, orders[:, 0]]
    for position in range(1, n):
        products = quat.mul(products, qs[:, orders[:, position]])
    definition = products.sum(axis=1)
    np.testing.assert_allclose(stacked.T, definition, atol=1e-12)
    for x in range(len(qs)):  # bit for bit whatever else is in the stack (the scan needs it)
        alone = anticommutator.symmetrized_product_components(qs[x].T[:, :, None])[:, 0]
        assert alone.tobytes() == stacked[:, x].tobytes()
    np.testing.assert_array_equal(anticommutator.symmetrized_product(qs), stacked.T)


def million_step_inputs(rng, space="world"):
    pivots = []
    for i in range(3):
        frames = np.arange(0.0, 250_001.0, 997.0 + 13 * i)
        keys = Keys(frames, Rotation.random(len(frames), rng=rng).as_quat(scalar_first=True))
        pivots.append(Pivot(name=f"p{i}", position=tuple(rng.normal(size=3)), rotation_keys=keys))
    q = Rotation.random(rng=rng).as_quat(scalar_first=True)
    return Inputs(
        space, "seed", 4, 0, (1.0, 1.0, 1.0), tuple(q), (0.0, 0.0, 0.0), ordered_pivots(pivots)
    )


@pytest.mark.parametrize("space", ["world", "object"])
def test_orientation_stays_unit_over_a_million_steps(rng, space):
    integral = update(None, million_step_inputs(rng, space))
    assert integral.n_steps > 990_000
    grid = np.concatenate([rng.integers(0, integral.n_steps, 20_000), [integral.n_steps]])
    rotation, _ = integral.grid_states(grid)
    for q in (rotation, integral.frame_rotation, integral.block_rotation):
        assert np.abs(np.linalg.norm(q, axis=0) - 1).max() < 1e-12


def test_restarting_the_scan_at_any_block_gives_the_same_bits(rng):
    inputs = million_step_inputs(rng)
    n_steps = 40 * BLOCK_STEPS + 123
    plan = plan_steps(inputs.pivots, 0, 4, n_steps, inputs.scale, BLOCK_STEPS)
    full = integrate(plan, "seed", "world", inputs.rotation, inputs.position)
    assert_restarts_match(plan, "seed", "world", full, (1, 17, 40))


def assert_restarts_match(plan, integrator, space, full, blocks):
    """The scan restarted at each of ``blocks`` from ``full``'s block states gives the same
    bits as ``full`` from there on."""
    for block in blocks:
        part = integrate(
            plan.from_block(block),
            integrator,
            space,
            full.block_rotation[:, block],
            full.block_position[:, block],
        )
        first = np.searchsorted(plan.block, block)
        for name in ("rotation", "turned", "position", "terms"):
            np.testing.assert_array_equal(
                getattr(part.pieces, name), getattr(full.pieces, name)[..., first:]
            )
        np.testing.assert_array_equal(part.block_rotation, full.block_rotation[:, block:])
        np.testing.assert_array_equal(part.block_position, full.block_position[:, block:])


def test_plan_subdivides_steps_beyond_the_bound_and_nothing_else():
    fast = Keys(
        [0.0, 1.0, 2.0],
        Rotation.from_rotvec([[0, 0, 0], [3.0, 0, 0], [3.0, 0.5, 0]]).as_quat(scalar_first=True),
    )
    slow = Keys(
        [0.0, 2.0], Rotation.from_rotvec([[0, 0, 0], [0, 0, 0.2]]).as_quat(scalar_first=True)
    )
    pivots = [Pivot(name="fast", rotation_keys=fast), Pivot(name="slow", rotation_keys=slow)]
    plan = plan_steps(pivots, 0, 2, 4, (1, 1, 1), BLOCK_STEPS)
    increments = increment(plan.rotation, "seed")
    turn = 2 * np.arctan2(np.linalg.norm(plan.rotation[1:], axis=0), plan.rotation[0])  # (P, Np)
    assert np.all(turn <= MAX_PIVOT_STEP_ANGLE + 1e-12)
    assert np.all(turn.sum(axis=0) <= MAX_STEP_ANGLE + 1e-12)
    # Frame 0 -> 1: the fast pivot turns 1.5 rad per step -> ceil(1.5 / (pi / 8)) = 4 substeps.
    assert plan.length[0] == 2 * math.ceil(1.5 / MAX_PIVOT_STEP_ANGLE)
    # Frame 1 -> 2: 0.25 and 0.05 rad per step are below the bounds, one substep each.
    assert plan.length[1] == 2 and plan.per_grid[1] == 1
    assert plan.subdivided == 2
    assert np.all(increments.rotation[0] > math.cos(MAX_STEP_ANGLE / 2) - 1e-12)


def test_many_pivots_turning_together_are_held_by_the_total_bound():
    """Ten pivots, each just under the per-pivot bound: their total (about 3.9 rad) would let
    products approach a half turn, so the step is cut to keep the total under pi / 2."""
    angles = np.full((10, 1), 0.39)
    assert subdivisions(angles)[0] == math.ceil(3.9 / MAX_STEP_ANGLE)
    assert subdivisions(np.full((2, 1), 0.39))[0] == 1


def test_a_key_off_the_grid_makes_its_step_a_general_one():
    keys = Keys(
        [0.0, 2.3, 4.0],
        Rotation.from_rotvec([[0, 0, 0], [0.4, 0, 0], [0.4, 0.4, 0]]).as_quat(scalar_first=True),
    )
    plan = plan_steps([Pivot(name="p", rotation_keys=keys)], 0, 2, 8, (1, 1, 1), BLOCK_STEPS)
    # Grid 0, 0.5, ... 4: the key at 2.3 lies inside step 4 (2.0 -> 2.5).
    assert list(plan.grid_start) == [0, 4, 5]
    assert list(plan.length) == [4, 1, 3]


@pytest.mark.parametrize("integrator", ["seed", "twist"])
def test_a_step_does_not_depend_on_the_order_of_the_pivots(rng, integrator):
    """The sums themselves are order-free to rounding (the solver also sorts the pivots by
    name, which makes the whole integral order-free bit for bit)."""
    steps = Rotation.from_rotvec(rng.normal(size=(5 * 200, 3)) * 0.08)
    R = np.moveaxis(steps.as_quat(canonical=True, scalar_first=True).reshape(5, 200, 4), 2, 0)
    offsets = rng.normal(size=(3, 5, 200))
    first = increment(R, integrator)
    for order in ([4, 3, 2, 1, 0], [2, 0, 4, 1, 3]):
        other = increment(R[:, order], integrator)
        np.testing.assert_allclose(other.rotation, first.rotation, atol=1e-12, rtol=0)
        np.testing.assert_allclose(
            other.pivot_sum(offsets[:, order]), first.pivot_sum(offsets), atol=1e-12, rtol=0
        )
