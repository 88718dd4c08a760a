"""A bone rename reaches skinned meshes and tutorial data (app.scene.rig.renames through
bone_edits.rename_bone): skinned vertices checked against linear blend skinning written
here, over forward kinematics of the scene, before and after the rename and after a save
and a load."""

import numpy as np

from app.scene.evaluate import bake
from app.scene.io import load_scene, save_scene
from app.scene.rig import bone_edits
from tests.helpers.paths import SCENES

FRAMES = np.array([0.0, 13.0, 20.5, 37.0])


def renamed(scene, old, new):
    rig = bone_edits.rename_bone(scene, old, new)
    s = scene.copy()
    s.bones, s.constraints = list(rig.bones), list(rig.constraints)
    s.meshes, s.extra = rig.meshes, rig.extra
    return s


def skinned(scene, frames=FRAMES):
    """Every mesh's vertices at ``frames``: ``sum_k w_k M[bone named joints[j_k]] @
    inverse_bind[j_k] @ v`` with the weights normalized, one loop per influence (glTF 2.0's
    definition, written here without app.scene.rig.skinning)."""
    pose = bake(scene, frames)
    names = list(pose.bone_names)
    out = []
    for mesh in scene.meshes:
        # every joint must be a bone: a KeyError here is the bug this file is about
        bone = np.array([names.index(j) for j in mesh.joints])
        joint_to_world = pose.bone_to_world[:, bone] @ mesh.inverse_bind  # (F, J, 4, 4)
        v = np.c_[mesh.positions, np.ones(len(mesh.positions))]
        w = mesh.weights / mesh.weights.sum(axis=1, keepdims=True)
        total = np.zeros((len(frames), len(v), 4))
        for k in range(mesh.weights.shape[1]):
            m = joint_to_world[:, mesh.joint_indices[:, k]]  # (F, V, 4, 4)
            total += w[:, k, None] * np.einsum("fvij,vj->fvi", m, v)
        out.append(total[..., :3])
    return out


def test_renaming_a_bone_keeps_the_skinned_vertices_where_they_were():
    scene = load_scene(SCENES / "humanoid.glb")
    before = skinned(scene)
    # the pose is not the bind pose, so a joint left unbound would show
    bind = scene.meshes[0].positions
    assert np.abs(before[0][1] - bind).max() > 0.05
    new = scene
    for old, name in (("spine", "Spine 01"), ("forearm.L", "lower_arm.L"), ("hips", "pelvis")):
        new = renamed(new, old, name)
    assert "Spine 01" in new.meshes[0].joints and "spine" not in new.meshes[0].joints
    assert len(new.meshes[0].joints) == len(scene.meshes[0].joints)
    after = skinned(new)
    assert np.allclose(after[0], before[0], atol=1e-12)
    # the input is untouched: its mesh still names the old bones
    assert "spine" in scene.meshes[0].joints and scene.bone_names()[0] == "hips"
    # the arrays are the same; only the joint names changed
    assert np.array_equal(new.meshes[0].inverse_bind, scene.meshes[0].inverse_bind)
    assert np.array_equal(new.meshes[0].joint_indices, scene.meshes[0].joint_indices)


def test_a_renamed_skinned_scene_saves_and_loads_back_the_same(tmp_path):
    scene = load_scene(SCENES / "humanoid.glb")
    assert "source" in scene.extra["meshes"]
    new = renamed(scene, "chest", "ribcage")
    # the meshes no longer match the glb they came from: the scene forgets it
    assert "source" not in new.extra["meshes"]
    assert "source" in scene.extra["meshes"]
    path = tmp_path / "renamed.json"
    save_scene(new, path)
    assert (tmp_path / "renamed.meshes.glb").is_file()  # the meshes, written anew
    back = load_scene(path)
    assert back.bone_names() == new.bone_names()
    assert back.meshes[0].joints == new.meshes[0].joints
    assert np.allclose(skinned(back)[0], skinned(scene)[0], atol=1e-5)  # float32 in glb
    # a rename of a bone no mesh is bound to (a new one) keeps the source and the meshes
    rig, name = bone_edits.add_bone(scene, "head")
    grown = scene.copy()
    grown.bones = list(rig.bones)
    other = renamed(grown, name, "hat")
    assert other.extra["meshes"] == scene.extra["meshes"]
    assert other.meshes[0] is scene.meshes[0]


def test_a_rename_follows_the_tutorial_data():
    scene = load_scene(SCENES / "basis_change.json")
    new = renamed(renamed(scene, "Rice208", "Office"), "EinsteinBrosBagels", "Bagels")
    data, old = new.extra["tutorial"], scene.extra["tutorial"]
    assert data["point"]["bone"] == "Bagels"
    assert data["point"]["label"] == old["point"]["label"]
    assert [f["bone"] for f in data["frames"]] == ["Office", "RiceDoor"]
    assert data["point_in_frames"] == {"Office": [-2, -4, -10], "RiceDoor": [-1, 0, 30]}
    assert (data["change_of_basis"]["from"], data["change_of_basis"]["to"]) == (
        "Office",
        "RiceDoor",
    )
    # the quoted coordinates still hold: the point in each renamed basis, by FK
    pose = bake(new, [0])
    point = pose.heads[0, new.bone_index("Bagels")]
    for name, quoted in data["point_in_frames"].items():
        m = pose.bone_to_world[0, new.bone_index(name)]
        assert np.allclose(np.linalg.solve(m, np.r_[point, 1])[:3], quoted, atol=1e-9)
    # the input scene's data is untouched
    assert old["point"]["bone"] == "EinsteinBrosBagels" and "Rice208" in old["point_in_frames"]
    assert "Office" not in repr(scene.extra) and "Rice208" not in repr(new.extra)
