"""glTF 2.0 import on hand-built files (tests/helpers/gltf_files.py writes their bytes with struct
and numpy, independently of the importer): accessors, containers, interpolation, names,
hierarchy, meshes and every refusal with its JSON pointer."""

import base64
import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.gltf.importer import parse_gltf
from app.scene.io import load_scene, save_scene
from app.scene.rig.skeleton import local_transforms
from app.scene.rig.skinning import bind
from tests.helpers.gltf_files import FLOAT, SHORT, UBYTE, USHORT, Builder


def _arm(b: Builder) -> None:
    """hip (root) -> knee -> (unnamed) ankle, plus a skinned mesh node."""
    b.doc["nodes"] = [
        {"name": "hip", "children": [1], "translation": [0, 1, 0]},
        {"name": "knee", "children": [2], "translation": [0, -0.5, 0]},
        {"translation": [0, -0.4, 0.1]},
    ]
    b.doc["scenes"] = [{"nodes": [0]}]
    b.doc["scene"] = 0


def _rot_xyzw(axis, angles):
    """glTF's [x, y, z, w] of rotations by ``angles`` about ``axis``."""
    wxyz = Rotation.from_rotvec(np.outer(angles, axis)).as_quat(scalar_first=True)
    return np.roll(wxyz, -1, axis=1)


def _channel(b, node, path, times, values, interpolation="LINEAR"):
    anims = b.doc.setdefault("animations", [{"samplers": [], "channels": []}])
    a = anims[0]
    t = b.accessor(np.asarray(times, float), minmax=True)
    a["samplers"].append({"input": t, "output": b.accessor(values), "interpolation": interpolation})
    a["channels"].append(
        {"sampler": len(a["samplers"]) - 1, "target": {"node": node, "path": path}}
    )


def test_nodes_become_bones_with_names_hierarchy_and_static_transforms():
    b = Builder()
    _arm(b)
    b.doc["nodes"][1]["rotation"] = [0, 0, np.sin(0.3), np.cos(0.3)]
    b.doc["nodes"][0]["scale"] = [2, 2, 2]
    scene = parse_gltf(b.gltf_bytes())
    assert scene.bone_names() == ["hip", "knee", "node_2"]
    assert [x.parent for x in scene.bones] == [None, "hip", "knee"]
    np.testing.assert_allclose(scene.bones[1].rotation, [np.cos(0.3), 0, 0, np.sin(0.3)])
    assert scene.bones[0].scale == (2.0, 2.0, 2.0)
    heads = bake(scene, [0]).heads[0]
    # Independent: knee at hip + 2 * (0, -0.5, 0); the ankle's offset turned by the knee's
    # rotation about z (angle 0.6) and scaled by the hip's 2.
    ankle = Rotation.from_rotvec([0, 0, 0.6]).apply([0, -0.4, 0.1]) * 2 + [0, 0, 0]
    np.testing.assert_allclose(heads, [[0, 1, 0], [0, 0, 0], ankle], atol=1e-12)
    assert scene.fps == 30.0 and (scene.frame_start, scene.frame_end) == (0, 0)


def test_matrix_nodes_repeated_names_and_mesh_only_leaves():
    b = Builder()
    m = Rotation.from_rotvec([0.2, -0.4, 0.3]).as_matrix() * [1.5, 1.5, 1.5]
    matrix = np.eye(4)
    matrix[:3, :3] = m
    matrix[:3, 3] = [1, 2, 3]
    b.doc["nodes"] = [
        {"name": "a", "children": [1, 2, 3], "matrix": matrix.T.reshape(-1).tolist()},
        {"name": "a"},
        {"name": "a"},
        {"name": "prop", "camera": 0},
    ]
    scene = parse_gltf(b.gltf_bytes())
    assert scene.bone_names() == ["a", "a.001", "a.002"]
    np.testing.assert_allclose(scene.bones[0].translation, [1, 2, 3])
    np.testing.assert_allclose(scene.bones[0].scale, [1.5] * 3)
    got = Rotation.from_quat(scene.bones[0].rotation, scalar_first=True).as_matrix()
    np.testing.assert_allclose(got, m / 1.5, atol=1e-12)


def test_linear_keys_fps_frames_and_slerp_against_scipy():
    b = Builder()
    _arm(b)
    times = np.array([0.5, 1.0, 1.1, 2.0])  # multiples of 0.1: 10 fps
    xyzw = _rot_xyzw([0.3, 0.9, 0.1] / np.linalg.norm([0.3, 0.9, 0.1]), [0.1, 1.2, 2.0, 2.5])
    _channel(b, 1, "rotation", times, xyzw)
    _channel(b, 0, "translation", times, np.arange(12.0).reshape(4, 3))
    scene = parse_gltf(b.glb_bytes())
    assert scene.fps == 10.0 and (scene.frame_start, scene.frame_end) == (5, 20)
    keys = scene.bones[1].rotation_keys
    np.testing.assert_array_equal(keys.frames, [5, 10, 11, 20])
    frames = np.linspace(5, 20, 37)
    local = local_transforms(scene, frames)[:, 1, :3, :3]
    wxyz = np.roll(xyzw, 1, axis=1)
    oracle = Slerp(times * 10, Rotation.from_quat(wxyz, scalar_first=True))(frames).as_matrix()
    np.testing.assert_allclose(local, oracle, atol=1e-6)  # float32 keys
    np.testing.assert_allclose(
        scene.bones[0].translation_keys.values, np.arange(12.0).reshape(4, 3)
    )


def test_irregular_times_fall_back_to_30_fps():
    b = Builder()
    _arm(b)
    _channel(b, 0, "translation", [0.0, 0.2, 0.5, 0.71], np.zeros((4, 3)))
    scene = parse_gltf(b.gltf_bytes())
    assert scene.fps == 30.0
    np.testing.assert_allclose(
        scene.bones[0].translation_keys.frames, np.float32([0.0, 0.2, 0.5, 0.71]) * 30.0, rtol=1e-6
    )
    assert (scene.frame_start, scene.frame_end) == (0, 21)


def test_step_holds_each_key_until_the_next():
    b = Builder()
    _arm(b)
    values = np.array([[0, 0, 0], [1, 0, 0], [1, 2, 0]], float)
    _channel(b, 0, "translation", [0.0, 0.5, 1.0], values, "STEP")
    scene = parse_gltf(b.gltf_bytes())
    assert scene.fps == 30.0  # a step of 0.5 s is no frame rate; every key on a 30 fps frame
    keys = scene.bones[0].translation_keys
    assert keys.interpolation == ("constant",) * 3  # format §B
    np.testing.assert_array_equal(keys.frames, [0, 15, 30])
    got = local_transforms(scene, [0, 15, 30])[:, 0, :3, 3]
    np.testing.assert_array_equal(got, values)
    # Between keys the held value, not a blend: sampled at 10 fps the same file shows steps.
    b.doc["animations"][0]["samplers"][0]["input"] = b.accessor(np.array([0.0, 0.5, 1.0]) + 0.0)
    _channel(b, 1, "translation", [0.0, 0.1], np.zeros((2, 3)))
    scene = parse_gltf(b.gltf_bytes())
    assert scene.fps == 10.0
    got = local_transforms(scene, np.arange(11))[:, 0, :3, 3]
    oracle = values[[0] * 5 + [1] * 5 + [2]]
    np.testing.assert_array_equal(got, oracle)


def _hermite(t, times, a, v, bt):
    """glTF 2.0 Appendix C, written out per sample (an independent loop)."""
    out = []
    for x in t:
        k = min(max(np.searchsorted(times, x, side="right") - 1, 0), len(times) - 2)
        td = times[k + 1] - times[k]
        s = (x - times[k]) / td
        out.append(
            (2 * s**3 - 3 * s**2 + 1) * v[k]
            + td * (s**3 - 2 * s**2 + s) * bt[k]
            + (-2 * s**3 + 3 * s**2) * v[k + 1]
            + td * (s**3 - s**2) * a[k + 1]
        )
    return np.array(out)


def test_cubicspline_samples_every_frame_with_hermite_tangents(rng):
    b = Builder()
    _arm(b)
    times = np.array([0.0, 0.25, 0.75, 1.0])
    a, v, bt = rng.normal(size=(3, 4, 3))
    _channel(b, 0, "translation", times, np.stack([a, v, bt], 1).reshape(-1, 3), "CUBICSPLINE")
    qa, qv, qb = rng.normal(size=(3, 4, 4)) * [[[0.1]], [[1.0]], [[0.1]]]
    _channel(b, 1, "rotation", times, np.stack([qa, qv, qb], 1).reshape(-1, 4), "CUBICSPLINE")
    scene = parse_gltf(b.gltf_bytes())
    # Keys 1/4 s apart are no frame rate: 24 fps is the first that puts each on a frame, and
    # CUBICSPLINE is sampled at every one of them, between the keys too.
    assert scene.fps == 24.0 and (scene.frame_start, scene.frame_end) == (0, 24)
    keys = scene.bones[0].translation_keys
    np.testing.assert_array_equal(keys.frames, np.arange(25))
    f32 = np.float32
    oracle = _hermite(keys.frames / 24.0, times, f32(a), f32(v), f32(bt))
    np.testing.assert_allclose(keys.values, oracle, atol=1e-6)
    q = _hermite(keys.frames / 24.0, times, f32(qa), f32(qv), f32(qb))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    got = scene.bones[1].rotation_keys.values
    np.testing.assert_allclose(got, np.roll(q, 1, axis=1), atol=1e-6)  # [w, x, y, z]


def _skinned(b: Builder, stride=False, normalized=False):
    """The arm with a 4-vertex skinned mesh on a root leaf node."""
    _arm(b)
    positions = np.array([[0, 1, 0], [0, 0.5, 0], [0.1, 0.2, 0], [0, 0, 0.1]], float)
    normals = np.tile([0.0, 0.0, 1.0], (4, 1))
    if stride:
        inter = np.concatenate([positions, normals], axis=1).astype("<f4").tobytes()
        v = b.view(inter, stride=24)
        b.doc["accessors"] += [
            {"bufferView": v, "componentType": FLOAT, "count": 4, "type": "VEC3"},
            {"bufferView": v, "byteOffset": 12, "componentType": FLOAT, "count": 4, "type": "VEC3"},
        ]
        pos, nor = len(b.doc["accessors"]) - 2, len(b.doc["accessors"]) - 1
    else:
        pos, nor = b.accessor(positions), b.accessor(normals)
    joints = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [1, 2, 0, 0], [2, 0, 0, 0]])
    weights = np.array([[0.6, 0.4, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0], [1, 0, 0, 0]])
    if normalized:
        w = b.accessor(np.round(weights * 255), UBYTE, normalized=True)
    else:
        w = b.accessor(weights)
    attrs = {"POSITION": pos, "NORMAL": nor, "JOINTS_0": b.accessor(joints, USHORT), "WEIGHTS_0": w}
    ibm = np.stack(
        [
            np.linalg.inv(_t([0, 1, 0])),
            np.linalg.inv(_t([0, 0.5, 0])),
            np.linalg.inv(_t([0, 0.1, 0.1])),
        ]
    )
    b.doc["meshes"] = [
        {
            "name": "skin",
            "primitives": [
                {"attributes": attrs, "indices": b.accessor(np.array([0, 1, 2, 1, 2, 3]), USHORT)}
            ],
        }
    ]
    b.doc["skins"] = [
        {
            "joints": [0, 1, 2],
            "inverseBindMatrices": b.accessor(ibm.transpose(0, 2, 1).reshape(3, 16)),
        }
    ]
    b.doc["nodes"].append({"name": "body", "mesh": 0, "skin": 0})
    b.doc["scenes"][0]["nodes"].append(3)
    return positions, normals, joints, weights, ibm


def _t(v):
    m = np.eye(4)
    m[:3, 3] = v
    return m


@pytest.mark.parametrize("stride", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
def test_skinned_meshes_with_strided_and_normalized_accessors(stride, normalized):
    b = Builder()
    positions, normals, joints, weights, ibm = _skinned(b, stride, normalized)
    scene = parse_gltf(b.glb_bytes())
    assert scene.bone_names() == ["hip", "knee", "node_2"]  # the mesh node is no bone
    (mesh,) = scene.meshes
    assert mesh.name == "skin" and mesh.joints == ("hip", "knee", "node_2")
    np.testing.assert_allclose(mesh.positions, positions, atol=1e-7)
    np.testing.assert_allclose(mesh.normals, normals)
    np.testing.assert_array_equal(mesh.joint_indices, joints)
    np.testing.assert_array_equal(mesh.indices, [[0, 1, 2], [1, 2, 3]])
    oracle = np.round(weights * 255) / 255 if normalized else weights
    oracle = oracle / oracle.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(mesh.weights, oracle, atol=1e-7)
    np.testing.assert_allclose(mesh.inverse_bind, ibm, atol=1e-7)


def test_normalized_short_rotations_and_sparse_translations():
    b = Builder()
    _arm(b)
    xyzw = _rot_xyzw([0, 0, 1], [0.0, 0.7, 1.4])
    t = b.accessor(np.array([0.0, 1.0, 2.0]), minmax=True)
    out = b.accessor(np.round(xyzw * 32767), SHORT, normalized=True)
    # Translations: zeros (no bufferView) with two rows replaced by a sparse accessor.
    idx = b.view(np.array([0, 2], "<u2").tobytes())
    val = b.view(np.array([[1, 2, 3], [4, 5, 6]], "<f4").tobytes())
    b.doc["accessors"].append(
        {
            "componentType": FLOAT,
            "count": 3,
            "type": "VEC3",
            "sparse": {
                "count": 2,
                "indices": {"bufferView": idx, "componentType": USHORT},
                "values": {"bufferView": val},
            },
        }
    )
    sparse = len(b.doc["accessors"]) - 1
    b.doc["animations"] = [
        {
            "samplers": [{"input": t, "output": out}, {"input": t, "output": sparse}],
            "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 0, "path": "translation"}},
            ],
        }
    ]
    scene = parse_gltf(b.gltf_bytes())
    raw = np.maximum(np.round(xyzw * 32767) / 32767, -1)  # glTF's normalization formula
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    np.testing.assert_allclose(scene.bones[1].rotation_keys.values, np.roll(raw, 1, axis=1))
    np.testing.assert_array_equal(
        scene.bones[0].translation_keys.values, [[1, 2, 3], [0, 0, 0], [4, 5, 6]]
    )


def test_data_uri_external_buffer_and_glb_give_the_same_scene(tmp_path):
    b = Builder()
    _skinned(b)
    _channel(b, 1, "rotation", [0.0, 1 / 24, 2 / 24], _rot_xyzw([1, 0, 0], [0, 0.5, 1]))
    (tmp_path / "data.gltf").write_bytes(b.gltf_bytes())
    (tmp_path / "ext.gltf").write_bytes(b.gltf_bytes(uri="my%20buffer.bin"))
    (tmp_path / "my buffer.bin").write_bytes(bytes(b.bin))
    (tmp_path / "bin.glb").write_bytes(b.glb_bytes())
    scenes = [load_scene(tmp_path / n) for n in ("data.gltf", "ext.gltf", "bin.glb")]
    assert scenes[0].fps == 24.0 and (scenes[0].frame_start, scenes[0].frame_end) == (0, 2)
    for other in scenes[1:]:
        assert other.bones == scenes[0].bones
        assert other.meshes == scenes[0].meshes


def test_animation_by_name_and_weights_channels(tmp_path):
    b = Builder()
    _arm(b)
    _channel(b, 0, "translation", [0.0, 1.0], [[0, 0, 0], [1, 0, 0]])
    b.doc["animations"][0]["name"] = "walk"
    b.doc["animations"].append({"name": "wave", "samplers": [], "channels": []})
    wave = b.doc["animations"][1]
    wave["samplers"].append(
        {
            "input": b.accessor(np.array([0.0, 0.5]), minmax=True),
            "output": b.accessor(np.array([[0, 0, 0], [0, 3, 0.0]])),
        }
    )
    wave["channels"].append({"sampler": 0, "target": {"node": 1, "path": "translation"}})
    path = tmp_path / "two.gltf"
    path.write_bytes(b.gltf_bytes())
    walk, wave = load_scene(path), load_scene(path, animation="wave")
    assert walk.bones[0].translation_keys is not None and walk.bones[1].translation_keys is None
    assert wave.bones[1].translation_keys is not None and wave.fps == 30.0
    with pytest.raises(SceneError, match="no animation named 'run'") as e:
        load_scene(path, animation="run")
    assert e.value.path == "/animations" and e.value.file == str(path)


def test_saved_scene_keeps_its_meshes_through_the_gltf_beside_it(tmp_path):
    b = Builder()
    _skinned(b)
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "character.glb").write_bytes(b.glb_bytes())
    scene = load_scene(tmp_path / "art" / "character.glb")
    (tmp_path / "shots").mkdir()
    save_scene(scene, tmp_path / "shots" / "s.json")
    text = json.loads((tmp_path / "shots" / "s.json").read_text())
    assert text["meshes"] == {"source": "../art/character.glb"}
    again = load_scene(tmp_path / "shots" / "s.json")
    assert again.meshes == scene.meshes and again.bones == scene.bones
    # Built in code, the meshes go to a .glb beside the scene, and come back from it.
    scene.extra.pop("meshes")
    save_scene(scene, tmp_path / "code.json")
    assert json.loads((tmp_path / "code.json").read_text())["meshes"] == {
        "source": "code.meshes.glb"
    }
    back = load_scene(tmp_path / "code.json")
    assert len(back.meshes) == 1
    np.testing.assert_allclose(back.meshes[0].positions, scene.meshes[0].positions, atol=1e-7)
    np.testing.assert_allclose(back.meshes[0].inverse_bind, scene.meshes[0].inverse_bind, atol=1e-6)
    # A scene file whose mesh source is gone is refused, naming the key.
    (tmp_path / "code.meshes.glb").unlink()
    with pytest.raises(SceneError) as e:
        load_scene(tmp_path / "code.json")
    assert e.value.path == "meshes.source" and "no such file" in e.value.reason


# --- refusals, each with its JSON pointer -------------------------------------------------


def _refused(data, base=None):
    with pytest.raises(SceneError) as e:
        parse_gltf(data, base)
    return e.value


def test_refusals_name_their_json_pointer(tmp_path):
    assert _refused(b'{"asset": {"version": "1.0"}}').path == "/asset/version"
    assert _refused(b"not json").path == "line 1 column 1"  # where the JSON breaks
    e = _refused(
        b'{"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_materials_unlit", '
        b'"KHR_draco_mesh_compression"]}'
    )
    assert e.path == "/extensionsRequired/1" and "KHR_draco_mesh_compression" in e.reason
    assert ".glb file of version 1" in _refused(b"glTF\x01\0\0\0" + bytes(20)).reason

    b = Builder()
    _arm(b)
    b.doc["nodes"][2]["children"] = [0]
    b.doc["scenes"] = [{"nodes": []}]
    e = _refused(b.gltf_bytes())
    assert "cycle" in e.reason and e.path.startswith("/nodes/") and "/children/" in e.path

    b = Builder()
    _arm(b)
    b.doc["nodes"][1]["children"] = [2, 7]
    e = _refused(b.gltf_bytes())
    assert e.path == "/nodes/1/children/1" and "out of range" in e.reason

    b = Builder()
    _arm(b)
    _channel(b, 0, "translation", [0.0, 1.0], np.zeros((2, 3)))
    b.doc["accessors"][1]["count"] = 50
    e = _refused(b.gltf_bytes())
    assert e.path == "/accessors/1" and "outside its buffer" in e.reason

    e = _refused(b.gltf_bytes(uri="gone.bin"), tmp_path)
    assert e.path == "/buffers/0/uri" and "missing external buffer 'gone.bin'" in e.reason

    doc = json.loads(b.gltf_bytes())
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64,@@@@"
    e = _refused(json.dumps(doc).encode())
    assert e.path == "/buffers/0/uri" and "base64" in e.reason
    doc["buffers"][0]["uri"] = "data:application/octet-stream," + base64.b64encode(b"x").decode()
    assert "not base64" in _refused(json.dumps(doc).encode()).reason


def test_bounds_on_depth_and_frames():
    b = Builder()
    n = 10_002
    b.doc["nodes"] = [{"name": f"b{i}", "children": [i + 1]} for i in range(n - 1)] + [{}]
    e = _refused(b.gltf_bytes())
    assert "hierarchy depth 10001 is more than the bound of 10,000" in e.reason
    assert e.path == "/nodes/10000"

    b = Builder()
    _arm(b)
    _channel(b, 0, "translation", [0.0, 1.0], np.zeros((2, 3)))
    b.doc["animations"][0]["samplers"][0]["input"] = b.accessor(np.array([0.0, 0.25, 1e7]))
    b.doc["animations"][0]["samplers"][0]["output"] = b.accessor(np.zeros((3, 3)))
    e = _refused(b.gltf_bytes())
    assert "frame count" in e.reason and "bound of 10,000,000" in e.reason
    assert e.path.startswith("/accessors/")


def test_a_mesh_without_skin_rides_rigidly_on_its_bone():
    b = Builder()
    _arm(b)
    b.doc["nodes"][1]["rotation"] = [0, 0, np.sin(0.2), np.cos(0.2)]
    b.doc["nodes"][1]["children"].append(3)
    b.doc["nodes"].append(
        {"name": "kneecap", "mesh": 0, "translation": [0.1, 0, 0], "scale": [2, 2, 2]}
    )
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.5]], float)
    b.doc["meshes"] = [{"primitives": [{"attributes": {"POSITION": b.accessor(positions)}}]}]
    scene = parse_gltf(b.gltf_bytes())
    assert scene.bone_names() == ["hip", "knee", "node_2", "kneecap"]  # the mesh leaf too
    (mesh,) = scene.meshes
    assert mesh.joints == ("kneecap",) and mesh.name == "mesh_0"
    np.testing.assert_array_equal(mesh.weights[:, 0], 1.0)
    np.testing.assert_array_equal(mesh.indices, [[0, 1, 2]])
    # At rest the skinned vertices sit where the node puts them: knee, then the node's own
    # translation and scale (written out with scipy, not our transforms).
    knee = Rotation.from_rotvec([0, 0, 0.4])
    world = knee.apply(np.array([0.1, 0, 0]) + 2 * positions) + [0, 0.5, 0]
    cap_to_world = bake(scene, [0]).bone_to_world[0, 3]
    skinned = (cap_to_world @ mesh.inverse_bind[0] @ np.c_[mesh.positions, np.ones(3)].T).T
    np.testing.assert_allclose(skinned[:, :3], world, atol=1e-12)
    np.testing.assert_array_equal(mesh.positions, positions)  # in the node's own frame


def test_a_file_whose_only_animated_nodes_are_meshes_loads_with_them_as_bones():
    """A spinning box and a still top-level base, no joints: both meshes ride on their own
    node's bone, and the spin is kept."""
    b = Builder()
    b.doc["nodes"] = [
        {"name": "base", "mesh": 0},
        {"name": "lid", "mesh": 0, "translation": [0, 2, 0]},
    ]
    b.doc["scenes"] = [{"nodes": [0, 1]}]
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1]], float)
    b.doc["meshes"] = [{"primitives": [{"attributes": {"POSITION": b.accessor(positions)}}]}]
    _channel(b, 1, "rotation", [0.0, 1.0], _rot_xyzw([0, 1, 0], [0.0, 1.5]))
    scene = parse_gltf(b.gltf_bytes())
    assert scene.bone_names() == ["base", "lid"] and not scene.messages
    assert [m.joints for m in scene.meshes] == [("base",), ("lid",)]
    world = bake(scene, [0.0, 30.0]).bone_to_world
    lid = (world[:, 1] @ np.c_[positions, np.ones(3)].T)[:, :3].swapaxes(1, 2)
    turned = Rotation.from_rotvec([0, 1.5, 0]).apply(positions) + [0, 2, 0]
    np.testing.assert_allclose(lid[1], turned, atol=1e-6)


def test_a_scene_saved_before_mesh_leaves_were_bones_keeps_its_rigid_meshes(tmp_path):
    """Its bones lack the mesh-only leaf 'kneecap': the mesh rides on the knee, where the
    leaf's transform puts it (as such scenes were drawn then)."""
    b = Builder()
    _arm(b)
    b.doc["nodes"][1]["children"].append(3)
    b.doc["nodes"].append(
        {
            "name": "kneecap",
            "mesh": 0,
            "translation": [0.1, 0, 0],
            "rotation": [0, 0, np.sin(0.2), np.cos(0.2)],
            "scale": [2, 2, 2],
        }
    )
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.5]], float)
    b.doc["meshes"] = [{"primitives": [{"attributes": {"POSITION": b.accessor(positions)}}]}]
    _channel(b, 1, "rotation", [0.0, 1.0], _rot_xyzw([0, 0, 1], [0.0, 1.0]))
    (tmp_path / "leg.glb").write_bytes(b.glb_bytes())
    scene = load_scene(tmp_path / "leg.glb")
    save_scene(scene, tmp_path / "leg.json")
    text = json.loads((tmp_path / "leg.json").read_text())
    text["bones"] = [bone for bone in text["bones"] if bone["name"] != "kneecap"]
    (tmp_path / "old.json").write_text(json.dumps(text))
    old = load_scene(tmp_path / "old.json")
    (mesh,) = old.meshes
    assert mesh.joints == ("knee",)
    frames = [0.0, 15.0, 30.0]
    want = bind(scene.meshes[0], scene.bone_names()).deform(
        bake(scene, frames).bone_to_world, normals=False
    )
    got = bind(mesh, old.bone_names()).deform(bake(old, frames).bone_to_world, normals=False)
    np.testing.assert_allclose(got, want, atol=1e-12)
