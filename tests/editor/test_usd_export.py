"""USD export judged by usd-core itself: UsdSkel's joint world transforms at every time code
equal our bake, its skinning of the meshes equals linear blend skinning written out here, and
USD's validators report no error."""

import numpy as np
import pytest
from pxr import Usd, UsdGeom, UsdSkel, UsdValidation

from app.editor.export import ExportRequest, format_for, run_export
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig.model import Bone, Scene
from tests.helpers.gltf_files import Builder
from tests.helpers.paths import CMU_DIR, SCENES
from tests.scene.formats.test_gltf_import import _channel, _skinned


def _export(scene, out, frames=None, space=None):
    return run_export(format_for(None, out), ExportRequest(scene, out, frames, space))


def _query(stage):
    cache = UsdSkel.Cache()
    root = UsdSkel.Root(stage.GetPrimAtPath("/Pivotal"))
    assert cache.Populate(root, Usd.TraverseInstanceProxies())
    skel = UsdSkel.Skeleton(stage.GetPrimAtPath("/Pivotal/Skeleton"))
    return cache, root, cache.GetSkelQuery(skel)


def _validation_errors(stage):
    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    assert len(validators) > 10
    found = UsdValidation.ValidationContext(validators).Validate(stage)
    return [
        (str(e.GetType()), e.GetMessage())
        for e in found
        if e.GetType() == UsdValidation.ValidationErrorType.Error
    ]


def _world_transforms(stage, query, frames):
    out = []
    for f in frames:
        m = np.array(query.ComputeJointWorldTransforms(UsdGeom.XformCache(Usd.TimeCode(f))))
        out.append(np.swapaxes(m, -1, -2))  # USD's row-vector matrices, as ours
    return np.array(out)


@pytest.mark.parametrize(
    "source, suffix, frames, space",
    [
        (SCENES / "foot_roll.json", ".usda", None, "world"),
        (SCENES / "foot_roll.json", ".usdc", None, "object"),
        (SCENES / "fabrik_arm.json", ".usda", np.arange(10.0, 61.0, 5.0), None),
        (CMU_DIR / "01_01.bvh", ".usdc", None, None),
    ],
)
def test_joint_world_transforms_equal_the_bake_at_every_time_code(
    tmp_path, source, suffix, frames, space
):
    scene = load_scene(source)
    out = tmp_path / f"clip{suffix}"
    _export(scene, out, frames, space)
    stage = Usd.Stage.Open(str(out))
    ours = bake(scene, frames, space)
    assert stage.GetStartTimeCode() == ours.frames[0] and stage.GetEndTimeCode() == ours.frames[-1]
    assert stage.GetTimeCodesPerSecond() == scene.fps == stage.GetFramesPerSecond()
    assert UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.y
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    skel = stage.GetPrimAtPath("/Pivotal/Skeleton")
    names = list(skel.GetCustomDataByKey("pivotal:boneNames"))
    assert sorted(names) == sorted(scene.bone_names())
    order = [scene.bone_names().index(n) for n in names]
    _, _, query = _query(stage)
    anim = UsdSkel.Animation(stage.GetPrimAtPath("/Pivotal/Skeleton/Animation"))
    assert list(anim.GetTranslationsAttr().GetTimeSamples()) == list(ours.frames)
    theirs = _world_transforms(stage, query, ours.frames)
    extent = float(np.ptp(ours.heads.reshape(-1, 3), axis=0).max())
    expected = ours.bone_to_world[:, order]
    assert np.abs(theirs[..., :3, 3] - expected[..., :3, 3]).max() <= 1e-6 * extent
    assert np.abs(theirs[..., :3, :3] - expected[..., :3, :3]).max() <= 1e-6
    assert _validation_errors(stage) == []


def test_names_become_identifiers_kept_in_custom_data(tmp_path):
    bones = [
        Bone(name="left hand"),
        Bone(name="1st", parent="left hand", translation=(0, 1, 0)),
        Bone(name="a-b", parent="left hand"),
        Bone(name="a_b", parent="a-b"),
    ]
    scene = Scene(bones=bones, frame_end=2)
    out = tmp_path / "names.usda"
    _export(scene, out)
    stage = Usd.Stage.Open(str(out))
    skel = UsdSkel.Skeleton(stage.GetPrimAtPath("/Pivotal/Skeleton"))
    assert list(skel.GetJointsAttr().Get()) == [
        "left_hand",
        "left_hand/_1st",
        "left_hand/a_b",
        "left_hand/a_b/a_b_1",
    ]
    names = skel.GetPrim().GetCustomDataByKey("pivotal:boneNames")
    assert list(names) == ["left hand", "1st", "a-b", "a_b"]
    assert _validation_errors(stage) == []


def test_skinned_meshes_deform_in_usd_as_linear_blend_skinning(tmp_path):
    b = Builder()
    _skinned(b)
    _channel(
        b,
        1,
        "rotation",
        [0.0, 0.5, 1.0],
        [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795], [0, 0, 0.7071068, 0.7071068]],
    )
    (tmp_path / "c.glb").write_bytes(b.glb_bytes())
    scene = load_scene(tmp_path / "c.glb")
    out = tmp_path / "c.usda"
    _export(scene, out)
    stage = Usd.Stage.Open(str(out))
    assert _validation_errors(stage) == []
    cache, root, query = _query(stage)
    (binding,) = cache.ComputeSkelBindings(root, Usd.TraverseInstanceProxies())
    (skinning,) = binding.GetSkinningTargets()
    mesh = scene.meshes[0]
    ours = bake(scene)
    for f, frame in enumerate(ours.frames):
        xf = query.ComputeSkinningTransforms(Usd.TimeCode(frame))
        points = UsdGeom.Mesh(skinning.GetPrim()).GetPointsAttr().Get()
        assert skinning.ComputeSkinnedPoints(xf, points, Usd.TimeCode(frame))
        theirs = np.array(points)
        # Linear blend skinning, one vertex at a time (independent of any module of ours).
        names = scene.bone_names()
        expected = []
        for v, p in enumerate(mesh.positions):
            total = np.zeros(3)
            for k in range(4):
                j = mesh.joint_indices[v, k]
                m = ours.bone_to_world[f, names.index(mesh.joints[j])] @ mesh.inverse_bind[j]
                total += mesh.weights[v, k] * (m[:3, :3] @ p + m[:3, 3])
            expected.append(total)
        np.testing.assert_allclose(theirs, expected, atol=1e-6)
