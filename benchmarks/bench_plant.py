"""Planting feet (issue 24), each figure next to its reference measured in the same run:

- ``plant_feet`` on CMU 01_01 (2,752 frames × 31 joints) and 01_03 (4,511 frames): the
  contacts, the planted paths, the hips and the rig keyed (everything but evaluating the
  result), next to loading the clip and its forward kinematics; then evaluating the planted
  rig once (what the figures after and writing the file take), next to the forward
  kinematics alone;
- the 1280×800 editor window playing the planted 01_01 (the rig: two multi-parents, two
  FABRIK legs, two copied rotations) from its warm timeline cache, next to the same window
  playing the clip before planting;
- ``main.py plant-feet`` on 20 copies of 01_01 with ``-j 2`` next to ``-j 1``: the speed-up
  of two processes, on a machine other jobs share (its load average in the note).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_editor import ROOT, _close, _window
from benchmarks.bench_scale import _play, measure
from benchmarks.common import Row, median_time

CMU = Path("/usr/share/assimp/models/BVH")


def _plant_rows(name: str, target_ms: float | None) -> list[Row]:
    from app.scene.evaluate import bake
    from app.scene.io import load_scene
    from app.scene.motion.plant import plant_feet

    path = CMU / f"{name}.bvh"
    load = median_time(lambda: load_scene(path), repeat=3)
    scene = load_scene(path)
    fk = median_time(lambda: bake(scene), repeat=5)
    planted = plant_feet(scene, evaluate=False)
    plant = median_time(lambda: plant_feet(scene, evaluate=False), repeat=5)
    start = time.process_time()
    for _ in range(3):
        plant_feet(scene, evaluate=False)
    cpu = (time.process_time() - start) / 3
    after = median_time(lambda: bake(planted.scene), repeat=5)
    frames = scene.frame_end - scene.frame_start + 1
    return [
        Row(
            f"plant_feet on CMU {name} ({frames:,} frames × {len(scene.bones)} joints): "
            "contacts to the keyed rig",
            plant * 1e3,
            "ms",
            "load + FK",
            (load + fk) * 1e3,
            target=f"≤ {target_ms:g} ms" if target_ms else "",
            ok=None if target_ms is None else plant * 1e3 <= target_ms,
            note=f"load {load * 1e3:.0f} ms, FK {fk * 1e3:.0f} ms; process CPU "
            f"{cpu * 1e3:.0f} ms; load average {os.getloadavg()[0]:.1f}",
        ),
        Row(
            f"evaluating the planted {name} once (the figures after, the file written)",
            after * 1e3,
            "ms",
            "FK",
            fk * 1e3,
        ),
    ]


def _playing_row() -> Row:
    from app.scene.io import load_scene, save_scene
    from app.scene.motion.plant import plant_feet

    folder = Path(tempfile.mkdtemp(prefix="bench_plant_"))
    try:
        planted = folder / "planted.json"
        save_scene(plant_feet(load_scene(CMU / "01_01.bvh")).scene, planted)
        rates = {}
        for label, path in (("planted", planted), ("clip", CMU / "01_01.bvh")):
            app, window = _window(path, False)
            try:
                window.document.prepare_timeline()
                rates[label] = measure(app, window, _play(window), frames=90)[0]
            finally:
                _close(app, window)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return Row(
        "editor playing the planted 01_01 (1280×800)",
        rates["planted"],
        "fps",
        "the clip unplanted",
        rates["clip"],
        target="≥ 60 fps",
        ok=rates["planted"] >= 60,
        ratio=rates["planted"] / rates["clip"],
    )


def _batch_row() -> Row:
    folder = Path(tempfile.mkdtemp(prefix="bench_plant_batch_"))
    try:
        inputs = []
        for k in range(20):
            copy = folder / f"clip_{k:02d}.bvh"
            shutil.copyfile(CMU / "01_01.bvh", copy)
            inputs.append(str(copy))
        times, loads = {}, [os.getloadavg()[0]]
        for jobs in (1, 2, 1, 2):  # alternated: the machine's other jobs come and go
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "main.py"),
                    "plant-feet",
                    *inputs,
                    "--out",
                    str(folder / f"out_{jobs}"),
                    "-j",
                    str(jobs),
                ],
                check=True,
                capture_output=True,
                cwd=ROOT,
            )
            times.setdefault(jobs, []).append(time.perf_counter() - start)
            loads.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    one, two = min(times[1]), min(times[2])
    speedup = one / two
    return Row(
        "plant-feet on 20 copies of 01_01, -j 2",
        two,
        "s",
        "-j 1",
        one,
        target="≥ 1.8× on two cores",
        ok=speedup >= 1.8,
        ratio=speedup,
        note=f"{os.cpu_count()} cores; load average {min(loads):.1f} to "
        f"{max(loads):.1f} while it ran",
    )


def rows() -> list[Row]:
    return [*_plant_rows("01_01", 300.0), *_plant_rows("01_03", None), _playing_row(), _batch_row()]
