"""Gizmo and modal-transform math (app.scene.analysis.transform_math, typed_number), checked
against scipy's Rotation, brute-force searches and closed forms."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.analysis.transform_math import (
    ANGLE_STEP,
    axis_facing,
    axis_parameter,
    dial_sign,
    facing_mask,
    nearest_part,
    polyline_distance,
    ring_points,
    screen_angle,
    snapped,
    tangent_angle,
    unwrap,
)
from app.scene.analysis.typed_number import TypedNumber


def test_ring_points_lie_on_the_circle_and_walk_positively_about_the_axis(rng):
    for _ in range(20):
        center = rng.normal(size=3)
        axis = rng.normal(size=3)
        radius = rng.uniform(0.1, 3)
        ring = ring_points(center, axis, radius, segments=36)
        unit = axis / np.linalg.norm(axis)
        assert np.allclose(np.linalg.norm(ring - center, axis=1), radius)
        assert np.allclose((ring - center) @ unit, 0, atol=1e-12)
        assert np.allclose(ring[0], ring[-1])
        # point k is point 0 turned by k * 10 degrees about the axis (right-hand rule)
        turn = Rotation.from_rotvec(unit * np.radians(10 * 7))
        assert np.allclose(turn.apply(ring[0] - center) + center, ring[7])


def test_facing_mask_keeps_the_half_towards_the_eye():
    ring = ring_points([0, 0, 0], [0, 1, 0], 1.0, segments=8)  # in the XZ plane
    mask = facing_mask(ring, [0, 0, 0], [0, 0, 10])  # eye on +Z
    assert np.array_equal(mask, ring[:, 2] >= -1e-9)
    assert 0 < mask.sum() < len(ring)
    # face-on, a ring lies in the hiding plane; a margin keeps it whole
    face_on = ring_points([0, 0, 0], [0, 0, 1], 1.0, segments=8)
    assert facing_mask(face_on, [0, 0, 0], [0, 0, 10], margin=0.05).all()
    assert not facing_mask(ring, [0, 0, 0], [0, 0, 10], margin=0.05)[ring[:, 2] < -0.1].any()


def test_polyline_distance_matches_dense_sampling(rng):
    for _ in range(20):
        points = rng.uniform(0, 200, (6, 2))
        mask = rng.random(6) > 0.3
        pixel = rng.uniform(0, 200, 2)
        samples = []
        for i in range(5):
            if mask[i] and mask[i + 1]:
                t = np.linspace(0, 1, 4001)[:, None]
                samples.append(points[i] + t * (points[i + 1] - points[i]))
        expected = (
            np.linalg.norm(np.concatenate(samples) - pixel, axis=1).min() if samples else np.inf
        )
        got = polyline_distance(pixel, points, mask)
        assert (got == expected == np.inf) or abs(got - expected) < 0.06


def test_polyline_distance_skips_points_behind_the_camera():
    points = np.array([[0.0, 0.0], [10.0, 0.0], [np.nan, np.nan], [50.0, 0.0], [60.0, 0.0]])
    assert polyline_distance([30, 0], points) == 20.0  # the gap is not a segment
    assert nearest_part([5.0, 2.0, np.inf], 4.0) == 1 and nearest_part([5.0, 9.0], 4.0) == -1


def test_screen_angle_is_counter_clockwise_as_seen_with_y_down():
    c = [100, 100]
    assert np.isclose(screen_angle(c, [150, 100], [100, 50]), np.pi / 2)  # right -> up
    assert np.isclose(screen_angle(c, [150, 100], [100, 150]), -np.pi / 2)  # right -> down
    assert np.isclose(unwrap(3.0, -3.0), 2 * np.pi - 3.0)  # keeps counting past half a turn
    assert dial_sign([0, 0, 1], [0, 0, 0], [0, 0, 5]) == 1
    assert dial_sign([0, 0, 1], [0, 0, 0], [0, 0, -5]) == -1
    assert np.isclose(axis_facing([1, 0, 0], [0, 0, 0], [0, 0, 5]), 0)


def test_tangent_angle_is_arc_length_over_radius():
    # the grabbed point moves 40 px per world unit along +x; dragging 20 px is 0.5 units
    assert np.isclose(tangent_angle([20, 7], [40, 0], 2.0), 0.25)
    assert tangent_angle([20, 7], [0, 0], 2.0) == 0.0


def test_axis_parameter_is_the_nearest_point_of_the_line_to_the_ray(rng):
    for _ in range(20):
        origin, direction = rng.normal(size=3), rng.normal(size=3)
        point, axis = rng.normal(size=3), rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        s = axis_parameter(origin, direction, point, axis)
        # brute force: distance from each line point to the (infinite) ray line
        d = direction / np.linalg.norm(direction)
        grid = s + np.linspace(-0.05, 0.05, 2001)
        on_line = point + grid[:, None] * axis
        w = on_line - origin
        dist = np.linalg.norm(w - (w @ d)[:, None] * d, axis=1)
        assert abs(grid[np.argmin(dist)] - s) < 1e-4
    assert axis_parameter([0, 0, 5], [0, 0, -1], [0, 0, 0], [0, 0, 1]) is None  # along it


def test_snapping_steps():
    assert np.isclose(snapped(np.radians(37.4), ANGLE_STEP), np.radians(35))
    assert np.isclose(snapped(np.radians(-38), ANGLE_STEP), np.radians(-40))
    assert np.allclose(snapped([0.26, -0.04, 1.449], 0.1), [0.3, 0.0, 1.4])


def test_typed_number_reads_like_blender():
    n = TypedNumber()
    assert n.value() is None and not n.active
    for c in "90":
        assert n.type(c)
    assert n.value() == 90.0 and n.text() == "90"
    n.type("-")  # flips the sign wherever typed
    assert n.value() == -90.0 and n.text() == "-90"
    assert n.backspace()  # the flip
    assert n.value() == 90.0
    n.backspace()
    n.backspace()
    assert n.value() is None and not n.backspace()
    for c in "-.5":
        n.type(c)
    assert n.value() == -0.5
    n.type(".")  # a second point is ignored
    n.type("2")
    assert n.value() == -0.52
    assert not n.type("x") and n.value() == -0.52
    n.clear()
    n.type("-")
    assert n.value() is None and n.text() == "-"
