"""Quaternions against scipy's Rotation/Slerp (scalar_first=True) and the conventions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.transform import Rotation, Slerp

from app.scene.math import quat, vectors

TOL = 1e-12


def random_quats(rng, n):
    return Rotation.random(n, rng=rng).as_quat(scalar_first=True)


def same_rotation(a, b, tol=TOL):
    """q and -q are the same rotation."""
    a, b = np.asarray(a), np.asarray(b)
    return np.allclose(np.abs(np.sum(a * b, axis=-1)), 1.0, atol=tol, rtol=0) and np.all(
        np.minimum(np.abs(a - b).max(-1), np.abs(a + b).max(-1)) < 1e-9
    )


def test_hamilton_convention():
    i, j, k = np.eye(4)[1], np.eye(4)[2], np.eye(4)[3]
    np.testing.assert_array_equal(quat.mul(i, j), k)
    np.testing.assert_array_equal(quat.mul(j, k), i)
    np.testing.assert_array_equal(quat.mul(k, i), j)
    np.testing.assert_array_equal(quat.mul(i, i), [-1, 0, 0, 0])


def test_quarter_turn_about_z_takes_x_to_y():
    q = quat.quat_from_axis_angle([0, 0, 1], np.pi / 2)
    np.testing.assert_allclose(quat.rotate(q, [1, 0, 0]), [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(quat.matrix_from_quat(q) @ [1, 0, 0], [0, 1, 0], atol=1e-15)


def test_mul_matches_scipy_composition(rng):
    a, b = random_quats(rng, 200), random_quats(rng, 200)
    expected = Rotation.from_quat(a, scalar_first=True) * Rotation.from_quat(b, scalar_first=True)
    assert same_rotation(quat.mul(a, b), expected.as_quat(scalar_first=True))


def test_rotate_and_matrix_match_scipy(rng):
    q = random_quats(rng, 300)
    v = rng.normal(size=(300, 3))
    r = Rotation.from_quat(q, scalar_first=True)
    np.testing.assert_allclose(quat.rotate(q, v), r.apply(v), atol=TOL)
    np.testing.assert_allclose(quat.matrix_from_quat(q), r.as_matrix(), atol=TOL)


def test_quat_from_matrix_round_trip_including_half_turns(rng):
    q = random_quats(rng, 300)
    # Half turns about random axes and about the coordinate axes: w = 0 exactly.
    axes = np.concatenate([rng.normal(size=(50, 3)), np.eye(3), -np.eye(3)])
    half = quat.quat_from_axis_angle(axes, np.pi)
    q = np.concatenate([q, half, [[1, 0, 0, 0]]])
    m = quat.matrix_from_quat(q)
    back = quat.quat_from_matrix(m)
    assert same_rotation(back, q)
    np.testing.assert_allclose(quat.matrix_from_quat(back), m, atol=TOL)
    scipy_q = Rotation.from_matrix(m).as_quat(scalar_first=True)
    assert same_rotation(back, scipy_q)
    assert np.all(back[:, 0] >= 0)


def test_axis_angle_round_trip_and_scipy(rng):
    q = random_quats(rng, 200)
    axis, angle = quat.axis_angle_from_quat(q)
    assert np.all((angle >= 0) & (angle <= np.pi))
    np.testing.assert_allclose(
        axis * angle[:, None], Rotation.from_quat(q, scalar_first=True).as_rotvec(), atol=TOL
    )
    assert same_rotation(quat.quat_from_axis_angle(axis, angle), q)
    np.testing.assert_allclose(quat.rotvec_from_quat(q), axis * angle[:, None], atol=TOL)
    assert same_rotation(quat.quat_from_rotvec(quat.rotvec_from_quat(q)), q)


def test_identity_axis_angle_is_defined():
    axis, angle = quat.axis_angle_from_quat([1.0, 0, 0, 0])
    assert angle == 0 and np.all(np.isfinite(axis))
    with pytest.raises(ValueError, match="zero length"):
        quat.quat_from_axis_angle([0, 0, 0], 1.0)


def test_inverse_conj_normalize(rng):
    q = random_quats(rng, 50) * rng.uniform(0.5, 2, size=(50, 1))
    np.testing.assert_allclose(
        quat.mul(q, quat.inverse(q)), np.tile([1, 0, 0, 0], (50, 1)), atol=TOL
    )
    np.testing.assert_allclose(quat.norm(quat.normalize(q)), 1, atol=TOL)
    with pytest.raises(ValueError, match="zero"):
        quat.normalize([0, 0, 0, 0])
    with pytest.raises(ZeroDivisionError):
        quat.inverse([0, 0, 0, 0])


def test_slerp_matches_scipy(rng):
    a, b = random_quats(rng, 100), random_quats(rng, 100)
    t = rng.uniform(size=100)
    ours = quat.slerp(a, b, t)
    for k in range(100):
        s = Slerp([0, 1], Rotation.from_quat([a[k], b[k]], scalar_first=True))
        assert same_rotation(ours[k], s(t[k]).as_quat(scalar_first=True))


def test_slerp_exact_at_ends_and_shorter_arc(rng):
    a, b = random_quats(rng, 100), random_quats(rng, 100)
    np.testing.assert_array_equal(quat.slerp(a, b, np.zeros(100)), a)
    end = quat.slerp(a, b, np.ones(100))
    np.testing.assert_array_equal(np.abs(end), np.abs(b))
    # Shorter arc: the middle is as far from a as from b, at most a quarter turn each way.
    mid = quat.slerp(a, b, np.full(100, 0.5))
    da, db = quat.angle_between(a, mid), quat.angle_between(mid, b)
    np.testing.assert_allclose(da, db, atol=1e-10)
    assert np.all(da <= np.pi / 2 + 1e-12)
    # b and -b give the same path.
    np.testing.assert_allclose(quat.slerp(a, -b, 0.3), quat.slerp(a, b, 0.3), atol=TOL)


def test_slerp_nearly_equal_inputs_is_stable():
    a = np.array([1.0, 0, 0, 0])
    for eps in (1e-9, 1e-14, 1e-17, 0.0):
        b = quat.quat_from_axis_angle([0, 0, 1], eps)
        mid = quat.slerp(a, b, 0.5)
        assert np.all(np.isfinite(mid))
        np.testing.assert_allclose(quat.rotvec_from_quat(mid)[2], eps / 2, atol=1e-20 + 1e-9 * eps)


def test_exp_log_against_scipy(rng):
    q = random_quats(rng, 100)
    q = quat.canonical(q)
    lg = quat.log(q)
    np.testing.assert_allclose(lg[:, 0], 0, atol=TOL)
    np.testing.assert_allclose(
        2 * lg[:, 1:], Rotation.from_quat(q, scalar_first=True).as_rotvec(), atol=TOL
    )
    np.testing.assert_allclose(quat.exp(lg), q, atol=TOL)
    # Non-unit quaternions: exp(log(q)) = q.
    p = rng.normal(size=(20, 4))
    np.testing.assert_allclose(quat.exp(quat.log(p)), p, atol=1e-12)


def test_broadcasting_over_leading_axes(rng):
    a = random_quats(rng, 12).reshape(3, 4, 4)
    b = random_quats(rng, 4)
    out = quat.mul(a, b)
    assert out.shape == (3, 4, 4)
    np.testing.assert_allclose(out[2, 1], quat.mul(a[2, 1], b[1]))
    assert quat.rotate(a, np.ones(3)).shape == (3, 4, 3)
    assert quat.slerp(a, b, 0.25).shape == (3, 4, 4)
    assert quat.matrix_from_quat(a).shape == (3, 4, 3, 3)


@pytest.mark.parametrize("angle_from_opposite", [0.0, 1e-12, 1e-8, 1e-4, 1e-3, 5e-3])
def test_shortest_arc_nearly_opposite(rng, angle_from_opposite):
    for _ in range(20):
        u = rng.normal(size=3)
        perp = np.cross(u, rng.normal(size=3))
        # v is -u turned by a small angle towards perp
        v = quat.rotate(quat.quat_from_axis_angle(perp, np.pi - angle_from_opposite), u)
        q = quat.shortest_arc(u, v)
        np.testing.assert_allclose(np.linalg.norm(q), 1, atol=1e-14)
        np.testing.assert_allclose(
            quat.rotate(q, u / np.linalg.norm(u)), v / np.linalg.norm(v), atol=1e-12
        )


def test_shortest_arc_is_minimal_and_handles_equal(rng):
    u, v = rng.normal(size=(100, 3)), rng.normal(size=(100, 3))
    q = quat.shortest_arc(u, v)
    un = u / np.linalg.norm(u, axis=1, keepdims=True)
    vn = v / np.linalg.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(quat.rotate(q, un), vn, atol=1e-12)
    _, angle = quat.axis_angle_from_quat(q)
    np.testing.assert_allclose(angle, np.arccos(np.clip(np.sum(un * vn, 1), -1, 1)), atol=1e-7)
    np.testing.assert_allclose(
        quat.shortest_arc(u, 3 * u), np.tile([1, 0, 0, 0], (100, 1)), atol=1e-15
    )
    with pytest.raises(ValueError, match="zero-length"):
        quat.shortest_arc([0, 0, 0], [1, 0, 0])


unit_quats = (
    arrays(np.float64, 4, elements=st.floats(-1, 1))
    .filter(lambda q: np.linalg.norm(q) > 0.1)
    .map(lambda q: q / np.linalg.norm(q))
)


@settings(max_examples=200, deadline=None)
@given(unit_quats, unit_quats, st.floats(0, 1))
def test_slerp_stays_unit_and_on_the_arc(a, b, t):
    s = quat.slerp(a, b, t)
    assert abs(np.linalg.norm(s) - 1) < 1e-12
    total = quat.angle_between(a, b)
    assert abs(quat.angle_between(a, s) - t * total) < 1e-7


def test_the_three_layouts_are_one_vocabulary(rng):
    """Stacks ``(..., 4)``, component-major ``(4, ...)`` and one rotation as floats give the
    same products, rotations and arcs bit for bit (the same formulas)."""
    a, b = random_quats(rng, 7), random_quats(rng, 7)
    v = rng.normal(size=(7, 3))
    u = v / np.linalg.norm(v, axis=-1, keepdims=True)
    w = np.roll(u, 1, axis=0)
    product, turned, arc = quat.mul(a, b), quat.rotate(a, v), quat.arc_of_units(u, w)
    assert quat.mul_components(a.T, b.T).T.tobytes() == product.tobytes()
    np.testing.assert_allclose(quat.rotate_components(a.T, v.T).T, turned, atol=1e-15)
    np.testing.assert_allclose(quat.normalize_components(2.0 * a.T).T, a, atol=1e-16)
    np.testing.assert_array_equal(vectors.cross_components(u.T, w.T).T, np.cross(u, w))
    for k in range(7):
        assert quat.mul_one(tuple(a[k]), tuple(b[k])) == tuple(product[k])
        assert quat.conj_one(tuple(a[k])) == tuple(quat.conj(a[k]))
        np.testing.assert_allclose(quat.rotate_one(tuple(a[k]), tuple(v[k])), turned[k], atol=1e-15)
        np.testing.assert_allclose(
            quat.arc_of_units_one(tuple(u[k]), tuple(w[k])), arc[k], atol=1e-15
        )
        axis_angle = quat.quat_from_axis_angle_one(tuple(v[k]), 0.7)
        np.testing.assert_allclose(axis_angle, quat.quat_from_axis_angle(v[k], 0.7), atol=1e-15)
