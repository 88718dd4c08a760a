"""Skeleton-structure edits (app.scene.rig.bone_edits), checked against forward kinematics
of the edited scene, scipy rotations and loops written here."""

import dataclasses

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.points_at.model import PointsAt
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig import bone_edits
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene, Target
from tests.helpers.paths import SCENES


def _scene(rig, like):
    s = like.copy()
    s.bones, s.constraints = list(rig.bones), list(rig.constraints)
    return s


def _static(scene):
    """The scene without keys: its rest pose."""
    s = scene.copy()
    s.bones = [dataclasses.replace(b, translation_keys=None, rotation_keys=None) for b in s.bones]
    s.constraints = []
    return s


def _arm():
    q = Rotation.from_euler("z", 30, degrees=True).as_quat(scalar_first=True)
    return Scene(
        bones=[
            Bone(name="root", translation=(1.0, 0.5, 0.0), rotation=tuple(q), tail=(0, 1, 0)),
            Bone(
                name="upper",
                parent="root",
                translation=(0, 1, 0),
                tail=(0, 2, 0),
                rotation=tuple(
                    Rotation.from_euler("x", 40, degrees=True).as_quat(scalar_first=True)
                ),
            ),
            Bone(
                name="lower",
                parent="upper",
                translation=(0, 2, 0),
                tail=(0, 1.5, 0),
                rotation_keys=Keys(
                    [0, 10],
                    [
                        [1, 0, 0, 0],
                        list(Rotation.from_euler("y", 50, degrees=True).as_quat(scalar_first=True)),
                    ],
                ),
                translation_keys=Keys([0, 10], [[0, 2, 0], [0, 2.5, 0]]),
            ),
            Bone(name="hand", parent="lower", translation=(0, 1.5, 0), tail=(0, 0.3, 0)),
        ],
        constraints=[
            PointsAt(name="aim", bone="hand", target=Target(bone="upper", at="tail")),
            Fabrik(
                name="ik",
                chain=("upper", "lower"),
                target=Target(position=(1, 1, 1)),
                pole=Target(bone="root", at="head"),
            ),
            MultiParent(name="mp", body="root", pivots=(Pivot(name="p"),)),
        ],
    )


def test_add_bone_is_a_child_at_the_parent_tail_and_keeps_the_parent_drawn_the_same():
    scene = load_scene(SCENES / "foot_roll.json")
    heel = scene.bone("heel")
    assert heel.tail is not None
    rig, name = bone_edits.add_bone(scene, "heel")
    new = _scene(rig, scene)
    assert name == "bone" and new.bone(name).parent == "heel"
    before, after = bake(scene, [7]), bake(new, [7])
    i = scene.bone_index("heel")
    assert np.allclose(after.tails[0, i], before.tails[0, i])  # parent unchanged
    # the new head is the parent's tail; its tail runs along the parent's frame's +Y
    j = new.bone_index(name)
    assert np.allclose(after.heads[0, j], before.tails[0, i])
    assert len(scene.bones) + 1 == len(new.bones)  # the input is untouched
    assert bone_edits.add_bone(new, "heel")[1] == "bone.001"  # Blender's numbering


def test_adding_a_child_to_a_bone_with_a_default_tail_does_not_move_that_tail():
    scene = Scene(bones=[Bone(name="a")])  # default tail: no child, so the origin
    rig, name = bone_edits.add_bone(scene, "a", head_in_parent=(2, 0, 0))
    new = _scene(rig, scene)
    assert new.bone("a").tail == (0.0, 0.0, 0.0)
    assert new.bone(name).translation == (2.0, 0.0, 0.0)


def test_extrude_continues_the_bone_direction_and_length():
    scene = _arm()
    rig, name = bone_edits.extrude(scene, "upper")
    new = _scene(rig, scene)
    pose = bake(_static(new), [0])
    i, j = new.bone_index("upper"), new.bone_index(name)
    d_parent = pose.tails[0, i] - pose.heads[0, i]
    d_child = pose.tails[0, j] - pose.heads[0, j]
    assert np.allclose(pose.heads[0, j], pose.tails[0, i])
    assert np.allclose(d_child, d_parent)
    assert name.startswith("upper")


def test_delete_reparents_children_keeping_their_world_pose_at_every_frame():
    scene = _arm()
    scene.bones[1] = dataclasses.replace(scene.bones[1], scale=(1.5, 1.5, 1.5))
    scene.constraints = []
    rig = bone_edits.delete_bones(scene, ["upper"], bone_edits.REPARENT)
    new = _scene(rig, scene)
    assert new.bone("lower").parent == "root"
    frames = np.array([0.0, 3.5, 10.0])
    before, after = bake(scene, frames), bake(new, frames)
    for name in ("root", "lower", "hand"):
        i, j = scene.bone_index(name), new.bone_index(name)
        assert np.allclose(after.bone_to_world[:, j], before.bone_to_world[:, i], atol=1e-9)


def test_delete_takes_constraints_that_name_the_bone_and_optionally_the_children():
    scene = _arm()
    rig = bone_edits.delete_bones(scene, ["upper"], bone_edits.REPARENT)
    assert [c.name for c in rig.constraints] == ["mp"]  # aim and ik named upper
    rig = bone_edits.delete_bones(scene, ["lower"], bone_edits.DELETE)
    assert [b.name for b in rig.bones] == ["root", "upper"]
    assert [c.name for c in rig.constraints] == ["mp"]
    with pytest.raises(ValueError, match="at least one bone"):
        bone_edits.delete_bones(scene, ["root"], bone_edits.DELETE)


def test_rename_updates_every_field_that_names_the_bone():
    scene = _arm()
    for old, new in (("upper", "thigh"), ("root", "hips"), ("hand", "palm"), ("lower", "calf")):
        scene = _scene(bone_edits.rename_bone(scene, old, new), scene)
    assert scene.bone_names() == ["hips", "thigh", "calf", "palm"]
    assert [b.parent for b in scene.bones] == [None, "hips", "thigh", "calf"]
    aim, ik, mp = scene.constraints
    assert (aim.bone, aim.target.bone) == ("palm", "thigh")
    assert ik.chain == ("thigh", "calf") and ik.pole.bone == "hips"
    assert mp.body == "hips"
    # no old name is left anywhere
    text = repr(scene.bones) + repr(scene.constraints)
    for old in ("'upper'", "'root'", "'hand'", "'lower'"):
        assert old not in text
    # a FABRIK's per-bone limits are keyed by bone name
    from app.scene.rig.model import ConeLimit

    ik2 = dataclasses.replace(ik, limits={"calf": ConeLimit(degrees=30)})
    renamed = bone_edits.renamed_in_constraint(ik2, "calf", "shin")
    assert set(renamed.limits) == {"shin"} and renamed.chain == ("thigh", "shin")
    with pytest.raises(ValueError, match="already"):
        bone_edits.rename_bone(scene, "palm", "calf")
    with pytest.raises(ValueError):
        bone_edits.rename_bone(scene, "palm", " ")


def test_reparent_keeping_world_keeps_the_pose_and_keeping_local_keeps_the_values():
    scene = _arm()
    scene.constraints = []
    frames = np.array([0.0, 4.0, 10.0])
    before = bake(scene, frames)
    world = _scene(bone_edits.reparent(scene, "lower", "root", bone_edits.KEEP_WORLD), scene)
    after = bake(world, frames)
    i = scene.bone_index("lower")
    assert world.bone("lower").parent == "root"
    # "upper" is not animated, so the whole animation keeps its place
    assert np.allclose(after.bone_to_world[:, i], before.bone_to_world[:, i], atol=1e-9)
    local = _scene(bone_edits.reparent(scene, "lower", None, bone_edits.KEEP_LOCAL), scene)
    assert local.bone("lower").translation == scene.bone("lower").translation
    assert local.bone("lower").parent is None

    # an independent check of the world-keeping values: root's rest matrix times the
    # new local one is upper's rest matrix times the old local one (scipy)
    def trs(b):
        m = np.eye(4)
        m[:3, :3] = Rotation.from_quat(b.rotation, scalar_first=True).as_matrix() * b.scale
        m[:3, 3] = b.translation
        return m

    lhs = trs(world.bone("root")) @ trs(world.bone("lower"))
    rhs = trs(scene.bone("root")) @ trs(scene.bone("upper")) @ trs(scene.bone("lower"))
    assert np.allclose(lhs, rhs)
    with pytest.raises(ValueError, match="loop"):
        bone_edits.reparent(scene, "upper", "hand")
