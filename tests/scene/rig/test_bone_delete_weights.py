"""Deleting a bone a skinned mesh is bound to hands its weights to the nearest surviving
ancestor (app.scene.rig.renames.transferred_meshes through bone_edits.delete_bones): the skinned
vertices are checked against the original scene with the deleted bone held at rest under
that ancestor (what "its vertices follow the ancestor rigidly" means), skinned by the
loop of glTF's definition in test_bone_renames; and the scene saves and loads back."""

import dataclasses

import numpy as np
import pytest

from app.scene.io import load_scene, save_scene
from app.scene.math import quat
from app.scene.rig import bone_edits
from app.scene.rig.keys import Keys
from tests.helpers.paths import SCENES
from tests.scene.test_bone_renames import skinned


def applied(scene, rig):
    s = scene.copy()
    s.bones, s.constraints = list(rig.bones), list(rig.constraints)
    if rig.meshes is not None:
        s.meshes, s.extra = rig.meshes, rig.extra
    return s


def held_at_rest(scene, names):
    """``scene`` with the bones ``names`` unkeyed: each stays at its rest place under its
    parent, as a deleted bone's vertices do under the ancestor that took them."""
    s = scene.copy()
    s.bones = [
        dataclasses.replace(b, rotation_keys=None, translation_keys=None, scale_keys=None)
        if b.name in names
        else b
        for b in scene.bones
    ]
    return s


@pytest.fixture(scope="module")
def humanoid():
    """The humanoid with its left toes curling too (they are not animated in the file)."""
    scene = load_scene(SCENES / "humanoid.glb")
    toes = scene.bone("toes.L")
    curl = quat.mul(
        toes.rotation, quat.quat_from_axis_angle([1.0, 0.0, 0.0], np.radians([0, 40, 0]))
    )
    scene.bones = [
        dataclasses.replace(b, rotation_keys=Keys([0.0, 20.0, 40.0], curl)) if b is toes else b
        for b in scene.bones
    ]
    return scene


def test_a_deleted_joints_vertices_follow_its_parent_which_is_a_joint(humanoid):
    toes = humanoid.meshes[0].joints.index("toes.L")
    moved = np.isin(humanoid.meshes[0].joint_indices, toes) & (humanoid.meshes[0].weights > 0)
    assert moved.any(axis=1).sum() > 10  # the toes move vertices of their own
    new = applied(humanoid, bone_edits.delete_bones(humanoid, ["toes.L"]))
    mesh = new.meshes[0]
    assert "toes.L" not in mesh.joints and len(mesh.joints) == len(humanoid.meshes[0].joints) - 1
    expected = skinned(held_at_rest(humanoid, {"toes.L"}))[0]
    # foot.L's inverse bind now serves the toes' vertices: the same as the toes' own bind
    # carried up their rest offset, to the float32 of the .glb's matrices
    np.testing.assert_allclose(skinned(new)[0], expected, atol=1e-6)
    # the animation did move the toes, so holding them is a visible change
    assert np.abs(skinned(humanoid)[0] - expected).max() > 1e-3
    assert "source" not in new.extra["meshes"] and "source" in humanoid.extra["meshes"]


def test_a_deleted_joint_whose_parent_is_no_joint_becomes_that_parent(humanoid):
    # Put an unbound bone "ankle.L" between calf.L and foot.L, then delete foot.L.
    rig = bone_edits.add_bone(humanoid, parent="calf.L")
    ankle = applied(humanoid, rig[0] if isinstance(rig, tuple) else rig)
    added = next(b.name for b in ankle.bones if b.name not in humanoid.bone_names())
    ankle = applied(ankle, bone_edits.rename_bone(ankle, added, "ankle.L"))
    ankle = applied(ankle, bone_edits.reparent(ankle, "foot.L", "ankle.L"))
    new = applied(ankle, bone_edits.delete_bones(ankle, ["foot.L"]))
    mesh = new.meshes[0]
    assert "ankle.L" in mesh.joints and "foot.L" not in mesh.joints
    assert len(mesh.joints) == len(humanoid.meshes[0].joints)  # the entry was renamed
    expected = skinned(held_at_rest(ankle, {"foot.L"}))[0]
    np.testing.assert_allclose(skinned(new)[0], expected, atol=1e-9)


def test_deleting_a_leg_with_its_children_hands_every_weight_to_the_hips(humanoid):
    new = applied(humanoid, bone_edits.delete_bones(humanoid, ["thigh.L"], children="delete"))
    mesh = new.meshes[0]
    leg = {"thigh.L", "calf.L", "foot.L", "toes.L"}
    assert leg.isdisjoint(mesh.joints) and "hips" in mesh.joints
    assert mesh.joint_indices.max() < len(mesh.joints)
    expected = skinned(held_at_rest(humanoid, leg))[0]
    np.testing.assert_allclose(skinned(new)[0], expected, atol=1e-6)  # float32 binds


def test_a_scene_with_a_deleted_joint_saves_and_loads_back(humanoid, tmp_path):
    new = applied(humanoid, bone_edits.delete_bones(humanoid, ["toes.L", "hand.R"]))
    path = tmp_path / "deleted.json"
    save_scene(new, path)
    back = load_scene(path)  # it was refused: "bound to 'toes.L', which is not a bone"
    assert back.meshes[0].joints == new.meshes[0].joints
    np.testing.assert_allclose(skinned(back)[0], skinned(new)[0], atol=1e-5)  # float32


def test_a_deleted_joint_with_no_ancestor_left_is_refused_and_nothing_changes(humanoid):
    two_roots = humanoid.copy()
    two_roots.bones = [
        dataclasses.replace(b, parent=None) if b.name == "thigh.L" else b for b in humanoid.bones
    ]
    with pytest.raises(ValueError, match="thigh.L.*no ancestor"):
        bone_edits.delete_bones(two_roots, ["thigh.L"], children="delete")
    assert "thigh.L" in two_roots.meshes[0].joints
