"""Curve-view data (continuous quaternion curves) and the world-vs-object difference."""

import types

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

from app.scene.analysis.compare import pose_differences
from app.scene.analysis.curves import continuous, rotation_curve
from app.scene.constraints.points_at.model import PointsAt
from app.scene.constraints.registry import SOLVERS
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.math.transforms import T
from app.scene.rig.keys import Keys
from app.scene.rig.model import Target
from app.scene.rig.skeleton import Skeleton, forward_kinematics, local_transforms
from tests.helpers.paths import SCENES


def test_curves_have_no_sign_jumps_and_are_the_keyed_rotations(rng):
    key_frames = np.array([0.0, 10.0, 25.0, 40.0])
    values = Rotation.random(4, rng=rng).as_quat(scalar_first=True)
    values[1::2] *= -1  # keys on alternating hemispheres: raw samples flip sign
    frames = np.arange(-5.0, 46.0)
    curve = rotation_curve((1, 0, 0, 0), Keys(key_frames, values), frames)
    assert np.all(np.einsum("fi,fi->f", curve.quats[1:], curve.quats[:-1]) > 0)
    assert curve.quats[0, 0] >= 0
    expected = Slerp(key_frames, Rotation.from_quat(values, scalar_first=True))(
        np.clip(frames, 0, 40)
    )
    np.testing.assert_allclose(
        Rotation.from_quat(curve.quats, scalar_first=True).as_matrix(),
        expected.as_matrix(),
        atol=1e-12,
    )
    # Key markers sit on the curve.
    at_keys = curve.quats[np.searchsorted(frames, key_frames)]
    np.testing.assert_allclose(curve.key_quats, at_keys, atol=1e-12)
    np.testing.assert_allclose(np.abs(curve.key_quats), np.abs(values))


def test_a_spin_past_half_a_turn_reads_its_full_angle():
    degrees = np.arange(0, 271, 45.0)
    q = Rotation.from_rotvec(np.radians(degrees)[:, None] * [0, 1, 0]).as_quat(scalar_first=True)
    q = q * np.where(q[:, :1] < 0, -1, 1)  # scipy-style canonical keys: w >= 0
    frames = np.linspace(0, 6, 61)
    curve = rotation_curve((1, 0, 0, 0), Keys(np.arange(7.0), q), frames)
    np.testing.assert_allclose(curve.angle_deg, frames * 45.0, atol=1e-9)
    np.testing.assert_allclose(curve.key_angle_deg, degrees, atol=1e-9)


def test_static_rotation_and_empty_input():
    curve = rotation_curve((-0.6, 0.0, -0.8, 0.0), None, [0.0, 1.0])
    np.testing.assert_array_equal(curve.quats, [[0.6, 0, 0.8, 0], [0.6, 0, 0.8, 0]])
    assert curve.key_quats.shape == (0, 4)
    assert continuous(np.zeros((0, 4))).shape == (0, 4)


def install_probe(monkeypatch):
    """A stand-in points-at solver: 30 degrees about world y through the head in world space,
    10 degrees about the bone's own x in object space (known answers, no real solver)."""
    module = types.ModuleType("probe_points_at")

    def apply(constraint, ctx):
        b = ctx.skeleton.index(constraint.bone)
        world = ctx.bone_to_world[:, b]
        if ctx.space_of(constraint) == "world":
            turn = np.eye(4)
            turn[:3, :3] = Rotation.from_rotvec([0, np.radians(30), 0]).as_matrix()
            head = world[:, :3, 3]
            ctx.set_world(b, T(head) @ turn @ T(-head) @ world)
        else:
            turn = np.eye(4)
            turn[:3, :3] = Rotation.from_rotvec([np.radians(10), 0, 0]).as_matrix()
            ctx.set_world(b, world @ turn)

    module.apply = apply
    monkeypatch.setitem(SOLVERS, PointsAt, module)


def test_world_against_object_difference(monkeypatch):
    install_probe(monkeypatch)
    scene = load_scene(SCENES / "legs.json")
    scene.constraints.append(PointsAt(name="aim", bone="calf.l", target=Target(bone="foot.r")))
    frames = np.arange(0.0, 30.0, 3.0)
    world, obj = bake(scene, frames, "world"), bake(scene, frames, "object")
    head_distance, angle_deg = pose_differences(world.bone_to_world, obj.bone_to_world)
    np.testing.assert_array_equal(world.frames, frames)
    calf, foot = scene.bone_index("calf.l"), scene.bone_index("foot.l")
    untouched = [i for i in range(len(scene.bones)) if i not in (calf, foot)]
    assert np.all(head_distance[:, untouched] == 0) and np.all(angle_deg[:, untouched] == 0)
    np.testing.assert_allclose(head_distance[:, calf], 0, atol=1e-12)  # turned about it
    # By hand: the two poses of the calf, and where each puts the ankle.
    skeleton = Skeleton.from_scene(scene)
    world = forward_kinematics(skeleton, local_transforms(scene, frames))[:, calf]
    rw = Rotation.from_rotvec([0, np.radians(30), 0])
    ro = Rotation.from_rotvec([np.radians(10), 0, 0])
    r = Rotation.from_matrix(world[:, :3, :3])
    expected_angle = ((rw * r).inv() * (r * ro)).magnitude()
    np.testing.assert_allclose(angle_deg[:, calf], np.degrees(expected_angle), atol=1e-9)
    ankle = np.array(scene.bone("foot.l").translation)
    ankle_world = (rw * r).apply(ankle)
    ankle_object = (r * ro).apply(ankle)
    distance = np.linalg.norm(ankle_world - ankle_object, axis=1)
    np.testing.assert_allclose(head_distance[:, foot], distance, atol=1e-12)
    np.testing.assert_allclose(angle_deg[:, foot], angle_deg[:, calf], atol=1e-9)
