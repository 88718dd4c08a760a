"""The humanoid map (issue 25 item 1): one table of naming conventions, the hierarchy where
names mislead, the shape where they say nothing; kept in the scene file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.scene.errors import SceneError
from app.scene.io import load_scene, loads_scene, save_scene
from app.scene.retarget.canonical import BONES
from app.scene.retarget.humanoid import HumanoidMap, automatic_map
from app.scene.retarget.map_file import map_of, with_map
from app.scene.retarget.names import read
from app.scene.rig.bone_edits import delete_bones, rename_bone
from app.scene.rig.model import Bone, Scene
from tests.helpers.paths import CMU_DIR, ROOT
from tests.helpers.retarget_judge import mixamo_character

CORPUS = ROOT / "tests" / "data" / "gltf-corpus"


@pytest.mark.parametrize(
    "name, canonical",
    [
        # CMU (BVH)
        ("LeftUpLeg", "left_thigh"),
        ("RightForeArm", "right_forearm"),
        ("LThumb", "left_thumb_1"),
        ("LowerBack", "spine"),
        ("LHipJoint", None),
        ("LFingers", None),
        # Mixamo, with its namespace, without, and glued on as three.js writes it
        ("mixamorig:LeftArm", "left_upper_arm"),
        ("LeftForeArm", "left_forearm"),
        ("mixamorigRightHandIndex2", "right_index_2"),
        ("mixamorig5:Hips", "hips"),
        ("mixamorig:LeftToe_End", None),
        ("mixamorig:HeadTop_End", None),
        ("mixamorig:LeftHandPinky4", None),
        # Blender's metarig and Rigify
        ("thigh.L", "left_thigh"),
        ("upper_arm.R", "right_upper_arm"),
        ("shin.L", "left_shin"),
        ("DEF-forearm.L", "left_forearm"),
        ("ORG-hand.R", "right_hand"),
        ("f_index.01.L", "left_index_1"),
        ("thumb.03.R", "right_thumb_3"),
        ("heel.02.L", None),
        ("DEF-upper_arm.L.001", "left_upper_arm"),  # a twist segment: read, but weakly
        ("upper_arm_fk.L", None),
        ("MCH-thigh_ik.L", None),
        # Unreal
        ("upperarm_l", "left_upper_arm"),
        ("lowerarm_r", "right_forearm"),
        ("calf_l", "left_shin"),
        ("ball_r", "right_toes"),
        ("clavicle_l", "left_shoulder"),
        ("thumb_01_l", "left_thumb_1"),
        ("upperarm_twist_01_l", None),
        ("ik_foot_l", None),
        ("index_metacarpal_l", None),
        # Godot's humanoid profile, and Godot/Blender exports
        ("LeftUpperLeg", "left_thigh"),
        ("RightLowerArm", "right_forearm"),
        ("LeftIndexProximal", "left_index_1"),
        ("LeftThumbMetacarpal", "left_thumb_1"),
        ("LeftThumbDistal", "left_thumb_3"),
        ("upperleg.l", "left_thigh"),
        ("lowerleg.r", "right_shin"),
        ("l-forearm", "left_forearm"),
        # three.js's RobotExpressive: the side glued on at the end
        ("UpperLegL", "left_thigh"),
        ("LowerLegR", "right_shin"),
        ("UpperArmL", "left_upper_arm"),
        ("LowerLegL_end", None),
        # VRM, 3ds Max's Biped, Character Creator, Fox's "b_"
        ("J_Bip_L_UpperArm", "left_upper_arm"),
        ("J_Bip_C_Hips", "hips"),
        ("Bip01 L Thigh", "left_thigh"),
        ("Bip01 R Finger01", "right_thumb_2"),
        ("Bip01 Pelvis", "hips"),
        ("CC_Base_R_Calf", "right_shin"),
        ("b_LeftForeArm_010", "left_forearm"),
        # Biovision (Boxing_Toes.bvh) and plain words
        ("LeftCollar", "left_shoulder"),
        ("LeftElbow", "left_forearm"),
        ("LeftWrist", "left_hand"),
        ("LeftKnee", "left_shin"),
        ("LeftAnkle", "left_foot"),
        ("Neck", "neck"),
        ("head", "head"),
        ("pelvis", "hips"),
        ("Leg", None),
        ("spine_end", None),
        ("footprint.L", None),
    ],
)
def test_names_in_every_convention(name, canonical):
    readings = read(name)
    assert (readings[0].canonical() if readings else None) == canonical


def test_words_that_mean_two_things_give_both_readings():
    assert [r.canonical() for r in read("LeftShoulder")] == ["left_shoulder", "left_upper_arm"]
    assert read("mixamorig:LeftLeg")[0].strength < read("calf_l")[0].strength


def _scene(bones: dict[str, tuple]) -> Scene:
    """Bones from ``{name: (parent, head in the world)}``, listed parents first."""
    out, heads = [], {}
    for name, (parent, head) in bones.items():
        heads[name] = np.asarray(head, float)
        base = heads[parent] if parent else np.zeros(3)
        out.append(Bone(name=name, parent=parent, translation=tuple(heads[name] - base)))
    return Scene(bones=out)


def test_the_hierarchy_decides_what_shoulder_means():
    """Mixamo's LeftShoulder is the clavicle (LeftArm is below it); Biovision's, above
    LeftElbow, is the upper arm (LeftCollar is its clavicle)."""
    boxing = automatic_map(load_scene(CMU_DIR / "Boxing_Toes.bvh"))
    assert (boxing.get("left_shoulder"), boxing.get("left_upper_arm")) == (
        "LeftCollar",
        "LeftShoulder",
    )
    assert (boxing.get("left_thigh"), boxing.get("left_shin")) == ("LeftHip", "LeftKnee")
    mixamo = automatic_map(mixamo_character())
    assert (mixamo.get("left_shoulder"), mixamo.get("left_upper_arm")) == (
        "mixamorig:LeftShoulder",
        "mixamorig:LeftArm",
    )


def test_robot_expressive_by_its_names_and_its_hierarchy():
    """Its ``Hips`` does not carry the legs (``Body`` does, and every clip moves ``Body``),
    and its feet hang from an IK bone, not from the shins."""
    robot = automatic_map(load_scene(CORPUS / "RobotExpressive.glb"))
    assert robot.get("hips") == "Body"
    assert robot.leg("left") == ("UpperLegL", "LowerLegL", "FootL", None)
    assert (robot.get("left_upper_arm"), robot.get("left_forearm")) == ("UpperArmL", "LowerArmL")
    assert robot.get("spine") == "Hips" and robot.get("head") == "Head"


def test_cesium_man_by_the_shape_of_its_hierarchy():
    """node_0 .. node_21 say nothing: the legs hang lowest from node_2, the toes point +X
    (the way the knees bend too), so the left is -Z; the arms branch from node_12."""
    cesium = automatic_map(load_scene(CORPUS / "CesiumMan.gltf"))
    assert cesium.get("hips") == "node_2"
    assert cesium.leg("left") == ("node_7", "node_8", "node_9", "node_10")
    assert cesium.leg("right") == ("node_3", "node_4", "node_5", "node_6")
    assert [cesium.get(f"left_{p}") for p in ("upper_arm", "forearm", "hand")] == [
        "node_16",
        "node_17",
        "node_18",
    ]
    assert (cesium.get("neck"), cesium.get("head")) == ("node_19", "node_20")


@pytest.mark.parametrize("arms_deg", [40.0, 0.0])
def test_the_shape_alone_finds_what_the_names_find(arms_deg):
    """The A-pose (and T-pose) character with every name replaced by ``node_<i>``: the map
    the shape finds is the one its Mixamo names give, bone for bone, body and limbs. (Its
    ``HeadTop_End`` goes first: a bone marking the top of the head is, by shape alone, a
    head; CesiumMan has none.)"""
    named = mixamo_character(arms_deg=arms_deg)
    named.bones = [b for b in named.bones if b.name != "mixamorig:HeadTop_End"]
    renamed = {b.name: f"node_{i}" for i, b in enumerate(named.bones)}
    nameless = Scene(
        bones=[
            Bone(
                name=renamed[b.name],
                parent=renamed.get(b.parent),
                translation=b.translation,
                rotation=b.rotation,
                scale=b.scale,
            )
            for b in named.bones
        ]
    )
    by_names = automatic_map(named).bones
    by_shape = automatic_map(nameless).bones
    core = [c for c in BONES if not c[-1].isdigit()]
    assert {c: by_shape.get(c) for c in core} == {c: renamed.get(by_names.get(c)) for c in core}


def test_a_prop_on_a_mesh_named_like_a_head_is_not_the_head():
    """Blender's metarig exported with rigid meshes (a knight whose ``Head.002`` is the
    helmet's node, a leaf carrying only its mesh): the head is the skeleton's top bone."""
    from app.scene.rig.mesh import SkinnedMesh

    scene = _scene(
        {
            "spine": (None, (0, 1.0, 0)),
            "spine.001": ("spine", (0, 1.15, 0)),
            "spine.002": ("spine.001", (0, 1.3, 0)),
            "spine.003": ("spine.002", (0, 1.45, 0)),
            "spine.004": ("spine.003", (0, 1.55, 0)),
            "spine.005": ("spine.004", (0, 1.62, 0)),
            "Head.002": ("spine.005", (0, 1.62, 0)),
            "shoulder.L": ("spine.003", (0.05, 1.45, 0)),
            "upper_arm.L": ("shoulder.L", (0.2, 1.45, 0)),
            "forearm.L": ("upper_arm.L", (0.45, 1.45, 0)),
            "hand.L": ("forearm.L", (0.7, 1.45, 0)),
            "shoulder.R": ("spine.003", (-0.05, 1.45, 0)),
            "upper_arm.R": ("shoulder.R", (-0.2, 1.45, 0)),
            "forearm.R": ("upper_arm.R", (-0.45, 1.45, 0)),
            "hand.R": ("forearm.R", (-0.7, 1.45, 0)),
            "thigh.L": ("spine", (0.1, 0.95, 0)),
            "shin.L": ("thigh.L", (0.1, 0.5, 0)),
            "foot.L": ("shin.L", (0.1, 0.08, 0)),
            "thigh.R": ("spine", (-0.1, 0.95, 0)),
            "shin.R": ("thigh.R", (-0.1, 0.5, 0)),
            "foot.R": ("shin.R", (-0.1, 0.08, 0)),
        }
    )
    scene.meshes = (
        SkinnedMesh(
            name="helmet",
            positions=np.zeros((3, 3)),
            indices=np.array([[0, 1, 2]]),
            joints=("Head.002",),
            joint_indices=np.zeros((3, 1), int),
            weights=np.ones((3, 1)),
            inverse_bind=np.eye(4)[None],
        ),
    )
    found = automatic_map(scene)
    assert (found.get("hips"), found.get("neck"), found.get("head")) == (
        "spine",
        "spine.004",
        "spine.005",
    )
    assert [found.get(c) for c in ("spine", "chest", "upper_chest")] == [
        "spine.001",
        "spine.002",
        "spine.003",
    ]


# --- kept in the scene file ---------------------------------------------------------------


def _saved(tmp_path, scene) -> Scene:
    path = tmp_path / "character.json"
    save_scene(scene, path)
    return load_scene(path)


def test_a_corrected_map_is_saved_and_loaded_back_equal(tmp_path):
    scene = mixamo_character()
    corrected = automatic_map(scene).with_bone("left_hand", "Sword").with_bone("neck", None)
    scene.extra = with_map(scene.extra, corrected)
    back = _saved(tmp_path, scene)
    assert back == scene
    assert map_of(back) == corrected and map_of(back).get("left_hand") == "Sword"
    assert map_of(back).get("neck") is None  # what a saved map leaves out is unmapped


def _file(bones_value) -> str:
    return json.dumps(
        {
            "format": "pivotal-scene",
            "version": 1,
            "bones": [{"name": "Hips"}, {"name": "Spine", "parent": "Hips"}],
            "humanoid": bones_value,
        }
    )


@pytest.mark.parametrize(
    "value, place, why",
    [
        (["Hips"], "humanoid", "must be an object"),
        ({"bones": ["Hips"]}, "humanoid.bones", "must be an object"),
        ({"bones": {"pelvis": "Hips"}}, "humanoid.bones.pelvis", "not a canonical humanoid bone"),
        ({"bones": {"hips": 3}}, "humanoid.bones.hips", "must be a bone's name"),
        ({"bones": {"hips": "Pelvis"}}, "humanoid.bones.hips", "'Pelvis' is not a bone"),
        (
            {"bones": {"hips": "Hips", "spine": "Hips"}},
            "humanoid.bones.spine",
            r"mapped already \(as hips\)",
        ),
    ],
)
def test_a_bad_map_is_refused_with_its_place(value, place, why):
    with pytest.raises(SceneError, match=why) as caught:
        loads_scene(_file(value), "x.json")
    assert caught.value.path == place


def test_a_renamed_or_deleted_bone_carries_into_the_map(tmp_path):
    scene = mixamo_character()
    scene.extra = with_map(scene.extra, automatic_map(scene))
    _apply(scene, rename_bone(scene, "mixamorig:LeftArm", "upper_arm.L"))
    assert map_of(scene).get("left_upper_arm") == "upper_arm.L"
    _apply(scene, delete_bones(scene, ["upper_arm.L"]))
    assert map_of(scene).get("left_upper_arm") is None
    assert _saved(tmp_path, scene) == scene  # it still names only bones of the scene


def _apply(scene, rig):
    scene.bones, scene.constraints = list(rig.bones), list(rig.constraints)
    if rig.extra is not None:
        scene.extra = rig.extra


def test_the_map_lets_a_bone_go_before_taking_it_again():
    mapping = HumanoidMap({"left_hand": "Hand", "right_hand": "Other"})
    moved = mapping.with_bone("right_hand", "Hand")
    assert moved.bones == {"right_hand": "Hand"}
