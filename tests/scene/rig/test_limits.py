"""Rotation limits: cone, hinge and twist, clamping and violation, against brute force."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.math import quat
from app.scene.rig.limits import (
    circular_excess,
    clamp_circular,
    cone_direction,
    limited_rotation,
    twist_angle,
    violation_deg,
)
from app.scene.rig.model import ConeLimit, HingeLimit


def unit_vectors(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def random_rotations(rng, n):
    return Rotation.random(n, random_state=rng).as_quat(scalar_first=True)


def angle(u, v):
    return np.degrees(np.arctan2(np.linalg.norm(np.cross(u, v), axis=-1), np.sum(u * v, -1)))


def test_twist_angle_recovers_the_twist_of_a_swing_twist_product(rng):
    axis = unit_vectors(rng, 200)
    twist = rng.uniform(-np.pi, np.pi, 200)
    swing_axis = np.cross(axis, unit_vectors(rng, 200))  # perpendicular to the axis
    swing = Rotation.from_rotvec(
        swing_axis
        / np.linalg.norm(swing_axis, axis=-1)[:, None]
        * rng.uniform(0, 3.0, 200)[:, None]
    )
    q = (swing * Rotation.from_rotvec(axis * twist[:, None])).as_quat(scalar_first=True)
    np.testing.assert_allclose(twist_angle(q, axis), twist, atol=1e-12)
    np.testing.assert_allclose(twist_angle(-q, axis), twist, atol=1e-12)  # -q: same rotation


def test_clamp_circular_goes_to_the_nearer_end_on_the_circle(rng):
    for lo, hi in [(-30, 60), (150, 210), (-180, -170), (0, 0)]:
        lo_r, hi_r = np.radians(lo), np.radians(hi)
        angles = rng.uniform(-np.pi, np.pi, 2000)
        out = clamp_circular(angles, lo_r, hi_r)
        allowed = np.linspace(lo_r, hi_r, 4001)
        # Brute force: the allowed angle nearest on the circle.
        gap = np.abs((angles[:, None] - allowed[None] + np.pi) % (2 * np.pi) - np.pi)
        best = allowed[np.argmin(gap, axis=1)]
        np.testing.assert_allclose(np.exp(1j * out), np.exp(1j * best), atol=2e-3)
        excess = circular_excess(angles, lo_r, hi_r)
        np.testing.assert_allclose(excess, gap.min(axis=1), atol=1e-3)
        inside = excess == 0
        np.testing.assert_allclose(np.exp(1j * out[inside]), np.exp(1j * angles[inside]))


def test_cone_direction_keeps_inside_and_stops_on_the_cone_towards_the_target(rng):
    rest = unit_vectors(rng, 500)
    desired = unit_vectors(rng, 500) * rng.uniform(0.1, 3, (500, 1))
    out = cone_direction(rest, desired, rest, 40.0)
    inside = angle(rest, desired) <= 40
    np.testing.assert_allclose(
        out[inside], desired[inside] / np.linalg.norm(desired[inside], axis=-1)[:, None]
    )
    np.testing.assert_allclose(angle(rest[~inside], out[~inside]), 40.0, atol=1e-9)
    # Outside: in the plane of rest and desired, on the desired's side.
    normal = np.cross(rest, desired)
    assert np.abs(np.sum(out * normal, -1)).max() < 1e-9
    assert np.all(angle(out[~inside], desired[~inside]) < angle(rest[~inside], desired[~inside]))


def test_cone_with_target_opposite_turns_towards_where_the_bone_leans():
    rest = np.array([[0.0, -1.0, 0.0]])
    current = np.array([[0.0, -1.0, 0.3]])
    out = cone_direction(rest, -rest, current, 30.0)
    np.testing.assert_allclose(
        out, [[0, -np.cos(np.radians(30)), np.sin(np.radians(30))]], atol=1e-12
    )


def test_limited_rotation_cone_is_the_shortest_arc_from_the_animation_within_the_cone(rng):
    n = 400
    u = unit_vectors(rng, n)
    d0 = random_rotations(rng, n)
    desired = unit_vectors(rng, n)
    d1 = limited_rotation(ConeLimit(degrees=50.0), d0, u, desired)
    tail = quat.rotate(d1, u)
    assert angle(u, tail).max() <= 50 + 1e-9
    inside = angle(u, desired) <= 50
    np.testing.assert_allclose(tail[inside], desired[inside], atol=1e-12)
    # Shortest arc from the animated pose: the change d1 d0^-1 turns about an axis across
    # the bone's current direction (no twist about it).
    delta = quat.mul(d1, quat.conj(d0))
    np.testing.assert_allclose(twist_angle(delta, quat.rotate(d0, u)), 0.0, atol=1e-9)
    assert violation_deg(ConeLimit(degrees=50.0), d1, u).max() == 0.0


def test_twist_range_clamps_the_twist_and_keeps_the_direction(rng):
    n = 300
    u = unit_vectors(rng, n)
    d0 = random_rotations(rng, n)
    desired = unit_vectors(rng, n)
    limit = ConeLimit(degrees=180.0, twist=(-20.0, 35.0))
    free = limited_rotation(ConeLimit(degrees=180.0), d0, u, desired)
    d1 = limited_rotation(limit, d0, u, desired)
    np.testing.assert_allclose(quat.rotate(d1, u), quat.rotate(free, u), atol=1e-12)
    tw = np.degrees(twist_angle(d1, u))
    assert tw.min() >= -20 - 1e-9 and tw.max() <= 35 + 1e-9
    assert np.max(violation_deg(limit, free, u)) > 1  # the free pose did leave the range
    assert violation_deg(limit, d1, u).max() == 0.0


def test_hinge_takes_the_allowed_angle_that_brings_the_tail_closest(rng):
    n = 200
    limit = HingeLimit(axis=(1.0, 2.0, 0.5), min=-30.0, max=110.0)
    a = np.array(limit.axis) / np.linalg.norm(limit.axis)
    u = unit_vectors(rng, n)
    target = unit_vectors(rng, n) * 2.0
    d1 = limited_rotation(limit, random_rotations(rng, n), u, target)
    # Independent: scipy rotations about the axis over a fine grid of the range.
    grid = np.radians(np.linspace(-30, 110, 14001))
    for i in range(n):
        tails = Rotation.from_rotvec(a[None] * grid[:, None]).apply(u[i])
        best = grid[np.argmin(np.linalg.norm(tails - target[i], axis=-1))]
        expected = Rotation.from_rotvec(a * best).as_quat(scalar_first=True)
        assert quat.angle_between(d1[i], expected) < 2e-4
    assert violation_deg(limit, d1, u).max() == 0.0


def test_hinge_violation_is_the_geodesic_distance_to_the_allowed_rotations(rng):
    limit = HingeLimit(axis=(0.0, 0.0, 1.0), min=-45.0, max=90.0)
    d = random_rotations(rng, 100)
    u = unit_vectors(rng, 100)
    got = violation_deg(limit, d, u)
    grid = np.radians(np.linspace(-45, 90, 27001))
    allowed = Rotation.from_rotvec(np.array([0, 0, 1.0])[None] * grid[:, None])
    # The angle of allowed^-1 d for unit quaternions: 2 acos |<allowed, d>| (every pair at once).
    dots = np.abs(allowed.as_quat(scalar_first=True) @ np.asarray(d).T)  # (grid, 100)
    distance = 2 * np.arccos(np.clip(dots.max(axis=0), 0.0, 1.0))
    for i in range(100):
        assert got[i] == pytest.approx(np.degrees(distance[i]), abs=1e-3)


def test_cone_violation_is_how_far_the_tail_leaves_the_cone(rng):
    d = random_rotations(rng, 300)
    u = unit_vectors(rng, 300)
    got = violation_deg(ConeLimit(degrees=25.0), d, u)
    expected = np.maximum(angle(u, quat.rotate(d, u)) - 25.0, 0.0)
    np.testing.assert_allclose(got, np.where(expected < 1e-9, 0, expected), atol=1e-9)


def test_a_zero_desired_direction_keeps_the_pose_clamped(rng):
    u = np.array([[0.0, -1.0, 0.0]])
    d0 = quat.quat_from_axis_angle([1.0, 0, 0], np.radians(70.0))[None]
    d1 = limited_rotation(ConeLimit(degrees=30.0), d0, u, np.zeros((1, 3)))
    assert angle(u, quat.rotate(d1, u))[0] == pytest.approx(30.0)
    same = limited_rotation(None, d0, u, np.zeros((1, 3)))
    np.testing.assert_allclose(same, d0)
