"""4x4 transforms, including the worked examples of the seed "change of basis"."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.math import quat
from app.scene.math.transforms import (
    R,
    S,
    T,
    compose,
    inverse,
    rigid_inverse,
    rotation_from_matrix,
    transform_points,
    trs,
)


def random_rigid(rng, n):
    q = Rotation.random(n, rng=rng).as_quat(scalar_first=True)
    return T(rng.normal(size=(n, 3))) @ R(q)


def test_rice208_to_ricedoor():
    """The seed's matrix takes Einstein Bros Bagels from Rice208 to RiceDoor coordinates."""
    rice208_to_ricedoor = np.array(
        [[0, 0, 1, 9], [0, 1, 0, 4], [-1, 0, 0, 28], [0, 0, 0, 1]], dtype=float
    )
    bagels_in_rice208 = np.array([-2.0, -4.0, -10.0])
    np.testing.assert_array_equal(
        transform_points(rice208_to_ricedoor, bagels_in_rice208), [-1.0, 0.0, 30.0]
    )
    # Its rotation part is a quarter turn about y; T @ R spells the same matrix.
    q = quat.quat_from_axis_angle([0, 1, 0], np.pi / 2)
    np.testing.assert_allclose(T([9, 4, 28]) @ R(q), rice208_to_ricedoor, atol=1e-15)
    # And back again with the rigid inverse.
    np.testing.assert_allclose(
        transform_points(rigid_inverse(rice208_to_ricedoor), [-1.0, 0.0, 30.0]),
        bagels_in_rice208,
        atol=1e-14,
    )


def test_rigid_inverse_is_the_inverse(rng):
    m = random_rigid(rng, 50)
    np.testing.assert_allclose(rigid_inverse(m) @ m, np.tile(np.eye(4), (50, 1, 1)), atol=1e-13)
    np.testing.assert_allclose(rigid_inverse(m), np.linalg.inv(m), atol=1e-12)


def test_inverse_with_scale(rng):
    m = random_rigid(rng, 20) @ S(rng.uniform(0.2, 3, size=(20, 3)))
    np.testing.assert_allclose(inverse(m), np.linalg.inv(m), atol=1e-12)
    # The seed's identity (A B)^-1 = B^-1 A^-1.
    a, b = m[:10], m[10:]
    np.testing.assert_allclose(inverse(a @ b), inverse(b) @ inverse(a), atol=1e-11)


def test_trs_equals_the_product(rng):
    t = rng.normal(size=(10, 3))
    q = Rotation.random(10, rng=rng).as_quat(scalar_first=True)
    s = rng.uniform(0.5, 2, size=(10, 3))
    np.testing.assert_allclose(trs(t, q, s), compose(T(t), R(q), S(s)), atol=1e-14)


def test_rotation_from_matrix_strips_scale(rng):
    q = Rotation.random(30, rng=rng).as_quat(scalar_first=True)
    m = trs(rng.normal(size=(30, 3)), q, rng.uniform(0.3, 3, size=(30, 3))) * 1.0
    uniform = rng.uniform(0.5, 2, size=(30, 1, 1))
    np.testing.assert_allclose(
        np.abs(np.sum(rotation_from_matrix(m[:, :3, :3] * uniform) * q, axis=1)), 1, atol=1e-12
    )


def test_hip_terms_cancel_in_right_leg_to_left_calf(rng):
    """The seed: right-calf-to-left-calf does not depend on the hip's transform."""
    thigh_l, calf_l, thigh_r, calf_r = random_rigid(rng, 4)
    results = []
    for hip in random_rigid(rng, 3):
        calf_l_to_world = hip @ thigh_l @ calf_l
        calf_r_to_world = hip @ thigh_r @ calf_r
        results.append(rigid_inverse(calf_l_to_world) @ calf_r_to_world)
    written_out = rigid_inverse(calf_l) @ rigid_inverse(thigh_l) @ thigh_r @ calf_r
    for r in results:
        np.testing.assert_allclose(r, written_out, atol=1e-12)
