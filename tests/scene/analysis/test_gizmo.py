"""Arcball and rotation bookkeeping (app.scene.analysis.gizmo), checked with scipy's Rotation."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.analysis.gizmo import (
    arcball_point,
    arcball_rotation,
    rotation_in_world,
    turn_in_frame,
)
from app.scene.math import quat


def R(q):
    return Rotation.from_quat(q, scalar_first=True)


def test_arcball_point_lies_on_the_unit_sphere_front_or_rim(rng):
    for pixel in rng.uniform(0, 400, (50, 2)):
        p = arcball_point(pixel, [200, 200], 120)
        assert np.isclose(np.linalg.norm(p), 1) and p[2] >= 0
    assert np.allclose(arcball_point([200, 200], [200, 200], 100), [0, 0, 1])
    assert np.allclose(arcball_point([300, 200], [200, 200], 100), [1, 0, 0])
    assert np.allclose(arcball_point([200, 100], [200, 200], 100), [0, 1, 0])  # y up
    assert np.allclose(arcball_point([200, 900], [200, 200], 100), [0, -1, 0])  # outside


def test_dragging_the_front_to_the_right_rim_is_a_quarter_turn_about_up():
    q = arcball_rotation([200, 200], [300, 200], [200, 200], 100)
    expected = Rotation.from_rotvec([0, np.pi / 2, 0])
    assert (R(q) * expected.inv()).magnitude() < 1e-9


def test_the_point_under_the_cursor_follows_it(rng):
    for _ in range(20):
        a, b = rng.uniform(120, 280, (2, 2))
        q = arcball_rotation(a, b, [200, 200], 100)
        moved = quat.rotate(q, arcball_point(a, [200, 200], 100))
        assert np.allclose(moved, arcball_point(b, [200, 200], 100), atol=1e-9)


def test_rotation_in_world_conjugates_by_the_camera(rng):
    eye_to_world = Rotation.random(random_state=1).as_matrix()
    q_eye = Rotation.random(random_state=2).as_quat(scalar_first=True)
    q_world = rotation_in_world(q_eye, eye_to_world)
    v_eye = rng.normal(size=3)
    # turning a vector in the eye frame, seen in the world, is q_world acting on E v
    assert np.allclose(eye_to_world @ R(q_eye).apply(v_eye), R(q_world).apply(eye_to_world @ v_eye))


def test_turn_in_frame_turns_the_world_rotation_by_delta():
    p = Rotation.random(random_state=3)
    r = Rotation.random(random_state=4)
    d = Rotation.random(random_state=5)
    q = turn_in_frame(
        r.as_quat(scalar_first=True), d.as_quat(scalar_first=True), p.as_quat(scalar_first=True)
    )
    # the world rotation P r' equals D P r
    assert ((p * R(q)) * (d * p * r).inv()).magnitude() < 1e-9
    assert q @ r.as_quat(scalar_first=True) >= 0  # same hemisphere as the old key


def test_framing_distance_fits_the_sphere_with_a_margin_on_both_axes():
    # a sphere of radius r at distance d subtends the half angle asin(r/d) about the line of
    # sight: the sphere with its margin fits the horizontal and the vertical half field, and
    # just so in the narrower one (the view is not left needlessly small)
    from app.scene.analysis.camera_framing import MARGIN, framing_distance

    for fov, aspect in ((60, 1.6), (60, 0.5), (90, 1.0), (60, 3.0)):
        d = framing_distance(1.0, fov, aspect)
        half_h = np.radians(fov) / 2
        half_v = np.arctan(np.tan(half_h) / aspect)
        spans = np.arcsin(MARGIN / d)
        assert MARGIN > 1.05  # a margin, not a squeeze
        assert spans <= half_h + 1e-12 and spans <= half_v + 1e-12
        assert spans > 0.999 * min(half_h, half_v)


def test_broadside_direction_looks_across_the_spread():
    from app.scene.analysis.gizmo import broadside_direction

    walk = np.array([[x, y, 0.02 * np.sin(x)] for x in np.linspace(0, 3, 30) for y in (0, 1)])
    d = broadside_direction(walk, turn_degrees=0)
    assert np.allclose(d, [0, 0, 1], atol=1e-2)  # a walk along X is seen from the side, in front
    arm = np.array([[t * 0.87, 1.3, t * 0.5] for t in np.linspace(0, 0.7, 20)])
    arm[::2, 1] += 0.1
    d = broadside_direction(arm, turn_degrees=0)
    assert abs(d @ np.array([0.87, 0, 0.5])) < 1e-6 and d[2] > 0  # across the arm
    turned = broadside_direction(walk, turn_degrees=30)
    assert np.isclose(np.degrees(np.arccos(turned @ [0, 0, 1])), 30, atol=0.1)
    assert turned[1] == 0 and np.isclose(np.linalg.norm(turned), 1)
