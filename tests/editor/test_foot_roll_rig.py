"""The reverse-foot rig of contract §F4 (app.scene.builders), built on the glTF humanoid and
on a small Mixamo-named character: the ankle on the control, the knee where the law of
cosines puts it, the foot turning with the control, the pivots on the sole, names read in
every convention, and the refusals."""

from __future__ import annotations

import dataclasses
import importlib.util

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.builders.foot_roll import FootRollError, build_foot_roll, root_bone
from app.scene.builders.leg_names import Leg, leg_for_selection, read_name, recognised_legs
from app.scene.evaluate import bake, default_frames
from app.scene.io import load_scene
from app.scene.rig.keys import Keys
from app.scene.rig.mesh import SkinnedMesh
from app.scene.rig.model import Bone, Scene
from app.scene.rig.skinning import bind
from tests.helpers.paths import SCENES

HUMANOID = SCENES / "humanoid.glb"
TOLERANCE = 1e-4  # the FABRIK constraint's (the builder keeps the default)


def _tool_keys():
    """The worked example's roll keys (tools/add_foot_roll.py)."""
    spec = importlib.util.spec_from_file_location(
        "add_foot_roll_keys", SCENES.parent.parent / "tools" / "add_foot_roll.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KEYS, module._about_x


def _rigged(scene: Scene, sides=("left", "right")) -> dict:
    """Build the rig on ``sides`` of ``scene`` (in place); returns the FootRoll per side."""
    built = {}
    for side in sides:
        built[side] = build_foot_roll(scene, recognised_legs(scene)[side])
        scene.bones[:], scene.constraints[:] = built[side].rig.bones, built[side].rig.constraints
    return built


def _keyed(scene: Scene, roll: str) -> None:
    """Key the pivots of ``roll`` as the worked example does."""
    keys, about_x = _tool_keys()
    index = [c.name for c in scene.constraints].index(roll)
    constraint = scene.constraints[index]
    pivots = []
    for pivot in constraint.pivots:
        frames, degrees = zip(*dict(keys)[pivot.name])
        values = np.array([about_x(d) for d in degrees])
        pivots.append(
            dataclasses.replace(pivot, rotation_keys=Keys(np.array(frames, float), values))
        )
    scene.constraints[index] = dataclasses.replace(constraint, pivots=tuple(pivots))


@pytest.fixture(scope="module")
def humanoid():
    """The humanoid with both rigs, the left one rolling; and its bake."""
    scene = load_scene(HUMANOID)
    built = _rigged(scene)
    _keyed(scene, built["left"].roll)
    return scene, built, bake(scene, default_frames(scene))


def _at(result, scene, name):
    return scene.bone_index(name)


def test_the_ankle_stays_on_the_control_on_every_reachable_frame(humanoid):
    scene, built, result = humanoid
    i = {n: k for k, n in enumerate(scene.bone_names())}
    for side, leg in recognised_legs(load_scene(HUMANOID)).items():
        control = i[built[side].body]  # the rolled body, the control's child
        hip, knee, ankle = (result.heads[:, i[b]] for b in (leg.thigh, leg.calf, leg.foot))
        target = result.heads[:, control]
        reach = np.linalg.norm(knee[0] - hip[0]) + np.linalg.norm(ankle[0] - knee[0])
        reachable = np.linalg.norm(target - hip, axis=1) <= reach
        assert reachable.all()  # the worked example stays within reach, landing where it stood
        gap = np.linalg.norm(ankle - target, axis=1)
        assert gap[reachable].max() <= TOLERANCE
        # the foot's head is the calf's tail: the chain holds together
        np.testing.assert_allclose(result.tails[:, i[leg.calf]], ankle, atol=1e-6)  # float32 file
    # the left foot rolls: the ankle rises by 5 cm while the heel comes up on the ball
    left = i[recognised_legs(scene)["left"].foot]
    assert result.heads[12, left, 1] - result.heads[0, left, 1] > 0.04


def test_the_knee_sits_on_the_two_bone_solution(humanoid):
    scene, built, result = humanoid
    i = {n: k for k, n in enumerate(scene.bone_names())}
    leg = recognised_legs(scene)["left"]
    hip, knee, ankle = (result.heads[:, i[b]] for b in (leg.thigh, leg.calf, leg.foot))
    target, pole = result.heads[:, i[built["left"].body]], result.heads[:, i[built["left"].pole]]
    a = np.linalg.norm(knee[0] - hip[0])  # thigh
    b = np.linalg.norm(ankle[0] - knee[0])  # calf
    d = np.linalg.norm(target - hip, axis=1)
    reachable = d <= a + b
    u = (target - hip) / d[:, None]
    side = (pole - hip) - np.sum((pole - hip) * u, axis=1)[:, None] * u
    side /= np.linalg.norm(side, axis=1)[:, None]
    cos_hip = (a * a + d * d - b * b) / (2 * a * d)  # law of cosines at the hip
    sin_hip = np.sqrt(np.clip(1 - cos_hip**2, 0, None))
    expected = hip + a * cos_hip[:, None] * u + a * sin_hip[:, None] * side
    error = np.linalg.norm(knee - expected, axis=1)[reachable]
    assert error.max() <= TOLERANCE
    bent = np.arange(len(d))[reachable & (sin_hip > 0.3)]  # a real bend, not only the rest
    assert len(bent) >= 5


def test_the_foot_turns_as_the_control_times_its_frame_start_offset(humanoid):
    scene, built, result = humanoid
    for side, roll in built.items():
        leg = recognised_legs(scene)[side]
        foot = result.bone_to_world[:, scene.bone_index(leg.foot), :3, :3]
        control = result.bone_to_world[:, scene.bone_index(roll.body), :3, :3]
        offset = control[0].T @ foot[0]
        np.testing.assert_allclose(foot, control @ offset, atol=1e-9)
    # the space toggle overrides every constraint's space (the format's rule): in world
    # space the foot copies the roll body's world rotation, in object space its rotation
    # relative to its parent (the calf) copies the body's relative to its own (the control:
    # the roll alone)
    legs = recognised_legs(scene)
    foot_i, calf_i = scene.bone_index(legs["left"].foot), scene.bone_index(legs["left"].calf)
    body_i = scene.bone_index(built["left"].body)
    control_i = scene.bone_index(built["left"].control)
    for space in ("world", "object"):
        toggled = bake(scene, np.arange(0.0, 30.0, 4.0), space).bone_to_world[:, :, :3, :3]
        foot, control = toggled[:, foot_i], toggled[:, body_i]
        if space == "object":
            foot = np.linalg.inv(toggled[:, calf_i]) @ foot
            control = np.linalg.inv(toggled[:, control_i]) @ control
        offset = control[0].T @ foot[0]
        np.testing.assert_allclose(foot, control @ offset, atol=1e-9)
    left = scene.bone_index(built["left"].body)
    turned = np.degrees(
        np.arccos(
            np.clip(
                (
                    np.trace(
                        result.bone_to_world[12, left, :3, :3].T
                        @ result.bone_to_world[0, left, :3, :3]
                    )
                    - 1
                )
                / 2,
                -1,
                1,
            )
        )
    )
    assert 20 < turned < 35  # the ball's 28°


def test_the_control_is_world_aligned_and_the_spaces_roll_about_different_axes(humanoid):
    """The control has the world's axes at rest (as Maya's IK foot control), the roll body
    the foot's rotation on it; so the ball's 28° about X (frames 2-12) turns the foot about
    its own X in object space and about the world's X in world space, each about the ball's
    point on the sole (scipy's closed form, not the solver's). The foot is turned out 40°:
    the two differ, the lesson of the editor's space toggle."""
    scene, built, _ = humanoid
    roll = built["left"]
    control, body = scene.bone(roll.control), scene.bone(roll.body)
    assert control.parent is None and body.parent == roll.control
    start = bake(scene, np.array([0.0]))
    i, b = scene.bone_index(roll.control), scene.bone_index(roll.body)
    np.testing.assert_allclose(start.bone_to_world[0, i, :3, :3], np.eye(3), atol=1e-12)
    foot = scene.bone_index("foot.L")
    # the body is the foot (to the file's float32, its scale)
    np.testing.assert_allclose(start.bone_to_world[0, b], start.bone_to_world[0, foot], atol=1e-7)
    rest = Rotation.from_matrix(start.bone_to_world[0, b, :3, :3])
    assert (Rotation.from_quat(body.rotation, scalar_first=True) * rest.inv()).magnitude() < 1e-9
    ball = next(p for p in scene.constraint(roll.roll).pivots if p.name == "ball")
    point = start.bone_to_world[0, b, :3, :3] @ ball.position + start.bone_to_world[0, b, :3, 3]
    turn = Rotation.from_euler("x", 28, degrees=True)
    expected = {"object": rest * turn, "world": turn * rest}
    for space, rotation in expected.items():
        pose = bake(scene, np.array([12.0]), space).bone_to_world[0, b]
        assert (Rotation.from_matrix(pose[:3, :3]) * rotation.inv()).magnitude() < 1e-9, space
        moved = pose[:3, :3] @ ball.position + pose[:3, 3]
        np.testing.assert_allclose(moved, point, atol=1e-9)  # it turned about the ball
    apart = (expected["object"] * expected["world"].inv()).magnitude()
    assert np.degrees(apart) > 10  # the foot is turned out: the axes part


def test_building_moves_nothing_until_the_pivots_turn():
    plain = load_scene(HUMANOID)
    rigged = load_scene(HUMANOID)
    _rigged(rigged)
    frames = default_frames(plain)
    before, after = bake(plain, frames), bake(rigged, frames)
    B = len(plain.bones)
    np.testing.assert_allclose(after.bone_to_world[:, :B], before.bone_to_world, atol=1e-9)
    assert len(rigged.bones) == B + 6 and len(rigged.constraints) == 6


def test_the_pivots_sit_at_the_lowest_points_of_the_foot(humanoid):
    scene, built, result = humanoid
    plain = load_scene(HUMANOID)
    pose = bake(plain, np.array([0.0]))
    (mesh,) = plain.meshes
    world = bind(mesh, plain.bone_names()).deform(pose.bone_to_world[0], normals=False)
    for side in ("left", "right"):
        leg = recognised_legs(plain)[side]
        joints = [mesh.joints.index(leg.foot), mesh.joints.index(leg.toes)]
        weight = np.where(np.isin(mesh.joint_indices, joints), mesh.weights, 0).sum(axis=1)
        foot = world[weight >= 0.5]
        assert len(foot) > 50
        body = result.bone_to_world[0, scene.bone_index(built[side].body)]  # the pivots' frame
        roll = scene.constraint(built[side].roll)
        at = {p.name: body[:3, :3] @ p.position + body[:3, 3] for p in roll.pivots}
        forward = at["toe"] - at["heel"]
        forward[1] = 0
        forward /= np.linalg.norm(forward)
        along = foot @ forward
        # heel and toe at the back and front ends of the foot's vertices
        assert at["heel"] @ forward == pytest.approx(along.min(), abs=1e-9)
        assert at["toe"] @ forward == pytest.approx(along.max(), abs=1e-9)
        ball_joint = pose.tails[0, plain.bone_index(leg.foot)]
        assert at["ball"] @ forward == pytest.approx(ball_joint @ forward, abs=1e-9)
        slab = 0.15 * np.ptp(along)
        for name in ("heel", "ball", "toe"):
            near = np.abs(along - at[name] @ forward) <= slab + 1e-12
            assert at[name][1] == pytest.approx(foot[near, 1].min(), abs=1e-9)
            assert np.all(foot[near, 1] >= at[name][1] - 1e-9)  # nothing of the sole below
        # on the foot's centre line: straight below and ahead of the ankle
        ankle = pose.heads[0, plain.bone_index(leg.foot)]
        across = np.cross([0.0, 1.0, 0.0], forward)
        for name in at:
            assert (at[name] - ankle) @ across == pytest.approx(0.0, abs=1e-9)


def test_without_a_mesh_the_pivots_come_from_the_bones():
    scene = load_scene(HUMANOID)
    scene.meshes = ()
    leg = recognised_legs(scene)["left"]
    built = build_foot_roll(scene, leg)
    assert built.pivots_from == "bones"
    new = Scene(bones=list(built.rig.bones), constraints=list(built.rig.constraints))
    pose = bake(new, np.array([0.0]))
    body = pose.bone_to_world[0, new.bone_index(built.body)]  # the pivots' frame
    roll = next(c for c in built.rig.constraints if c.name == built.roll)
    at = {p.name: body[:3, :3] @ p.position + body[:3, 3] for p in roll.pivots}
    np.testing.assert_allclose(at["ball"], pose.tails[0, new.bone_index(leg.foot)], atol=1e-9)
    np.testing.assert_allclose(at["toe"], pose.tails[0, new.bone_index(leg.toes)], atol=1e-9)
    ankle = pose.heads[0, new.bone_index(leg.foot)]
    np.testing.assert_allclose(at["heel"][[0, 2]], ankle[[0, 2]], atol=1e-9)
    assert at["heel"][1] == pytest.approx(min(at["ball"][1], at["toe"][1]))


@pytest.mark.parametrize(
    "name, read",
    [
        ("thigh.L", ("left", "thigh")),
        ("calf.R", ("right", "calf")),
        ("foot_L", ("left", "foot")),
        ("Toes_R", ("right", "toes")),
        ("LeftFoot", ("left", "foot")),
        ("RightUpLeg", ("right", "thigh")),
        ("Left_Calf", ("left", "calf")),
        ("right_foot", ("right", "foot")),
        ("ThighLeft", ("left", "thigh")),
        ("foot-Right", ("right", "foot")),
        ("L_Thigh", ("left", "thigh")),
        ("mixamorig:LeftUpLeg", ("left", "thigh")),
        ("mixamorig:LeftLeg", ("left", "calf")),
        ("mixamorig:RightFoot", ("right", "foot")),
        ("mixamorig:RightToeBase", ("right", "toes")),
        ("mixamorig:LeftToe_End", None),
        ("mixamorig:Hips", None),
        ("spine", None),
        ("footprint.L", None),
        ("Leg", None),
    ],
)
def test_leg_names_in_every_convention(name, read):
    assert read_name(name) == read


def mixamo_character(root: str | None = None) -> Scene:
    """A tiny Mixamo-named character (hips at 1 m, a slightly bent knee, Y up, facing +Z)
    with a box of skin on each foot; ``root`` adds a top-level bone above the hips."""
    bones = [] if root is None else [Bone(name=root)]
    bones.append(Bone(name="mixamorig:Hips", parent=root, translation=(0.0, 1.0, 0.0)))
    for side, x in (("Left", 0.1), ("Right", -0.1)):
        bones += [
            Bone(
                name=f"mixamorig:{side}UpLeg", parent="mixamorig:Hips", translation=(x, -0.05, 0.0)
            ),
            Bone(
                name=f"mixamorig:{side}Leg",
                parent=f"mixamorig:{side}UpLeg",
                translation=(0.0, -0.43, 0.02),
            ),
            Bone(
                name=f"mixamorig:{side}Foot",
                parent=f"mixamorig:{side}Leg",
                translation=(0.0, -0.42, -0.02),
            ),
            Bone(
                name=f"mixamorig:{side}ToeBase",
                parent=f"mixamorig:{side}Foot",
                translation=(0.0, -0.08, 0.12),
                tail=(0.0, 0.0, 0.06),
            ),
        ]
    scene = Scene(bones=bones, frame_end=24)
    scene.meshes = (
        box_on(
            scene,
            {
                f"mixamorig:{side}Foot": (x, 0.0, 0.0)
                for side, x in (("Left", 0.1), ("Right", -0.1))
            },
        ),
    )
    return scene


def box_on(scene: Scene, feet: dict) -> SkinnedMesh:
    """A box of skin under each foot of ``feet`` (bone name → where the box sits), carried
    by that foot alone: 8 cm wide, 6 cm high from the floor (y = 0), from 5 cm behind to
    20 cm in front."""
    pose = bake(scene, np.array([0.0]))
    joints = tuple(b.name for b in scene.bones)
    corners = np.array(
        [[x, y, z] for x in (-0.04, 0.04) for y in (0.0, 0.06) for z in (-0.05, 0.2)]
    )
    positions, joint_indices = [], []
    for foot, at in feet.items():
        positions.append(corners + np.asarray(at, dtype=float))
        joint_indices += [[joints.index(foot), 0, 0, 0]] * 8
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5]])
    return SkinnedMesh(
        name="feet",
        positions=np.concatenate(positions),
        indices=np.concatenate([faces + 8 * k for k in range(len(feet))]),
        joints=joints,
        joint_indices=np.array(joint_indices),
        weights=np.tile([1.0, 0.0, 0.0, 0.0], (8 * len(feet), 1)),
        inverse_bind=np.linalg.inv(pose.bone_to_world[0]),
    )


def test_a_mixamo_character_is_recognised_and_rigged():
    scene = mixamo_character()
    legs = recognised_legs(scene)
    assert legs == {
        side: Leg(
            f"mixamorig:{s}UpLeg",
            f"mixamorig:{s}Leg",
            f"mixamorig:{s}Foot",
            f"mixamorig:{s}ToeBase",
        )
        for side, s in (("left", "Left"), ("right", "Right"))
    }
    assert root_bone(scene, legs["left"]) is None  # the hips are the top: no root bone
    built = _rigged(scene)
    assert built["left"].pivots_from == "mesh"
    assert scene.bone(built["left"].control).parent is None
    # the pivots on the box's sole (y = 0), at its back and front ends
    body = bake(scene, np.array([0.0])).bone_to_world[0, scene.bone_index(built["left"].body)]
    at = {
        p.name: body[:3, :3] @ p.position + body[:3, 3]
        for p in scene.constraint(built["left"].roll).pivots
    }
    np.testing.assert_allclose([at[n][1] for n in at], 0.0, atol=1e-9)
    assert at["heel"][2] == pytest.approx(-0.05) and at["toe"][2] == pytest.approx(0.2)
    # the ball turns 30°: the ankle follows the control, the foot turns with it
    _keyed(scene, built["left"].roll)
    result = bake(scene, default_frames(scene))
    i = {n: k for k, n in enumerate(scene.bone_names())}
    ankle = result.heads[:, i["mixamorig:LeftFoot"]]
    target = result.heads[:, i[built["left"].body]]
    assert np.linalg.norm(ankle - target, axis=1).max() <= TOLERANCE
    assert ankle[12, 1] - ankle[0, 1] > 0.03
    foot = result.bone_to_world[:, i["mixamorig:LeftFoot"], :3, :3]
    ctrl = result.bone_to_world[:, i[built["left"].body], :3, :3]
    np.testing.assert_allclose(foot, ctrl @ (ctrl[0].T @ foot[0]), atol=1e-9)


def test_under_a_root_bone_the_control_and_pole_follow_it():
    scene = mixamo_character(root="Armature")
    leg = recognised_legs(scene)["left"]
    assert root_bone(scene, leg) == "Armature"
    built = build_foot_roll(scene, leg)
    new = {b.name: b for b in built.rig.bones}
    assert new[built.control].parent == new[built.pole].parent == "Armature"
    roll = next(c for c in built.rig.constraints if c.name == built.roll)
    assert roll.relative_to == "parent"
    # the character walks 0.5 m forward (its root keyed): control, pole and foot go along
    k = scene.bone_index("Armature")
    walk = Keys(np.array([0.0, 24.0]), np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.5]]))
    scene.bones[k] = dataclasses.replace(scene.bones[k], translation_keys=walk)
    plain = bake(scene, np.array([0.0, 12.0, 24.0]))
    scene.bones[:], scene.constraints[:] = built.rig.bones, built.rig.constraints
    scene.bones[k] = dataclasses.replace(scene.bones[k], translation_keys=walk)
    result = bake(scene, np.array([0.0, 12.0, 24.0]))
    i = {n: j for j, n in enumerate(scene.bone_names())}
    moved = result.heads[:, i[built.control]] - result.heads[0, i[built.control]]
    np.testing.assert_allclose(moved, [[0, 0, 0], [0, 0, 0.25], [0, 0, 0.5]], atol=1e-9)
    foot = i["mixamorig:LeftFoot"]
    np.testing.assert_allclose(
        result.bone_to_world[:, foot], plain.bone_to_world[:, foot], atol=1e-9
    )


def test_the_selection_chooses_the_leg():
    scene = mixamo_character()
    assert leg_for_selection(scene, ["mixamorig:RightLeg"]).foot == "mixamorig:RightFoot"
    assert leg_for_selection(scene, []).foot == "mixamorig:LeftFoot"
    plain = Scene(
        bones=[
            Bone(name="a"),
            Bone(name="b", parent="a", translation=(0, -1, 0)),
            Bone(name="c", parent="b", translation=(0, -1, 0)),
        ]
    )
    assert leg_for_selection(plain, ["c", "a", "b"]) == Leg("a", "b", "c")
    assert leg_for_selection(plain, ["a"]) is None


def test_refusals_name_the_bone_and_the_reason():
    scene = load_scene(HUMANOID)
    left = recognised_legs(scene)["left"]
    with pytest.raises(FootRollError, match="calf.R is not a child of thigh.L"):
        build_foot_roll(scene, Leg("thigh.L", "calf.R", "foot.R"))
    with pytest.raises(FootRollError, match="no bone named shin.L"):
        build_foot_roll(scene, Leg("thigh.L", "shin.L", "foot.L"))
    flat = scene.copy()
    k = flat.bone_index("calf.L")
    flat.bones[k] = dataclasses.replace(
        flat.bones[k], translation=(0.0, 0.0, 0.0), translation_keys=None
    )
    with pytest.raises(FootRollError, match="thigh.L has no length"):
        build_foot_roll(flat, left)
    built = build_foot_roll(scene, left)
    scene.bones[:], scene.constraints[:] = built.rig.bones, built.rig.constraints
    with pytest.raises(FootRollError, match="foot_ctrl.L is taken"):
        build_foot_roll(scene, left)
    renamed = scene.copy()
    renamed.bones[:] = scene.bones[:-3]
    renamed.constraints[:] = [
        dataclasses.replace(c, name=f"old {c.name}") for c in scene.constraints
    ]
    with pytest.raises(FootRollError, match="already follows the constraint old foot_leg_ik.L"):
        build_foot_roll(renamed, left)


def test_the_dialog_offers_the_leg_still_without_a_rig():
    from types import SimpleNamespace

    from app.editor.operations.rig_operations import suggested_leg

    scene = mixamo_character()
    document = SimpleNamespace(scene=scene, selected_bones=lambda: [])
    assert suggested_leg(document).foot == "mixamorig:LeftFoot"
    _rigged(scene, sides=("left",))
    assert suggested_leg(document).foot == "mixamorig:RightFoot"  # the left one has its rig
    document.selected_bones = lambda: ["mixamorig:LeftLeg"]  # unless the left is selected
    assert suggested_leg(document).foot == "mixamorig:LeftFoot"
