"""Two-legged BVH clips in metres that planting tests build (a person 1.71 m tall: thigh and
calf 0.42 m, 0.491 of the height): the skeleton's text, the leg angles that put an ankle
where a test wants it, and the file written from per-frame channels."""

from __future__ import annotations

from pathlib import Path

import numpy as np

THIGH = CALF = 0.42
ANKLE = 0.08  # the ankle's height when the foot is flat on the floor

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


def leg_angles(hip: np.ndarray, ankle: np.ndarray, straightest: float = 0.999) -> np.ndarray:
    """X rotations ``(F, 3)`` (degrees, BVH's: positive swings the leg back) of thigh, knee
    and foot putting the leg from ``hip`` to ``ankle`` ``(F, 3)`` in its sagittal plane, the
    knee ahead, the foot flat; the reach is capped at ``straightest`` of the leg."""
    d = ankle - hip
    forward_angle = np.arctan2(d[:, 2], -d[:, 1])
    reach = np.minimum(np.linalg.norm(d[:, 1:], axis=1), straightest * (THIGH + CALF))
    bend = np.arccos(reach / (2 * THIGH))
    thigh, calf = forward_angle + bend, forward_angle - bend
    return np.degrees(np.stack([-thigh, thigh - calf, calf], axis=1))


def write_two_legs(path: Path, hips: np.ndarray, left, right, fps: float) -> Path:
    """Write the clip: ``hips`` ``(F, 3)`` the root's positions, ``left`` and ``right`` each
    twelve ``(F,)`` channels (Z, X, Y rotation of thigh, calf, foot and toes)."""
    zero = np.zeros(len(hips))
    columns = [hips[:, 0], hips[:, 1], hips[:, 2], zero, zero, zero, *left, *right]
    text = (
        "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
        "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  "
        + LEG.format(s="Left", x=0.1)
        + "\n  "
        + LEG.format(s="Right", x=-0.1)
        + f"\n}}\nMOTION\nFrames: {len(hips)}\nFrame Time: {1 / fps:.10f}\n"
        + "\n".join(" ".join(f"{v:.6f}" for v in row) for row in np.stack(columns, 1))
        + "\n"
    )
    path.write_text(text)
    return path
