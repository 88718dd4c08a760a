"""The normalized anticommutator against the seed's definition (sum over all orders)."""

import itertools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.math import anticommutator, quat
from app.scene.math.anticommutator import (
    POLARIZATION_MAX,
    normalized_anticommutator,
    symmetrized_product,
)


def brute_force(qs):
    """The definition, literally: the product in every order, summed, normalized (all
    orders at once: row ``k`` of ``orders`` is one order, multiplied left to right)."""
    qs = np.asarray(qs, dtype=float)
    orders = np.array(list(itertools.permutations(range(len(qs)))))
    product = np.tile([1.0, 0, 0, 0], (len(orders), 1))
    for position in range(len(qs)):
        product = quat.mul(product, qs[orders[:, position]])
    total = product.sum(axis=0)
    return total / np.linalg.norm(total)


@pytest.mark.parametrize("n", range(1, 8))
def test_equals_the_definition(rng, n):
    for _ in range(8 if n < 7 else 2):
        qs = Rotation.random(n, rng=rng).as_quat(scalar_first=True)
        np.testing.assert_allclose(
            normalized_anticommutator(qs), brute_force(qs), atol=1e-12, rtol=0
        )


@pytest.mark.parametrize("n", [3, 5, 7])
def test_small_rotations_like_integration_steps(rng, n):
    axes = rng.normal(size=(n, 3))
    qs = quat.quat_from_axis_angle(axes, rng.uniform(0, 0.05, size=n))
    np.testing.assert_allclose(normalized_anticommutator(qs), brute_force(qs), atol=1e-12)


def test_both_algorithms_agree_where_they_meet(rng):
    """Polarization (n <= POLARIZATION_MAX) and the subset program give the same sums."""
    from app.scene.math import anticommutator as ac

    n = POLARIZATION_MAX
    qs = Rotation.random(n, rng=rng).as_quat(scalar_first=True)
    polarized = ac._polarized(qs.T[:, :, None])[:, 0]  # component-major (4, n, 1)
    layer = qs
    for sub, last in ac._layers(n):
        layer = quat.mul(layer[..., sub, :], qs[..., last, :]).sum(axis=-2)
    np.testing.assert_allclose(polarized, layer[0], atol=1e-11, rtol=0)


def test_order_of_the_inputs_does_not_matter(rng):
    for n in (3, 4, 8, 10):
        qs = Rotation.random(n, rng=rng).as_quat(scalar_first=True)
        ref = normalized_anticommutator(qs)
        for _ in range(3):
            np.testing.assert_allclose(
                normalized_anticommutator(qs[rng.permutation(n)]), ref, atol=1e-12
            )


def test_batched_equals_one_at_a_time(rng):
    qs = Rotation.random(5 * 4, rng=rng).as_quat(scalar_first=True).reshape(5, 4, 4)
    batch = normalized_anticommutator(qs)
    for k in range(5):
        np.testing.assert_allclose(batch[k], normalized_anticommutator(qs[k]), atol=1e-15)


def test_one_and_two_factors():
    q = quat.quat_from_axis_angle([1, 2, 3], 0.7)
    np.testing.assert_allclose(normalized_anticommutator(q[None]), q)
    p = quat.quat_from_axis_angle([0, 1, 0], 0.3)
    sym = quat.mul(p, q) + quat.mul(q, p)
    np.testing.assert_allclose(symmetrized_product(np.stack([p, q])), sym, atol=1e-15)


def test_commuting_rotations_give_their_product():
    a = quat.quat_from_axis_angle([0, 0, 1], 0.4)
    b = quat.quat_from_axis_angle([0, 0, 1], 1.1)
    c = quat.quat_from_axis_angle([0, 0, 1], -0.2)
    np.testing.assert_allclose(
        normalized_anticommutator(np.stack([a, b, c])),
        quat.quat_from_axis_angle([0, 0, 1], 1.3),
        atol=1e-15,
    )


def test_vanishing_sum_raises_a_clear_error_not_nan():
    i, j = np.eye(4)[1], np.eye(4)[2]  # half turns about x and y: i*j + j*i = 0
    with pytest.raises(anticommutator.VanishingAnticommutatorError, match="vanishes"):
        normalized_anticommutator(np.stack([i, j]))
    total = symmetrized_product(np.stack([i, j]))
    np.testing.assert_array_equal(total, np.zeros(4))


def test_too_many_factors_is_refused_clearly():
    with pytest.raises(ValueError, match="at most 20"):
        symmetrized_product(np.tile([1.0, 0, 0, 0], (21, 1)))
