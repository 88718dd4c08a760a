"""The fabrik constraint: options 1 and 2, limits, pole, rolls, frames, scenes, bad input."""

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.fabrik.model import Fabrik
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.io import dumps_scene, load_scene, loads_scene
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, ConeLimit, HingeLimit, Scene, Target
from tests.helpers.paths import ROOT, SCENES
from tests.scene.constraints.test_points_at import (
    FRAMES,
    direction_error_deg,
    local_rest_relative,
    random_chain_scene,
    shortest_arc_scipy,
)

CHAIN = ("b0", "b1", "b2", "b3")


def with_fabrik(scene, **kwargs):
    kwargs.setdefault("target", Target(bone="mover"))
    scene.constraints = [Fabrik(name="ik", chain=CHAIN, **kwargs)]
    return scene


def unconstrained(scene):
    return bake(Scene(bones=scene.bones, frame_start=0, frame_end=12), FRAMES)


def reachable_positions(rng, scene):
    """Random targets (F, 3) around the chain's root, within 0.2 to 1.1 times its reach."""
    base = unconstrained(scene)
    joints = np.concatenate([base.heads[:, 1:5], base.tails[:, 4:5]], axis=1)
    reach = np.linalg.norm(np.diff(joints, axis=1), axis=-1).sum(axis=1)
    direction = rng.normal(size=(len(FRAMES), 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    return joints[:, 0] + direction * (reach * rng.uniform(0.2, 1.1, len(FRAMES)))[:, None]


@pytest.mark.parametrize("seed", range(8))
def test_world_and_object_spaces_give_the_same_pose_without_limits(seed):
    rng = np.random.default_rng(100 + seed)
    scene = random_chain_scene(rng, 4)
    pole = Target(position=tuple(rng.normal(size=3) * 3)) if seed % 2 else None
    target = Target(bone="mover")
    if seed % 4 < 2:  # targets around the root, most of them within reach
        target = Target(position_keys=Keys(FRAMES, reachable_positions(rng, scene)))
    with_fabrik(scene, target=target, pole=pole, tolerance=1e-6, max_iterations=50)
    world = bake(scene, FRAMES, space="world")
    obj = bake(scene, FRAMES, space="object")
    np.testing.assert_allclose(world.bone_to_world, obj.bone_to_world, rtol=0, atol=1e-9)
    info = obj.info["ik"]
    np.testing.assert_array_equal(info["iterations"], world.info["ik"]["iterations"])
    tip = obj.tails[:, scene.bone_index("b3")]
    target = (
        obj.heads[:, scene.bone_index("mover")]
        if scene.constraints[0].target.bone
        else scene.constraints[0].target.position_keys.values
    )
    np.testing.assert_allclose(np.linalg.norm(tip - target, axis=-1), info["distance"], atol=1e-9)
    converged = info["reachable"] & (info["iterations"] < 50)
    assert np.all(info["distance"][converged] <= 1e-6)
    if scene.constraints[0].target.bone is None:
        assert np.mean(converged) > 0.5


def test_reachable_targets_are_reached_and_unreachable_ones_get_a_straight_chain(rng):
    scene = random_chain_scene(rng, 4)
    base = unconstrained(scene)
    root = base.heads[:, scene.bone_index("b0")]
    joints = np.concatenate([base.heads[:, 1:5], base.tails[:, 4:5]], axis=1)
    reach = np.linalg.norm(np.diff(joints[0], axis=0), axis=-1).sum()
    for space in ("world", "object"):
        near = root + np.array([0.3, 0.2, -0.25]) * reach
        keys = Keys(FRAMES, near)
        with_fabrik(
            scene,
            target=Target(position=tuple(near[0]), position_keys=keys),
            tolerance=1e-7,
            max_iterations=200,
        )
        r = bake(scene, FRAMES, space=space)
        assert r.info["ik"]["reachable"].all()
        tip = r.tails[:, scene.bone_index("b3")]
        assert np.linalg.norm(tip - near, axis=-1).max() <= 1e-7
        far = root + np.array([2.0, -1.0, 0.5]) * reach
        with_fabrik(scene, target=Target(position=tuple(far[0]), position_keys=Keys(FRAMES, far)))
        r = bake(scene, FRAMES, space=space)
        assert not r.info["ik"]["reachable"].any()
        joints = np.concatenate([r.heads[:, 1:5], r.tails[:, 4:5]], axis=1)
        for k in range(4):
            seg = joints[:, k + 1] - joints[:, k]
            assert direction_error_deg(seg, far - root).max() < 1e-7


def test_limits_are_kept_in_object_space_and_reported_in_world_space(rng):
    scene = random_chain_scene(rng, 4)
    limits = {
        "b1": ConeLimit(degrees=25.0, twist=(-10.0, 10.0)),
        "b2": HingeLimit(axis=(0.0, 0.0, 1.0), min=-30.0, max=80.0),
    }
    with_fabrik(scene, limits=limits, max_iterations=40)
    obj = bake(scene, FRAMES, space="object")
    world = bake(scene, FRAMES, space="world")
    b1, b2 = scene.bone_index("b1"), scene.bone_index("b2")
    u1 = np.asarray(scene.bones[b2].translation) * scene.bones[b1].scale
    grid = np.radians(np.linspace(-30, 80, 11001))
    allowed = Rotation.from_rotvec(np.array([0, 0, 1.0])[None] * grid[:, None])
    for result in (obj, world):
        d1 = local_rest_relative(result, scene, "b1")
        swing = direction_error_deg(d1.apply(u1), u1)
        # Twist about the rest direction, from scipy: what is left after the shortest arc.
        swing_rot = shortest_arc_scipy(np.broadcast_to(u1, (len(FRAMES), 3)), d1.apply(u1))
        twist = np.degrees(
            np.einsum("nk,k->n", (swing_rot.inv() * d1).as_rotvec(), u1 / np.linalg.norm(u1))
        )
        d2 = local_rest_relative(result, scene, "b2")
        to_hinge = np.array(
            [np.degrees((allowed.inv() * d2[i]).magnitude().min()) for i in range(len(FRAMES))]
        )
        if result is obj:
            assert swing.max() <= 25 + 1e-7 and np.abs(twist).max() <= 10 + 1e-7
            assert to_hinge.max() < 0.01  # the grid's resolution
            assert np.all(result.limit_violation_deg == 0)
        else:
            expected = np.maximum(np.maximum(swing - 25, 0), np.maximum(np.abs(twist) - 10, 0))
            assert expected.max() > 5  # the free pose does leave the limit
            np.testing.assert_allclose(result.limit_violation_deg[:, b1], expected, atol=1e-7)
            np.testing.assert_allclose(result.limit_violation_deg[:, b2], to_hinge, atol=0.01)
            assert to_hinge.max() > 1
    others = [i for i in range(len(scene.bones)) if i not in (b1, b2)]
    assert np.all(world.limit_violation_deg[:, others] == 0)


def test_each_bone_turns_by_the_shortest_arc_from_its_animated_pose(rng):
    scene = with_fabrik(random_chain_scene(rng, 4), tolerance=1e-6)
    base = unconstrained(scene)
    for space in ("world", "object"):
        r = bake(scene, FRAMES, space=space)
        for k, name in enumerate(CHAIN):
            b = scene.bone_index(name)
            p = scene.bones[b].parent
            p = scene.bone_index(p)
            animated_local = np.linalg.inv(base.bone_to_world[:, p]) @ base.bone_to_world[:, b]
            before = r.bone_to_world[:, p] @ animated_local  # carried by the turned parent
            after = r.bone_to_world[:, b]
            s = scene.bones[b].scale[0]
            delta = Rotation.from_matrix(after[:, :3, :3] @ np.linalg.inv(before[:, :3, :3]))
            seg = (
                np.asarray(scene.tail_of(b))
                if k == 3
                else np.asarray(scene.bones[b + 1].translation)
            )
            seg_world = before[:, :3, :3] @ seg / s
            # No twist about the segment: the roll stays the animation's.
            twist = np.einsum("nk,nk->n", delta.as_rotvec(), seg_world)
            np.testing.assert_allclose(twist, 0.0, atol=1e-9)


def test_no_frame_depends_on_another(rng):
    scene = with_fabrik(random_chain_scene(rng, 4), pole=Target(position=(1.0, 2.0, 0.5)))
    everything = bake(scene, FRAMES, space="object")
    for frames in ([7.0], [12.0, 3.0, 5.0], [5.0, 5.0]):
        some = bake(scene, frames, space="object")
        index = [list(FRAMES).index(f) for f in frames]
        np.testing.assert_allclose(
            some.bone_to_world, everything.bone_to_world[index], rtol=0, atol=1e-12
        )


def test_the_pole_sets_the_plane_the_chain_bends_in(rng):
    scene = random_chain_scene(rng, 4)
    base = unconstrained(scene)
    root = base.heads[:, scene.bone_index("b0")]
    joints = np.concatenate([base.heads[:, 1:5], base.tails[:, 4:5]], axis=1)
    reach = np.linalg.norm(np.diff(joints[0], axis=0), axis=-1).sum()
    pole = root + np.array([0.0, 0.0, 3.0])
    target = root + np.array([0.6, 0.2, 0.0]) * reach
    with_fabrik(
        scene,
        target=Target(position=tuple(target[0]), position_keys=Keys(FRAMES, target)),
        pole=Target(position=tuple(pole[0]), position_keys=Keys(FRAMES, pole)),
        tolerance=1e-8,
        max_iterations=300,
    )
    for space in ("world", "object"):
        r = bake(scene, FRAMES, space=space)
        joints = np.concatenate([r.heads[:, 1:5], r.tails[:, 4:5]], axis=1)
        normal = np.cross(target - root, pole - root)
        normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
        off = np.einsum("njk,nk->nj", joints - root[:, None], normal)
        assert np.abs(off).max() < 1e-9
        assert np.einsum("njk,k->nj", joints[:, 1:-1] - root[:, None], [0, 0, 1.0]).max() > 0.05


def chain_scene(rest_rotations, animated_rotations, limits=None):
    """Four unit bones along +Y from the origin; rest and animated rotations per bone."""
    bones = []
    for k in range(4):
        bones.append(
            Bone(
                name=CHAIN[k],
                parent=CHAIN[k - 1] if k else None,
                translation=(0.0, 1.0 if k else 0.0, 0.0),
                rotation=tuple(rest_rotations[k]),
                rotation_keys=Keys(np.array([0.0]), np.array([animated_rotations[k]])),
                tail=(0.0, 1.0, 0.0) if k == 3 else None,
            )
        )
    scene = Scene(bones=bones, frame_start=0, frame_end=0)
    scene.constraints = [
        Fabrik(
            name="ik",
            chain=CHAIN,
            target=Target(position=(0.0, 2.5, 0.0)),
            tolerance=1e-6,
            max_iterations=100,
            limits=limits or {},
        )
    ]
    return scene


def test_a_straight_chain_on_its_target_line_bends_like_its_rest_pose():
    identity = [1.0, 0.0, 0.0, 0.0]
    bend = Rotation.from_euler("x", 20, degrees=True).as_quat(scalar_first=True)
    unbend = Rotation.from_euler("x", -20, degrees=True).as_quat(scalar_first=True)
    # The rest pose bends about x (out of the yz line); the animation holds the chain straight.
    scene = chain_scene([identity, bend, unbend, identity], [identity] * 4)
    r = bake(scene, [0.0], space="object")
    assert r.info["ik"]["distance"][0] <= 1e-6
    rest = bake(Scene(bones=[replace(b, rotation_keys=None) for b in scene.bones]), [0.0])
    rest_side = np.sign(rest.heads[0, 2:4, 2].sum())
    assert rest_side != 0
    assert np.abs(r.heads[0, :, 0]).max() < 1e-9  # bends in the rest pose's plane
    assert rest_side * r.heads[0, 1:4, 2].sum() > 0.1  # on the rest pose's side
    # A straight rest pose with a hinge: the chain folds the way the hinge opens.
    limits = {"b2": HingeLimit(axis=(0.0, 0.0, 1.0), min=0.0, max=120.0)}
    scene = chain_scene([identity] * 4, [identity] * 4, limits)
    r = bake(scene, [0.0], space="object")
    assert r.info["ik"]["distance"][0] <= 1e-4
    assert np.abs(r.heads[0, :, 0]).max() > 0.05 and np.abs(r.heads[0, :, 2]).max() < 1e-9
    assert np.all(r.limit_violation_deg == 0)


def test_bad_input_is_refused_with_where_and_why(rng):
    scene = random_chain_scene(rng, 4)
    bones = list(scene.bones)
    bones[3] = replace(bones[3], translation=(0.0, 0.0, 0.0))  # b2 sits on b1's head
    scene.bones = bones
    with_fabrik(scene)
    with pytest.raises(
        SceneError,
        match=r"constraints\[0\]\.chain\[1\]: bone 'b1' has zero "
        r"length at frame 0: .*translation of 'b2'",
    ):
        bake(scene, FRAMES)
    scene = with_fabrik(
        random_chain_scene(rng, 4), target=Target(position=(0.0, float("nan"), 0.0))
    )
    with pytest.raises(SceneError, match=r"constraints\[0\]\.target: the target is not a finite"):
        bake(scene, FRAMES)
    scene = with_fabrik(random_chain_scene(rng, 4), pole=Target(position=(np.inf, 0.0, 0.0)))
    with pytest.raises(SceneError, match=r"constraints\[0\]\.pole: the pole is not a finite"):
        bake(scene, FRAMES)


def test_pole_round_trips_and_a_bad_pole_names_its_path():
    value = {
        "format": "pivotal-scene",
        "version": 1,
        "bones": [
            {"name": "a", "translation": [0, 0, 0]},
            {"name": "b", "parent": "a", "translation": [0, 1, 0], "tail": [0, 1, 0]},
        ],
        "constraints": [
            {
                "type": "fabrik",
                "name": "ik",
                "chain": ["a", "b"],
                "target": {"position": [1, 1, 0]},
                "pole": {"bone": "a", "at": "tail"},
            }
        ],
    }
    scene = loads_scene(json.dumps(value))
    assert scene.constraints[0].pole == Target(bone="a", at="tail")
    assert scene.constraints[0].referenced_bones() == ("a", "b", "a")
    assert loads_scene(dumps_scene(scene)) == scene
    assert json.loads(dumps_scene(scene))["constraints"][0]["pole"] == {"bone": "a", "at": "tail"}
    value["constraints"][0]["pole"] = {"bone": "nobody"}
    with pytest.raises(SceneError, match=r"constraints\[0\]\.pole\.bone: 'nobody' is not a bone"):
        loads_scene(json.dumps(value))
    value["constraints"][0]["pole"] = {"at": "head"}
    with pytest.raises(SceneError, match=r'constraints\[0\]\.pole: a target needs "bone"'):
        loads_scene(json.dumps(value))


@pytest.mark.parametrize("name", ["calf_points_at_ankle", "fabrik_arm"])
def test_the_shipped_scenes_bake_and_show_world_against_object(tmp_path, name):
    path = SCENES / f"{name}.json"
    runs = {}
    for space in ("world", "object"):
        out = tmp_path / f"{space}.npz"
        proc = subprocess.run(
            [
                sys.executable,
                str(ROOT / "main.py"),
                "bake",
                str(path),
                "--out",
                str(out),
                "--space",
                space,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        runs[space] = np.load(out)
    assert np.all(runs["object"]["limit_violation_deg"] == 0)
    assert runs["world"]["limit_violation_deg"].max() > 10  # the limit visibly matters
    assert np.abs(runs["world"]["tails"] - runs["object"]["tails"]).max() > 0.05
    scene = load_scene(path)
    result = bake(scene)
    np.testing.assert_array_equal(result.bone_to_world, runs["object"]["bone_to_world"])
    if name == "fabrik_arm":
        info = result.info["arm reaches"]
        assert info["reachable"].all() and info["distance"].max() <= scene.constraints[0].tolerance
