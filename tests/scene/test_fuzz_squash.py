"""Issue 27: what the follow kinds, FABRIK and FBX let through, one plain test per defect
(each failed on main at ``4040285``; ``docs/reliability.md``).

- FBX: non-finite vertices, skin cluster transforms and mesh node transforms are refused
  naming the file, the mesh (or node) and the array; a node or a geometric transform scaled
  to 0 on one axis loads (its inverse is a pseudo-inverse) instead of raising
  ``LinAlgError``.
- A transform singular only up to rounding (squashed to 0 or ``1e-300`` on an axis, then
  turned) is inverted by one rule (``transforms.RCOND``), so a frame evaluated alone (the
  editor while playing) is where the whole bake puts it: the follow kinds, FABRIK, limit
  violations.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app import cli
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.fbx.importer import load_fbx
from app.scene.io import loads_scene
from app.scene.rig.skinning import bind
from tests.helpers import fbx_numbers
from tests.helpers.paths import ROOT, SCENES

FBX = ROOT / "tests" / "data" / "fbx"
ASSIMP_FBX = Path("/usr/share/assimp/models/FBX")


def edited(tmp_path, source, what, value, *, place=0, element=0, whole=False, model=None):
    """``source`` with one number edited (``tests/helpers/fbx_numbers.py``), written as a file."""
    data = Path(source).read_bytes()
    out = fbx_numbers.edit(data, what, place, element, value, whole, model)
    assert out != data, "the edit found its place"
    path = tmp_path / f"edited_{Path(source).name}"
    path.write_bytes(out)
    return path


def refusal(path) -> SceneError:
    with pytest.raises(SceneError) as info:
        load_fbx(path)
    assert info.value.file == str(path)
    return info.value


def skins_finite(scene) -> None:
    """Every mesh's arrays are finite, and skinned at every frame of the bake too."""
    result = bake(scene)
    assert scene.meshes
    for mesh in scene.meshes:
        for array in (mesh.positions, mesh.inverse_bind, mesh.weights):
            assert np.all(np.isfinite(array)), mesh.name
        positions, normals = bind(mesh, result.bone_names).deform(result.bone_to_world)
        assert np.all(np.isfinite(positions)) and np.all(np.isfinite(normals)), mesh.name


# --- group 1: non-finite numbers in FBX meshes ----------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), 1e308])
def test_a_non_finite_vertex_of_a_skinned_mesh_is_refused_naming_the_mesh_and_vertex(
    tmp_path, value
):
    """Was: loaded (NaN), or numpy's overflow warning in the import (1e308, an infinity in
    float32); the round trip then compared unequal and skinning gave NaN."""
    error = refusal(edited(tmp_path, FBX / "huesitos.fbx", "vertices", value, element=4))
    assert error.path == "mesh 'Cylinder'"
    assert error.reason.startswith("its vertex positions hold a number that is not finite")


def test_a_non_finite_vertex_of_a_rigid_mesh_is_refused(tmp_path):
    """A mesh on a node without skin (assimp's spider: 19 of them) took its vertices as they
    were."""
    error = refusal(
        edited(tmp_path, ASSIMP_FBX / "spider.fbx", "vertices", float("inf"), place=3, element=7)
    )
    assert error.path.startswith("mesh ")
    assert error.reason.startswith("its vertex positions hold a number that is not finite")


@pytest.mark.parametrize("value", [1e308, float("nan")])
def test_a_skin_cluster_transform_past_the_floats_is_refused_naming_mesh_and_bone(tmp_path, value):
    """Was: NaN in the inverse binds (numpy's "invalid value" warning, or silently)."""
    error = refusal(edited(tmp_path, FBX / "huesitos.fbx", "cluster", value, element=5))
    assert error.path == "mesh 'Cylinder'"
    assert "skin cluster of bone 'Bone'" in error.reason and "not finite" in error.reason


def test_a_mesh_node_with_a_non_finite_transform_is_refused_naming_the_node(tmp_path):
    """The skinned mesh's node is no bone, and its transform was not checked: the vertices
    came out infinite."""
    error = refusal(edited(tmp_path, FBX / "huesitos.fbx", "translation", 1e308, model="Cylinder"))
    assert error.path == "node 'Cylinder'" and "not finite" in error.reason


def test_a_non_finite_normal_is_replaced_by_normals_of_the_triangles_with_a_message(tmp_path):
    data = bytearray((FBX / "huesitos.fbx").read_bytes())
    version, nodes, footer = fbx_numbers.read_binary(bytes(data))
    objects = next(n for n in nodes if n.name == "Objects")
    normals = next(
        c
        for g in objects.children
        if g.name == "Geometry"
        for c in g.children
        if c.name == "LayerElementNormal"
    )
    array = next(c for c in normals.children if c.name == "Normals")
    array.props[0] = (b"d", np.full_like(array.props[0][1], np.nan))
    array.stored.pop(0, None)
    path = tmp_path / "normals.fbx"
    path.write_bytes(fbx_numbers.write_binary(version, nodes, footer))
    scene = load_fbx(path)
    assert any("a normal is not finite" in m for m in scene.messages)
    skins_finite(scene)


# --- group 2: FBX transforms scaled to 0 on an axis ------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_skinned_mesh_whose_node_is_scaled_to_zero_on_an_axis_loads_flat(tmp_path, axis):
    """Was: ``LinAlgError: Singular matrix`` (the mesh node's inverse), and ``main.py bake``
    printed only that. An object hidden by scaling it to 0 is a thing exporters write: it
    loads, collapsed as the file's rest pose shows it, and skins finite at every frame."""
    path = edited(tmp_path, FBX / "huesitos.fbx", "scaling", 0.0, element=axis, model="Cylinder")
    scene = load_fbx(path)
    skins_finite(scene)
    positions = scene.meshes[0].positions
    spread = np.linalg.svd(positions - positions.mean(axis=0), compute_uv=False)
    assert spread[-1] <= 1e-12 * spread[0]  # flat: the squashed axis is gone
    back = load_fbx(FBX / "huesitos.fbx")
    np.testing.assert_array_equal(bake(scene).heads, bake(back).heads)  # the bones as before


@pytest.mark.parametrize("source", [ASSIMP_FBX / "box.fbx", ASSIMP_FBX / "cubes_with_names.fbx"])
def test_a_geometric_transform_scaled_to_zero_on_an_axis_loads(tmp_path, source):
    """Was: ``LinAlgError`` at the rigid mesh's normals (``inv`` of its geometric transform);
    binary (``box.fbx``) and ASCII (``cubes_with_names.fbx``, whose template carries it)."""
    scene = load_fbx(edited(tmp_path, source, "geometric", 0.0, place=2, element=1))
    skins_finite(scene)


def test_the_bake_command_names_the_file_and_the_mesh_in_one_line(tmp_path):
    """``main.py bake`` of a refused FBX reproducer: one line naming file and place, status
    2; of one that loads (a node scaled to 0): finite numbers, each frame as baked alone."""
    bad = edited(tmp_path, FBX / "huesitos.fbx", "vertices", float("nan"))
    done = run_bake(bad, tmp_path / "out.npz")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1
    assert str(bad) in lines[0] and "mesh 'Cylinder': its vertex positions" in lines[0]
    flat = edited(tmp_path, FBX / "huesitos.fbx", "scaling", 0.0, element=1, model="Cylinder")
    assert cli.main(["bake", str(flat), "--out", str(tmp_path / "flat.npz")]) == 0
    with np.load(tmp_path / "flat.npz") as npz:
        assert np.all(np.isfinite(npz["bone_to_world"]))
        scene = load_fbx(flat)
        alone = bake(scene, frames=[scene.frame_start + 7])
        size = np.abs(npz["heads"]).max()
        np.testing.assert_allclose(alone.heads[0], npz["heads"][7], rtol=0, atol=1e-9 * size)
        np.testing.assert_allclose(alone.tails[0], npz["tails"][7], rtol=0, atol=1e-9 * size)


def run_bake(path, out):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "bake", str(path), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


# --- groups 3 and 4: one frame alone is that frame of the bake -------------------------------


def scene_with(name, edit, frames=41):
    """``name`` after ``edit``, its timeline cut to ``frames`` frames (the tests' time)."""
    value = json.loads((SCENES / name).read_text())
    edit(value)
    value["frame_end"] = value["frame_start"] + frames - 1
    return loads_scene(json.dumps(value))


def one_walker(frames=16):
    """The crowd scene's first CMU walker (31 bones), cut to its first ``frames`` frames."""
    value = json.loads((SCENES / "crowd_10x_cmu_01_01.json").read_text())
    value["bones"] = [b for b in value["bones"] if b["name"].startswith("w0_")]
    value["frame_end"] = value["frame_start"] + frames - 1
    return value


def assert_plays_as_it_bakes(scene, spaces=("world", "object"), step=5, degrees=True):
    """Every ``step``-th frame evaluated alone puts every head and tail where the bake puts
    them, to 1e-9 of the scene's size, and reports the same limit violations."""
    for space in spaces:
        whole = bake(scene, space=space)
        size = max(1.0, np.abs(whole.heads).max(), np.abs(whole.tails).max())
        for row in range(0, len(whole.frames), step):
            alone = bake(scene, frames=[whole.frames[row]], space=space)
            for name in ("heads", "tails"):
                error = np.abs(getattr(alone, name)[0] - getattr(whole, name)[row]).max()
                assert error <= 1e-9 * size, (space, whole.frames[row], name, error, size)
            if degrees:
                np.testing.assert_allclose(
                    alone.limit_violation_deg[0], whole.limit_violation_deg[row], atol=1e-6
                )
    return whole


def squashed_then_turned(kind, space, scale=(1, 0, 1), target="chest"):
    """The forearm scaled to 0 on an axis, then turned by a points-at (its world is then
    singular only up to rounding), and ``kind`` on the hand from ``target``."""

    def edit(value):
        value["bones"][2]["scale"] = list(scale)
        value["constraints"] = [
            {
                "type": "points_at",
                "name": "aim",
                "bone": "forearm",
                "space": "world",
                "target": {
                    "position": [0.5, 2.0, 0.3],
                    "position_keys": [
                        [0, [0.5, 2.0, 0.3]],
                        [60, [0.9, 1.0, -0.4]],
                        [120, [0.2, 1.5, 0.8]],
                    ],
                },
            },
            {"type": kind, "name": "c", "bone": "hand", "space": space, "target": {"bone": target}},
        ]

    return scene_with("fabrik_arm.json", edit)


def test_a_copy_rotation_under_a_parent_squashed_flat_and_then_turned_plays_as_it_bakes():
    """Was (object space): the plain inverse of the parent (entries of 1e16) built a hand
    whose tail lay 3e16 away, and one frame alone differed from the bake by 9e13.
    (``copy_location`` and ``child_of`` kept their relation through the pseudo-inverse
    already; the one rule now holds for all three.)"""
    whole = assert_plays_as_it_bakes(squashed_then_turned("copy_rotation", "object"), step=7)
    assert np.abs(whole.tails).max() < 3.0  # the arm is 1.5 long: nothing flies away


def test_a_copy_rotation_under_an_arm_squashed_to_a_line_and_then_turned_plays_as_it_bakes():
    """Found by the new fuzzer class on the crowd scene: a CMU walker's arm scaled to 0 on
    two axes, then aimed by a points-at; the hand copies its own child's world rotation. The
    frames below the arm are lines, the rotation nearest a line is any turn onto it, and the
    SVD picked one by the rounding: one frame alone 0.07 (world) and 3.4 (object) units off
    the bake. Now the shortest arc onto the line (``transforms.rotation_from_matrix``)."""
    value = one_walker()
    names = [b["name"] for b in value["bones"]]
    value["bones"][names.index("w0_RightArm")]["scale"] = [0, 1, 0]
    value["constraints"] = [
        {
            "type": "points_at",
            "name": "turn",
            "bone": "w0_RightArm",
            "space": "world",
            "target": {
                "position": [-0.362, 1.631, -0.965],
                "position_keys": [
                    [0, [-0.362, 1.631, -0.965]],
                    [8, [0.54, -0.959, -0.792]],
                    [15, [-0.66, -0.432, 0.974]],
                ],
            },
        },
        {
            "type": "copy_rotation",
            "name": "f",
            "bone": "w0_RightHand",
            "space": "world",
            "target": {"bone": "w0_RFingers"},
            "offset": "none",
        },
    ]
    assert_plays_as_it_bakes(loads_scene(json.dumps(value)), step=3)


def test_a_copy_rotation_in_object_space_under_a_cmu_leg_scaled_1e300_on_one_axis():
    """Was: one frame alone 17 units off the bake (a CMU walker of the crowd scene, its upper
    leg scaled to 1e-300 on one axis: the toe's parent is singular only up to rounding)."""
    value = one_walker()
    names = [b["name"] for b in value["bones"]]
    value["bones"][names.index("w0_LeftUpLeg")]["scale"] = [1, 1e-300, 1]
    value["constraints"] = [
        {
            "type": "copy_rotation",
            "name": "c",
            "bone": "w0_LeftToeBase",
            "space": "object",
            "target": {"bone": "w0_Hips"},
        }
    ]
    assert_plays_as_it_bakes(loads_scene(json.dumps(value)), step=3)


def arm_chain(chain, squash=None, scale=None, limits=None, space="object"):
    def edit(value):
        names = [b["name"] for b in value["bones"]]
        if squash:
            value["bones"][names.index(squash)]["scale"] = scale
        c = value["constraints"][0]
        c["chain"], c["space"] = chain, space
        c.pop("limits", None)
        if limits:
            c["limits"] = limits

    return scene_with("fabrik_arm.json", edit)


@pytest.mark.parametrize(
    "squash, scale", [("chest", [1, 1, 0]), ("upper_arm", [1, 0, 1]), ("forearm", [1, 1, 0])]
)
def test_a_one_bone_chain_under_a_squashed_ancestor_plays_as_it_bakes(squash, scale):
    """Was: the fingers 3.4 units (of a scene 4.8 across) from where the bake put them on a
    frame alone, and 30 to 50 for other squashes: the chain's frames in their parents came
    from the plain inverse of a transform singular up to rounding."""
    whole = assert_plays_as_it_bakes(arm_chain(["fingers"], squash, scale), step=6)
    assert np.abs(whole.tails).max() < 3.0


def test_a_chain_under_a_parent_a_child_of_squashes_plays_as_it_bakes_and_aims():
    """The chain's bones have no scale of their own, but a ``child_of`` (offset none) makes
    the hand take a squashed bone's whole transform. Was: ``ZeroDivisionError`` on one frame
    (the plain-float path divided by the parent's determinant, 0), and in object space the
    fingers pointed up to 37 degrees off their target where that parent was only scaled (the
    chain was inverted by transposition because the scene's bones have no scale)."""

    def edit(scale):
        def apply(value):
            value["bones"].append(
                {
                    "name": "flat",
                    "translation": [0.5, 1.2, 0.1],
                    "rotation": [0.9238795, 0.3826834, 0, 0],
                    "scale": scale,
                }
            )
            value["constraints"][0]["chain"] = ["fingers"]
            value["constraints"][0].pop("limits", None)
            value["constraints"].insert(
                0,
                {
                    "type": "child_of",
                    "name": "squash",
                    "bone": "hand",
                    "target": {"bone": "flat"},
                    "offset": "none",
                },
            )

        return apply

    assert_plays_as_it_bakes(scene_with("fabrik_arm.json", edit([1, 1, 0])), step=6)
    scene = scene_with("fabrik_arm.json", edit([2, 0.5, 1]))
    target = scene.constraints[1].target
    from app.scene.evaluate import Evaluator

    wanted = Evaluator(scene).context(space="object").target_positions(target)
    fingers = scene.bone_names().index("fingers")
    for space in ("world", "object"):
        result = bake(scene, space=space)
        tip = result.tails[:, fingers] - result.heads[:, fingers]
        aim = wanted - result.heads[:, fingers]
        cosine = (
            np.sum(tip * aim, axis=1) / np.linalg.norm(tip, axis=1) / np.linalg.norm(aim, axis=1)
        )
        assert np.degrees(np.arccos(np.clip(cosine, -1, 1))).max() < 1e-3, space


def test_limit_violations_through_a_squashed_bone_are_measured_on_a_rotation():
    """Was: the chain's limited bones under the squashed chest read their rotation from a
    plain inverse singular up to rounding: object space (which keeps its limits) reported up
    to 103 degrees, and a frame alone another number than the bake."""
    limits = {b: {"cone": 30} for b in ("upper_arm", "forearm", "hand", "fingers")}
    scene = arm_chain(["upper_arm", "forearm", "hand", "fingers"], "chest", [1, 1, 0], limits)
    whole = assert_plays_as_it_bakes(scene, spaces=("object",), step=6)
    assert whole.limit_violation_deg.max() == 0.0
    assert_plays_as_it_bakes(scene, spaces=("world",), step=6)
