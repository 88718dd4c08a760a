"""Pose values (app.scene.rig.poses): mirror names, the YZ-plane reflection against
scipy, and paste / clear against the evaluated pose."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig import poses
from tests.helpers.paths import SCENES


@pytest.mark.parametrize(
    "name, other",
    [
        ("calf.l", "calf.r"),
        ("calf.R", "calf.L"),
        ("hand_L", "hand_R"),
        ("arm-r", "arm-l"),
        ("L_eye", "R_eye"),
        ("r.thumb", "l.thumb"),
        ("LeftArm", "RightArm"),
        ("RightUpLeg", "LeftUpLeg"),
        ("foot.l.001", "foot.r.001"),
        ("spine", None),
        ("roll", None),
        ("L", None),
    ],
)
def test_mirror_names(name, other):
    assert poses.mirror_name(name) == other
    if other is not None:
        assert poses.mirror_name(other) == name


def test_the_reflection_is_the_rotation_conjugated_by_the_mirror(rng):
    mirror = np.diag([-1.0, 1.0, 1.0])
    for _ in range(20):
        r = Rotation.random(random_state=rng.integers(1 << 30))
        t = rng.normal(size=3)
        t2, q2 = poses.mirrored(t, r.as_quat(scalar_first=True))
        expected = Rotation.from_matrix(mirror @ r.as_matrix() @ mirror)
        assert np.allclose(
            Rotation.from_quat(q2, scalar_first=True).as_matrix(), expected.as_matrix()
        )
        assert np.allclose(t2, mirror @ t)


def test_a_flipped_paste_mirrors_the_world_pose_of_a_symmetric_rig():
    scene = load_scene(SCENES / "legs.json")
    pose = poses.copy_pose(scene, ["thigh.r", "calf.r", "foot.r"], 33)
    new = poses.pasted(scene, pose, 33, flipped=True)
    assert set(new) == {"thigh.l", "calf.l"}  # foot.r's pose is the rest: foot.l has it
    for name, bone in new.items():
        scene.bones[scene.bone_index(name)] = bone
    world = bake(scene, [33])
    for side in ("thigh", "calf", "foot"):
        i, j = scene.bone_index(f"{side}.l"), scene.bone_index(f"{side}.r")
        assert np.allclose(world.heads[0, i], world.heads[0, j] * (-1, 1, 1))
        assert np.allclose(world.tails[0, i], world.tails[0, j] * (-1, 1, 1))
    # keyed at frame 33 only: another frame still has the old (rest) pose
    assert list(scene.bone("thigh.l").rotation_keys.frames) == [33.0]


def test_clearing_rotation_keys_the_rest_where_animated():
    scene = load_scene(SCENES / "legs.json")
    calf = scene.bone("calf.r")
    cleared = poses.cleared(calf, 40, rotation=True)
    assert np.allclose(
        cleared.rotation_keys.values[cleared.rotation_keys.frames == 40], calf.rotation
    )
    assert poses.cleared(scene.bone("calf.l"), 40) is scene.bone("calf.l")  # not animated
    assert poses.cleared(calf, 40, rotation=False) is calf  # translation not animated
