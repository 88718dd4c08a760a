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
from tests.scene.motion.test_plant_feet import forward, read_bvh

FPS = 30.0
FRAMES = 60
THIGH = CALF = 0.42
ANKLE = 0.08
SLIDE = 0.15  # m/s
BEHIND = 0.12  # the hip joint behind the ankle
STRAIGHT = 0.9995  # the original leg's hip-to-ankle distance over its length

LEG = """JOINT {s}UpLeg
  {{
    OFFSET {x} 0 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT {s}Leg
    {{
      OFFSET 0 -0.42 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      JOINT {s}Foot
      {{
        OFFSET 0 -0.42 0
        CHANNELS 3 Zrotation Xrotation Yrotation
        JOINT {s}ToeBase
        {{
          OFFSET 0 -0.05 0.13
          CHANNELS 3 Zrotation Xrotation Yrotation
          End Site
          {{
            OFFSET 0 0 0.05
          }}
        }}
      }}
    }}
  }}"""


def _angles(hip, ankle):
    """X rotations (degrees) of thigh, knee and foot for a leg from ``hip`` to ``ankle``
    ``(F, 3)`` in its sagittal plane, the knee ahead, the foot flat."""
    d = ankle - hip
    forward_angle = np.arctan2(d[:, 2], -d[:, 1])
    reach = np.minimum(np.linalg.norm(d[:, 1:], axis=1), 0.9999 * (THIGH + CALF))
    bend = np.arccos(reach / (2 * THIGH))
    thigh, calf = forward_angle + bend, forward_angle - bend
    return np.degrees(np.stack([-thigh, thigh - calf, calf], axis=1))


def _clip(path: Path) -> Path:
    t = np.arange(FRAMES) / FPS
    ankle = np.stack([np.full(FRAMES, 0.1), np.full(FRAMES, ANKLE), SLIDE * t], axis=1)
    height = ANKLE + np.sqrt((STRAIGHT * (THIGH + CALF)) ** 2 - BEHIND**2)
    hips = np.stack([np.zeros(FRAMES), np.full(FRAMES, height), SLIDE * t - BEHIND], axis=1)
    left = _angles(hips + [0.1, 0.0, 0.0], ankle)
    right = _angles(hips + [-0.1, 0.0, 0.0], hips + [-0.1, -0.5, 0.05])
    twist = np.random.default_rng(24).uniform(-40.0, 40.0, FRAMES)
    zero = np.zeros(FRAMES)
    columns = [hips[:, 0], hips[:, 1], hips[:, 2], zero, zero, zero]
    columns += [zero, left[:, 0], twist, zero, left[:, 1], zero, zero, left[:, 2], -twist]
    columns += [zero, zero, zero]
    for k in range(3):
        columns += [zero, right[:, k], zero]
    columns += [zero, zero, zero]
    text = (
        "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
        "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  "
        + LEG.format(s="Left", x=0.1)
        + "\n  "
        + LEG.format(s="Right", x=-0.1)
        + f"\n}}\nMOTION\nFrames: {FRAMES}\nFrame Time: {1 / FPS:.10f}\n"
        + "\n".join(" ".join(f"{v:.6f}" for v in row) for row in np.stack(columns, 1))
        + "\n"
    )
    path.write_text(text)
    return path


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
