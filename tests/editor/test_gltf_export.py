"""glTF 2.0 export, judged by the Khronos glTF-Validator (0 errors, 0 warnings) and by import
of our own export (the same heads to 1e-6 of the clip's extent)."""

import json
import subprocess
import sys

import numpy as np
import pygltflib
import pytest

from app.editor.export import ExportRequest, format_for, run_export
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.math.transforms import inverse
from app.scene.rig.skinning import bind
from tests.helpers.gltf_files import Builder
from tests.helpers.gltf_validator import problems, validate
from tests.helpers.paths import CMU_DIR, ROOT, SCENES
from tests.scene.formats.test_gltf_import import _channel, _skinned


def _export(scene, out, frames=None, space=None):
    return run_export(format_for(None, out), ExportRequest(scene, out, frames, space))


def _extent(heads):
    return float(np.ptp(heads.reshape(-1, 3), axis=0).max())


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """foot_roll, fabrik_arm and CMU 01_01 exported as .glb and .gltf, validated in one run."""
    folder = tmp_path_factory.mktemp("gltf")
    sources = {
        "foot_roll": SCENES / "foot_roll.json",
        "fabrik_arm": SCENES / "fabrik_arm.json",
        "cmu": CMU_DIR / "01_01.bvh",
    }
    files = {}
    for name, src in sources.items():
        scene = load_scene(src)
        for suffix in (".glb", ".gltf"):
            out = folder / f"{name}{suffix}"
            _export(scene, out)
            files[(name, suffix)] = (scene, out)
    reports = validate(*[out for _, out in files.values()])
    return {
        key: (scene, out, report) for (key, (scene, out)), report in zip(files.items(), reports)
    }


@pytest.mark.parametrize("name", ["foot_roll", "fabrik_arm", "cmu"])
@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_export_validates_and_imports_back_to_the_same_heads(exported, name, suffix):
    scene, out, report = exported[(name, suffix)]
    assert report["issues"]["numErrors"] == 0 and report["issues"]["numWarnings"] == 0, problems(
        report
    )
    assert report["info"]["animationCount"] == 1 and report["info"]["hasSkins"]
    back = load_scene(out)
    assert back.bone_names() == scene.bone_names()
    assert [b.parent for b in back.bones] == [b.parent for b in scene.bones]
    # Constant scale channels at the nodes' own scale (1 here) are dropped on import.
    assert all(b.scale_keys is None and b.rotation_keys is not None for b in back.bones)
    assert back.fps == pytest.approx(scene.fps, rel=1e-5)
    assert (back.frame_start, back.frame_end) == (0, scene.frame_end - scene.frame_start)
    ours = bake(scene)
    theirs = bake(back)
    error = np.abs(theirs.heads - ours.heads).max() / _extent(ours.heads)
    assert error <= 1e-6


def test_nodes_are_the_bones_with_rest_from_frame_start_and_skin_from_first_frame(tmp_path):
    scene = load_scene(SCENES / "foot_roll.json")
    out = tmp_path / "part.glb"
    _export(scene, out, frames=np.arange(10.0, 31.0, 2.0), space="world")
    (report,) = validate(out)
    assert problems(report) == []
    gltf = pygltflib.GLTF2().load(str(out))
    names = scene.bone_names()
    assert [n.name for n in gltf.nodes[: len(names)]] == names
    roots = [i for i, b in enumerate(scene.bones) if b.parent is None]
    bone_roots = [n for n in gltf.scenes[0].nodes if n < len(names)]
    assert bone_roots == roots  # no node above the roots
    # Rest transforms: the local pose at frame_start (0), although the export starts at 10.
    rest = bake(scene, [scene.frame_start], space="world").bone_to_world[0]
    for i, node in enumerate(gltf.nodes[: len(names)]):
        parent = scene.bones[i].parent
        local = rest[i] if parent is None else inverse(rest[names.index(parent)]) @ rest[i]
        np.testing.assert_allclose(node.translation, local[:3, 3], atol=1e-9)
    # The skin's joints are every bone; its inverse bind matrices the first exported frame's.
    first = bake(scene, [10.0], space="world").bone_to_world[0]
    skin = gltf.skins[0]
    assert sorted(skin.joints) == list(range(len(names)))
    blob = gltf.binary_blob()
    acc = gltf.accessors[skin.inverseBindMatrices]
    view = gltf.bufferViews[acc.bufferView]
    ibm = np.frombuffer(blob, "<f4", 16 * acc.count, view.byteOffset + acc.byteOffset)
    ibm = ibm.reshape(-1, 4, 4).transpose(0, 2, 1)
    np.testing.assert_allclose(ibm, inverse(first[skin.joints]), atol=1e-5)
    # Times (frame - 10) / fps, every 2 / 24 s: the re-import sees 12 fps, frames 0 to 10.
    back = load_scene(out)
    assert back.fps == 12.0 and (back.frame_start, back.frame_end) == (0, 10)
    ours = bake(scene, np.arange(10.0, 31.0, 2.0), space="world")
    theirs = bake(back)
    assert np.abs(theirs.heads - ours.heads).max() <= 1e-6 * _extent(ours.heads)


def test_imported_meshes_are_written_back_with_their_skins(tmp_path):
    b = Builder()
    _skinned(b)
    _channel(
        b,
        1,
        "rotation",
        [0.0, 0.5, 1.0],
        [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795], [0, 0, 0.7071068, 0.7071068]],
    )
    _channel(b, 0, "scale", [0.0, 1.0], [[1, 1, 1], [1.5, 1.5, 1.5]])
    (tmp_path / "in.glb").write_bytes(b.glb_bytes())
    scene = load_scene(tmp_path / "in.glb")
    assert scene.bones[0].scale_keys is not None
    out = tmp_path / "out.gltf"
    notes = _export(scene, out)
    assert notes == []
    (report,) = validate(out)
    assert problems(report) == []
    gltf = pygltflib.GLTF2().load(str(out))
    every_bone = [s for s in gltf.skins if sorted(s.joints) == list(range(len(scene.bones)))]
    assert len(every_bone) == 2  # the mesh's own skin (it uses every bone) and the tree's
    back = load_scene(out)
    (mesh,), (original,) = back.meshes, scene.meshes
    assert mesh.joints == original.joints and mesh.name == original.name
    for field in ("positions", "normals", "weights", "inverse_bind"):
        np.testing.assert_allclose(getattr(mesh, field), getattr(original, field), atol=1e-6)
    np.testing.assert_array_equal(mesh.indices, original.indices)
    np.testing.assert_array_equal(mesh.joint_indices, original.joint_indices)
    error = np.abs(bake(back).heads - bake(scene).heads).max()
    assert error <= 1e-6 * _extent(bake(scene).heads)


def test_command_line_export_and_refusals_write_nothing(tmp_path):
    out = tmp_path / "arm.glb"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "export",
            str(SCENES / "fabrik_arm.json"),
            "--out",
            str(out),
            "--frames",
            "0:40:4",
            "--space",
            "object",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    gltf = pygltflib.GLTF2().load(str(out))
    assert gltf.accessors[gltf.animations[0].samplers[0].input].count == 11
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "pivotal-scene", "version": 1, "bones": []}))
    out2 = tmp_path / "none.glb"
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "export", str(bad), "--out", str(out2)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "bones" in done.stderr
    assert not out2.exists()
    with pytest.raises(SceneError, match="cannot write"):
        _export(load_scene(SCENES / "fabrik_arm.json"), tmp_path / "no" / "dir.glb")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arm.glb", "bad.json"]


def test_influences_and_normals_the_validator_warns_about_are_written_clean(tmp_path):
    """The input names joints 2 and 1 in slots of weight 0 (ACCESSOR_JOINTS_USED_ZERO_WEIGHT
    on a file that keeps them), joint 1 twice in one vertex (ACCESSOR_JOINTS_INDEX_DUPLICATE)
    and normals of length 2 and 0 (ACCESSOR_VECTOR3_NON_UNIT)."""
    b = Builder()
    _skinned(b)
    attrs = b.doc["meshes"][0]["primitives"][0]["attributes"]
    joints = np.array([[0, 1, 2, 1], [1, 2, 0, 0], [1, 2, 1, 0], [2, 0, 1, 0]])
    weights = np.array([[0.6, 0.4, 0, 0], [1, 0, 0, 0], [0.5, 0.25, 0.25, 0], [1, 0, 0, 0]])
    attrs["JOINTS_0"] = b.accessor(joints, pygltflib.UNSIGNED_SHORT)
    attrs["WEIGHTS_0"] = b.accessor(weights)
    attrs["NORMAL"] = b.accessor(np.array([[0, 0, 2], [0, 0, 0], [0, 0, 1], [0, 0, 1.0]]))
    _channel(b, 1, "rotation", [0.0, 1.0], [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795]])
    (tmp_path / "in.glb").write_bytes(b.glb_bytes())
    scene = load_scene(tmp_path / "in.glb")
    np.testing.assert_array_equal(scene.meshes[0].joint_indices, joints)  # kept on import
    out = tmp_path / "out.glb"
    _export(scene, out)
    (report,) = validate(out)
    assert problems(report) == []
    (mesh,) = load_scene(out).meshes
    np.testing.assert_array_equal(
        mesh.joint_indices, [[0, 1, 0, 0], [1, 0, 0, 0], [1, 2, 0, 0], [2, 0, 0, 0]]
    )
    np.testing.assert_allclose(
        mesh.weights, [[0.6, 0.4, 0, 0], [1, 0, 0, 0], [0.75, 0.25, 0, 0], [1, 0, 0, 0]], atol=1e-7
    )
    np.testing.assert_allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(mesh.normals[0], [0, 0, 1], atol=1e-7)
    # It deforms as the input did: the same blend of the same joints.
    frames = [0.0, 15.0, 30.0]
    ours = bind(scene.meshes[0], scene.bone_names()).deform(bake(scene, frames).bone_to_world)
    theirs = bind(mesh, scene.bone_names()).deform(bake(scene, frames).bone_to_world)
    np.testing.assert_allclose(theirs[0], ours[0], atol=1e-6)
