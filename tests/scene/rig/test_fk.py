"""Forward kinematics over every frame at once, against a straightforward loop."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.evaluate import bake
from app.scene.math.transforms import trs
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene
from app.scene.rig.skeleton import (
    Skeleton,
    forward_kinematics,
    local_transforms,
    point_in_bone,
    propagate,
)


def random_scene(rng, n_bones=9, n_keys=4):
    bones = []
    for i in range(n_bones):
        parent = None if i == 0 else f"b{rng.integers(0, i)}"
        q = Rotation.random(n_keys, rng=rng).as_quat(scalar_first=True)
        bones.append(
            Bone(
                name=f"b{i}",
                parent=parent,
                translation=tuple(rng.normal(size=3)),
                scale=tuple(rng.uniform(0.5, 1.5, size=3)),
                rotation_keys=Keys(np.sort(rng.choice(30, n_keys, replace=False)).astype(float), q),
                translation_keys=Keys([0.0, 25.0], rng.normal(size=(2, 3))) if i % 3 == 0 else None,
            )
        )
    return Scene(bones=bones, frame_start=0, frame_end=30)


def loop_fk(scene, frame):
    """Per-frame, per-bone forward kinematics with scipy's slerp, parents first."""
    from scipy.spatial.transform import Slerp

    world = {}
    for bone in scene.bones:  # parents come first in random_scene
        if bone.rotation_keys is not None:
            k = bone.rotation_keys
            f = np.clip(frame, k.frames[0], k.frames[-1])
            rot = Slerp(k.frames, Rotation.from_quat(k.values, scalar_first=True))(f)
            q = rot.as_quat(scalar_first=True)
        else:
            q = bone.rotation
        if bone.translation_keys is not None:
            k = bone.translation_keys
            t = np.array([np.interp(frame, k.frames, k.values[:, c]) for c in range(3)])
        else:
            t = np.array(bone.translation)
        local = trs(t, q, bone.scale)
        world[bone.name] = local if bone.parent is None else world[bone.parent] @ local
    return np.stack([world[b.name] for b in scene.bones])


def test_fk_matches_a_per_frame_loop(rng):
    scene = random_scene(rng)
    frames = np.linspace(-2, 33, 57)
    result = bake(scene, frames)
    for k, f in enumerate(frames):
        np.testing.assert_allclose(result.bone_to_world[k], loop_fk(scene, f), atol=1e-10)
    assert result.bone_to_world.shape == (57, 9, 4, 4)
    np.testing.assert_allclose(result.heads, result.bone_to_world[..., :3, 3])


def test_descendants_follow_a_driven_bone(rng):
    scene = random_scene(rng)
    skeleton = Skeleton.from_scene(scene)
    frames = np.arange(5.0)
    local = local_transforms(scene, frames)
    world = forward_kinematics(skeleton, local)
    moved = world.copy()
    shift = np.eye(4)
    shift[:3, 3] = [1, 2, 3]
    moved[:, 0] = shift @ world[:, 0]  # drive the root
    propagate(skeleton, local, moved, 0)
    for b in range(1, len(scene.bones)):  # every bone descends from b0: all shifted
        np.testing.assert_allclose(moved[:, b], shift @ world[:, b], atol=1e-12)


def test_point_between_bones(rng):
    """ankle_in_calf: a point in one bone's frame carried into another's."""
    scene = random_scene(rng, 4)
    world = bake(scene, [3.0]).bone_to_world[0]
    p_in_a = rng.normal(size=3)
    p_in_b = point_in_bone(p_in_a, world[1], world[3])
    np.testing.assert_allclose(
        world[3, :3, :3] @ p_in_b + world[3, :3, 3],
        world[1, :3, :3] @ p_in_a + world[1, :3, 3],
        atol=1e-12,
    )


def test_tail_default_is_first_child_translation():
    scene = Scene(
        bones=[
            Bone(name="a"),
            Bone(name="b", parent="a", translation=(0, 2, 0)),
            Bone(name="c", parent="a", translation=(5, 0, 0)),
            Bone(name="d", parent="b"),
        ]
    )
    r = bake(scene, [0.0])
    np.testing.assert_allclose(r.tails[0, 0], [0, 2, 0])  # a: first child b
    np.testing.assert_allclose(r.tails[0, 3], r.heads[0, 3])  # d: no child, no tail


def test_one_frame_fk_takes_matrix_products_and_matches_the_per_frame_loop(rng):
    """A frame or two (the editor's frame) go level by level through 4x4 products; many
    frames through the component-major expressions: both agree with scipy's loop."""
    scene = random_scene(rng, n_bones=14)
    skeleton = Skeleton.from_scene(scene)
    frames = np.linspace(-1, 31, 9)
    many = forward_kinematics(skeleton, local_transforms(scene, frames))
    for k, f in enumerate(frames):
        one = forward_kinematics(skeleton, local_transforms(scene, np.array([f])))
        np.testing.assert_allclose(one[0], loop_fk(scene, f), atol=1e-10)
        np.testing.assert_allclose(one[0], many[k], rtol=0, atol=1e-12)


def test_few_local_transforms_are_built_as_many_are_bit_for_bit(rng, monkeypatch):
    """``compose_local`` of a few matrices (one frame of a small rig) gathers quaternion
    products instead of writing one expression per entry: the same numbers, and ``trs``'s."""
    import app.scene.rig.skeleton as skeleton

    for bones, frames in ((5, 1), (7, 3), (1, 1)):
        translation = rng.normal(size=(bones, frames, 3))
        rotation = Rotation.random(bones * frames, random_state=rng).as_quat(scalar_first=True)
        rotation = rotation.reshape(bones, frames, 4)
        for scale in (rng.uniform(0.5, 2, (3, bones, 1)), rng.uniform(0.5, 2, (3, bones, frames))):
            assert bones * frames <= skeleton.FEW_MATRICES
            few = skeleton.compose_local(translation, rotation, scale)
            with monkeypatch.context() as m:
                m.setattr(skeleton, "FEW_MATRICES", 0)
                many = skeleton.compose_local(translation, rotation, scale)
            assert np.array_equal(few, many)
            expected = trs(
                translation, rotation, np.broadcast_to(scale, (3, bones, frames)).T.swapaxes(0, 1)
            ).swapaxes(0, 1)
            np.testing.assert_allclose(few, expected, rtol=0, atol=1e-15)
