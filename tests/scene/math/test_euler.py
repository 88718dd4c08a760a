"""Euler angles for BVH channels, against scipy, exact through gimbal lock."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.math.euler import ORDERS, euler_from_matrix, matrix_from_euler


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


# --- the inspector's Blender-style XYZ Euler degrees ------------------------------------------


def test_blender_xyz_matches_scipy_extrinsic_xyz(rng):
    from app.scene.math.euler import euler_xyz_from_quat, quat_from_euler_xyz

    angles = rng.uniform(-180, 180, (200, 3))
    angles[:, 1] *= 0.49
    ours = quat_from_euler_xyz(angles)
    theirs = Rotation.from_euler("xyz", angles, degrees=True).as_quat(scalar_first=True)
    assert np.allclose(np.abs(np.sum(ours * theirs, axis=1)), 1, atol=1e-12)
    assert np.allclose(euler_xyz_from_quat(theirs), angles, atol=1e-9)


def test_blender_xyz_applies_x_first():
    from app.scene.math import quat
    from app.scene.math.euler import quat_from_euler_xyz

    q = quat_from_euler_xyz([90, 90, 0])
    # x first takes y to z, then y takes z to x
    assert np.allclose(quat.rotate(q, [0, 1, 0]), [1, 0, 0], atol=1e-12)


def test_blender_xyz_keeps_the_rotation_at_gimbal_lock():
    from app.scene.math.euler import euler_xyz_from_quat, quat_from_euler_xyz

    for b in (90.0, -90.0):
        for a, c in ((30, 0), (10, 40), (-120, 75)):
            q = quat_from_euler_xyz([a, b, c])
            angles = euler_xyz_from_quat(q)
            assert np.isclose(abs(angles[1]), 90, atol=1e-5)
            assert np.isclose(abs(quat_from_euler_xyz(angles) @ q), 1, atol=1e-9)
