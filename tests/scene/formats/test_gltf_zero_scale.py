"""A glTF node scaled to 0 (props are hidden that way): accepted on import, its bone and
everything below it collapse to its head and draw nothing, and evaluation, skinning and the
glTF and USD exports stay finite (nothing divides by the scale). The same for a subnormal
scale (5e-324), which no file can hold but a scene in memory can."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from pxr import Usd
from scipy.spatial.transform import Rotation

from app.scene.analysis.bone_shapes import octahedra
from app.scene.evaluate import bake
from app.scene.formats.gltf.export import write_gltf
from app.scene.formats.gltf.importer import parse_gltf
from app.scene.formats.usd_export import write_usd
from app.scene.io import load_scene
from app.scene.rig.keys import Keys
from app.scene.rig.skinning import bind
from tests.editor.test_usd_export import _query, _world_transforms
from tests.helpers.gltf_files import Builder, hide_and_show
from tests.helpers.gltf_validator import problems, validate


def _prop_file() -> bytes:
    """root -> prop (a rigid mesh, scale keys 1, 0, 1 at 0, 1, 2 s) -> tip (a rigid mesh),
    and a second root scaled to 0 for good (its static scale)."""
    b = Builder()
    b.doc["nodes"] = [
        {"name": "root", "children": [1], "translation": [0, 1, 0]},
        {"name": "prop", "children": [2], "translation": [0, 0.5, 0], "mesh": 0},
        {"name": "tip", "translation": [0, 0.4, 0.1], "rotation": [0, 0, 0.6, 0.8], "mesh": 0},
        {"name": "gone", "scale": [0, 0, 0], "mesh": 0},
    ]
    b.doc["scenes"] = [{"nodes": [0, 3]}]
    positions = np.array([[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0.05]], float)
    b.doc["meshes"] = [{"primitives": [{"attributes": {"POSITION": b.accessor(positions)}}]}]
    hide_and_show(b, 1)
    return b.gltf_bytes()


def _with_scale(scene, tiny: float):
    """The scene with the prop's middle scale key (and the static scale of 'gone') ``tiny``."""
    if tiny == 0.0:
        return scene
    prop, gone = scene.bone_index("prop"), scene.bone_index("gone")
    keys = scene.bones[prop].scale_keys
    values = np.where(keys.values == 0, tiny, keys.values)
    bones = list(scene.bones)
    bones[prop] = dataclasses.replace(bones[prop], scale_keys=Keys(keys.frames, values))
    bones[gone] = dataclasses.replace(bones[gone], scale=(tiny,) * 3)
    out = scene.copy()
    out.bones = bones
    return out


@pytest.mark.parametrize("tiny", [0.0, 5e-324])
def test_a_zero_scale_hides_a_prop_and_keeps_everything_finite(tmp_path, tiny):
    scene = _with_scale(parse_gltf(_prop_file()), tiny)
    assert (scene.fps, scene.frame_start, scene.frame_end) == (30.0, 0, 60)
    prop, tip, gone = (scene.bone_index(n) for n in ("prop", "tip", "gone"))
    np.testing.assert_array_equal(scene.bones[prop].scale_keys.values[1], [tiny] * 3)
    frames = np.arange(61.0)
    result = bake(scene, frames)
    world = np.asarray(result.bone_to_world)
    assert np.isfinite(world).all()
    # At 1 s the prop and its child sit on the prop's head, with no extent; the static 0 too.
    np.testing.assert_allclose(result.heads[30, tip], result.heads[30, prop], atol=1e-12)
    assert np.abs(world[30, [prop, tip], :3, :3]).max() < 1e-300
    assert np.abs(world[:, gone, :3, :3]).max() < 1e-300
    # ... and come back with the scale: at 0 s the tip is where the file puts it.
    np.testing.assert_allclose(result.heads[0, tip], [0, 1.9, 0.1], atol=1e-6)
    # Drawn: the rigid meshes collapse to a point, with finite normals; the bones get no shape.
    for mesh in scene.meshes:
        skin = bind(mesh, result.bone_names, dtype=np.float64)
        points, normals = skin.deform(world[30])
        assert np.isfinite(points).all() and np.isfinite(normals).all()
        if mesh.joints[0] in ("prop", "tip", "gone"):
            assert np.ptp(points, axis=0).max() < 1e-12
    _, faces, drawn = octahedra(result.heads[30], result.tails[30])
    assert prop not in drawn and tip not in drawn and gone not in drawn and len(faces)
    # Exports: finite numbers, the validator's 0 errors and 0 warnings, and the same heads
    # when the glTF is read back.
    write_gltf(tmp_path / "prop.glb", scene, result)
    (report,) = validate(tmp_path / "prop.glb")
    assert problems(report) == []
    back = bake(load_scene(tmp_path / "prop.glb"), frames)
    np.testing.assert_allclose(back.heads, result.heads, atol=1e-6)
    write_usd(tmp_path / "prop.usda", scene, result)
    stage = Usd.Stage.Open(str(tmp_path / "prop.usda"))
    _, _, query = _query(stage)
    names = [str(n).split("/")[-1] for n in query.GetJointOrder()]
    theirs = _world_transforms(stage, query, [0.0, 30.0, 45.0])
    assert np.isfinite(theirs).all()
    ours = world[[0, 30, 45]][:, [scene.bone_index(n) for n in names]]
    np.testing.assert_allclose(theirs[..., :3, 3], ours[..., :3, 3], atol=1e-5)


def test_negative_scale_is_still_refused_naming_the_node():
    b = Builder()
    b.doc["nodes"] = [{"name": "mirror", "scale": [1, -1, 1]}]
    with pytest.raises(Exception, match="0 or more") as e:
        parse_gltf(b.gltf_bytes())
    assert e.value.path == "/nodes/0/scale"


def test_a_matrix_with_a_zero_column_is_a_zero_scale_along_that_axis():
    turn = Rotation.from_rotvec([0.3, -0.2, 0.5]).as_matrix()
    flat, gone = np.eye(4), np.eye(4)
    flat[:3, :3] = turn * [2.0, 0.0, 1.5]  # squashed flat along its own x
    flat[:3, 3] = [1, 2, 3]
    gone[:3, :3] = 0.0
    b = Builder()
    b.doc["nodes"] = [
        {"name": "flat", "matrix": flat.T.reshape(-1).tolist()},
        {"name": "gone", "matrix": gone.T.reshape(-1).tolist()},
    ]
    scene = parse_gltf(b.gltf_bytes())
    np.testing.assert_allclose(scene.bones[0].scale, [2.0, 0.0, 1.5])
    np.testing.assert_allclose(bake(scene, [0.0]).bone_to_world[0, 0], flat, atol=1e-12)
    assert scene.bones[1].scale == (0.0, 0.0, 0.0) and scene.bones[1].rotation == (1, 0, 0, 0)
    # Beside a zero column a negative one is no mirror: diag(1, -1, 0) is a half turn about x
    # of diag(1, 1, 0).
    half = np.diag([1.0, -1.0, 0.0, 1.0])
    b.doc["nodes"] = [{"name": "m", "matrix": half.T.reshape(-1).tolist()}]
    scene = parse_gltf(b.gltf_bytes())
    assert scene.bones[0].scale == (1.0, 1.0, 0.0)
    np.testing.assert_allclose(bake(scene, [0.0]).bone_to_world[0, 0], half, atol=1e-12)


def test_a_glb_with_a_zero_scale_opens_and_saves_as_a_scene_file_and_back(tmp_path):
    """Contract §G keeps a scale of 0; the scene file keeps it too (scale >= 0), so the file
    opens (its import is checked against what a scene file can keep) and loads back equal."""
    from app.scene.io import save_scene

    (tmp_path / "prop.glb").write_bytes(_prop_file())
    scene = load_scene(tmp_path / "prop.glb")
    prop = scene.bone("prop")
    assert prop.scale_keys is not None and np.min(prop.scale_keys.values) == 0.0
    save_scene(scene, tmp_path / "prop.json")
    back = load_scene(tmp_path / "prop.json")
    assert back == scene
