"""Euler angles for BVH channels, against scipy, exact through gimbal lock."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.euler import ORDERS, euler_from_matrix, matrix_from_euler


@pytest.mark.parametrize("order", ORDERS)
def test_matrices_and_angles_match_scipy_intrinsic(order, rng):
    angles = rng.uniform(-np.pi, np.pi, (500, 3))
    angles[:, 1] *= 0.49  # away from the lock: the angles themselves are then unique
    expected = Rotation.from_euler(order, angles).as_matrix()  # upper case: intrinsic
    np.testing.assert_allclose(matrix_from_euler(order, angles), expected, atol=1e-14)
    recovered = euler_from_matrix(order, expected)
    np.testing.assert_allclose(recovered, angles, atol=1e-11)
    theirs = Rotation.from_matrix(expected).as_euler(order)
    np.testing.assert_allclose(recovered, theirs, atol=1e-10)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("middle", [np.pi / 2, -np.pi / 2, np.pi / 2 - 1e-9, -np.pi / 2 + 3e-7])
def test_round_trip_is_exact_at_and_near_gimbal_lock(order, middle, rng):
    angles = rng.uniform(-np.pi, np.pi, (300, 3))
    angles[:, 1] = middle
    rotation = Rotation.from_euler(order, angles).as_matrix()
    recovered = euler_from_matrix(order, rotation)
    # At the lock only a +- c is determined, so the angles may differ; the rotation may not.
    np.testing.assert_allclose(matrix_from_euler(order, recovered), rotation, atol=2e-15 * 8)
    np.testing.assert_allclose(recovered[:, 1], middle, atol=1e-7)
    if abs(abs(middle) - np.pi / 2) == 0:
        assert np.all(recovered[:, 0] == 0.0)  # the lock itself: the whole turn goes to c


def test_the_bvh_convention_zxy_is_rz_rx_ry():
    a, b, c = 0.3, -0.7, 1.1
    rz = Rotation.from_rotvec([0, 0, a]).as_matrix()
    rx = Rotation.from_rotvec([b, 0, 0]).as_matrix()
    ry = Rotation.from_rotvec([0, c, 0]).as_matrix()
    np.testing.assert_allclose(matrix_from_euler("ZXY", [a, b, c]), rz @ rx @ ry, atol=1e-15)


def test_unknown_order_is_refused():
    with pytest.raises(ValueError, match="XYZ, XZY"):
        euler_from_matrix("XYX", np.eye(3))
