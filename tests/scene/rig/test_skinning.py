"""Linear blend skinning (app.scene.rig.skinning) against a per-vertex loop written here,
closed cases (rigid motion checked with scipy's Rotation, the rest pose), and the envelope
tube meshes the examples and benchmarks use."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig.envelope import envelope_weights, segment_distances, tube_mesh
from app.scene.rig.mesh import SkinnedMesh
from app.scene.rig.skinning import bind, vertex_normals

SCENES = Path(__file__).resolve().parents[3] / "resources" / "scenes"


def _random_transforms(rng, n, scale=True):
    out = np.tile(np.eye(4), (n, 1, 1))
    out[:, :3, :3] = Rotation.random(n, random_state=rng).as_matrix()
    if scale:  # non-uniform scale: the normals need the inverse transpose
        out[:, :3, :3] = out[:, :3, :3] @ np.apply_along_axis(
            np.diag, 1, rng.uniform(0.5, 2.0, (n, 3))
        )
    out[:, :3, 3] = rng.normal(size=(n, 3))
    return out


def _random_mesh(rng, vertices=200, joints=5, influences=4):
    positions = rng.normal(size=(vertices, 3))
    normals = rng.normal(size=(vertices, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    joint_indices = np.stack([np.resize(rng.permutation(joints), 4) for _ in range(vertices)])
    weights = rng.uniform(0.1, 1.0, (vertices, 4))
    weights[:, min(influences, joints) :] = 0.0
    weights /= weights.sum(axis=1, keepdims=True)
    return SkinnedMesh(
        name="random",
        positions=positions,
        indices=np.arange(vertices - vertices % 3).reshape(-1, 3),
        joints=tuple(f"j{i}" for i in range(joints)),
        joint_indices=joint_indices,
        weights=weights,
        inverse_bind=np.linalg.inv(_random_transforms(rng, joints)),
        normals=normals,
    )


def _loop_skin(mesh, bone_names, bone_to_world):
    """glTF's formula, one vertex at a time, one influence at a time."""
    positions, normals, matrices = [], [], []
    for v in range(len(mesh.positions)):
        m = np.zeros((4, 4))
        for k in range(4):
            w = mesh.weights[v, k]
            if w == 0:
                continue
            joint = mesh.joint_indices[v, k]
            bone = bone_names.index(mesh.joints[joint])
            m += w * (bone_to_world[bone] @ mesh.inverse_bind[joint])
        matrices.append(m[:3])
        positions.append((m @ np.append(mesh.positions[v], 1.0))[:3])
        n = np.linalg.inv(m[:3, :3]).T @ mesh.normals[v]
        normals.append(n / np.linalg.norm(n))
    return np.array(positions), np.array(normals), np.array(matrices)


@pytest.mark.parametrize("influences", [1, 2, 4])
def test_matches_a_per_vertex_loop(influences):
    rng = np.random.default_rng(influences)
    mesh = _random_mesh(rng, influences=influences)
    # the skeleton lists the bones in another order than the skin's joints, plus one more
    bone_names = ["extra", "j3", "j1", "j0", "j4", "j2"]
    pose = _random_transforms(rng, len(bone_names))
    expected_p, expected_n, expected_m = _loop_skin(mesh, bone_names, pose)
    skin = bind(mesh, bone_names)
    assert skin.slots.shape[1] == influences  # zero-weight columns dropped
    got_p, got_n = skin.deform(pose)
    np.testing.assert_allclose(got_p, expected_p, atol=1e-10)
    np.testing.assert_allclose(got_n, expected_n, atol=1e-10)
    np.testing.assert_allclose(skin.blended_matrices(pose)[0], expected_m, atol=1e-10)


def test_frames_are_vectorized_like_single_frames():
    rng = np.random.default_rng(7)
    mesh = _random_mesh(rng)
    names = list(mesh.joints)
    poses = np.stack([_random_transforms(rng, len(names)) for _ in range(3)])
    skin = bind(mesh, names)
    all_p, all_n = skin.deform(poses)
    assert all_p.shape == (3, len(mesh.positions), 3)
    for f in range(3):
        p, n = skin.deform(poses[f])
        np.testing.assert_array_equal(all_p[f], p)
        np.testing.assert_array_equal(all_n[f], n)
    only = skin.deform(poses, normals=False)
    np.testing.assert_array_equal(only, all_p)


def test_one_bone_with_full_weight_moves_rigidly():
    rng = np.random.default_rng(3)
    mesh = _random_mesh(rng, joints=1, influences=1)
    rotation = Rotation.from_quat([0.9, 0.1, -0.3, 0.2], scalar_first=True)
    bone_to_world = np.eye(4)
    bone_to_world[:3, :3] = rotation.as_matrix()
    bone_to_world[:3, 3] = [0.3, -1.0, 2.0]
    # world = bone_to_world @ inverse_bind @ v: a rigid motion by their product
    motion = bone_to_world @ mesh.inverse_bind[0]
    p, n = bind(mesh, ["j0"]).deform(bone_to_world[None])
    expected = (mesh.positions @ motion[:3, :3].T) + motion[:3, 3]
    np.testing.assert_allclose(p, expected, atol=1e-12)
    # and with a bind pose that is the identity: exactly scipy's rotation plus translation
    plain = SkinnedMesh(
        name="m",
        positions=mesh.positions,
        indices=mesh.indices,
        joints=("j0",),
        joint_indices=np.zeros((len(mesh.positions), 4)),
        weights=np.tile([1.0, 0, 0, 0], (len(mesh.positions), 1)),
        inverse_bind=np.eye(4)[None],
        normals=mesh.normals,
    )
    p, n = bind(plain, ["j0"]).deform(bone_to_world[None])
    expected = rotation.apply(np.array(mesh.positions)) + [0.3, -1.0, 2.0]
    np.testing.assert_allclose(p, expected, atol=1e-12)
    np.testing.assert_allclose(n, rotation.apply(np.array(mesh.normals)), atol=1e-12)
    # distances between vertices are kept
    d0 = np.linalg.norm(mesh.positions[1:] - mesh.positions[0], axis=1)
    np.testing.assert_allclose(np.linalg.norm(p[1:] - p[0], axis=1), d0, atol=1e-12)


def test_the_bind_pose_leaves_the_mesh_where_it_is():
    rng = np.random.default_rng(11)
    mesh = _random_mesh(rng)
    bind_pose = np.linalg.inv(mesh.inverse_bind)
    p, n = bind(mesh, list(mesh.joints)).deform(bind_pose)
    np.testing.assert_allclose(p, mesh.positions, atol=1e-10)
    np.testing.assert_allclose(n, mesh.normals, atol=1e-10)


def test_missing_joints_and_weightless_vertices_stay_at_their_bind_position():
    rng = np.random.default_rng(5)
    mesh = _random_mesh(rng, vertices=30, joints=2, influences=1)
    weights = np.array(mesh.weights)
    weights[:5] = 0.0
    joint_indices = np.array(mesh.joint_indices)
    mesh = SkinnedMesh(
        name="m",
        positions=mesh.positions,
        indices=mesh.indices,
        joints=mesh.joints,
        joint_indices=joint_indices,
        weights=weights,
        inverse_bind=mesh.inverse_bind,
        normals=mesh.normals,
    )
    skin = bind(mesh, ["j0"])  # j1 is not a bone of this skeleton
    assert skin.missing_joints == ("j1",)
    pose = _random_transforms(rng, 1)
    p, _ = skin.deform(pose)
    stays = (weights.sum(axis=1) == 0) | (joint_indices[:, 0] == 1)
    assert stays.sum() >= 5
    np.testing.assert_allclose(p[stays], mesh.positions[stays], atol=1e-12)
    moved = ~stays
    expected = mesh.positions[moved] @ (pose[0] @ mesh.inverse_bind[0])[:3, :3].T
    expected += (pose[0] @ mesh.inverse_bind[0])[:3, 3]
    np.testing.assert_allclose(p[moved], expected, atol=1e-10)


def test_single_precision_follows_double():
    rng = np.random.default_rng(2)
    mesh = _random_mesh(rng, vertices=500)
    pose = _random_transforms(rng, 5)
    p64, n64 = bind(mesh, list(mesh.joints)).deform(pose)
    p32, n32 = bind(mesh, list(mesh.joints), dtype=np.float32).deform(pose)
    assert p32.dtype == np.float32 and n32.dtype == np.float32
    np.testing.assert_allclose(p32, p64, atol=1e-5 * np.abs(p64).max())
    np.testing.assert_allclose(n32, n64, atol=1e-4)


def test_vertex_normals_of_a_tetrahedron_point_away_from_its_centre():
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    faces = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    normals = vertex_normals(positions, faces)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0)
    # the corner at the origin: the three faces through it are the axis planes (equal
    # areas), so its normal is -(1, 1, 1)/sqrt(3)
    np.testing.assert_allclose(normals[0], -np.ones(3) / np.sqrt(3), atol=1e-12)
    assert np.all(np.sum(normals * (positions - positions.mean(axis=0)), axis=1) > 0)


def test_segment_distances_against_a_loop():
    rng = np.random.default_rng(4)
    points, heads, tails = (rng.normal(size=(n, 3)) for n in (20, 3, 3))
    d = segment_distances(points, heads, tails)
    for v, p in enumerate(points):
        for b in range(3):
            ts = np.linspace(0, 1, 20001)
            samples = heads[b] + ts[:, None] * (tails[b] - heads[b])
            assert d[v, b] == pytest.approx(np.linalg.norm(samples - p, axis=1).min(), abs=1e-6)
    joints, weights = envelope_weights(points, heads, tails, influences=2)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    assert np.all(weights[:, 2:] == 0)
    np.testing.assert_array_equal(joints[:, 0], np.argmin(d, axis=1))


def test_a_tube_body_on_the_foot_roll_follows_its_bones():
    scene = load_scene(SCENES / "foot_roll.json")
    frames = np.array([scene.frame_start, 40.0])
    pose = bake(scene, frames)
    names = [str(n) for n in pose.bone_names]
    mesh = tube_mesh(pose.bone_to_world[0], pose.heads[0], pose.tails[0], names, radius=0.04)
    # outward normals: away from the nearest bone's segment
    d = segment_distances(mesh.positions, pose.heads[0], pose.tails[0])
    nearest = np.argmin(d, axis=1)
    heads, tails = pose.heads[0][nearest], pose.tails[0][nearest]
    axis = tails - heads
    s = np.clip(np.sum((mesh.positions - heads) * axis, 1) / np.sum(axis * axis, 1), 0, 1)
    outward = mesh.positions - (heads + s[:, None] * axis)
    normals = vertex_normals(mesh.positions, mesh.indices)
    assert np.mean(np.sum(normals * outward, axis=1) > 0) > 0.97
    skin = bind(mesh, names)
    p = skin.deform(pose.bone_to_world, normals=False)
    np.testing.assert_allclose(p[0], mesh.positions, atol=1e-9)  # bound at frame 0
    # a vertex bound (almost) wholly to one bone moves rigidly with it
    rigid = np.flatnonzero(mesh.weights[:, 0] > 0.999)
    assert len(rigid) > 10
    for v in rigid[:: max(1, len(rigid) // 10)]:
        bone = mesh.joint_indices[v, 0]
        motion = pose.bone_to_world[1, bone] @ np.linalg.inv(pose.bone_to_world[0, bone])
        expected = motion[:3, :3] @ mesh.positions[v] + motion[:3, 3]
        np.testing.assert_allclose(p[1, v], expected, atol=2e-3 * 0.04)
    assert np.abs(p[1] - p[0]).max() > 0.01  # and the body did move


def test_deforming_into_an_interleaved_vertex_array_matches_the_loop_and_allocates_nothing():
    """The viewport's path: positions and normals written into the two halves of one (V, 6)
    float32 array; after the first call the work arrays are reused, so a new pose allocates
    nothing (numpy reports its buffers to tracemalloc)."""
    import tracemalloc

    rng = np.random.default_rng(11)
    mesh = _random_mesh(rng, vertices=3000)
    names = list(mesh.joints)
    poses = _random_transforms(rng, 2 * len(names)).reshape(2, len(names), 4, 4)
    skin = bind(mesh, names, dtype=np.float32)
    vertices = np.full((len(mesh.positions), 6), np.nan, dtype=np.float32)
    out = (vertices[:, :3], vertices[:, 3:])
    got = skin.deform(poses[0], out=out)
    assert got[0] is out[0] and got[1] is out[1]
    want_p, want_n, _ = _loop_skin(mesh, names, poses[0])
    np.testing.assert_allclose(vertices[:, :3], want_p, atol=2e-5 * np.abs(want_p).max())
    np.testing.assert_allclose(vertices[:, 3:], want_n, atol=2e-5)
    # the same numbers as the allocating path, bit for bit
    plain_p, plain_n = skin.deform(poses[0])
    assert np.array_equal(plain_p, vertices[:, :3]) and np.array_equal(plain_n, vertices[:, 3:])
    tracemalloc.start()
    try:
        skin.deform(poses[1], out=out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    one_blend = len(mesh.positions) * 12 * 4  # bytes of one (V, 12) float32 work array
    assert peak < 0.05 * one_blend
    want_p, want_n, _ = _loop_skin(mesh, names, poses[1])
    np.testing.assert_allclose(vertices[:, :3], want_p, atol=2e-5 * np.abs(want_p).max())
    np.testing.assert_allclose(vertices[:, 3:], want_n, atol=2e-5)


def test_deforming_into_arrays_of_the_wrong_kind_is_refused():
    rng = np.random.default_rng(12)
    mesh = _random_mesh(rng, vertices=30)
    skin = bind(mesh, list(mesh.joints), dtype=np.float32)
    pose = _random_transforms(rng, len(mesh.joints))
    with pytest.raises(ValueError, match="float32"):
        skin.deform(pose, out=(np.zeros((30, 3)), np.zeros((30, 3))))  # float64
    with pytest.raises(ValueError):
        skin.deform(pose, out=(np.zeros((29, 3), np.float32), np.zeros((29, 3), np.float32)))
    with pytest.raises(ValueError, match="normals"):
        skin.deform(pose, out=(np.zeros((30, 3), np.float32), None))
    positions = np.zeros((2, 30, 3), np.float32)  # frames go into (F, V, 3) arrays
    skin.deform(np.stack([pose, pose]), normals=False, out=(positions, None))
    np.testing.assert_array_equal(positions[0], skin.deform(pose, normals=False))
    np.testing.assert_array_equal(positions[1], positions[0])
