"""Points-at in world space (option 1) and object space (option 2), limits, up vector."""

import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.points_at.model import PointsAt, UpVector
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.io import dumps_scene, load_scene, loads_scene
from app.scene.rig.keys import Keys, sample
from app.scene.rig.model import Bone, ConeLimit, HingeLimit, Scene, Target
from tests.helpers.paths import SCENES

FRAMES = np.arange(0.0, 13.0)


def random_quat(rng, n=None):
    return Rotation.random(n, random_state=rng).as_quat(scalar_first=True)


def random_chain_scene(rng, n_bones=4, *, scale="uniform", animated=True):
    """A random chain ``b0 .. b{n-1}`` under an animated ``base``, and a moving ``mover``.

    Bones have random rests, rotation keys, translations and (uniform) scales, so every
    change of basis in the chain is exercised.
    """

    def scale_of():
        if scale == "uniform":
            return (float(rng.uniform(0.5, 2.0)),) * 3
        if scale == "non-uniform":
            return tuple(float(s) for s in rng.uniform(0.5, 2.0, 3))
        return (1.0, 1.0, 1.0)

    def rot_keys():
        if not animated:
            return None
        return Keys(np.array([0.0, 6.0, 12.0]), random_quat(rng, 3))

    bones = [
        Bone(
            name="base",
            translation=tuple(rng.normal(size=3)),
            rotation=tuple(random_quat(rng)),
            scale=scale_of(),
            rotation_keys=rot_keys(),
        )
    ]
    parent = "base"
    for k in range(n_bones):
        direction = rng.normal(size=3)
        bones.append(
            Bone(
                name=f"b{k}",
                parent=parent,
                translation=tuple(direction / np.linalg.norm(direction) * rng.uniform(0.3, 1.2)),
                rotation=tuple(random_quat(rng)),
                scale=scale_of(),
                rotation_keys=rot_keys(),
                tail=tuple(rng.normal(size=3)) if k == n_bones - 1 else None,
            )
        )
        parent = f"b{k}"
    mover = Keys(np.array([0.0, 12.0]), rng.normal(size=(2, 3)) * 2.0)
    bones.append(Bone(name="mover", translation_keys=mover, tail=(0.0, 0.1, 0.0)))
    return Scene(bones=bones, frame_start=0, frame_end=12)


def shortest_arc_scipy(u, v):
    """Independent shortest arc: rotation vector along u x v by the angle between."""
    axis = np.cross(u, v)
    angle = np.arctan2(np.linalg.norm(axis, axis=-1), np.sum(u * v, -1))
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    return Rotation.from_rotvec(axis * angle[..., None])


def tail_and_head(result, name, scene):
    b = result.bone_names.tolist().index(name)
    return result.tails[:, b], result.heads[:, b]


def direction_error_deg(a, b):
    return np.degrees(np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, -1)))


@pytest.mark.parametrize("seed", range(8))
def test_world_and_object_spaces_give_the_same_pose_without_limits(seed):
    rng = np.random.default_rng(seed)
    scene = random_chain_scene(rng, 5)
    bone = f"b{rng.integers(0, 5)}"
    target = Target(bone="mover") if seed % 2 else Target(position=tuple(rng.normal(size=3)))
    up = UpVector(axis=tuple(rng.normal(size=3)), toward=tuple(rng.normal(size=3)))
    scene.constraints = [
        PointsAt(name="aim", bone=bone, target=target, up=up if seed % 3 == 0 else None)
    ]
    world = bake(scene, FRAMES, space="world")
    obj = bake(scene, FRAMES, space="object")
    np.testing.assert_allclose(world.bone_to_world, obj.bone_to_world, rtol=0, atol=1e-9)
    tail, head = tail_and_head(obj, bone, scene)
    aim = obj.heads[:, -1] if target.bone else np.asarray(target.position)
    assert direction_error_deg(tail - head, aim - head).max() < 1e-7
    before = bake(Scene(bones=scene.bones, frame_start=0, frame_end=12), FRAMES)
    untouched = [i for i, n in enumerate(scene.bone_names()) if n in ("base", "mover")]
    np.testing.assert_array_equal(
        obj.bone_to_world[:, untouched], before.bone_to_world[:, untouched]
    )


def test_descendants_follow_the_driven_bone_with_their_local_transforms(rng):
    scene = random_chain_scene(rng, 4)
    scene.constraints = [PointsAt(name="aim", bone="b1", target=Target(bone="mover"))]
    result = bake(scene, FRAMES, space="object")
    before = bake(Scene(bones=scene.bones, frame_start=0, frame_end=12), FRAMES)
    for child, parent in (("b2", "b1"), ("b3", "b2")):
        c, p = scene.bone_index(child), scene.bone_index(parent)
        local = np.linalg.inv(result.bone_to_world[:, p]) @ result.bone_to_world[:, c]
        animated = np.linalg.inv(before.bone_to_world[:, p]) @ before.bone_to_world[:, c]
        np.testing.assert_allclose(local, animated, atol=1e-9)


@pytest.mark.parametrize("space", ["world", "object"])
def test_nearly_equal_and_nearly_opposite_targets_are_handled(space):
    scene = Scene(bones=[Bone(name="bone", translation=(0.0, 1.0, 0.0), tail=(0.0, 0.0, 1.0))])
    head = np.array([0.0, 1.0, 0.0])
    for eps in (0.0, 1e-12, 1e-9, 1e-6, 1e-3):
        for sign in (1.0, -1.0):
            aim = head + 2.0 * np.array([eps, 0.0, sign])
            scene.constraints = [
                PointsAt(name="aim", bone="bone", target=Target(position=tuple(aim)))
            ]
            r = bake(scene, [0.0], space=space)
            assert np.all(np.isfinite(r.bone_to_world))
            rotation = r.bone_to_world[0, 0, :3, :3]
            np.testing.assert_allclose(rotation @ rotation.T, np.eye(3), atol=1e-12)
            tail = r.tails[0, 0] - head
            assert direction_error_deg(tail, aim - head) < 1e-6
            # The shortest arc: its angle is the angle between the directions.
            angle = Rotation.from_matrix(rotation).magnitude()
            expected = np.arctan2(abs(eps), sign)
            assert angle == pytest.approx(expected, abs=1e-6)


def seed_legs_scene():
    """The seed's two legs, with the hip moving and turning so its terms must cancel."""
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    scene.constraints = [
        PointsAt(name="aim", bone="calf.l", target=Target(bone="foot.r", at="head"))
    ]
    return scene


def T(t):
    m = np.eye(4)
    m[:3, 3] = t
    return m


def Rm(q):
    m = np.eye(4)
    m[:3, :3] = Rotation.from_quat(q, scalar_first=True).as_matrix()
    return m


def test_the_seed_example_left_calf_points_at_right_ankle():
    scene = seed_legs_scene()
    frames = np.array([7.5, 13.0, 30.0, 61.0, 100.0])  # the hip is turned at each
    result = bake(scene, frames, space="object")
    local = bake(Scene(bones=scene.bones, frame_start=0, frame_end=120), frames)

    def tr(name, f):  # the animated T and R of a bone, read from its keys like the file says
        b = scene.bone(name)
        t = sample(b.translation, b.translation_keys, f)
        q = sample(b.rotation, b.rotation_keys, f, rotation=True)
        return T(t), Rm(q)

    for i, f in enumerate(frames):
        (T_hip, R_hip), (T_thl, R_thl), (T_cl, R_cl) = (
            tr(n, f) for n in ("hip", "thigh.l", "calf.l")
        )
        (T_thr, R_thr), (T_cr, R_cr) = (tr(n, f) for n in ("thigh.r", "calf.r"))
        ankle_in_calf_r = np.append(scene.bone("foot.r").translation, 1.0)
        # Step 1: the right ankle in world coordinates through the right leg's hierarchy.
        ankle_in_world = T_hip @ R_hip @ T_thr @ R_thr @ T_cr @ R_cr @ ankle_in_calf_r
        # Step 2: into left-calf coordinates by the inverse of the left leg's hierarchy,
        # rigid inverses by transposition and negation.
        inv = lambda Tm, Rr: Rr.T @ T(-Tm[:3, 3])  # noqa: E731  ((T R)^-1 = R^-1 T^-1)
        world_to_calf = inv(T_cl, R_cl) @ inv(T_thl, R_thl) @ inv(T_hip, R_hip)
        ankle_in_calf = world_to_calf @ ankle_in_world
        # The hip terms cancel: right-to-left without the hip gives the same point.
        no_hip = inv(T_cl, R_cl) @ inv(T_thl, R_thl) @ T_thr @ R_thr @ T_cr @ R_cr
        np.testing.assert_allclose(no_hip @ ankle_in_calf_r, ankle_in_calf, atol=1e-12)
        assert not np.allclose(T_hip, np.eye(4)) and not np.allclose(R_hip, np.eye(4))
        # Steps 3-6: the arc from the calf's tail to the ankle, applied on the right.
        tail = np.asarray(scene.tail_of(scene.bone_index("calf.l")))
        r_c = shortest_arc_scipy(tail, ankle_in_calf[:3]).as_matrix()
        expected = T_hip @ R_hip @ T_thl @ R_thl @ T_cl @ R_cl
        expected[:3, :3] = expected[:3, :3] @ r_c
        c = scene.bone_index("calf.l")
        np.testing.assert_allclose(result.bone_to_world[i, c], expected, atol=1e-12)
        np.testing.assert_allclose(local.bone_to_world[i, c, :3, 3], expected[:3, 3], atol=1e-12)


@pytest.mark.parametrize("space", ["world", "object"])
def test_up_vector_fixes_the_roll_like_maya_aim(rng, space):
    for _ in range(5):
        scene = random_chain_scene(rng, 3)
        axis, toward = rng.normal(size=3), rng.normal(size=3)
        scene.constraints = [
            PointsAt(
                name="aim",
                bone="b1",
                target=Target(bone="mover"),
                up=UpVector(axis=tuple(axis), toward=tuple(toward)),
            )
        ]
        r = bake(scene, FRAMES, space=space)
        b = scene.bone_index("b1")
        tail_local = np.asarray(scene.tail_of(b))
        # Maya's aim: the aim axis onto the target, the up axis into the plane of aim and
        # world up, on its side. Built here as a change of orthonormal frames.
        local = frame(tail_local, axis)
        for i in range(len(FRAMES)):
            m = r.bone_to_world[i, b, :3, :3]
            rotation = m / np.cbrt(np.linalg.det(m))
            world = frame(r.heads[i, -1] - r.heads[i, b], toward)
            np.testing.assert_allclose(rotation, world @ local.T, atol=1e-9)


def frame(aim, up):
    """Columns: aim, the part of up across it, and their cross product (all unit)."""
    a = aim / np.linalg.norm(aim)
    u = up - (up @ a) * a
    u /= np.linalg.norm(u)
    return np.column_stack([a, u, np.cross(a, u)])


def local_rest_relative(result, scene, name):
    """Rotations of a bone relative to its rest frame, from the baked matrices (scipy)."""
    b = scene.bone_index(name)
    p = scene.bone_index(scene.bones[b].parent)
    local = np.linalg.inv(result.bone_to_world[:, p]) @ result.bone_to_world[:, b]
    linear = local[:, :3, :3] / np.asarray(scene.bones[b].scale)[None, None, :]
    rest = Rotation.from_quat(scene.bones[b].rotation, scalar_first=True)
    return rest.inv() * Rotation.from_matrix(linear)


def test_cone_limit_kept_in_object_space_and_reported_in_world_space(rng):
    scene = random_chain_scene(rng, 3)
    limit = ConeLimit(degrees=20.0)
    scene.constraints = [PointsAt(name="aim", bone="b1", target=Target(bone="mover"), limit=limit)]
    b = scene.bone_index("b1")
    u = np.asarray(scene.tail_of(b)) * scene.bones[b].scale
    obj = bake(scene, FRAMES, space="object")
    world = bake(scene, FRAMES, space="world")
    swing_obj = direction_error_deg(local_rest_relative(obj, scene, "b1").apply(u), u)
    swing_world = direction_error_deg(local_rest_relative(world, scene, "b1").apply(u), u)
    assert swing_obj.max() <= 20 + 1e-7
    assert swing_world.max() > 25  # the free pose leaves the cone...
    np.testing.assert_allclose(
        world.limit_violation_deg[:, b], np.maximum(swing_world - 20, 0), atol=1e-7
    )  # ...and says so
    assert np.all(obj.limit_violation_deg == 0)
    tail, head = tail_and_head(world, "b1", scene)
    assert direction_error_deg(tail - head, world.heads[:, -1] - head).max() < 1e-7


def test_a_cone_that_allows_everything_changes_nothing_and_a_twist_range_clamps_the_up_roll(rng):
    scene = random_chain_scene(rng, 3)
    up = UpVector(axis=(0.3, 1.0, 0.2), toward=(0.0, 0.0, 1.0))
    results = {}
    for key, limit in (
        ("free", None),
        ("cone", ConeLimit(degrees=180.0)),
        ("twist", ConeLimit(degrees=180.0, twist=(-5.0, 5.0))),
    ):
        scene.constraints = [
            PointsAt(name="aim", bone="b1", target=Target(bone="mover"), up=up, limit=limit)
        ]
        results[key] = bake(scene, FRAMES, space="object")
    np.testing.assert_allclose(
        results["cone"].bone_to_world, results["free"].bone_to_world, atol=1e-9
    )
    b = scene.bone_index("b1")
    u = np.asarray(scene.tail_of(b)) * scene.bones[b].scale
    d = local_rest_relative(results["twist"], scene, "b1")
    swing = shortest_arc_scipy(np.broadcast_to(u, (len(FRAMES), 3)), d.apply(u))
    twist = np.degrees((swing.inv() * d).as_rotvec() @ (u / np.linalg.norm(u)))
    assert np.abs(twist).max() <= 5 + 1e-7
    np.testing.assert_allclose(results["twist"].tails[:, b], results["free"].tails[:, b], atol=1e-9)
    assert not np.allclose(results["twist"].bone_to_world, results["free"].bone_to_world)


def test_hinge_in_object_space_is_the_best_allowed_angle(rng):
    scene = random_chain_scene(rng, 3)
    limit = HingeLimit(axis=(0.3, 1.0, -0.2), min=-40.0, max=60.0)
    scene.constraints = [PointsAt(name="aim", bone="b2", target=Target(bone="mover"), limit=limit)]
    obj = bake(scene, FRAMES, space="object")
    world = bake(scene, FRAMES, space="world")
    d = local_rest_relative(obj, scene, "b2")
    a = np.array(limit.axis) / np.linalg.norm(limit.axis)
    rotvec = d.as_rotvec()
    np.testing.assert_allclose(np.cross(rotvec, a), 0.0, atol=1e-9)  # about the axis only
    angle = np.degrees(rotvec @ a)
    assert angle.min() >= -40 - 1e-7 and angle.max() <= 60 + 1e-7
    assert np.all(obj.limit_violation_deg == 0)
    assert world.limit_violation_deg[:, scene.bone_index("b2")].max() > 1
    # Brute force over the allowed angles: the tail lands closest to the target.
    b = scene.bone_index("b2")
    p = scene.bone_index("b1")
    rest = Rotation.from_quat(scene.bones[b].rotation, scalar_first=True)
    s = np.asarray(scene.bones[b].scale)
    tail = np.asarray(scene.tail_of(b))
    grid = np.radians(np.linspace(-40, 60, 10001))
    for i in range(len(FRAMES)):
        parent = obj.bone_to_world[i, p]
        local_t = (np.linalg.inv(parent) @ obj.bone_to_world[i, b])[:3, 3]
        hinge = rest * Rotation.from_rotvec(a[None] * grid[:, None])
        tails_in_parent = local_t[None, :] + hinge.as_matrix() @ (s * tail)
        tails = tails_in_parent @ parent[:3, :3].T + parent[:3, 3]
        best = np.argmin(np.linalg.norm(tails - obj.heads[i, -1], axis=-1))
        assert abs(np.degrees(grid[best]) - angle[i]) < 0.05


def test_zero_length_bone_and_nan_target_are_refused_with_where_and_why(rng):
    scene = random_chain_scene(rng, 2)
    scene.bones.append(Bone(name="stub", parent="b0", translation=(0.1, 0, 0), tail=(0, 0, 0)))
    scene.constraints = [PointsAt(name="aim", bone="stub", target=Target(bone="mover"))]
    with pytest.raises(SceneError, match=r"constraints\[0\]\.bone: .*'stub' has zero length"):
        bake(scene, FRAMES)
    scene.constraints = [
        PointsAt(name="aim", bone="b1", target=Target(position=(float("nan"), 0.0, 0.0)))
    ]
    with pytest.raises(SceneError, match=r"constraints\[0\]\.target: .*not a finite .*frame 0"):
        bake(scene, FRAMES)


def test_a_target_on_the_head_keeps_the_pose_and_is_reported(rng):
    scene = random_chain_scene(rng, 2, animated=False)
    before = bake(Scene(bones=scene.bones, frame_start=0, frame_end=12), [0.0])
    head = before.heads[0, scene.bone_index("b1")]
    scene.constraints = [PointsAt(name="aim", bone="b1", target=Target(position=tuple(head)))]
    for space in ("world", "object"):
        r = bake(scene, [0.0], space=space)
        np.testing.assert_allclose(r.bone_to_world, before.bone_to_world, atol=1e-12)
        np.testing.assert_array_equal(r.info["aim"]["degenerate_frames"], [0.0])


def test_points_at_keys_round_trip_and_bad_keys_name_their_path():
    value = {
        "format": "pivotal-scene",
        "version": 1,
        "bones": [{"name": "a", "tail": [0, 1, 0]}, {"name": "b", "translation": [1, 0, 0]}],
        "constraints": [
            {
                "type": "points_at",
                "name": "aim",
                "bone": "a",
                "target": {"bone": "b"},
                "up": {"axis": [1, 0, 0], "toward": [0, 0, 1], "note": "kept"},
                "limit": {"cone": 30, "twist": {"min": -10, "max": 20, "why": "kept"}},
            }
        ],
    }
    scene = loads_scene(json.dumps(value))
    c = scene.constraints[0]
    assert c.up == UpVector(axis=(1, 0, 0), toward=(0, 0, 1), extra={"note": "kept"})
    assert c.limit.twist == (-10, 20)
    again = json.loads(dumps_scene(scene))["constraints"][0]
    assert again["up"] == value["constraints"][0]["up"]
    assert again["limit"]["twist"] == value["constraints"][0]["limit"]["twist"]
    assert loads_scene(dumps_scene(scene)) == scene
    bad = [
        ({"axis": [0, 0, 0], "toward": [0, 1, 0]}, "limit", r"constraints\[0\]\.up\.axis"),
        ({"axis": [1, 0, 0]}, "limit", r'constraints\[0\]\.up: an up vector needs "toward"'),
    ]
    for up, _, message in bad:
        broken = json.loads(json.dumps(value))
        broken["constraints"][0]["up"] = up
        with pytest.raises(SceneError, match=message):
            loads_scene(json.dumps(broken))
    for limit, message in [
        ({"cone": 30, "twist": {"min": 5, "max": -5}}, r"limit\.twist: min 5 is greater"),
        (
            {"hinge": {"axis": [1, 0, 0], "min": 0, "max": 1}, "twist": {"min": 0, "max": 1}},
            r"limit\.twist: a hinge fixes the twist",
        ),
        ({"cone": 30, "twist": {"min": 0}}, r'limit\.twist: a twist needs "max"'),
    ]:
        broken = json.loads(json.dumps(value))
        broken["constraints"][0]["limit"] = limit
        with pytest.raises(SceneError, match=message):
            loads_scene(json.dumps(broken))


@pytest.mark.parametrize("space", ["world", "object"])
def test_non_uniform_scale_follows_the_format_page_literally(rng, space):
    """Object space is ``bone_to_world R_c`` with the arc read in the bone's scaled frame."""
    scene = random_chain_scene(rng, 4, scale="non-uniform")
    scene.constraints = [PointsAt(name="aim", bone="b2", target=Target(bone="mover"))]
    r = bake(scene, FRAMES, space=space)
    tail, head = tail_and_head(r, "b2", scene)
    assert direction_error_deg(tail - head, r.heads[:, -1] - head).max() < 1e-7
    b = scene.bone_index("b2")
    before = bake(
        Scene(bones=scene.bones, frame_start=scene.frame_start, frame_end=scene.frame_end), FRAMES
    )
    m = before.bone_to_world[:, b]
    target_in_bone = np.einsum(
        "fij,fj->fi", np.linalg.inv(m), np.c_[r.heads[:, -1], np.ones(len(FRAMES))]
    )[:, :3]
    u = np.broadcast_to(np.asarray(scene.tail_of(b)), target_in_bone.shape)
    arc = shortest_arc_scipy(u, target_in_bone)
    if space == "object":
        expected = m.copy()
        expected[:, :3, :3] = m[:, :3, :3] @ arc.as_matrix()
    else:
        turn = np.tile(np.eye(4), (len(FRAMES), 1, 1))
        world_arc = shortest_arc_scipy(
            np.einsum("fij,fj->fi", m[:, :3, :3], u), r.heads[:, -1] - m[:, :3, 3]
        )
        turn[:, :3, :3] = world_arc.as_matrix()
        shift = np.tile(np.eye(4), (len(FRAMES), 1, 1))
        shift[:, :3, 3] = m[:, :3, 3]
        expected = shift @ turn @ np.linalg.inv(shift) @ m
    np.testing.assert_allclose(r.bone_to_world[:, b], expected, atol=1e-9)
