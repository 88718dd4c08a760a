"""Rig an animated leg without losing its motion (issue 24, item 1), and the rig's structure
(item 0): the control keyed from the leg's motion (FK → IK snap-and-bake) leaves every frame
of CMU 01_01 where the capture had it, judged by the test's own BVH parser and scipy's
forward kinematics; controls under a moving root, over a scaled armature; the parts of a rig
read back from a scene; a rig built before the roll body plays as it did."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.builders.foot_roll import MOTION, REST, build_foot_roll, build_foot_rolls
from app.scene.builders.foot_roll_parts import foot_roll_of, foot_rolls
from app.scene.builders.leg_names import recognised_legs
from app.scene.evaluate import bake, default_frames
from app.scene.formats.schema import scene_from_json, scene_to_json
from app.scene.io import load_scene
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone
from tests.editor.test_foot_roll_rig import _keyed, mixamo_character
from tests.helpers.paths import CMU_DIR, SCENES
from tests.scene.formats.test_bvh import independent_bvh_fk

CLIP = CMU_DIR / "01_01.bvh"
#: How near the rigged leg must stay to the capture: this share of the character's height.
NEAR = 1e-4


def _height(heads) -> float:
    """The character's height at the first frame: its extent along up (+Y)."""
    return float(np.ptp(heads[0, :, 1]))


def _across(v, axis):
    """The part of the vectors ``v`` (F, 3) across the unit ``axis`` (F, 3)."""
    return v - np.sum(v * axis, axis=1)[:, None] * axis


def _rotation_of(matrices) -> Rotation:
    """scipy's rotations of the (F, 4, 4) transforms' linear parts (unit scale here)."""
    return Rotation.from_matrix(matrices[:, :3, :3])


@pytest.fixture(scope="module")
def walk():
    """01_01 as the capture has it (own FK), and rigged on both legs from its motion."""
    names, ends, positions, rotations = independent_bvh_fk(CLIP)
    scene = load_scene(CLIP)
    legs = recognised_legs(scene)
    built = build_foot_rolls(scene, [legs["left"], legs["right"]])
    scene.bones[:], scene.constraints[:] = built[-1].rig.bones, built[-1].rig.constraints
    return names, ends, positions, rotations, scene, legs, built, bake(scene)


def test_every_frame_of_a_captured_walk_stays_where_it_was(walk):
    """Thigh, calf, foot and toes on all 2,752 frames: heads, tails and turns as the file's
    own forward kinematics put them (within 1e-4 of the height and of a radian), the knee
    on the side it bent; the rest of the body untouched."""
    names, ends, positions, rotations, scene, legs, built, result = walk
    height = _height(positions)
    assert len(result.frames) == len(positions) == 2752
    for leg in legs.values():
        for bone in leg.bones():
            j, i = names.index(bone), scene.bone_index(bone)
            tip = (
                ends[bone]
                if bone in ends
                else positions[
                    :, names.index(next(b.name for b in scene.bones if b.parent == bone))
                ]
            )
            head_off = np.linalg.norm(result.heads[:, i] - positions[:, j], axis=1)
            tail_off = np.linalg.norm(result.tails[:, i] - tip, axis=1)
            assert head_off.max() <= NEAR * height, (bone, head_off.max() / height)
            assert tail_off.max() <= NEAR * height, (bone, tail_off.max() / height)
            turned = (_rotation_of(result.bone_to_world[:, i]) * rotations[j].inv()).magnitude()
            assert turned.max() <= NEAR, (bone, turned.max())  # a twisted thigh would show
        hip, knee, ankle = (positions[:, names.index(b)] for b in leg.bones()[:3])
        axis = (ankle - hip) / np.linalg.norm(ankle - hip, axis=1)[:, None]

        was = _across(knee - hip, axis)
        now = _across(result.heads[:, scene.bone_index(leg.calf)] - hip, axis)
        bent = np.linalg.norm(was, axis=1) > NEAR * height
        assert bent.sum() > 2000  # a walk bends its knees
        assert np.all(np.sum(was * now, axis=1)[bent] > 0)  # the same side, every frame
    others = [
        names.index(b.name)
        for b in scene.bones[: len(names)]
        if not any(b.name in leg.bones()[:4] for leg in legs.values())
    ]
    np.testing.assert_allclose(result.heads[:, others], positions[:, others], atol=1e-9 * height)


def test_the_controls_carry_the_motion_on_every_frame(walk):
    """The control and the pole are plain keyed bones at the top level (the hips travel):
    one key a frame; the control world-aligned at the first frame and turned as the foot
    has turned since, the roll body at rest on it with the foot's first rotation, so the
    body is the foot on every frame; the pivots unkeyed."""
    names, ends, positions, rotations, scene, legs, built, result = walk
    for roll in built:
        assert roll.keyed == MOTION
        control, body, pole = (scene.bone(n) for n in (roll.control, roll.body, roll.pole))
        assert control.parent is None and pole.parent is None and body.parent == control.name
        for keys in (control.translation_keys, control.rotation_keys, pole.translation_keys):
            assert len(keys.frames) == 2752
        assert body.translation_keys is None and body.translation == (0.0, 0.0, 0.0)
        assert all(p.rotation_keys is None for p in scene.constraint(roll.roll).pivots)
        i, b = scene.bone_index(roll.control), scene.bone_index(roll.body)
        # read from the capture, not the rig: the control is the ankle, world-aligned at the
        # first frame, turned as the foot turned since; the body is the foot
        j = names.index(roll.leg.foot)
        np.testing.assert_allclose(result.heads[:, i], positions[:, j], atol=1e-9)
        control = _rotation_of(result.bone_to_world[:, i])
        assert control[0].magnitude() <= 1e-12
        assert np.allclose(control.as_matrix()[0], np.eye(3), atol=1e-12)
        since = rotations[j] * rotations[j][0].inv()
        assert (control * since.inv()).magnitude().max() <= 1e-9
        assert (
            Rotation.from_quat(body.rotation, scalar_first=True) * rotations[j][0].inv()
        ).magnitude() <= 1e-9
        body_turn = _rotation_of(result.bone_to_world[:, b])
        assert (body_turn * rotations[j].inv()).magnitude().max() <= 1e-9
        np.testing.assert_allclose(result.heads[:, b], positions[:, j], atol=1e-9)


def test_built_at_rest_the_legs_leave_the_capture(walk):
    """The dialog's other choice (and the only rig before): one key at the first frame, so
    the feet stay behind while the body walks on; at the first frame nothing moves."""
    names, ends, positions, *_ = walk
    scene = load_scene(CLIP)
    legs = recognised_legs(scene)
    (built,) = build_foot_rolls(scene, [legs["left"]], REST)
    assert built.keyed == REST
    control = next(b for b in built.rig.bones if b.name == built.control)
    assert len(control.translation_keys.frames) == 1
    scene.bones[:], scene.constraints[:] = built.rig.bones, built.rig.constraints
    frames = np.arange(0.0, 2752.0, 25.0)
    result = bake(scene, frames)
    foot = scene.bone_index("LeftFoot")
    off = np.linalg.norm(result.heads[:, foot] - positions[frames.astype(int), foot], axis=1)
    assert off[0] <= 1e-9 and np.median(off) > 0.05 * _height(positions)


def test_a_leg_under_a_moving_root_keeps_its_motion():
    """A character under a root bone that walks, its knee bending: the controls go under the
    root (its motion carries them) and their keys keep every frame of the leg."""
    scene = mixamo_character(root="Armature")
    frames = np.arange(0.0, 25.0)
    walk = np.stack([np.zeros(25), np.zeros(25), 0.02 * frames], axis=1)
    scene.bones[0] = dataclasses.replace(scene.bones[0], translation_keys=Keys(frames, walk))
    k = scene.bone_index("mixamorig:LeftUpLeg")
    swing = Rotation.from_euler("x", -35 * np.sin(frames / 8)[:, None], degrees=True).as_quat(
        scalar_first=True
    )
    scene.bones[k] = dataclasses.replace(scene.bones[k], rotation_keys=Keys(frames, swing))
    k = scene.bone_index("mixamorig:LeftLeg")
    knee = Rotation.from_euler("x", 50 * np.sin(frames / 8)[:, None] ** 2, degrees=True).as_quat(
        scalar_first=True
    )
    scene.bones[k] = dataclasses.replace(scene.bones[k], rotation_keys=Keys(frames, knee))
    before = bake(scene, frames)
    built = build_foot_roll(scene, recognised_legs(scene)["left"])
    assert built.keyed == MOTION
    new = {b.name: b for b in built.rig.bones}
    assert new[built.control].parent == new[built.pole].parent == "Armature"
    scene.bones[:], scene.constraints[:] = built.rig.bones, built.rig.constraints
    after = bake(scene, frames)
    height = _height(before.heads)
    for bone in built.leg.bones():
        i = scene.bone_index(bone)
        assert np.abs(after.heads[:, i] - before.heads[:, i]).max() <= NEAR * height
        assert np.abs(after.tails[:, i] - before.tails[:, i]).max() <= NEAR * height
    # the animator's next step: a roll keyed on top of the motion composes with it
    _keyed(scene, built.roll)
    rolled = bake(scene, frames)
    i = scene.bone_index(built.body)
    lift = rolled.heads[12, i, 1] - after.heads[12, i, 1]
    assert lift > 0.02  # the ball's 28°: the heel (and the ankle) up while the leg walks on


def centimetre_character() -> tuple:
    """:func:`mixamo_character` as Mixamo's files come: bones in centimetres under an
    ``Armature`` scaled by 0.01 (so the same size in the world)."""
    metres = mixamo_character(root="Armature")
    bones = [dataclasses.replace(metres.bones[0], scale=(0.01, 0.01, 0.01))]
    for b in metres.bones[1:]:
        tail = None if b.tail is None else tuple(100 * v for v in b.tail)
        bones.append(
            dataclasses.replace(b, translation=tuple(100 * v for v in b.translation), tail=tail)
        )
    scene = dataclasses.replace(metres, bones=bones, meshes=())
    return metres, scene


def test_a_scaled_armature_gets_controls_at_unit_scale_in_metres():
    """Mixamo's ``Armature`` at 0.01: the control and the pole go to the top level, scale 1,
    their numbers in the world's metres (the ankle's), not 100 and centimetres."""
    metres, scene = centimetre_character()
    pose = bake(scene, [0.0])
    np.testing.assert_allclose(pose.heads, bake(metres, [0.0]).heads, atol=1e-12)
    built = build_foot_roll(scene, recognised_legs(scene)["left"])
    new = {b.name: b for b in built.rig.bones}
    control, pole = new[built.control], new[built.pole]
    assert control.parent is None and pole.parent is None
    np.testing.assert_allclose(control.scale, 1.0, atol=1e-12)
    np.testing.assert_allclose(pole.scale, 1.0, atol=1e-12)
    ankle = pose.heads[0, scene.bone_index("mixamorig:LeftFoot")]
    np.testing.assert_allclose(control.translation, ankle, atol=1e-12)
    assert 0.05 < np.linalg.norm(control.tail) < 0.3  # the foot's length, in metres
    # an unscaled root still parents them (its motion carries them): as before
    unscaled = build_foot_roll(metres, recognised_legs(metres)["left"])
    assert {b.name: b for b in unscaled.rig.bones}[unscaled.control].parent == "Armature"


def old_style(built) -> tuple:
    """The rig as the builder made it before the roll body (what files saved then hold):
    the multi-parent on the control itself, turned as the foot (the roll body's rotation on
    the world-aligned control, and its tail), relative to the world at the top level, the leg
    IK and the foot's copy rotation on the control; no keys on control and pole."""
    bones = []
    body = next(b for b in built.rig.bones if b.name == built.body)
    for b in built.rig.bones:
        if b.name == built.body:
            continue
        if b.name in (built.control, built.pole):
            b = dataclasses.replace(b, translation_keys=None, rotation_keys=None)
        if b.name == built.control:
            turned = Rotation.from_quat(b.rotation, scalar_first=True) * Rotation.from_quat(
                body.rotation, scalar_first=True
            )
            b = dataclasses.replace(
                b, rotation=tuple(turned.as_quat(scalar_first=True)), tail=body.tail
            )
        bones.append(b)
    control = next(b for b in bones if b.name == built.control)
    relative = "world" if control.parent is None else "parent"
    constraints = []
    for c in built.rig.constraints:
        if c.name == built.roll:
            c = dataclasses.replace(c, body=built.control, relative_to=relative)
        elif c.name in (built.leg_ik, built.follow):
            c = c.with_target("target", dataclasses.replace(c.target, bone=built.control))
        constraints.append(c)
    return bones, constraints


def foot_turned_control(built) -> list:
    """The bones as the builder made them before the control was world-aligned (the first
    roll-body rig): the control turned as the foot (the body's rest rotation on it, keys and
    all), the roll body at rest on it with the identity rotation."""
    body = next(b for b in built.rig.bones if b.name == built.body)
    offset = Rotation.from_quat(body.rotation, scalar_first=True)
    bones = []
    for b in built.rig.bones:
        if b.name == built.control:
            rest = Rotation.from_quat(b.rotation, scalar_first=True) * offset
            keyed = Rotation.from_quat(b.rotation_keys.values, scalar_first=True) * offset
            b = dataclasses.replace(
                b,
                rotation=tuple(rest.as_quat(scalar_first=True)),
                tail=body.tail,
                rotation_keys=Keys(b.rotation_keys.frames, keyed.as_quat(scalar_first=True)),
            )
        elif b.name == built.body:
            b = dataclasses.replace(b, rotation=(1.0, 0.0, 0.0, 0.0))
        bones.append(b)
    return bones


def test_a_rig_built_before_the_roll_body_opens_and_plays_as_it_did():
    """An old rig (humanoid, the worked example's roll keys) saves and loads back equal, is
    read back as a rig that rolls its control, and plays exactly as the new rig does with
    the same pivot keys while its control stays (the new control's keys hold it still); so
    does the first roll-body rig, whose control was turned as the foot (as authored, in
    object space, the three are one pose; the world-space toggle tells them apart)."""
    scene = load_scene(SCENES / "humanoid.glb")
    legs = recognised_legs(scene)
    built = build_foot_roll(scene, legs["left"], REST)
    new = scene.copy()
    new.bones[:], new.constraints[:] = built.rig.bones, built.rig.constraints
    _keyed(new, built.roll)
    old = scene.copy()
    old.bones[:], old.constraints[:] = old_style(built)
    _keyed(old, built.roll)
    old = scene_from_json(scene_to_json(old))  # as a file holds it
    parts = foot_roll_of(old, "foot.L")
    assert parts.rolls_the_control and parts.body == parts.control == "foot_ctrl.L"
    assert (parts.pole, parts.roll, parts.leg_ik, parts.follow) == (
        "calf_pole.L",
        "foot_roll.L",
        "foot_leg_ik.L",
        "foot_follows_ctrl.L",
    )
    assert parts.leg == legs["left"]
    fresh = foot_roll_of(new, "foot.L")
    assert fresh == built.parts() and not fresh.rolls_the_control
    # and the first roll-body rig (its control turned as the foot) is read back as a rig
    first = scene.copy()
    first.bones[:], first.constraints[:] = foot_turned_control(built), built.rig.constraints
    _keyed(first, built.roll)
    first = scene_from_json(scene_to_json(first))
    assert foot_roll_of(first, "foot.L") == built.parts()
    frames = default_frames(scene)
    was, now, then = bake(old, frames), bake(new, frames), bake(first, frames)
    for bone in scene.bone_names():
        i, j = old.bone_index(bone), new.bone_index(bone)
        np.testing.assert_allclose(was.bone_to_world[:, i], now.bone_to_world[:, j], atol=1e-12)
        np.testing.assert_allclose(then.bone_to_world[:, j], now.bone_to_world[:, j], atol=1e-12)
    left = old.bone_index("foot.L")
    assert was.heads[12, left, 1] - was.heads[0, left, 1] > 0.04  # it rolls


def test_every_rig_of_a_scene_is_read_back_after_renames(walk):
    """foot_rolls finds both legs' rigs by what their items hold, renamed or not."""
    *_, scene, legs, built, _ = walk
    assert foot_rolls(scene) == [b.parts() for b in built]
    renamed = scene.copy()
    renamed.constraints[:] = [
        dataclasses.replace(c, name=f"my {c.name}") for c in scene.constraints
    ]
    found = foot_rolls(renamed)
    assert [p.roll for p in found] == [f"my {b.roll}" for b in built]
    assert [p.leg for p in found] == [legs["left"], legs["right"]]


def test_a_motion_keyed_rig_saves_and_loads_back_equal():
    """The keys the build makes are keys like any other: a scene with a rig keyed from a
    clip (01_03's first 120 frames) is written and read back equal, and plays the same."""
    scene = load_scene(CMU_DIR / "01_03.bvh")
    scene.frame_end = 119
    scene.bones[:] = [_cut(b, 120) for b in scene.bones]
    legs = recognised_legs(scene)
    built = build_foot_rolls(scene, [legs["left"], legs["right"]])
    scene.bones[:], scene.constraints[:] = built[-1].rig.bones, built[-1].rig.constraints
    back = scene_from_json(scene_to_json(scene))
    assert back == scene
    np.testing.assert_array_equal(bake(back).bone_to_world, bake(scene).bone_to_world)


def _cut(bone: Bone, n: int) -> Bone:
    changes = {}
    for field in ("translation_keys", "rotation_keys"):
        keys = getattr(bone, field)
        if keys is not None:
            changes[field] = Keys(keys.frames[:n], keys.values[:n])
    return dataclasses.replace(bone, **changes)
