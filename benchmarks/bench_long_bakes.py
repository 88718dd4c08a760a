"""Long bakes within the bounds (issue 20), each in a child process of its own:

- the shipped points-at scene (``calf_points_at_ankle.json``, 7 bones, a hinge limit) with
  its ``frame_end`` at 10⁶ (its keys end at frame 120: the pose then holds), baked in each
  space, against forward kinematics alone of the same frames (the floor: no constraint) in
  the same child;
- a bake of 49,999 frames × 121 bones (6 × 10⁶ poses, within the 10⁷ bound): the child's
  peak memory (``VmHWM``) against the size of the result's own arrays plus the interpreter
  with numpy and the app imported (the floor: what any bake of this size must hold). Before
  chunked evaluation it peaked at 2.2 GB (739 MiB arrays in forward kinematics).

The children print JSON; the figures are single runs (each bake takes seconds).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmarks.common import Row

ROOT = Path(__file__).resolve().parent.parent

_POINTS_AT = """
import json, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from app.scene.evaluate import bake
from app.scene.io import loads_scene
value = json.loads(Path({root!r}, "resources/scenes/calf_points_at_ankle.json").read_text())
value["frame_end"] = value["frame_start"] + 10**6 - 1
scene = loads_scene(json.dumps(value))
bare = loads_scene(json.dumps(dict(value, constraints=[])))
out = {{}}
for name, s, space in (("fk", bare, None), ("world", scene, "world"),
                       ("object", scene, "object")):
    start = time.perf_counter()
    bake(s, space=space)
    out[name] = time.perf_counter() - start
print(json.dumps(out))
"""

_BIG = """
import json, sys
sys.path.insert(0, {root!r})
import numpy as np
from app.scene.evaluate import bake
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene

def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

turn = Keys(np.array([0.0, 100.0, 49998.0]),
            np.array([[1.0, 0, 0, 0], [0.6, 0.8, 0, 0], [1.0, 0, 0, 0]]))
bones = [Bone(name="b0", rotation_keys=turn)] + [
    Bone(name=f"b{{i}}", parent=f"b{{(i - 1) // 2}}", translation=(0.0, 1.0, 0.0),
         rotation_keys=turn) for i in range(1, 121)]
scene = Scene(bones=bones, frame_start=0, frame_end=49998)
bake(scene, frames=np.arange(40.0))
before = peak_mb()
result = bake(scene)
arrays = sum(getattr(result, a).nbytes for a in ("bone_to_world", "heads", "tails",
                                                 "limit_violation_deg", "frames"))
print(json.dumps({{"before": before, "peak": peak_mb(), "arrays": arrays / 2**20}}))
"""


def _child(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code.format(root=str(ROOT))],
                          capture_output=True, text=True, timeout=600, check=True)  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def rows() -> list[Row]:
    t = _child(_POINTS_AT)
    m = _child(_BIG)
    floor = m["before"] + m["arrays"]
    return [
        Row("bake of the points-at scene at 10⁶ frames, world space", 1e3 * t["world"],
            reference_label="forward kinematics alone", reference=1e3 * t["fk"],
            target="seconds, not minutes", ok=t["world"] < 10),
        Row("bake of the points-at scene at 10⁶ frames, object space", 1e3 * t["object"],
            reference_label="forward kinematics alone", reference=1e3 * t["fk"],
            target="seconds, not minutes", ok=t["object"] < 10),
        Row("peak memory of a bake of 49,999 frames × 121 bones", m["peak"], unit="MB",
            reference_label="its result's arrays + the interpreter", reference=floor,
            target="result + one chunk (< 1.25 × the floor)", ok=m["peak"] < 1.25 * floor),
    ]  # fmt: skip
