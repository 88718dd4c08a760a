"""Scale figures of issue 14 (run under xvfb-run, as ``make bench`` does), each next to the
physical floor measured in the same run on the same 1280×800 main window:

- the *empty viewport*: the same window with nothing in the scene root and no labels,
  orbiting (what Qt, the composition of the GL widget and llvmpipe's clear and swap cost);
- the *bare VBO*: the same window drawing the same bones (and ghost) as one static buffer
  set that never changes, orbiting (the rasterizer's cost for this many vertices);
- for evaluation, forward kinematics alone of the same skeleton at the same frame;
- for opening the 100,000-frame BVH, numpy's own C parse of its motion numbers
  (``np.fromstring``, the reader's parser until its vectorized decimal reader: the whole
  open now takes less than it, a ratio above 1), and for its memory, a bare interpreter
  importing Qt, pyqtgraph and numpy; both in subprocesses (peak RSS is the child's
  ``VmHWM``).

Every ratio is the share of the floor's speed reached (1 = at the floor): rate / floor rate,
floor time / time, floor memory / memory. Redraw rates are full redraws per second (paint,
composition, swap) as in :mod:`benchmarks.bench_editor`. The 100,000-frame BVH is built by
``tools/make_scale_scenes.py`` into a temporary directory (60-75 MB of text: not committed).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_editor import SCENES, SIZE, _close, _wait_swap, _window, demo_scene
from benchmarks.bench_editor import measure_scrub_latency_ms as scrub_ms
from benchmarks.common import Row, median_time

ROOT = Path(__file__).resolve().parent.parent
CROWD = SCENES / "crowd_10x_cmu_01_01.json"
RIG = SCENES / "rig_200_bones.json"
ARM = SCENES / "fabrik_arm.json"


def _rate(app, window, step, frames: int = 60) -> float:
    """Median full redraws per second over three runs of ``frames`` redraws."""
    return measure(app, window, step, frames, warmup=10)[0]


def cpu_seconds() -> float:
    """CPU time of this process, every thread (llvmpipe rasterizes on its own threads)."""
    return time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID)


def measure(app, window, step, frames: int = 60, runs: int = 3,
            warmup: int = 15) -> tuple[float, float]:  # fmt: skip
    """(median redraws per second of ``runs`` runs of ``frames`` redraws, process CPU ms per
    redraw over them), after ``warmup`` redraws (llvmpipe compiles its shaders on the first
    frames)."""
    swapped = []
    window.viewport.frameSwapped.connect(lambda: swapped.append(time.perf_counter()))

    def run(n):
        swapped.clear()
        for k in range(n):
            step(k)
            _wait_swap(app, swapped, len(swapped) + 1)
        return list(swapped)

    run(warmup)
    rates, start = [], cpu_seconds()
    for _ in range(runs):
        stamps = run(frames)
        rates.append((len(stamps) - 1) / (stamps[-1] - stamps[0]))
    return statistics.median(rates), 1e3 * (cpu_seconds() - start) / (runs * frames)


def _orbit(window):
    return lambda k: window.viewport.orbit(1.0, 0.0)


def _play(window):
    doc = window.document
    span = doc.scene.frame_end - doc.scene.frame_start + 1
    return lambda k: doc.set_frame(doc.scene.frame_start + k % span)


def redraw(path, compare: bool, playing: bool) -> float:
    """The editor redrawing ``path`` (orbiting, or playing from the warm timeline cache)."""
    app, window = _window(path, compare)
    try:
        window.document.prepare_timeline()
        return _rate(app, window, _play(window) if playing else _orbit(window))
    finally:
        _close(app, window)


def floors(path, compare: bool) -> tuple[float, float, int]:
    """(empty viewport fps, bare VBO fps, vertices) in the window on ``path``."""
    from app.widgets.viewport.bone_buffers import BoneMeshItem
    from app.widgets.viewport.shading import LIT
    from app.widgets.viewport.skeleton_item import EDGE_COLOR

    app, window = _window(path, compare)
    try:
        drawing = window.viewport.drawing
        doc = window.document
        drawing._root.setVisible(False)
        drawing.labels.set_labels(np.zeros((0, 3)), [], np.zeros((0, 4)))
        empty = _rate(app, window, _orbit(window))
        poses = [(doc.pose(), EDGE_COLOR, "opaque")]
        if compare:
            poses.append((doc.ghost_pose(), None, "translucent"))
        bare, vertices = [], 0
        for pose, edges, options in poses:  # one static buffer set per skeleton
            item = BoneMeshItem(parentItem=None, shader=LIT, glOptions=options, edge_color=edges)
            item.setTransform(drawing._root.transform())
            colors = np.tile([0.8, 0.82, 0.86, 1.0], (len(pose.bone_names), 1))
            item.set_bones(pose.heads[0], pose.tails[0], colors)
            window.viewport.addItem(item)
            bare.append(item)
            vertices += 24 * item.count
        rate = _rate(app, window, _orbit(window))
        return empty, rate, vertices
    finally:
        _close(app, window)


def one_frame_ms(path) -> tuple[float, float]:
    """One-frame evaluation with the evaluator's caches warm, and forward kinematics alone
    (the same scene without constraints), in milliseconds."""
    from app.scene.evaluate import Evaluator
    from app.scene.io import load_scene

    scene = load_scene(path)
    evaluator = Evaluator(scene)
    evaluator.evaluate()  # the multi-parent integrals, as the editor has them
    bare = scene.copy()
    bare.constraints = []
    fk = Evaluator(bare)
    frames = [scene.frame_start + 7.0]
    t = median_time(lambda: evaluator.evaluate(frames), repeat=7, min_total=0.05)
    floor = median_time(lambda: fk.evaluate(frames), repeat=7, min_total=0.05)
    return 1e3 * t, 1e3 * floor


#: Peak RSS of this process (VmHWM): ``ru_maxrss`` would include the parent's size at the
#: fork, as Linux carries the high-water mark across exec.
_PEAK = """
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""

_OPEN = _PEAK + """
import json, sys, time
t0 = time.perf_counter()
from app.editor.document import Document
from app.scene.io import load_scene
t1 = time.perf_counter()
doc = Document(load_scene(sys.argv[1]), sys.argv[1])
doc.prepare_timeline()
pose = doc.pose()
t2 = time.perf_counter()
print(json.dumps({"open": t2 - t1, "rss_mb": peak_mb()}))
"""

_PARSE = """
import json, sys, time
import numpy as np
text = open(sys.argv[1], encoding="utf-8").read()
t = time.perf_counter()
motion = text.partition("MOTION")[2].split("\\n", 3)[3]
data = np.fromstring(motion, sep=" ")
print(json.dumps({"parse": time.perf_counter() - t}))
"""

_WINDOW = _PEAK + """
import json, sys
from benchmarks.bench_editor import _window, _close
from benchmarks.bench_editor import measure_scrub_latency_ms
app, window = _window(sys.argv[1], compare=False)
ms = measure_scrub_latency_ms(app, window, warm=False, samples=40)
rss = peak_mb()
_close(app, window)
print(json.dumps({"scrub_ms": ms, "rss_mb": rss}))
"""

_BARE = _PEAK + """
import json
import numpy, pyqtgraph.opengl
from PySide6 import QtWidgets
print(json.dumps({"rss_mb": peak_mb()}))
"""


def _child(code: str, *args) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-800:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def long_clip_figures() -> dict:
    """Open, scrub and memory figures of the 100,000-frame BVH, each in a subprocess."""
    from tools.make_scale_scenes import write_long_bvh

    with tempfile.TemporaryDirectory() as tmp:
        path = write_long_bvh(Path(tmp) / "cmu_01_01_100k.bvh")
        opened = [_child(_OPEN, path) for _ in range(3)]
        parsed = [_child(_PARSE, path) for _ in range(3)]
        window = _child(_WINDOW, path)
        bare = _child(_BARE)
    return {
        "open": statistics.median(o["open"] for o in opened),
        "parse": statistics.median(p["parse"] for p in parsed),
        "open_rss": max(o["rss_mb"] for o in opened),
        "scrub_ms": window["scrub_ms"],
        "window_rss": window["rss_mb"],
        "bare_rss": bare["rss_mb"],
    }


def rows() -> list[Row]:
    foot = demo_scene()
    w, h = SIZE
    out = []

    # --- the foot roll, Compare on --------------------------------------------------------
    empty, bare, verts = floors(foot, compare=True)
    orbit = redraw(foot, compare=True, playing=False)
    play = redraw(foot, compare=True, playing=True)
    app, window = _window(foot, compare=True)
    try:
        change = scrub_ms(app, window, warm=True)
    finally:
        _close(app, window)
    empty_ms = 1e3 / empty
    out += [
        Row(f"floor: empty viewport, {w}×{h} window, orbiting", empty, "fps", "", None,
            note="the window, GL clear, composition and swap; nothing drawn"),
        Row(f"floor: bare VBO, foot roll + ghost ({verts} vertices), orbiting", bare, "fps",
            "empty viewport", empty, ratio=bare / empty),
        Row("foot roll, Compare on, orbiting", orbit, "fps", "empty viewport", empty,
            "≥ 120 fps", orbit >= 120, ratio=orbit / empty),
        Row("foot roll, Compare on, playing", play, "fps", "bare VBO, same vertices", bare,
            "≥ 100 fps", play >= 100, ratio=play / bare),
        Row("foot roll, timeline change → swapped frame, Compare on", change, "ms",
            "empty viewport frame", empty_ms, "≤ 10 ms (median)", change <= 10,
            note="timeline cache warm"),
    ]  # fmt: skip

    # --- the crowd and the rig, playing ---------------------------------------------------
    for path, label in ((CROWD, "crowd, 10 × CMU 01_01 (310 bones)"),
                        (RIG, "200-bone rig, 20 FABRIK + 10 multi-parent")):  # fmt: skip
        empty_s, bare_s, verts_s = floors(path, compare=False)
        play_s = redraw(path, compare=False, playing=True)
        out += [
            Row(f"floor: bare VBO, {label.split(',')[0]} ({verts_s} vertices), orbiting",
                bare_s, "fps", "empty viewport", empty_s, ratio=bare_s / empty_s),
            Row(f"{label}, playing", play_s, "fps", "bare VBO, same vertices", bare_s,
                "≥ 60 fps", play_s >= 60, ratio=play_s / bare_s,
                note="every constraint live, read from the warm timeline cache"
                if path == RIG else ""),
        ]  # fmt: skip

    # --- one-frame evaluation -------------------------------------------------------------
    for path, label, target in ((ARM, "FABRIK arm (5 bones, hinge)", 0.5),
                                (RIG, "200-bone rig (30 constraints)", 5.0)):  # fmt: skip
        t, fk = one_frame_ms(path)
        out.append(Row(f"one-frame evaluation, {label}", t, "ms",
                       "forward kinematics alone", fk, f"≤ {target:g} ms", t <= target,
                       note="caches warm"))  # fmt: skip

    # --- the 100,000-frame BVH ------------------------------------------------------------
    long = long_clip_figures()
    out += [
        Row("open the 100,000-frame BVH (31 joints, load + document + first pose)",
            long["open"] * 1e3, "ms", "np.fromstring of its numbers", long["parse"] * 1e3,
            "≤ 2 s", long["open"] <= 2.0, note="subprocess, median of 3"),
        Row("scrub the 100,000-frame BVH: timeline change → swapped frame", long["scrub_ms"],
            "ms", "empty viewport frame", empty_ms, "≤ 16 ms (median)", long["scrub_ms"] <= 16,
            note="each frame evaluated on demand"),
        Row("peak RSS, editor window on the 100,000-frame BVH, scrubbed", long["window_rss"],
            "MB", "bare Qt+pyqtgraph+numpy", long["bare_rss"], "≤ 500 MB",
            long["window_rss"] <= 500, note=f"opening without a window: {long['open_rss']:.0f} MB"),
    ]  # fmt: skip
    return out
