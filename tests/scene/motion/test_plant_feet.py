"""Planting feet on real motion capture (issue 24), checked from outside: the planted clip is
written as BVH, read back by this test's own reader and posed by its own forward kinematics
(scipy's ``Rotation``), and the contract's figures are computed here from those joints:

- no contact point slides more than 1 mm across over its contact, nor sinks more than 5 mm
  below the floor;
- no joint's 99th-percentile acceleration grows beyond 1.5 times the original's (nothing pops);
- joints off the legs move no more than the hips do, and the hips no more than 2 cm;
- GMD's skating ratio (written here after ``calculate_skating_ratio``, with scipy's
  ``uniform_filter1d``) does not rise.

Lengths are scaled from a person 1.7 m tall whose thigh and calf make 0.491 of the height.
"""

from pathlib import Path

import numpy as np
import pytest
from scipy.ndimage import uniform_filter1d
from scipy.spatial.transform import Rotation

from app.scene.builders.leg_names import Leg
from app.scene.motion import figures
from app.scene.motion.contacts import Thresholds, cleaned, detect, intervals_of, mask_of

CMU = Path("/usr/share/assimp/models/BVH")
BOXING_LEGS = [
    Leg("LeftHip", "LeftKnee", "LeftAnkle", "LeftToes"),
    Leg("RightHip", "RightKnee", "RightAnkle", "RightToes"),
]


# --- this test's own BVH reader and forward kinematics ------------------------------------


def read_bvh(path: Path) -> dict:
    """Joints (name, parent, offset, channels), fps and the motion array of a BVH file."""
    tokens = path.read_text().split()
    joints, stack, i = [], [], 0
    while tokens[i] != "MOTION":
        word = tokens[i]
        if word in ("ROOT", "JOINT"):
            joints.append({"name": tokens[i + 1], "parent": stack[-1] if stack else -1})
            i += 2
        elif word == "End":  # skip the End Site block: "End Site { OFFSET x y z }"
            i = tokens.index("}", i) + 1
        elif word == "{":
            stack.append(len(joints) - 1)
            i += 1
        elif word == "}":
            stack.pop()
            i += 1
        elif word == "OFFSET":
            joints[-1]["offset"] = np.array([float(t) for t in tokens[i + 1 : i + 4]])
            i += 4
        elif word == "CHANNELS":
            n = int(tokens[i + 1])
            joints[-1]["channels"] = tokens[i + 2 : i + 2 + n]
            i += 2 + n
        else:
            i += 1
    frames = int(tokens[tokens.index("Frames:") + 1])
    at = tokens.index("Time:")
    frame_time = float(tokens[at + 1])
    columns = sum(len(j["channels"]) for j in joints)  # lines past "Frames:" are not read
    values = np.array(tokens[at + 2 : at + 2 + frames * columns], dtype=float)
    values = values.reshape(frames, columns)
    return {"joints": joints, "fps": 1.0 / frame_time, "motion": values}


def forward(bvh: dict) -> tuple[np.ndarray, list]:
    """World positions ``(F, J, 3)`` and world rotations (one scipy ``Rotation`` of F per
    joint) of every joint."""
    motion, column = bvh["motion"], 0
    positions, rotations = [], []
    for joint in bvh["joints"]:
        channels = joint["channels"]
        values = motion[:, column : column + len(channels)]
        column += len(channels)
        local = np.tile(joint["offset"], (len(motion), 1))
        order = ""
        angles = []
        for k, name in enumerate(channels):
            if name.endswith("position"):
                local[:, "XYZ".index(name[0])] = values[:, k]
            else:
                order += name[0]
                angles.append(values[:, k])
        rot = (
            Rotation.from_euler(order, np.stack(angles, axis=1), degrees=True)
            if order
            else Rotation.identity(len(motion))
        )
        parent = joint["parent"]
        if parent < 0:
            positions.append(local)
            rotations.append(rot)
        else:
            positions.append(positions[parent] + rotations[parent].apply(local))
            rotations.append(rotations[parent] * rot)
    return np.stack(positions, axis=1), rotations


def gmd_skating_ratio(toes: np.ndarray, floor: float, fps: float, per_metre: float) -> float:
    """``calculate_skating_ratio`` of guided-motion-diffusion (data_loaders/humanml/utils/
    metrics.py), on toe joints ``(F, 2, 3)`` (y up), heights above ``floor``, its 5 cm and
    0.5 m/s scaled by ``per_metre`` and its 20 fps replaced by the clip's."""
    thresh_height, thresh_vel, avg_window = 0.05 * per_metre, 0.50 * per_metre, 5
    feet = np.transpose(toes, (1, 2, 0))[None].copy()  # [bs, 2, 3, T]
    feet[:, :, 1] -= floor
    plane_vel = np.linalg.norm(feet[:, :, [0, 2], 1:] - feet[:, :, [0, 2], :-1], axis=2) * fps
    vel_avg = uniform_filter1d(plane_vel, axis=-1, size=avg_window, mode="constant", origin=0)
    height = feet[:, :, 1, :]
    contact = np.logical_and(height[:, :, :-1] < thresh_height, height[:, :, 1:] < thresh_height)
    skating = np.logical_and(contact, plane_vel > thresh_vel)
    skating = np.logical_and(skating, vel_avg > thresh_vel)
    skating = np.logical_or(skating[:, 0, :], skating[:, 1, :])
    return float((np.sum(skating, axis=1) / skating.shape[1])[0])


# --- the clips: each planted once, every figure checked on it --------------------------


def _plant(name: str, out: Path):
    """Plant CMU ``name`` and write it to ``out`` (BVH in its own layout); the result."""
    from app.cli_plant import write_planted
    from app.scene.io import load_scene
    from app.scene.motion.plant import plant_feet

    source = CMU / f"{name}.bvh"
    # Boxing_Toes names its thighs "Hip": its legs are given, as the dialog would
    result = plant_feet(load_scene(source), legs=BOXING_LEGS if name == "Boxing_Toes" else None)
    write_planted(result, source, out)
    return result


def _contact_paths(p, r, index, foot):
    """World paths of heel, ball and toe tip ``(F, 3, 3)`` from this test's poses."""
    f = index[foot.foot]
    heel = p[:, f] + r[f].apply(foot.heel)
    ball = p[:, f] + r[f].apply(foot.ball)
    if foot.toes is None:
        toe = p[:, f] + r[f].apply(foot.toe)
    else:
        t = index[foot.toes]
        toe = p[:, t] + r[t].apply(foot.toe)
    return np.stack([heel, ball, toe], axis=1)


def _worst_slide(paths_of, record) -> float:
    worst = 0.0
    for foot in record.feet:
        paths = paths_of(foot)
        for point, spans in enumerate(foot.contacts):
            for first, last in spans:
                path = paths[first : last + 1, point]
                worst = max(worst, np.linalg.norm((path - path[0])[:, [0, 2]], axis=1).max())
    return worst


@pytest.mark.parametrize("name", ["01_01", "01_03", "Boxing_Toes"])
def test_planting_holds_on_real_clips(name, tmp_path):
    """On each clip, from this test's own reading of the BVH written:

    - the file has the clip's joints and channels;
    - over every contact the point stays within 1 mm across of where it was on the contact's
      first frame (before planting, contacts slid by centimetres), and never more than 5 mm
      below the floor;
    - every joint's 99th-percentile acceleration stays within 1.5 times the original's;
    - off the legs no joint moves more than the hips (the root), which move at most 2 cm;
    - GMD's skating ratio of the toe joints does not rise (floor: the original's lowest joint,
      as HumanML3D puts clips on the floor), and the app's figure is GMD's.
    """
    out = tmp_path / f"{name}.bvh"
    result = _plant(name, out)
    record = result.scene.plant
    before, after = read_bvh(CMU / f"{name}.bvh"), read_bvh(out)
    names = [j["name"] for j in before["joints"]]
    assert names == [j["name"] for j in after["joints"]]
    assert [j["channels"] for j in before["joints"]] == [j["channels"] for j in after["joints"]]
    p0, r0 = forward(before)
    p1, r1 = forward(after)
    fps = before["fps"]
    index = {n: i for i, n in enumerate(names)}
    legs = (
        BOXING_LEGS
        if name == "Boxing_Toes"
        else [
            Leg(*(f"{s}{p}" for p in ("UpLeg", "Leg", "Foot", "ToeBase")))
            for s in ("Left", "Right")
        ]
    )
    reach = [
        np.linalg.norm(before["joints"][index[leg.calf]]["offset"])
        + np.linalg.norm(before["joints"][index[leg.foot]]["offset"])
        for leg in legs
    ]
    per_metre = float(np.mean(reach)) / 0.491 / 1.7
    mm = per_metre / 1000

    # slides and floor
    assert sum(len(s) for f in record.feet for s in f.contacts) > 10
    assert _worst_slide(lambda foot: _contact_paths(p0, r0, index, foot), record) > 20 * mm
    assert _worst_slide(lambda foot: _contact_paths(p1, r1, index, foot), record) <= 1 * mm
    for foot in record.feet:
        paths = _contact_paths(p1, r1, index, foot)
        for point, spans in enumerate(foot.contacts):
            for first, last in spans:
                assert paths[first : last + 1, point, 1].min() >= record.floor - 5 * mm

    # nothing pops
    def p99(p):
        return np.percentile(np.linalg.norm(np.diff(p, n=2, axis=0), axis=2) * fps**2, 99, axis=0)

    ratio = p99(p1) / p99(p0)
    assert ratio.max() <= 1.5, (names[int(np.argmax(ratio))], ratio.max())

    # joints off the legs move with the hips only, the hips at most 2 cm
    on_legs = {index[b] for leg in legs for b in leg.bones()}
    moved = np.linalg.norm(p1 - p0, axis=2)
    off = [j for j in range(len(names)) if j not in on_legs]
    assert np.all(moved[:, off] <= moved[:, :1] + 1e-6 * per_metre)
    assert moved[:, 0].max() <= 0.02 * per_metre * (1 + 1e-9)

    # the skating ratio does not rise
    toes = [index[leg.toes] for leg in legs]
    floor = p0[..., 1].min()
    skating_before = gmd_skating_ratio(p0[:, toes], floor, fps, per_metre)
    assert gmd_skating_ratio(p1[:, toes], floor, fps, per_metre) <= skating_before
    assert figures.skating_ratio(p0[:, toes], floor, fps, 1.7 * per_metre) == pytest.approx(
        skating_before
    )

    if name == "01_01":  # what "Clean a motion-capture walk" says the dialog shows
        assert result.before.row() == ("3.7 %", "63.6 mm", "0.00 cm")
        assert result.after.row() == ("2.2 %", "0.0 mm", "0.28 cm")
        assert [f.contacts[1][1][0] for f in record.feet] == [277, 277]  # step 2 lands


# --- the parts, on small inputs ----------------------------------------------------------


def test_skating_ratio_is_gmds_on_random_paths(rng):
    toes = rng.normal(0, 0.05, (200, 2, 3)).cumsum(axis=0)
    toes[..., 1] = np.abs(toes[..., 1]) * 0.3
    for fps in (20.0, 120.0):
        assert figures.skating_ratio(toes, 0.0, fps, 1.7) == pytest.approx(
            gmd_skating_ratio(toes, 0.0, fps, 1.0), abs=1e-12
        )


def test_contacts_keep_50_ms_and_close_short_gaps():
    # 120 fps: 50 ms is 6 frames
    rules = Thresholds.scaled(1.7, 120.0)
    assert rules.frames == 6 and rules.near == pytest.approx(0.03)
    assert rules.speed == pytest.approx(0.3)
    assert Thresholds.scaled(34.0, 30.0, speed=1.0).speed == pytest.approx(20.0)
    runs = np.array([[0, 9], [12, 30], [40, 43], [60, 70]])
    # the 2-frame gap closes; the 4-frame run is dropped; the others stay
    assert cleaned(runs, 6).tolist() == [[0, 30], [60, 70]]
    mask = mask_of(np.array([[3, 5], [8, 8]]), 10)
    assert mask.tolist() == [False] * 3 + [True] * 3 + [False] * 2 + [True, False]
    assert intervals_of(mask).tolist() == [[3, 5], [8, 8]]


def test_a_resting_point_is_in_contact_and_a_moving_one_is_not():
    fps, frames = 60.0, 60
    paths = np.zeros((frames, 2, 3))
    paths[:, 1, 0] = np.arange(frames) * 0.5 / fps  # 0.5 m/s across: too fast
    paths[30:, 0, 1] = 0.05  # the first point rises 5 cm half way: too high
    down = detect(paths, 0.0, fps, Thresholds.scaled(1.7, fps))
    assert down[:29, 0].all() and not down[29:, 0].any()  # 29: the jump up is fast
    assert not down[:, 1].any()
