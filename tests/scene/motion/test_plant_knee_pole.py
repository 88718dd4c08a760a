"""A planted leg's knee must not swing about its hip-ankle line with the noise of the
original's (issue 24: "nothing pops"). Checked on a clip this test builds: a two-legged
skeleton in metres whose left leg stands nearly straight (its hip to ankle 0.9995 of the
leg), inclined, the foot sliding forward at 0.15 m/s under hips that follow it, the thigh
twisting at random by up to 40 degrees about itself on every frame (the knee's side of a
straight leg is free: motion made by networks turns it so); the right foot hangs. Planted
with the left foot held, the leg bends where the original was straight, and the first
plants keyed the knee's pole from the original's noisy side, frame by frame: the bent knee
swung 20 to 90 degrees between frames (deep-motion-editing's network clips: knee p99
accelerations 2 to 6 times the original's). Measured on the BVH the plant writes, read back
and posed by the test's own forward kinematics.
"""

from pathlib import Path

import numpy as np

from app.cli_plant import write_planted
from app.scene.io import load_scene
from app.scene.motion.plant import plant_feet
from tests.helpers.two_legs import ANKLE, CALF, THIGH, leg_angles, write_two_legs
from tests.scene.motion.test_plant_feet import forward, read_bvh

FPS = 30.0
FRAMES = 60
SLIDE = 0.15  # m/s
BEHIND = 0.12  # the hip joint behind the ankle
STRAIGHT = 0.9995  # the original leg's hip-to-ankle distance over its length


def _clip(path: Path) -> Path:
    t = np.arange(FRAMES) / FPS
    ankle = np.stack([np.full(FRAMES, 0.1), np.full(FRAMES, ANKLE), SLIDE * t], axis=1)
    height = ANKLE + np.sqrt((STRAIGHT * (THIGH + CALF)) ** 2 - BEHIND**2)
    hips = np.stack([np.zeros(FRAMES), np.full(FRAMES, height), SLIDE * t - BEHIND], axis=1)
    left = leg_angles(hips + [0.1, 0.0, 0.0], ankle, 0.9999)
    right = leg_angles(hips + [-0.1, 0.0, 0.0], hips + [-0.1, -0.5, 0.05], 0.9999)
    twist = np.random.default_rng(24).uniform(-40.0, 40.0, FRAMES)
    zero = np.zeros(FRAMES)
    left_channels = [zero, left[:, 0], twist, zero, left[:, 1], zero, zero, left[:, 2], -twist]
    right_channels = [c for k in range(3) for c in (zero, right[:, k], zero)]
    toes = [zero, zero, zero]
    return write_two_legs(path, hips, left_channels + toes, right_channels + toes, FPS)


def _leg(path: Path):
    bvh = read_bvh(path)
    positions, _ = forward(bvh)
    names = [j["name"] for j in bvh["joints"]]
    return [
        positions[:, names.index(n)] for n in ("LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase")
    ]


def _side(hip, knee, ankle):
    """Unit direction from the hip-ankle line to the knee, and how far the knee is off it."""
    axis = (ankle - hip) / np.linalg.norm(ankle - hip, axis=1, keepdims=True)
    off = (knee - hip) - np.einsum("fi,fi->f", knee - hip, axis)[:, None] * axis
    size = np.linalg.norm(off, axis=1)
    return off / size[:, None], size


def test_a_bent_planted_knee_keeps_its_side(tmp_path):
    source = _clip(tmp_path / "straight.bvh")
    hip, knee, ankle, _ = _leg(source)
    extension = np.linalg.norm(ankle - hip, axis=1) / (THIGH + CALF)
    assert np.all(extension > 0.999)  # the original leg is straight: its knee's side is noise
    side, _ = _side(hip, knee, ankle)
    turn = np.degrees(np.arccos(np.clip(np.einsum("fi,fi->f", side[1:], side[:-1]), -1, 1)))
    assert np.median(turn) > 20  # and it turns by tens of degrees between frames
    whole = [(0, FRAMES - 1)]
    planted = plant_feet(
        load_scene(source), contacts={"LeftFoot": (whole, whole, []), "RightFoot": ([], [], [])}
    )
    out = tmp_path / "planted.bvh"
    write_planted(planted, source, out)
    hip, knee, ankle, ball = _leg(out)
    assert np.ptp(ball[:, [0, 2]], axis=0).max() <= 1e-3  # the foot is held
    side, off = _side(hip, knee, ankle)
    bent = off > 0.02  # the frames where the planted knee is off the line by 2 cm or more
    assert np.count_nonzero(bent) >= FRAMES // 3  # the plant bends the leg: it can fail
    pairs = bent[1:] & bent[:-1]
    turn = np.degrees(np.arccos(np.clip(np.einsum("fi,fi->f", side[1:], side[:-1]), -1, 1)))
    assert turn[pairs].max() <= 5.0  # the bent knee keeps its side
