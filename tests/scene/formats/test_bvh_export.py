"""BVH export: what the importer (and an independent parser) read back is the bake."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.errors import SceneError
from app.scene.evaluate import BakeResult, bake
from app.scene.formats.bvh import parse_bvh
from app.scene.formats.bvh_export import bvh_from_bake, write_bvh
from app.scene.io import load_scene
from app.scene.math.euler import ORDERS
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene
from app.scene.rig.skeleton import Skeleton, forward_kinematics, heads_and_tails, local_transforms
from tests.scene.formats.test_bvh import independent_bvh_positions


def read_back(text, frames=None):
    """Bake of the scene that our importer makes of ``text``."""
    scene = parse_bvh(text)
    return scene, bake(scene, frames)


def assert_same_joints(original_scene, original, text, atol=1e-6):
    """Every head, and the tail of every leaf, read back within ``atol``."""
    scene, back = read_back(text)
    names = list(original.bone_names)
    index = [list(back.bone_names).index(n) for n in names]
    np.testing.assert_allclose(back.heads[:, index], original.heads, atol=atol, rtol=0)
    parents = {b.parent for b in original_scene.bones}
    leaves = [i for i, b in enumerate(original_scene.bones) if b.name not in parents]
    np.testing.assert_allclose(
        back.tails[:, [index[i] for i in leaves]], original.tails[:, leaves], atol=atol, rtol=0
    )
    return scene, back


def test_cmu_01_01_round_trip_reproduces_every_joint(cmu_01_01, tmp_path):
    scene = load_scene(cmu_01_01)
    original = bake(scene)
    out = tmp_path / "copy.bvh"
    export = write_bvh(out, scene, original)
    assert export.position_joints == ("Hips",)
    assert export.notes == ()
    text = out.read_text()
    assert text == export.text
    back_scene, back = assert_same_joints(scene, original, text)
    assert back_scene.fps == pytest.approx(scene.fps, rel=1e-12)
    assert (back_scene.frame_start, back_scene.frame_end) == (0, 2751)
    # The rotations come back too (no scale here), not just the positions.
    np.testing.assert_allclose(back.bone_to_world, original.bone_to_world, atol=1e-9)
    # The file is ordinary BVH: an independent parser with scipy's Euler angles agrees.
    names, ends, positions = independent_bvh_positions(out)
    assert names == list(original.bone_names)
    np.testing.assert_allclose(positions, original.heads, atol=1e-6)
    for joint, tip in ends.items():
        np.testing.assert_allclose(tip, original.tails[:, names.index(joint)], atol=1e-6)
    # Static offsets keep the source's digits; channels are ZXY on every joint.
    assert "\tOFFSET 1.36306 -1.79463 0.83929\n" in text
    assert text.count("CHANNELS 3 Zrotation Xrotation Yrotation") == 30


@pytest.mark.parametrize("order", ORDERS)
def test_every_rotation_order_round_trips(order, cmu_01_01):
    scene = load_scene(cmu_01_01)
    original = bake(scene, np.arange(0, 2752, 37.0))
    text = bvh_from_bake(scene, original, order=order).text
    assert f"Xposition Yposition Zposition {' '.join(a + 'rotation' for a in order)}" in text
    assert_same_joints(scene, original, text, atol=1e-9)


def gimbal_scene(middle_deg):
    """A joint whose ZXY middle angle is ``middle_deg`` while its outer angles animate."""
    f = np.arange(6.0)
    angles = np.stack(
        [np.linspace(-170, 170, 6), np.full(6, middle_deg), np.linspace(40, -130, 6)], axis=1
    )
    q = Rotation.from_euler("ZXY", angles, degrees=True).as_quat(scalar_first=True)
    bones = [
        Bone(name="root", translation=(1.0, 2.0, 3.0)),
        Bone(name="locked", parent="root", translation=(0.0, 1.0, 0.0), rotation_keys=Keys(f, q)),
        Bone(name="arm", parent="locked", translation=(0.3, 2.0, -0.4), tail=(0.0, 1.5, 0.5)),
    ]
    return Scene(bones=bones, frame_start=0, frame_end=5)


@pytest.mark.parametrize("middle", [90.0, -90.0, 89.99999, -89.9999999])
def test_round_trip_through_gimbal_lock(middle):
    scene = gimbal_scene(middle)
    original = bake(scene)
    export = bvh_from_bake(scene, original, order="ZXY")
    _, back = assert_same_joints(scene, original, export.text, atol=1e-9)
    np.testing.assert_allclose(back.bone_to_world, original.bone_to_world, atol=1e-9)
    motion = np.array(
        [line.split() for line in export.text.split("Frame Time:")[1].splitlines()[1:]], dtype=float
    )
    np.testing.assert_allclose(motion[:, 6 + 1], middle, atol=1e-5)  # locked joint's X


def rigid_scene(rng, n_bones=10, frames=30):
    """Two roots, keyed rotations everywhere, keyed translations on some non-roots."""
    bones = []
    for i in range(n_bones):
        parent = None if i in (0, 5) else f"b{rng.integers(5 if i > 5 else 0, i)}"
        q = Rotation.random(4, rng=rng).as_quat(scalar_first=True)
        bones.append(
            Bone(
                name=f"b{i}",
                parent=parent,
                translation=tuple(rng.normal(size=3)),
                rotation_keys=Keys([0.0, 9.0, 20.0, 29.0], q),
                translation_keys=Keys([0.0, 29.0], rng.normal(size=(2, 3)))
                if i in (3, 7)
                else None,
                tail=tuple(rng.normal(size=3)),
            )
        )
    return Scene(bones=bones, frame_start=0, frame_end=frames - 1, fps=30)


def test_random_rig_with_two_roots_and_moving_joints(rng):
    scene = rigid_scene(rng)
    original = bake(scene)
    export = bvh_from_bake(scene, original)
    assert export.text.count("ROOT ") == 2
    moving = {"b0", "b5", "b3", "b7"}
    assert set(export.position_joints) == moving
    back_scene, back = assert_same_joints(scene, original, export.text)
    np.testing.assert_allclose(
        back.bone_to_world[:, [list(back.bone_names).index(n) for n in original.bone_names]],
        original.bone_to_world,
        atol=1e-9,
    )
    # Custom tails of bones with children cannot be written; the export says so.
    with_children = {b.parent for b in scene.bones}
    for bone in scene.bones:
        said = any(f"bone {bone.name!r}: its tail is not written" in n for n in export.notes)
        assert said == (bone.name in with_children)


def test_a_body_moved_in_world_space_gets_position_channels(rng):
    """What a constraint writes (here: a bone's world transform replaced outright, as a
    multi-parent body is) comes out as channels, descendants following."""
    scene = rigid_scene(rng)
    frames = np.arange(30.0)
    skeleton = Skeleton.from_scene(scene)
    local = local_transforms(scene, frames)
    world = forward_kinematics(skeleton, local)
    body = scene.bone_index("b2")
    path = np.stack([np.sin(frames / 5), frames / 10, np.cos(frames / 7)], axis=1)
    turn = Rotation.from_rotvec(np.outer(frames / 9, [0.2, 1.0, -0.3])).as_matrix()
    world[:, body, :3, :3] = turn
    world[:, body, :3, 3] = path
    for child in skeleton.descendants(body):
        world[:, child] = world[:, skeleton.parents[child]] @ local[:, child]
    heads, tails = heads_and_tails(scene, world)
    driven = BakeResult(
        np.array(skeleton.names), frames, world, heads, tails, np.zeros((30, len(scene.bones)))
    )
    export = bvh_from_bake(scene, driven)
    assert "b2" in export.position_joints
    assert_same_joints(scene, driven, export.text)


def test_uniform_and_static_scale_is_baked_into_offsets_exactly():
    f = np.arange(8.0)
    q = Rotation.from_rotvec(np.outer(f / 4, [0.3, 1, 0.2])).as_quat(scalar_first=True)
    bones = [
        Bone(
            name="root",
            translation=(0.0, 1.0, 0.0),
            scale=(2.0, 2.0, 2.0),
            rotation_keys=Keys(f, q),
        ),
        # Non-uniform, but nothing below it turns: still exact with constant offsets.
        Bone(name="squash", parent="root", translation=(0.0, 1.0, 0.0), scale=(1.0, 0.5, 3.0)),
        Bone(name="tip", parent="squash", translation=(0.2, 1.0, 0.1), tail=(0.0, 0.5, 0.5)),
    ]
    scene = Scene(bones=bones, frame_start=0, frame_end=7)
    original = bake(scene)
    export = bvh_from_bake(scene, original)
    assert export.position_joints == ("root",)
    assert any("'root' has scale (2.0, 2.0, 2.0)" in n for n in export.notes)
    assert any("'squash' has scale" in n for n in export.notes)
    assert "OFFSET 0 2 0" in export.text  # squash's offset, scaled by its parent
    assert "OFFSET 0.4 1 0.6" in export.text  # tip's offset, scaled by root and squash
    assert_same_joints(scene, original, export.text, atol=1e-9)


def test_non_uniform_scale_under_animated_rotation():
    """Shear: the joints below still come back exactly (as position channels); a leaf tail
    that moves within its bone cannot be an End Site, and the export says which bone."""
    f = np.arange(8.0)
    q = Rotation.from_rotvec(np.outer(f / 4, [0.3, 1, 0.2])).as_quat(scalar_first=True)
    bones = [
        Bone(name="root", scale=(1.0, 3.0, 1.0)),
        Bone(name="spin", parent="root", translation=(0.0, 1.0, 0.0), rotation_keys=Keys(f, q)),
        Bone(name="leaf", parent="spin", translation=(0.5, 1.0, 0.0), tail=(0.0, 1.0, 0.0)),
    ]
    scene = Scene(bones=bones, frame_start=0, frame_end=7)
    with pytest.raises(SceneError, match="bone 'leaf': its tail moves within the bone") as e:
        bvh_from_bake(scene, bake(scene))
    assert e.value.path == "bones[2].tail"
    # Without the tail, the sheared joint itself is fine: it gets position channels.
    bones[2] = Bone(name="leaf", parent="spin", translation=(0.5, 1.0, 0.0), tail=(0, 0, 0))
    original = bake(scene)
    export = bvh_from_bake(scene, original)
    assert export.position_joints == ("root", "leaf")
    assert_same_joints(scene, original, export.text, atol=1e-9)


def test_frames_step_sets_frame_time_and_uneven_frames_are_refused():
    scene = load_scene("resources/scenes/legs.json")
    result = bake(scene, np.arange(10.0, 31.0, 2.5))
    text = bvh_from_bake(scene, result).text
    assert "Frames: 9\nFrame Time: 0.104166666666667\n" in text  # 2.5 / 24
    assert_same_joints(scene, result, text)
    with pytest.raises(
        SceneError,
        match="evenly spaced frames; the step from frame 0 to 2 is 2 but from 2 to 5 it is 3",
    ):
        bvh_from_bake(scene, bake(scene, [0, 2, 5]))


def test_refusals_name_the_bone():
    scene = load_scene("resources/scenes/legs.json")
    result = bake(scene, [0, 1])
    bad = scene.copy()
    bad.bones[2] = Bone(name="calf\tl", parent="thigh.l", translation=(0, -0.45, 0))
    bad.bones[3] = Bone(name="foot.l", parent="calf\tl", translation=(0, -0.45, 0))
    renamed = BakeResult(
        np.array(bad.bone_names()),
        result.frames,
        result.bone_to_world,
        result.heads,
        result.tails,
        result.limit_violation_deg,
    )
    with pytest.raises(SceneError, match="bone 'calf\\\\tl': a BVH joint name cannot hold tabs"):
        bvh_from_bake(bad, renamed)
    broken = bake(scene, [0, 1])
    broken.bone_to_world[1, 4, 0, 0] = np.nan
    with pytest.raises(SceneError, match="bone 'thigh.r' has a non-finite transform at frame 1"):
        bvh_from_bake(scene, broken)
    with pytest.raises(ValueError, match="rotation order"):
        bvh_from_bake(scene, result, order="XYX")


def test_a_refused_export_leaves_the_old_file_alone(tmp_path):
    scene = load_scene("resources/scenes/legs.json")
    out = tmp_path / "legs.bvh"
    out.write_text("the user's old file")
    with pytest.raises(SceneError):
        write_bvh(out, scene, bake(scene, [0, 1, 3]))
    assert out.read_text() == "the user's old file"
    write_bvh(out, scene, bake(scene, [0, 1, 2]))
    assert out.read_text().startswith("HIERARCHY\nROOT hip\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legs.bvh"]  # no temporary left
