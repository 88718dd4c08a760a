"""XYZ Euler degrees (Blender's default order) against scipy's extrinsic "xyz"."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene import quat
from app.scene.euler import euler_xyz_from_quat, quat_from_euler_xyz


def test_quat_from_euler_matches_scipy(rng):
    angles = rng.uniform(-180, 180, (200, 3))
    ours = quat_from_euler_xyz(angles)
    theirs = Rotation.from_euler("xyz", angles, degrees=True).as_quat(scalar_first=True)
    assert np.allclose(np.abs(np.sum(ours * theirs, axis=1)), 1, atol=1e-12)


def test_x_is_applied_first():
    q = quat_from_euler_xyz([90, 90, 0])
    # x first takes y to z, then y takes z to x
    assert np.allclose(quat.rotate(q, [0, 1, 0]), [1, 0, 0], atol=1e-12)


def test_euler_from_quat_round_trips_and_matches_scipy(rng):
    qs = Rotation.random(300, random_state=7).as_quat(scalar_first=True)
    angles = euler_xyz_from_quat(qs)
    assert np.allclose(np.abs(np.sum(quat_from_euler_xyz(angles) * qs, axis=1)), 1, atol=1e-9)
    theirs = Rotation.from_quat(qs, scalar_first=True).as_euler("xyz", degrees=True)
    assert np.allclose(angles, theirs, atol=1e-6)
    assert np.all(np.abs(angles[:, 1]) <= 90)


def test_gimbal_lock_keeps_the_rotation():
    for b in (90.0, -90.0):
        for a, c in ((30, 0), (10, 40), (-120, 75)):
            q = quat_from_euler_xyz([a, b, c])
            angles = euler_xyz_from_quat(q)
            assert np.isclose(abs(angles[1]), 90, atol=1e-6) and angles[2] == 0
            assert np.isclose(abs(quat_from_euler_xyz(angles) @ q), 1, atol=1e-9)
