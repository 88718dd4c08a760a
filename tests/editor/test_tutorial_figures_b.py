"""The figures the tutorial texts quote, recomputed from their scenes (basis change,
points-at, FABRIK, convergence, CMU 01_01): each is read out of the Markdown, so an edit of
a scene or a solver that changes a figure fails here until the text says the new one."""

import dataclasses
import re

import numpy as np

from app.editor.tutorials import load_tutorials
from app.scene.analysis.compare import pose_differences
from app.scene.analysis.convergence import integrator_paths
from app.scene.analysis.curves import rotation_curve
from app.scene.analysis.matrix_chain import a_to_b_chain, bone_chain
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.math.transforms import inverse, transform_points
from app.scene.rig.model import HingeLimit
from app.scene.rig.skeleton import a_to_b
from tests.helpers.paths import SCENES

TEXTS = {t.id: t.markdown() for t in load_tutorials()}


def quoted(tutorial: str, pattern: str) -> tuple[str, ...]:
    """The groups of ``pattern`` in the tutorial's text (white space: any run of it)."""
    text = " ".join(TEXTS[tutorial].split())
    m = re.search(pattern, text)
    assert m, f"{tutorial}: the text no longer says {pattern!r}"
    return m.groups()


def number(x: float, like: str) -> str:
    """``x`` with as many decimals as the quoted ``like``."""
    decimals = len(like.split(".")[1]) if "." in like else 0
    return f"{x:.{decimals}f}"


def vector(text: str) -> np.ndarray:
    return np.array([float(v) for v in text.split(",")])


def with_constraint(scene, **changes):
    c = dataclasses.replace(scene.constraints[0], **changes)
    return dataclasses.replace(scene, constraints=[c, *scene.constraints[1:]])


def with_bone(scene, name, **changes):
    bones = [dataclasses.replace(b, **changes) if b.name == name else b for b in scene.bones]
    return dataclasses.replace(scene, bones=bones)


def spaces_apart(scene, frames):
    """Per frame and bone: heads' distance and the angle between the spaces' poses."""
    world, object_ = bake(scene, frames, space="world"), bake(scene, frames, space="object")
    distance, angle = pose_differences(world.bone_to_world, object_.bone_to_world)
    return distance, angle, world


def shown_as_zero(distance, angle) -> bool:
    """What the Compare table writes (4 and 2 decimals) reads 0 everywhere."""
    return float(np.max(distance)) < 5e-5 and float(np.max(angle)) < 5e-3


# --- basis change ------------------------------------------------------------------------


def test_basis_change_figures():
    scene = load_scene(SCENES / "basis_change.json")
    text = TEXTS["basis_change"]
    rows = re.findall(r"^\s+\[\s*(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s*\]$", text, re.M)
    matrix = np.array(rows, float)
    world = bake(scene, [0.0]).bone_to_world[0]
    office, door, shop = (
        scene.bone_index(n) for n in ("Rice208", "RiceDoor", "EinsteinBrosBagels")
    )
    np.testing.assert_allclose(a_to_b(world[office], world[door]), matrix, atol=1e-12)
    in_office, in_door = quoted("basis_change", r"\*\*\((.*?)\)\*\*.*?\*\*\((.*?)\)\*\*")
    bagels = world[shop, :3, 3]
    np.testing.assert_allclose(
        transform_points(inverse(world[office]), bagels), vector(in_office), atol=1e-12
    )
    np.testing.assert_allclose(
        transform_points(inverse(world[door]), bagels), vector(in_door), atol=1e-12
    )
    right, up, behind = quoted(
        "basis_change",
        r"(\d+) m to the right .*?, (\d+) m up .*? "
        r"and (\d+) m behind",
    )
    assert matrix[:3, 3].tolist() == [float(right), float(up), float(behind)]
    by_hand = quoted("basis_change", r"`M \((.*?)\) = \(.*?\) = \((.*?)\)`")
    np.testing.assert_allclose(matrix @ vector(by_hand[0]), vector(by_hand[1]))
    (chain,) = quoted("basis_change", r"writes it as `(.*?)`")
    assert a_to_b_chain(scene, "Rice208", "RiceDoor", 0.0).text() == chain
    # Step 6: a scale of 2 on RiceDoor halves the shop's RiceDoor coordinates.
    scaled = with_bone(scene, "RiceDoor", scale=(2.0, 2.0, 2.0))
    world2 = bake(scaled, [0.0]).bone_to_world[0]
    np.testing.assert_allclose(
        transform_points(inverse(world2[door]), world2[shop, :3, 3]),
        vector(in_door) / 2,
        atol=1e-12,
    )


# --- points-at ---------------------------------------------------------------------------

CALF_FRAMES = np.arange(0.0, 121.0)


def test_points_at_figures():
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    limit = scene.constraints[0].limit
    lo, hi = quoted("calf_points_at_ankle", r"knee hinge \((\d+) to (\d+)° about its x axis\)")
    assert isinstance(limit, HingeLimit) and limit.axis == (1.0, 0.0, 0.0)
    assert (limit.min, limit.max) == (float(lo), float(hi))
    # Step 1: without the limit the spaces agree to the last digit the Compare table shows.
    free = with_constraint(scene, limit=None)
    assert quoted("calf_points_at_ankle", r"Compare table reads (0\.0000) and (0\.00)°")
    assert shown_as_zero(*spaces_apart(free, CALF_FRAMES)[:2])
    # Step 4: with the hinge, world space leaves it; the table and the inspector say by how much.
    violation, frame, apart = quoted(
        "calf_points_at_ankle",
        r"leaves it: ([\d.]+)° at frame (\d+) \(press Home\), where the Compare table shows "
        r"the two spaces ([\d.]+)° apart",
    )
    distance, angle, world = spaces_apart(scene, CALF_FRAMES)
    calf, f = scene.bone_index("calf.l"), int(frame)
    assert number(world.limit_violation_deg[f, calf], violation) == violation
    assert number(angle[f, calf], apart) == apart
    # Step 5: a non-uniform scale on the thigh parts the spaces (the limit off).
    scale, most = quoted(
        "calf_points_at_ankle",
        r"type a Scale of ([\d., ]+?)\. .*? poses are "
        r"up to ([\d.]+)° apart",
    )
    scaled = with_bone(free, "thigh.l", scale=tuple(vector(scale)))
    _, angle, _ = spaces_apart(scaled, CALF_FRAMES)
    assert number(angle[:, calf].max(), most) == most
    # Step 3: the chain the text writes, with the hip terms struck through.
    (chain,) = quoted("calf_points_at_ankle", r"right-to-left transform `(.*?)`")
    for space in ("object", "world"):
        pose = bake(scene, [30.0], space=space).bone_to_world[0]
        shown = a_to_b_chain(scene, "calf.r", "calf.l", 30.0, bone_to_world=pose, space=space)
        if space == "object":  # the hip terms cancel
            assert shown.text().replace("~~", "") == chain
            assert "~~T_hip~~ ~~R_hip~~" in shown.text() and shown.text().count("~~") == 8
        else:  # the correction sits between them: nothing cancels
            assert "~~" not in shown.text() and "R_c(calf.l)^-1" in shown.text()


# --- FABRIK ------------------------------------------------------------------------------


def bends_deg(result, scene, chain) -> np.ndarray:
    """The angle at each joint between a bone's direction and the next one's."""
    idx = [scene.bone_index(n) for n in chain]
    points = np.vstack([result.heads[0, idx], result.tails[0, idx[-1]]])
    d = np.diff(points, axis=0)
    d /= np.linalg.norm(d, axis=1)[:, None]
    return np.degrees(np.arccos(np.clip(np.sum(d[:-1] * d[1:], axis=1), -1, 1)))


def test_fabrik_figures():
    scene = load_scene(SCENES / "fabrik_arm.json")
    arm = scene.constraints[0]
    hinge = arm.limits["forearm"]
    rest_bend, lo, hi = quoted(
        "fabrik_arm",
        r"elbow stays bent by (\d+)°: its hinge runs from "
        r"(\d+) to (\d+)°",
    )
    assert (hinge.min, hinge.max) == (float(lo), float(hi))
    assert (
        quoted(
            "fabrik_arm",
            r"from 0 to 150° away from its rest pose, and the rest pose is "
            r"already bent (\d+)°",
        )[0]
        == rest_bend
    )
    rest = 2 * np.degrees(np.arccos(scene.bone("forearm").rotation[0]))
    assert number(rest, rest_bend) == rest_bend
    # Step 2: out of reach, straight in world space; in object space the elbow keeps the bend.
    far = dataclasses.replace(arm.target, position=(2.0, 1.4, 0.3), position_keys=None)
    out_of_reach = with_constraint(scene, target=far)
    for space in ("world", "object"):
        result = bake(out_of_reach, [30.0], space=space)
        assert not result.info[arm.name]["reachable"][0]
        bends = bends_deg(result, scene, arm.chain)
        if space == "world":
            np.testing.assert_allclose(bends, 0, atol=1e-3)
        else:
            assert number(bends[0], rest_bend) == rest_bend
    # Step 3: without limits the spaces agree; with the hinge they part.
    frames = np.arange(0.0, 121.0)
    assert shown_as_zero(*spaces_apart(with_constraint(scene, limits={}), frames)[:2])
    bone, apart, frame = quoted("fabrik_arm", r"the (\w+) by ([\d.]+)° at frame (\d+)\)")
    _, angle, world = spaces_apart(scene, frames)
    b = scene.bone_index(bone)
    assert int(np.argmax(angle.max(axis=1))) == int(frame) and np.argmax(angle[int(frame)]) == b
    assert number(angle[int(frame), b], apart) == apart
    # Step 4: the world-space violation the inspector reports.
    violation, frame = quoted("fabrik_arm", r"leaves its limit \(([\d.]+)° at frame (\d+)\)")
    forearm = scene.bone_index("forearm")
    assert number(world.limit_violation_deg[int(frame), forearm], violation) == violation
    assert np.all(world.limit_violation_deg[:, forearm] > 0.05)  # "at every frame of the clip"


# --- convergence -------------------------------------------------------------------------


def test_convergence_figures():
    scene = load_scene(SCENES / "two_axes.json")
    start, end = quoted("convergence", r"substeps slider\*\* from (\d+) to (\d+)")
    assert scene.constraints[0].substeps == int(start)
    before = integrator_paths(scene, "two_axes", int(start))
    after = integrator_paths(scene, "two_axes", int(end))
    for integrator in ("seed", "twist"):  # "drop to a quarter": first order
        ratio = before.max_distance(integrator) / after.max_distance(integrator)
        assert abs(ratio - 4) < 0.1, (integrator, ratio)
    (off,) = quoted("convergence", r"at 1 substep .*? off by about ([\d.]+) units at the end")
    one = integrator_paths(scene, "two_axes", 1)
    assert number(one.distance["seed"][-1], off) == off
    foot = load_scene(SCENES / "foot_roll.json")
    paths = integrator_paths(foot, "foot_roll", int(start))
    assert paths.max_distance("twist") < 1e-12 < 1e-4 < paths.max_distance("seed")


# --- CMU 01_01 ---------------------------------------------------------------------------


def test_cmu_figures(cmu_01_01):
    scene = load_scene(cmu_01_01)
    joints, frames, fps, seconds = quoted(
        "cmu_01_01", r"(\d+) joints, (\d+) frames at (\d+) frames per second, about (\d+) "
    )
    assert len(scene.bones) == int(joints)
    assert scene.frame_end - scene.frame_start + 1 == int(frames)
    assert round(scene.fps) == int(fps)
    assert round(int(frames) / scene.fps) == int(seconds)
    (chain,) = quoted("cmu_01_01", r"`(T_Hips R_Hips T_LHipJoint R_LHipJoint) \.\.\.` down to")
    (deep,) = quoted("cmu_01_01", r"down to the toe, (\w+) bones deep")
    toe = bone_chain(scene, "LeftToeBase", 0.0).text()
    assert toe.startswith(chain) and toe.endswith("T_LeftToeBase R_LeftToeBase")
    words = ["one", "two", "three", "four", "five", "six", "seven"]
    assert toe.count("R_") == words.index(deep) + 1
    cancel = a_to_b_chain(scene, "RightToeBase", "LeftToeBase", 0.0).text()
    assert "~~T_Hips~~ ~~R_Hips~~" in cancel and cancel.count("~~") == 8
    assert quoted("cmu_01_01", r"evaluated (\d+) times")[0] == frames
    # "its rotation angle turns by half a turn twice": out to about 180° and back.
    hips = scene.bone("Hips")
    angle = rotation_curve(hips.rotation, hips.rotation_keys, np.arange(float(frames))).angle_deg
    turns = np.flatnonzero(np.diff(angle > 90)) + 1
    assert len(turns) == 2  # turns around once, and back once
    before, around, after = np.split(angle, turns)
    assert np.median(before) < 20 and np.median(around) > 170 and np.median(after) < 20


def test_fabrik_straightened_arm_still_bends():
    """Step 5: rest rotations cleared, at frame 0 the arm points along x from the shoulder
    the text names; a target typed on that line within reach still bends it, with the pole
    and without."""
    scene = load_scene(SCENES / "fabrik_arm.json")
    arm = scene.constraints[0]
    (shoulder,) = quoted("fabrik_arm", r"straight along x from the shoulder at \((.*?)\)")
    (position,) = quoted("fabrik_arm", r"type its Position ([\d., ]+?): on that line")
    straight = with_bone(
        with_bone(scene, "upper_arm", rotation=(1.0, 0.0, 0.0, 0.0)),
        "forearm",
        rotation=(1.0, 0.0, 0.0, 0.0),
    )
    fk = bake(dataclasses.replace(straight, constraints=[]), [0.0])
    idx = [straight.bone_index(n) for n in arm.chain]
    joints = np.vstack([fk.heads[0, idx], fk.tails[0, idx[-1]]])
    np.testing.assert_allclose(joints[0], vector(shoulder), atol=1e-9)
    np.testing.assert_allclose(joints[:, 1:], np.tile(joints[0, 1:], (5, 1)), atol=1e-9)
    assert np.all(np.diff(joints[:, 0]) > 0)  # straight along +x
    target = vector(position)
    reach = np.linalg.norm(joints[-1] - joints[0])
    assert np.allclose(target[1:], joints[0, 1:]) and target[0] - joints[0, 0] < reach
    for pole in (arm.pole, None):
        t = dataclasses.replace(arm.target, position=tuple(target), position_keys=None)
        for space in ("world", "object"):
            result = bake(with_constraint(straight, target=t, pole=pole), [0.0], space=space)
            assert result.info[arm.name]["reachable"][0]
            assert bends_deg(result, straight, arm.chain)[0] > 10, (pole, space)


def test_cmu_hips_crouch_before_every_jump(cmu_01_01):
    """Step 2: the hips' height dips (the crouch) in the 90 frames before every jump."""
    assert "dips before every jump (the crouch)" in " ".join(TEXTS["cmu_01_01"].split())
    y = load_scene(cmu_01_01).bone("Hips").translation_keys.values[:, 1]
    standing = np.median(y)
    jumps = np.flatnonzero(np.diff((y > standing + 2).astype(int)) == 1) + 1
    assert len(jumps) >= 5  # "several times"
    for start in jumps:
        assert y[max(start - 90, 0) : start].min() < standing - 1.5, start
