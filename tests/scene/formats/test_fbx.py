"""FBX in (issue 20 item 2): real FBX files against what Blender's FBX importer shows.

The files and their ``.blender.json`` records are in ``tests/data/fbx`` (its README says where
each comes from and how the records were made: Blender 5.0.1's importer, once, by
``tools/fbx_oracle.py``). Blender's importer starts the take at frame 1 (its ``anim_offset``);
Pivotal keeps the file's own frame numbers, so Blender's frame ``f`` is our ``f - 1``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import cKDTree

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.fbx import assimp
from app.scene.formats.fbx.importer import load_fbx
from app.scene.io import load_scene, save_scene
from app.scene.rig.mesh import SkinnedMesh
from app.scene.rig.skinning import bind
from tests.helpers.gltf_validator import problems, validate

DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "fbx"
ROOT = Path(__file__).resolve().parents[3]
#: huesitos and animation_with_skeleton: assimp's test models (Blender 2.79 and 2.90 exports,
#: Y up); wave_* and character65 (the benchmark's): made with Blender 5.0.1's exporter
#: (tools/fbx_oracle.py).
FILES = (
    "huesitos.fbx",
    "animation_with_skeleton.fbx",
    "wave_zup_cm.fbx",
    "wave_yup_m.fbx",
    "character65.fbx",
)


def _record(name):
    return json.loads((DATA / f"{name}.blender.json").read_text())


def _size(record) -> float:
    """The clip's size: the largest extent of every head over every frame."""
    heads = np.array([p for frame in record["heads"].values() for p in frame.values()])
    return float(np.ptp(heads, axis=0).max())


@pytest.fixture(scope="module")
def loaded():
    """Each file as Blender's importer reads it by default: with its leaf bones."""
    return {name: load_fbx(DATA / name, leaf_bones="keep") for name in FILES}


@pytest.mark.parametrize("name", FILES)
def test_heads_match_blenders_importer_on_every_frame(loaded, name):
    scene, record = loaded[name], _record(name)
    frames = sorted(int(f) for f in record["heads"])
    assert (scene.frame_start, scene.frame_end) == (frames[0] - 1, frames[-1] - 1)
    result = bake(scene, [f - 1 for f in frames])
    names = list(result.bone_names)
    skinned = {m.name for m in scene.meshes if len(m.joints) > 1 or m.joints[0] not in names}
    size = _size(record)
    worst, compared = 0.0, 0
    for k, f in enumerate(frames):
        for bone, head in record["heads"][str(f)].items():
            if bone in skinned:  # a skinned mesh's object: no bone in Pivotal, as in glTF
                continue
            assert bone in names, f"{bone!r} (a node of the file) is not a bone"
            worst = max(worst, np.linalg.norm(result.heads[k, names.index(bone)] - head))
            compared += 1
    assert compared >= 10 * len(frames)
    assert worst <= 1e-4 * size, f"{name}: heads {worst / size:.2e} of the clip's size off"
    # and the clip moves: the comparison is not one of rest poses
    assert np.ptp(result.heads, axis=0).max() > 0.05 * size


@pytest.mark.parametrize("name", ["wave_zup_cm.fbx", "huesitos.fbx", "animation_with_skeleton.fbx"])
def test_skinned_meshes_deform_as_in_blender(loaded, name):
    scene, record = loaded[name], _record(name)
    size = _size(record)
    mesh = next(m for m in scene.meshes if m.name in record["meshes"])
    theirs = {int(f): np.array(p) for f, p in record["meshes"][mesh.name].items()}
    frames = sorted(theirs)
    result = bake(scene, [f - 1 for f in frames])
    skin = bind(mesh, result.bone_names)
    ours = skin.deform(result.bone_to_world, normals=False)
    # Blender and assimp number vertices differently: pair them where they stand at rest.
    gap, pair = cKDTree(theirs[frames[0]]).query(ours[0])
    assert gap.max() <= 1e-4 * size
    moved = 0.0
    for k, f in enumerate(frames):
        off = np.linalg.norm(ours[k] - theirs[f][pair], axis=1).max()
        assert off <= 1e-4 * size, f"frame {f}: vertices {off / size:.2e} of the size off"
        moved = max(moved, np.linalg.norm(ours[k] - ours[0], axis=1).max())
    assert moved > 0.05 * size  # the mesh deforms


def test_pre_and_post_rotations_pivots_and_offsets_put_heads_where_ufbx_does():
    """An ASCII FBX whose bones carry pre- and post-rotations, rotation and scaling pivots and
    offsets (Blender cannot read ASCII FBX: the oracle is ufbx, recorded once)."""
    scene = load_fbx(DATA / "pivots.fbx")
    expected = json.loads((DATA / "pivots.fbx.ufbx.json").read_text())["rest_heads"]
    keyed = {b.name for b in scene.bones if b.rotation_keys is not None}
    assert {"chain0_0", "chain1_1", "chain2_0"} <= keyed  # the pivoted bones keep their take
    assert not any("not a bone" in m for m in scene.messages)
    scene.bones = [
        replace(b, translation_keys=None, rotation_keys=None, scale_keys=None) for b in scene.bones
    ]  # the rest pose, as ufbx gives it
    result = bake(scene, [0])
    names = list(result.bone_names)
    heads = np.array(list(expected.values()))
    size = float(np.ptp(heads, axis=0).max())
    for name, head in expected.items():
        if name == "Body":  # the skinned mesh's node: no bone
            continue
        off = np.linalg.norm(result.heads[0, names.index(name)] - head)
        assert off <= 1e-4 * size, f"{name}: {off / size:.2e} of the size off"


def test_pivoted_bones_move_as_ufbx_evaluates_the_take():
    record = json.loads((DATA / "pivots.fbx.ufbx.json").read_text())
    scene = load_fbx(DATA / "pivots.fbx")
    frames = sorted(int(f) for f in record["heads"])
    assert scene.fps == record["fps"] and (scene.frame_start, scene.frame_end) == (0, 40)
    result = bake(scene, frames)
    names = list(result.bone_names)
    expected = np.array([[record["heads"][str(f)][n] for n in names] for f in frames])
    size = float(np.ptp(expected.reshape(-1, 3), axis=0).max())
    off = np.linalg.norm(result.heads - expected, axis=2)
    assert off.max() <= 1e-4 * size, f"{off.max() / size:.2e} of the clip's size off"
    assert np.ptp(result.heads[:, names.index("chain0_2")], axis=0).max() > 0.05 * size


def test_axes_and_units_z_up_centimetres_and_y_up_metres(loaded):
    zup, yup = assimp.read(DATA / "wave_zup_cm.fbx"), assimp.read(DATA / "wave_yup_m.fbx")
    assert (zup.settings["UpAxis"], zup.settings["UnitScaleFactor"]) == (2, 1.0)  # Z up, cm
    assert (yup.settings["UpAxis"], yup.settings["UnitScaleFactor"]) == (1, 100.0)  # Y up, m
    a = bake(loaded["wave_zup_cm.fbx"])
    b = bake(loaded["wave_yup_m.fbx"])
    assert list(a.bone_names) == list(b.bone_names)
    np.testing.assert_allclose(a.heads, b.heads, atol=1e-5)
    # The character stands up (+Y) and is about a metre tall: the centimetres became metres.
    rest = a.heads[0]
    assert 0.5 < np.ptp(rest[:, 1]) < 1.5
    assert np.ptp(rest[:, 1]) > 1.5 * max(np.ptp(rest[:, 0]), np.ptp(rest[:, 2])) / 2


def test_five_to_eight_influences_per_vertex(loaded):
    mesh = loaded["wave_zup_cm.fbx"].meshes[0]
    counts = np.count_nonzero(mesh.weights > 0, axis=1)
    assert mesh.weights.shape[1] == 8 and counts.max() == 8 and np.mean(counts >= 5) > 0.5
    np.testing.assert_allclose(mesh.weights.sum(axis=1), 1.0, atol=1e-6)
    real = loaded["animation_with_skeleton.fbx"].meshes[0]  # a Blender export with 6
    assert np.count_nonzero(real.weights > 0, axis=1).max() == 6


def test_eight_influences_survive_gltf_export_and_import(tmp_path, loaded):
    from app.scene.formats.gltf.export import write_gltf
    from app.scene.formats.gltf.importer import load_gltf

    scene = loaded["wave_zup_cm.fbx"]
    out = tmp_path / "wave.glb"
    write_gltf(out, scene, bake(scene))
    (report,) = validate(out)
    assert problems(report) == []  # JOINTS_1/WEIGHTS_1 as the validator wants them
    back = load_gltf(out)
    mesh, again = scene.meshes[0], back.meshes[0]
    assert again.weights.shape[1] == 8
    ours = bind(mesh, bake(scene).bone_names).deform(bake(scene).bone_to_world[20], False)
    result = bake(back)
    theirs = bind(again, result.bone_names).deform(result.bone_to_world[20], False)
    np.testing.assert_allclose(theirs, ours, atol=1e-5)


def test_load_scene_reads_fbx_and_a_saved_scene_keeps_its_meshes(tmp_path):
    scene = load_scene(DATA / "huesitos.fbx")
    assert scene.meshes and scene.fps == 25.0
    save_scene(scene, tmp_path / "bones.json")
    back = load_scene(tmp_path / "bones.json")
    assert back.bones == scene.bones  # keys included: what loads saves and loads back equal
    assert [m.name for m in back.meshes] == [m.name for m in scene.meshes]
    np.testing.assert_array_equal(back.meshes[0].positions, scene.meshes[0].positions)


def test_the_bake_command_reads_fbx(tmp_path):
    out = tmp_path / "wave.npz"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "bake",
            str(DATA / "wave_yup_m.fbx"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with np.load(out) as npz:
        assert npz["heads"].shape == (41, 11, 3)  # Rig, root and nine bones


def _truncations():
    data = (DATA / "huesitos.fbx").read_bytes()
    cut = [0, 10, 27, 100, 1000, len(data) // 3, len(data) // 2, len(data) - 1000]
    yield from (("truncated", data[:n]) for n in cut)
    rng = np.random.default_rng(20)
    flipped = bytearray(data)
    for at in rng.integers(0, len(data), 200):
        flipped[at] ^= 0xFF
    yield "corrupted", bytes(flipped)
    yield "garbage", rng.integers(0, 256, 5000, dtype=np.uint8).tobytes()
    yield "text", b"; FBX 7.4.0 project file\nFBXHeaderExtension: {\n"


def test_bad_files_are_refused_naming_the_file_and_why(tmp_path):
    refused = 0
    for kind, data in _truncations():
        path = tmp_path / f"{kind}-{len(data)}.fbx"
        path.write_bytes(data)
        try:
            load_fbx(path)
        except SceneError as e:
            assert e.file == str(path) and e.reason, kind
            assert "\n" not in str(e)
            refused += 1
    assert refused >= 8  # the truncated files and the garbage, at least


def test_a_reader_crash_is_a_refusal_not_the_end_of_the_process(tmp_path, monkeypatch):
    import ctypes

    def crash(path, preserve_pivots=False, take=0):
        ctypes.string_at(0)  # what a segmentation fault in C++ does

    path = tmp_path / "crash.fbx"
    path.write_bytes((DATA / "huesitos.fbx").read_bytes())
    monkeypatch.setattr(assimp, "read", crash)
    with pytest.raises(SceneError, match="crashed") as caught:
        load_fbx(path)
    assert caught.value.file == str(path)
    assert os.getpid()  # still here


def test_no_file_and_a_file_of_another_kind(tmp_path):
    with pytest.raises(SceneError, match="no such file"):
        load_scene(tmp_path / "missing.fbx")
    other = tmp_path / "picture.png"
    other.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    with pytest.raises(SceneError, match="FBX file"):
        load_scene(other)  # names every kind Pivotal opens, FBX among them


def test_a_mesh_keeps_up_to_eight_influences():
    with pytest.raises(ValueError, match="1 to 8"):
        SkinnedMesh(
            name="m",
            positions=np.zeros((1, 3)),
            indices=np.zeros((0, 3)),
            joints=("a",),
            joint_indices=np.zeros((1, 9)),
            weights=np.ones((1, 9)),
            inverse_bind=np.eye(4)[None],
        )


def test_a_vertex_with_more_than_eight_influences_keeps_its_eight_heaviest():
    """What assimp hands over for a skin whose one vertex is weighed by ten bones (built here:
    no FBX writer at hand makes ten influences)."""
    from app.scene.formats.fbx.importer import _scene

    eye = np.eye(4)
    nodes = [assimp.Node("RootNode", eye, -1, []), assimp.Node("mesh", eye, 0, [0])]
    for k in range(10):
        shifted = eye.copy()
        shifted[0, 3] = 1.0
        nodes.append(assimp.Node(f"b{k}", shifted, 0 if k == 0 else k + 1, []))
    bones = [
        (f"b{k}", np.array([0, 1]), np.array([0.1 * (k + 1), 1.0 if k == 3 else 0.0]), eye)
        for k in range(10)
    ]
    mesh = assimp.Mesh("skin", np.eye(3), None, np.array([[0, 1, 2]]), bones)
    read = assimp.File(nodes, [mesh], [], 0.0, [], {"UnitScaleFactor": 100.0})
    scene = _scene(read)
    (skinned,) = scene.meshes
    assert skinned.weights.shape[1] == 8
    kept = sorted(skinned.joints[j] for j in skinned.joint_indices[0])
    assert kept == sorted(f"b{k}" for k in range(2, 10))  # b0 and b1 weigh least
    np.testing.assert_allclose(skinned.weights[0].sum(), 1.0)
    np.testing.assert_allclose(skinned.weights[0].max(), 1.0 / sum(0.1 * k for k in range(3, 11)))
    assert skinned.weights[1, 0] == 1.0 and skinned.joints[skinned.joint_indices[1, 0]] == "b3"
    assert skinned.weights[2].sum() == 0.0  # no bone weighs it: it stays where it is
    assert any("more than 8 influences" in m for m in scene.messages)
