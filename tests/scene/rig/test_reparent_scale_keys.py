"""Reparenting (and deleting the parent of) a bone keeping its world place remaps its scale
keys too: checked against forward kinematics written here with scipy rotations, at every
key frame, and against the evaluator between keys."""

import dataclasses

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.evaluate import bake
from app.scene.rig import bone_edits
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene

KEY_FRAMES = [0.0, 6.0, 15.0, 24.0]


def _q(axis, degrees):
    return tuple(Rotation.from_euler(axis, degrees, degrees=True).as_quat(scalar_first=True))


def scaled_parents() -> Scene:
    """Old parent ``wide`` scaled (2, 4, 2), new parent ``narrow`` (1, 2, 1), turned alike,
    so the change of parent is a similarity with the uniform factor 2 although neither
    parent is uniformly scaled; ``arm`` is keyed in translation, rotation and scale (with
    every interpolation), ``hand`` below it is static."""
    turn = _q("xz", [25, -40])
    rotations = [[1, 0, 0, 0], _q("y", 70), _q("xyz", [10, 80, -30]), _q("z", 150)]
    return Scene(
        bones=[
            Bone(name="root", translation=(0.3, 1.0, -0.2), rotation=_q("y", 35), tail=(0, 1, 0)),
            Bone(
                name="wide",
                parent="root",
                translation=(0.5, 0.2, 0.1),
                rotation=turn,
                scale=(2.0, 4.0, 2.0),
                tail=(0, 1, 0),
            ),
            Bone(
                name="narrow",
                parent="root",
                translation=(-1.0, 0.4, 0.7),
                rotation=turn,
                scale=(1.0, 2.0, 1.0),
                tail=(0, 1, 0),
            ),
            Bone(
                name="arm",
                parent="wide",
                translation=(0.1, 0.5, 0.0),
                rotation=_q("x", 20),
                scale=(1.0, 1.5, 0.5),
                tail=(0, 0.6, 0),
                translation_keys=Keys(
                    KEY_FRAMES,
                    [[0, 0.5, 0], [0.2, 0.7, 0.1], [0, 0.4, -0.3], [0.1, 0.5, 0.2]],
                    ("linear", "ease", "constant", "linear"),
                ),
                rotation_keys=Keys(KEY_FRAMES, rotations, ("ease", "linear", "linear", "linear")),
                scale_keys=Keys(
                    KEY_FRAMES,
                    [[1, 1, 1], [1.5, 0.5, 1], [0.7, 2.0, 1.2], [1, 3, 0.4]],
                    ("linear", "constant", "ease", "linear"),
                ),
            ),
            Bone(
                name="hand",
                parent="arm",
                translation=(0, 0.6, 0),
                scale=(0.8, 1.0, 1.3),
                tail=(0, 0.2, 0),
            ),
        ]
    )


def trs(translation, rotation, scale):
    m = np.eye(4)
    m[:3, :3] = Rotation.from_quat(rotation, scalar_first=True).as_matrix() * np.asarray(scale)
    m[:3, 3] = translation
    return m


def value_at(bone: Bone, channel: str, k: int):
    keys = getattr(bone, f"{channel}_keys")
    return keys.values[k] if keys is not None else getattr(bone, channel)


def world_at_key(scene: Scene, name: str, k: int) -> np.ndarray:
    """``name``'s world transform at key ``k`` (every keyed bone keyed on KEY_FRAMES): the
    product of parent-first TRS matrices from the key values themselves."""
    m = np.eye(4)
    while name is not None:
        b = scene.bone(name)
        m = trs(*(value_at(b, c, k) for c in ("translation", "rotation", "scale"))) @ m
        name = b.parent
    return m


def with_rig(scene, rig):
    s = scene.copy()
    s.bones, s.constraints = list(rig.bones), list(rig.constraints)
    return s


def test_reparent_keeping_world_maps_scale_keys_under_unevenly_scaled_parents():
    scene = scaled_parents()
    new = with_rig(scene, bone_edits.reparent(scene, "arm", "narrow", bone_edits.KEEP_WORLD))
    arm = new.bone("arm")
    assert arm.parent == "narrow"
    # the new parent is half as large: every scale doubles, keyed and static
    assert np.allclose(arm.scale_keys.values, 2 * scene.bone("arm").scale_keys.values)
    assert arm.scale_keys.interpolation == scene.bone("arm").scale_keys.interpolation
    assert np.array_equal(arm.scale_keys.frames, KEY_FRAMES)
    for k in range(len(KEY_FRAMES)):
        for name in ("arm", "hand"):
            assert np.allclose(
                world_at_key(new, name, k), world_at_key(scene, name, k), atol=1e-12
            ), (name, KEY_FRAMES[k])
    # between keys too (each map commutes with lerp, slerp, step and ease)
    frames = np.linspace(-2, 26, 57)
    before, after = bake(scene, frames), bake(new, frames)
    for name in ("arm", "hand"):
        i = scene.bone_index(name)
        assert np.allclose(after.bone_to_world[:, i], before.bone_to_world[:, i], atol=1e-12)
    # the input scene is untouched
    assert scene.bone("arm").parent == "wide"


def test_reparent_refuses_a_shear_and_keeps_local_values_unchanged():
    scene = scaled_parents()
    scene.bones[2] = dataclasses.replace(scene.bones[2], rotation=_q("y", 30))  # not alike
    with pytest.raises(ValueError, match="unevenly"):
        bone_edits.reparent(scene, "arm", "narrow", bone_edits.KEEP_WORLD)
    local = with_rig(scene, bone_edits.reparent(scene, "arm", "narrow", bone_edits.KEEP_LOCAL))
    assert local.bone("arm").scale_keys is scene.bone("arm").scale_keys


def test_deleting_a_uniformly_scaled_parent_keeps_a_scale_keyed_child_in_place():
    scene = scaled_parents()
    scene.bones[1] = dataclasses.replace(scene.bones[1], scale=(1.7, 1.7, 1.7))
    new = with_rig(scene, bone_edits.delete_bones(scene, ["wide"], bone_edits.REPARENT))
    assert new.bone("arm").parent == "root"
    assert np.allclose(new.bone("arm").scale_keys.values, 1.7 * scene.bone("arm").scale_keys.values)
    for k in range(len(KEY_FRAMES)):
        for name in ("arm", "hand"):
            assert np.allclose(world_at_key(new, name, k), world_at_key(scene, name, k), atol=1e-12)
