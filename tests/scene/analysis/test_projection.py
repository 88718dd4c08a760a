"""CPU projection and picking (app.scene.analysis.projection) against textbook camera matrices."""

import numpy as np
import pytest
from PySide6 import QtGui

from app.scene.analysis import projection


def look_at(eye, center, up):
    """world_to_eye of gluLookAt (written from its man page)."""
    f = np.asarray(center, float) - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    return m @ np.array([[1, 0, 0, -eye[0]], [0, 1, 0, -eye[1]], [0, 0, 1, -eye[2]], [0, 0, 0, 1]])


def perspective(fovy_deg, aspect, near, far):
    """gluPerspective's matrix."""
    f = 1 / np.tan(np.radians(fovy_deg) / 2)
    return np.array(
        [
            [f / aspect, 0, 0, 0],
            [0, f, 0, 0],
            [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
            [0, 0, -1, 0],
        ]
    )


@pytest.fixture
def camera():
    eye = np.array([3.0, 2.0, 5.0])
    world_to_eye = look_at(eye, [0, 0.5, 0], [0, 1, 0])
    world_to_clip = perspective(50, 800 / 600, 0.01, 100) @ world_to_eye
    return eye, world_to_eye, world_to_clip


def test_matrix_from_column_major_matches_qt():
    m = QtGui.QMatrix4x4()
    m.perspective(40, 1.5, 0.1, 50)
    m.rotate(30, 1, 2, 3)
    m.translate(0.5, -1, 2)
    a = projection.matrix_from_column_major(m.data())
    p = np.array([0.3, -0.7, 1.1])
    mapped = m.map(QtGui.QVector3D(*p))  # Qt divides by w
    clip = a @ np.append(p, 1)
    assert np.allclose(clip[:3] / clip[3], [mapped.x(), mapped.y(), mapped.z()], atol=1e-5)


def test_the_look_at_centre_projects_to_the_middle(camera):
    _, _, world_to_clip = camera
    px = projection.project([[0, 0.5, 0]], world_to_clip, 800, 600)
    assert np.allclose(px, [[400, 300]], atol=1e-9)


def test_up_is_up_and_right_is_right_on_screen(camera):
    _, world_to_eye, world_to_clip = camera
    right, up, forward = projection.camera_axes(world_to_eye)
    centre = np.array([0, 0.5, 0])
    px = projection.project(
        [centre, centre + 0.1 * right, centre + 0.1 * up], world_to_clip, 800, 600
    )
    assert px[1, 0] > px[0, 0] + 5 and abs(px[1, 1] - px[0, 1]) < 1e-6
    assert px[2, 1] < px[0, 1] - 5 and abs(px[2, 0] - px[0, 0]) < 1e-6
    eye = projection.eye_position(world_to_eye)
    assert np.allclose(forward, (centre - eye) / np.linalg.norm(centre - eye))


def test_points_behind_the_camera_are_nan(camera):
    eye, world_to_eye, world_to_clip = camera
    _, _, forward = projection.camera_axes(world_to_eye)
    px = projection.project([eye - forward, eye + forward], world_to_clip, 800, 600)
    assert np.all(np.isnan(px[0])) and np.all(np.isfinite(px[1]))


def test_pixel_ray_goes_back_through_the_pixel(camera, rng):
    eye, _, world_to_clip = camera
    for pixel in rng.uniform([0, 0], [800, 600], size=(20, 2)):
        origin, direction = projection.pixel_ray(pixel, world_to_clip, 800, 600)
        assert np.isclose(np.linalg.norm(direction), 1)
        for t in (0.5, 3.0, 20.0):
            back = projection.project([origin + t * direction], world_to_clip, 800, 600)[0]
            assert np.allclose(back, pixel, atol=1e-6)
        # a perspective ray passes through the eye
        to_eye = eye - origin
        assert np.linalg.norm(np.cross(to_eye, direction)) < 1e-6


def test_ray_plane():
    hit = projection.ray_plane([0, 5, 0], [0, -1, 0], [3, 1, 7], [0, 1, 0])
    assert np.allclose(hit, [0, 1, 0])
    assert projection.ray_plane([0, 5, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0]) is None  # parallel
    assert projection.ray_plane([0, 5, 0], [0, 1, 0], [0, 1, 0], [0, 1, 0]) is None  # away
    slanted = projection.ray_plane([1, 2, 3], [1, 1, 1], [0, 0, 0], [1, 0, 0])
    assert slanted is None  # hits at t = -1: behind the origin
    hit = projection.ray_plane([1, 2, 3], [-2, 1, 0], [0, 0, 0], [1, 0, 0])
    assert np.allclose(hit, [0, 2.5, 3])


def test_nearest_within():
    pixels = np.array([[10, 10], [50, 50], [np.nan, np.nan], [52, 49]])
    assert projection.nearest_within(pixels, [51, 49], 5) == 3
    assert projection.nearest_within(pixels, [11, 12], 5) == 0
    assert projection.nearest_within(pixels, [30, 30], 5) == -1
    assert projection.nearest_within(np.zeros((0, 2)), [0, 0], 5) == -1


def test_segment_distances_match_dense_sampling(rng):
    a = rng.uniform(0, 100, (30, 2))
    b = rng.uniform(0, 100, (30, 2))
    b[0] = a[0]  # a degenerate segment is a point
    click = np.array([40.0, 60.0])
    t = np.linspace(0, 1, 20001)[:, None, None]
    dense = np.linalg.norm(a + t * (b - a) - click, axis=2).min(axis=0)
    assert np.allclose(projection.segment_distances(click, a, b), dense, atol=1e-2)
    assert projection.segment_distances(click, [[np.nan, 0]], [[1, 1]])[0] == np.inf
