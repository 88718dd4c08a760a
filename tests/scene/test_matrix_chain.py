"""The matrix chain: the seed's factors, their product, and what cancels between two bones."""

from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.analysis.matrix_chain import a_to_b_chain, bone_chain, chain_from_bake
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.points_at.model import PointsAt
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.math.transforms import T
from app.scene.rig.model import Pivot, Target
from app.scene.rig.skeleton import Skeleton, a_to_b, forward_kinematics, local_transforms
from tests.helpers.paths import SCENES
from tests.scene.rig.test_fk import random_scene

SEED_CALF_L = "T_hip R_hip T_thigh.l R_thigh.l T_calf.l R_calf.l"
SEED_RIGHT_TO_LEFT = (
    "R_calf.l^-1 T_calf.l^-1 R_thigh.l^-1 T_thigh.l^-1 ~~R_hip^-1~~ ~~T_hip^-1~~ ~~T_hip~~ "
    "~~R_hip~~ T_thigh.r R_thigh.r T_calf.r R_calf.r"
)


def test_product_is_forward_kinematics_on_a_random_rig(rng):
    scene = random_scene(rng)  # non-uniform scale and keys everywhere
    frames = np.array([-1.0, 0.0, 3.5, 12.25, 29.0, 40.0])
    world = bake(scene, frames).bone_to_world
    for i, bone in enumerate(scene.bones):
        chain = bone_chain(scene, bone.name, frames)
        np.testing.assert_allclose(chain.product(), world[:, i], atol=1e-12)
        depth = len(Skeleton.from_scene(scene).chain_to_root(i))
        assert len(chain.factors) == 3 * depth  # T, R and S for every bone on the path
        assert [f.kind for f in chain.factors] == ["T", "R", "S"] * depth
    single = bone_chain(scene, scene.bones[-1].name, 12.25)
    assert single.factors[0].matrix.shape == (4, 4)
    np.testing.assert_allclose(single.product(), world[3, -1], atol=1e-12)


@pytest.mark.parametrize("frame", [0.0, 700.0, 1811.0, 2751.0])
def test_product_is_forward_kinematics_on_cmu_01_01(cmu_01_01, frame):
    scene = load_scene(cmu_01_01)
    world = bake(scene, [frame]).bone_to_world[0]
    for i, bone in enumerate(scene.bones):
        chain = bone_chain(scene, bone.name, frame)
        np.testing.assert_allclose(chain.product(), world[i], atol=1e-10)
    toe = bone_chain(scene, "LeftToeBase", frame)
    assert toe.text().startswith("T_Hips R_Hips T_LHipJoint R_LHipJoint T_LeftUpLeg")


def test_the_seed_chain_and_each_factor():
    scene = load_scene(SCENES / "legs.json")
    chain = bone_chain(scene, "calf.l", 30.0)
    assert chain.text() == SEED_CALF_L
    thigh = scene.bone("thigh.l")
    np.testing.assert_array_equal(chain.factors[2].matrix, T(thigh.translation))
    assert [(f.kind, f.bone) for f in chain.factors[:2]] == [("T", "hip"), ("R", "hip")]


def common_ancestors(scene, a, b):
    skeleton = Skeleton.from_scene(scene)
    up = set(skeleton.chain_to_root(skeleton.index(a)))
    return {skeleton.names[i] for i in skeleton.chain_to_root(skeleton.index(b)) if i in up}


def test_right_calf_to_left_calf_the_hip_terms_cancel():
    scene = load_scene(SCENES / "legs.json")
    chain = a_to_b_chain(scene, "calf.r", "calf.l", [0.0, 17.0, 33.5])
    assert chain.text() == SEED_RIGHT_TO_LEFT
    assert chain.text(hide_cancelled=True) == (
        "R_calf.l^-1 T_calf.l^-1 R_thigh.l^-1 T_thigh.l^-1 T_thigh.r R_thigh.r T_calf.r R_calf.r"
    )
    world = bake(scene, [0.0, 17.0, 33.5]).bone_to_world
    expected = a_to_b(world[:, scene.bone_index("calf.r")], world[:, scene.bone_index("calf.l")])
    np.testing.assert_allclose(chain.product(), expected, atol=1e-12)
    np.testing.assert_allclose(chain.product(skip_cancelled=True), expected, atol=1e-12)


def test_cancelled_factors_are_exactly_the_common_ancestors(rng):
    scene = random_scene(rng, n_bones=12)
    frames = np.array([2.0, 11.5, 27.0])
    world = bake(scene, frames).bone_to_world
    for a in scene.bone_names():
        for b in scene.bone_names():
            chain = a_to_b_chain(scene, a, b, frames)
            cancelled = [f for f in chain.factors if f.cancelled]
            common = common_ancestors(scene, a, b)
            assert {f.bone for f in cancelled} == common
            # All of each ancestor's factors, once as X and once as X^-1.
            assert len(cancelled) == 2 * 3 * len(common)
            assert sum(f.inverted for f in cancelled) == 3 * len(common)
            expected = a_to_b(world[:, scene.bone_index(a)], world[:, scene.bone_index(b)])
            np.testing.assert_allclose(chain.product(), expected, atol=1e-9)
            np.testing.assert_allclose(chain.product(skip_cancelled=True), expected, atol=1e-9)
    assert a_to_b_chain(scene, "b5", "b5", 3.0).text(hide_cancelled=True) == "I"


def arc(u, v):
    """Shortest-arc rotation matrices taking directions u to v, (F, 3) each."""
    u = u / np.linalg.norm(u, axis=-1, keepdims=True)
    v = v / np.linalg.norm(v, axis=-1, keepdims=True)
    axis = np.cross(u, v)
    angle = np.arctan2(np.linalg.norm(axis, axis=-1), np.sum(u * v, axis=-1))
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    return Rotation.from_rotvec(axis * angle[:, None]).as_matrix()


def calf_points_at_ankle(space):
    """The seed's example done by hand: the left calf points at the right ankle."""
    scene = load_scene(SCENES / "legs.json")
    scene.constraints.append(
        PointsAt(name="aim", bone="calf.l", space=space, target=Target(bone="foot.r"))
    )
    frames = np.arange(0.0, 48.0, 6.0)
    skeleton = Skeleton.from_scene(scene)
    local = local_transforms(scene, frames)
    world = forward_kinematics(skeleton, local)
    calf, foot_l, foot_r = (scene.bone_index(n) for n in ("calf.l", "foot.l", "foot.r"))
    knee = world[:, calf, :3, 3]
    ankle_r = world[:, foot_r, :3, 3]
    tail_in_calf = np.array(scene.tail_of(calf))
    if space == "world":  # option 1: world directions, turned about the knee
        rc = arc(world[:, calf, :3, :3] @ tail_in_calf, ankle_r - knee)
        turn = np.tile(np.eye(4), (len(frames), 1, 1))
        turn[:, :3, :3] = rc
        world[:, calf] = T(knee) @ turn @ T(-knee) @ world[:, calf]
    else:  # option 2: the ankle carried into the calf's frame, turned on the right
        to_calf = np.linalg.inv(world[:, calf])
        ankle_in_calf = np.einsum("fij,fj->fi", to_calf[:, :3, :3], ankle_r) + to_calf[:, :3, 3]
        rc = arc(np.broadcast_to(tail_in_calf, ankle_in_calf.shape), ankle_in_calf)
        turn = np.tile(np.eye(4), (len(frames), 1, 1))
        turn[:, :3, :3] = rc
        world[:, calf] = world[:, calf] @ turn
    world[:, foot_l] = world[:, calf] @ local[:, foot_l]
    return scene, frames, world, rc


def test_world_space_points_at_is_a_rotation_about_the_knee():
    scene, frames, world, rc = calf_points_at_ankle("world")
    chain = bone_chain(scene, "calf.l", frames, bone_to_world=world)
    assert chain.text() == f"T(calf.l head) R_c(calf.l) T(-calf.l head) [{SEED_CALF_L}]"
    np.testing.assert_allclose(chain.factors[1].matrix[:, :3, :3], rc, atol=1e-12)
    assert chain.factors[1].constraint == "aim"
    np.testing.assert_allclose(chain.product(), world[:, 2], atol=1e-12)
    foot = bone_chain(scene, "foot.l", frames, bone_to_world=world)
    assert foot.text().endswith("R_calf.l] T_foot.l R_foot.l")
    np.testing.assert_allclose(foot.product(), world[:, 3], atol=1e-12)
    # Between the legs, the world-space correction sits between the hip terms and their
    # inverses: nothing cancels (the seed's case against option 1), the product still holds.
    right_to_left = a_to_b_chain(scene, "calf.r", "calf.l", frames, bone_to_world=world)
    assert not any(f.cancelled for f in right_to_left.factors)
    np.testing.assert_allclose(
        right_to_left.product(), a_to_b(world[:, 5], world[:, 2]), atol=1e-12
    )


def test_object_space_points_at_applies_on_the_right():
    scene, frames, world, rc = calf_points_at_ankle("object")
    chain = chain_from_bake(scene, "calf.l", _Baked(frames, world))
    assert chain.text() == f"[{SEED_CALF_L}] R_c(calf.l)"
    np.testing.assert_allclose(chain.factors[-1].matrix[:, :3, :3], rc, atol=1e-12)
    np.testing.assert_allclose(chain.product(), world[:, 2], atol=1e-12)
    right_to_left = a_to_b_chain(scene, "calf.r", "calf.l", frames, bone_to_world=world)
    assert {f.bone for f in right_to_left.factors if f.cancelled} == {"hip"}
    assert right_to_left.text(hide_cancelled=True) == (
        "R_c(calf.l)^-1 [R_calf.l^-1 T_calf.l^-1 R_thigh.l^-1 T_thigh.l^-1] "
        "T_thigh.r R_thigh.r T_calf.r R_calf.r"
    )
    np.testing.assert_allclose(
        right_to_left.product(skip_cancelled=True), a_to_b(world[:, 5], world[:, 2]), atol=1e-12
    )
    # Without limits or scale, both options give the same pose (the format's promise).
    _, _, world_pose, _ = calf_points_at_ankle("world")
    np.testing.assert_allclose(world_pose, world, atol=1e-12)
    # The space override writes the same pose's correction the other way.
    as_world = bone_chain(scene, "calf.l", frames, bone_to_world=world, space="world")
    assert as_world.text().startswith("T(calf.l head) R_c(calf.l) T(-calf.l head) [")


class _Baked:
    def __init__(self, frames, world):
        self.frames, self.bone_to_world = frames, world


@pytest.mark.parametrize("space", ["world", "object"])
def test_a_body_moved_by_a_constraint(space, rng):
    """A multi-parent body's world transform replaced outright: the correction moves the head."""
    scene = load_scene(SCENES / "legs.json")
    scene.constraints.append(
        MultiParent(name="roll", body="hip", space=space, pivots=(Pivot(name="heel"),))
    )
    frames = np.arange(5.0)
    skeleton = Skeleton.from_scene(scene)
    local = local_transforms(scene, frames)
    world = forward_kinematics(skeleton, local)
    world[:, 0, :3, :3] = Rotation.random(5, rng=rng).as_matrix()
    world[:, 0, :3, 3] = rng.normal(size=(5, 3))
    world = forward_kinematics(skeleton, np.concatenate([world[:, :1], local[:, 1:]], axis=1))
    chain = bone_chain(scene, "foot.l", frames, bone_to_world=world)
    expected = {
        "world": "T(hip head') R_c(hip) T(-hip head) [T_hip R_hip] T_thigh.l",
        "object": "[T_hip R_hip] T_c(hip) R_c(hip) T_thigh.l",
    }[space]
    assert chain.text().startswith(expected)
    np.testing.assert_allclose(chain.product(), world[:, 3], atol=1e-12)


def test_object_space_turn_of_a_non_uniformly_scaled_bone_is_one_rotation_on_the_right():
    """The solver applies ``bone_to_world R_c`` (the format page) also under a non-uniform
    scale: the chain shows one rotation after the bone's own factors, and multiplies out."""
    scene = load_scene(SCENES / "legs.json")
    calf = scene.bone_index("calf.l")
    scene.bones[calf] = replace(scene.bones[calf], scale=(1.0, 2.0, 0.5))
    scene.constraints.append(PointsAt(name="aim", bone="calf.l", target=Target(bone="foot.r")))
    frames = np.arange(4.0)
    world = bake(scene, frames, space="object").bone_to_world
    chain = bone_chain(scene, "foot.l", frames, bone_to_world=world)
    assert chain.text() == (
        "[T_hip R_hip T_thigh.l R_thigh.l T_calf.l R_calf.l S_calf.l] R_c(calf.l) T_foot.l R_foot.l"
    )
    rc = chain.factors[7].matrix[:, :3, :3]
    np.testing.assert_allclose(
        rc @ np.swapaxes(rc, 1, 2), np.tile(np.eye(3), (4, 1, 1)), atol=1e-12
    )
    np.testing.assert_allclose(chain.product(), world[:, calf + 1], atol=1e-12)
