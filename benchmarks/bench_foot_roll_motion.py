"""The foot-roll rig built on a captured clip, keyed from its motion (issue 24, item 1: the
FK → IK snap-and-bake, ``app.scene.builders.foot_motion``), on CMU 01_01 (2,752 frames) and
01_03 (4,511 frames), 31 joints each, next to what any use of the clip costs first: loading
the ``.bvh`` and its forward kinematics over every frame.

- both legs rigged (``build_foot_rolls``: one bake of the clip, then each leg's keys), the
  figure the planting of feet builds on; one leg as the dialog builds it (its own bake) in
  the note;
- the rigged clip baked again (FABRIK legs, copied rotations, the roll bodies) in the note:
  what playing it through costs.

Each figure is the median of several runs, the reference measured in the same run, in turn.
"""

from __future__ import annotations

import numpy as np

from benchmarks.common import Row, median_time

CMU = "/usr/share/assimp/models/BVH"


def clip_rows(name: str, repeat: int = 5) -> Row:
    from app.scene.builders.foot_roll import build_foot_roll, build_foot_rolls
    from app.scene.builders.leg_names import recognised_legs
    from app.scene.evaluate import bake
    from app.scene.io import load_scene

    path = f"{CMU}/{name}.bvh"
    scene = load_scene(path)
    legs = recognised_legs(scene)
    both = [legs["left"], legs["right"]]
    times = {"load": [], "fk": [], "build": [], "one": []}
    for _ in range(repeat):  # in turn, so a busy moment touches every figure alike
        times["load"].append(median_time(lambda: load_scene(path), repeat=1))
        times["fk"].append(median_time(lambda: bake(scene), repeat=1))
        times["build"].append(median_time(lambda: build_foot_rolls(scene, both), repeat=1))
        times["one"].append(median_time(lambda: build_foot_roll(scene, legs["left"]), repeat=1))
    load, fk, build, one = (
        1e3 * float(np.median(times[k])) for k in ("load", "fk", "build", "one")
    )
    rigged = scene.copy()
    built = build_foot_rolls(scene, both)[-1]
    rigged.bones[:], rigged.constraints[:] = built.rig.bones, built.rig.constraints
    played = 1e3 * median_time(lambda: bake(rigged), repeat=3)
    frames = scene.frame_end - scene.frame_start + 1
    return Row(
        f"CMU {name} ({frames:,} frames × {len(scene.bones)} joints): foot-roll rig on both "
        "legs keyed from the motion",
        build,
        "ms",
        "loading the clip + its FK",
        load + fk,
        "≤ 0.5 s (well under 1 s)",
        build <= 500,
        note=f"load {load:.0f} ms, FK {fk:.0f} ms; one leg as the dialog builds it {one:.0f} ms; "
        f"the rigged clip baked {played:.0f} ms",
    )


def rows() -> list[Row]:
    return [clip_rows("01_01"), clip_rows("01_03")]
