"""BVH import, checked on real CMU clips against an independent parser and FK."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.bvh import load_bvh, parse_bvh
from app.scene.io import load_scene
from tests.helpers.paths import CMU_DIR


def independent_bvh_positions(path):
    """Joint positions straight from the file: a separate small parser, scipy's Euler angles.

    Returns names, End Site positions by joint name, and positions (F, J, 3).
    """
    names, ends, positions, _ = independent_bvh_fk(path)
    return names, ends, positions


def independent_bvh_fk(path):
    """:func:`independent_bvh_positions`, and each joint's world rotation (a scipy
    ``Rotation`` of F frames per joint)."""
    tokens = path.read_text().split()
    joints, stack, i = [], [], 0
    while tokens[i] != "MOTION":
        t = tokens[i]
        if t in ("ROOT", "JOINT"):
            joints.append(
                {
                    "name": tokens[i + 1],
                    "parent": stack[-1] if stack else None,
                    "channels": [],
                    "end": None,
                }
            )
            i += 2
        elif t == "End":
            joints[stack[-1]]["end"] = [float(x) for x in tokens[i + 4 : i + 7]]
            i += 8  # End Site { OFFSET x y z }
        elif t == "{":
            stack.append(len(joints) - 1)
            i += 1
        elif t == "}":
            stack.pop()
            i += 1
        elif t == "OFFSET":
            joints[stack[-1]]["offset"] = np.array([float(x) for x in tokens[i + 1 : i + 4]])
            i += 4
        elif t == "CHANNELS":
            n = int(tokens[i + 1])
            joints[stack[-1]]["channels"] = tokens[i + 2 : i + 2 + n]
            i += 2 + n
        else:
            i += 1
    n_frames = int(tokens[i + 2])
    values = np.array(tokens[i + 6 :], dtype=float)
    values = values[: n_frames * (len(values) // n_frames)].reshape(n_frames, -1)
    positions = np.zeros((n_frames, len(joints), 3))
    rotations = [None] * len(joints)
    ends = {}
    col = 0
    for j, joint in enumerate(joints):
        offset = np.tile(joint["offset"], (n_frames, 1))
        rot_axes, rot_cols = "", []
        for c in joint["channels"]:
            if c.endswith("position"):
                offset[:, "XYZ".index(c[0])] = values[:, col]
            else:
                rot_axes += c[0]
                rot_cols.append(col)
            col += 1
        local = (
            Rotation.from_euler(rot_axes, values[:, rot_cols], degrees=True)
            if rot_axes
            else Rotation.identity(n_frames)
        )
        p = joint["parent"]
        if p is None:
            positions[:, j], rotations[j] = offset, local
        else:
            positions[:, j] = positions[:, p] + rotations[p].apply(offset)
            rotations[j] = rotations[p] * local
        if joint["end"] is not None:
            ends[joint["name"]] = positions[:, j] + rotations[j].apply(joint["end"])
    return [j["name"] for j in joints], ends, positions, rotations


@pytest.mark.parametrize("name", ["01_01.bvh", "01_03.bvh", "Boxing_Toes.bvh"])
def test_cmu_joint_positions_match_independent_fk(name):
    path = CMU_DIR / name
    names, ends, expected = independent_bvh_positions(path)
    scene = load_bvh(path)
    result = bake(scene)
    assert list(result.bone_names) == names
    assert result.heads.shape == expected.shape
    np.testing.assert_allclose(result.heads, expected, atol=1e-6)
    for joint, tip in ends.items():
        np.testing.assert_allclose(result.tails[:, names.index(joint)], tip, atol=1e-6)


def test_cmu_01_01_timeline(cmu_01_01):
    scene = load_scene(cmu_01_01)
    assert (scene.frame_start, scene.frame_end, len(scene.bones)) == (0, 2751, 31)
    assert scene.fps == pytest.approx(1 / 0.0083333)


def test_extra_motion_lines_are_reported_not_loaded():
    """Boxing_Toes.bvh has one motion line more than its Frames: line declares."""
    path = CMU_DIR / "Boxing_Toes.bvh"
    lines = path.read_text().splitlines()
    declared = int(next(line for line in lines if line.startswith("Frames:")).split()[1])
    start = next(i for i, line in enumerate(lines) if line.startswith("Frame Time")) + 1
    present = sum(1 for line in lines[start:] if line.strip())
    assert present == declared + 1
    scene = load_bvh(path)
    assert scene.frame_end == declared - 1
    assert len(scene.messages) == 1 and "1 motion line beyond the" in scene.messages[0]


SMALL = """HIERARCHY
ROOT root
{
\tOFFSET 1 2 3
\tCHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation
\tJOINT arm
\t{
\t\tOFFSET 0 1 0
\t\tCHANNELS 4 Zposition Yrotation Xrotation Zrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 2 0
\t\t}
\t}
}
MOTION
Frames: 2
Frame Time: 0.04
0 0 0 10 20 30 5 40 50 60
1 1 1 0 0 90 -5 0 0 0
"""


def test_channel_orders_positions_on_a_child_and_end_site():
    scene = parse_bvh(SMALL, "small.bvh")
    assert scene.fps == pytest.approx(25) and scene.frame_end == 1
    arm = scene.bone("arm")
    assert arm.tail == (0, 2, 0)
    # A position channel on a child: z is keyed, x and y keep the OFFSET's.
    np.testing.assert_allclose(arm.translation_keys.values, [[0, 1, 5], [0, 1, -5]])
    r = bake(scene)
    root_rot = Rotation.from_euler("XYZ", [10, 20, 30], degrees=True)
    arm_rot = root_rot * Rotation.from_euler("YXZ", [40, 50, 60], degrees=True)
    np.testing.assert_allclose(r.heads[0, 1], root_rot.apply([0, 1, 5]), atol=1e-12)
    np.testing.assert_allclose(r.tails[0, 1], r.heads[0, 1] + arm_rot.apply([0, 2, 0]), atol=1e-12)


def test_windows_line_endings_tabs_and_blank_lines():
    messy = SMALL.replace("\n", "\r\n").replace("MOTION", "\r\n\r\nMOTION\r\n")
    messy = messy.replace("Frame Time: 0.04", "Frame Time:\t0.04\r\n")
    a, b = parse_bvh(SMALL), parse_bvh(messy)
    assert a == b


@pytest.mark.parametrize(
    "edit, line, why",
    [
        (lambda s: s.replace("Frames: 2", "Frames: 3"), 20, "truncated: Frames declares 3"),
        (lambda s: s.replace("5 40 50 60", "5 40 50"), 19, "expected 10 numbers"),
        (lambda s: s.replace("5 40 50 60", "5 40 x 60"), 19, "expected numbers"),
        (lambda s: s.replace("CHANNELS 4", "CHANNELS 5"), 9, "declares 5 channels"),
        (lambda s: s.replace("Yrotation Xrotation", "Yrotation Wrotation"), 9, "unknown channel"),
        (lambda s: s.replace("Frame Time: 0.04", "Frame Time: 0"), 18, "must be > 0"),
        (lambda s: s.replace("\tJOINT arm", "\tBONE arm"), 6, "unexpected “BONE”"),
        (lambda s: s.split("MOTION")[0], 15, 'no "MOTION"'),
        (lambda s: s.replace("ROOT root", "ROOT"), 2, "ROOT name"),
    ],
)
def test_malformed_files_name_the_line(edit, line, why):
    with pytest.raises(SceneError) as info:
        parse_bvh(edit(SMALL), "bad.bvh")
    assert info.value.path == f"line {line}", str(info.value)
    assert why in str(info.value)
    assert str(info.value).startswith("bad.bvh: line ")
