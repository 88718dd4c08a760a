"""Limit shapes in the world (app.scene.analysis.limit_shapes) against scipy rotations."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.analysis import limit_shapes
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig.model import ConeLimit, HingeLimit
from tests.helpers.paths import SCENES


def _shape(limit):
    axis = np.array([0.0, 0.0, 1.0]) if isinstance(limit, HingeLimit) else np.array([1.0, 0, 0])
    return limit_shapes.LimitShape(
        "c", "b", limit, np.array([1.0, 2.0, 3.0]), np.array([0.0, 2.0, 0.0]), axis
    )


def test_hinge_angles_round_trip_through_points():
    shape = _shape(HingeLimit(axis=(0, 0, 1), min=-30, max=120))
    for angle in (-170.0, -30.0, 0.0, 45.0, 120.0, 179.0):
        point = shape.head + Rotation.from_euler("z", angle, degrees=True).apply([0, 2, 0])
        assert np.isclose(limit_shapes.hinge_angle_at(shape, point), angle)
    ends = limit_shapes.hinge_ends(shape)
    assert np.allclose(
        ends[0] - shape.head, Rotation.from_euler("z", -30, degrees=True).apply([0, 2, 0])
    )


def test_cone_angle_of_a_rim_point_is_the_cone_angle():
    shape = _shape(ConeLimit(degrees=35))
    rim = limit_shapes.cone_rim(shape, 16)
    assert np.allclose([limit_shapes.cone_angle_at(shape, p) for p in rim], 35)
    assert np.allclose(np.linalg.norm(rim - shape.head, axis=1), 2)
    verts, faces = limit_shapes.cone_mesh(shape, 16)
    assert faces.shape == (16, 3) and np.all(faces[:, 0] == 0) and len(verts) == 17


def test_the_rest_frame_is_the_static_rotation_in_the_parent_current_frame():
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    pose = bake(scene, [30])
    (shape,) = limit_shapes.shapes(scene, pose.bone_to_world[0], 30)
    calf = scene.bone("calf.l")
    thigh = pose.bone_to_world[0, scene.bone_index("thigh.l")]
    rot = Rotation.from_matrix(thigh[:3, :3]) * Rotation.from_quat(calf.rotation, scalar_first=True)
    tail = np.asarray(scene.tail_of(scene.bone_index("calf.l")))
    assert np.allclose(shape.rest_tail, rot.apply(tail * calf.scale))
    assert np.allclose(shape.head, thigh[:3, :3] @ calf.translation + thigh[:3, 3])
    assert np.allclose(shape.hinge_axis, rot.apply([1.0, 0, 0]))
