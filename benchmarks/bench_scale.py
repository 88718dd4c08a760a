"""Scale figures of issues 14 and 28 (run under xvfb-run, as ``make bench`` does), each next
to the physical floor measured in the same run on the same 1280×800 main window, the
figures of one window measured in turn, round after round (:class:`Rounds`: the machine is
shared, so each is the median of rounds alternating with its reference):

- the *empty viewport*: the same window with nothing in the scene root and no labels,
  orbiting (what Qt, llvmpipe's clear and the swap cost); next to it the same window with
  the viewport as it was before issue 28, a ``QOpenGLWidget`` composed with the window's
  other widgets through OpenGL every frame;
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


def measure(
    app, window, step, frames: int = 60, runs: int = 3, warmup: int = 15, view=None
) -> tuple[float, float]:
    """(median redraws per second of ``runs`` runs of ``frames`` redraws, process CPU ms per
    redraw over them), after ``warmup`` redraws (llvmpipe compiles its shaders on the first
    frames). ``view``: what swaps the frames (default: the window's viewport)."""
    view = window.viewport if view is None else view
    swapped = []

    def stamp():
        swapped.append(time.perf_counter())

    def run(n):
        swapped.clear()
        for k in range(n):
            step(k)
            _wait_swap(app, swapped, len(swapped) + 1)
        return list(swapped)

    view.frameSwapped.connect(stamp)
    try:
        run(warmup)
        rates, start = [], cpu_seconds()
        for _ in range(runs):
            stamps = run(frames)
            rates.append((len(stamps) - 1) / (stamps[-1] - stamps[0]))
    finally:
        view.frameSwapped.disconnect(stamp)
    return statistics.median(rates), 1e3 * (cpu_seconds() - start) / (runs * frames)


def _orbit(window):
    return lambda k: window.viewport.orbit(1.0, 0.0)


def _play(window):
    doc = window.document
    span = doc.scene.frame_end - doc.scene.frame_start + 1
    return lambda k: doc.set_frame(doc.scene.frame_start + k % span)


class Rounds:
    """Redraw rates of several set-ups measured in turn, round after round, in one run: the
    machine is shared, so a figure and its reference are each the median of rounds that
    alternate between them, not two runs minutes apart.

    A set-up is ``(window, prepare, step)``: ``prepare()`` puts the window in its state
    (items shown or hidden), ``step(k)`` changes what the next redraw shows.
    """

    def __init__(self, app):
        self.app = app
        self.setups: dict = {}
        self.fps: dict = {}
        self.cpu: dict = {}

    def add(self, name: str, window, step, prepare=None, view=None) -> None:
        self.setups[name] = (window, prepare, step, view)
        self.fps[name], self.cpu[name] = [], []

    def run(self, rounds: int = 3, frames: int = 60, warmup: int = 10) -> None:
        for _ in range(rounds):
            for name, (window, prepare, step, view) in self.setups.items():
                if prepare is not None:
                    prepare()
                fps, cpu = measure(self.app, window, step, frames, runs=1, warmup=warmup, view=view)
                self.fps[name].append(fps)
                self.cpu[name].append(cpu)

    def median(self, name: str) -> float:
        return statistics.median(self.fps[name])

    def spread(self, name: str) -> str:
        fps = sorted(self.fps[name])
        cpu = statistics.median(self.cpu[name])
        return f"{fps[0]:.0f}–{fps[-1]:.0f} fps over {len(fps)} rounds, CPU {cpu:.1f} ms a frame"


def redraw(path, compare: bool, playing: bool) -> float:
    """The editor redrawing ``path`` (orbiting, or playing from the warm timeline cache)."""
    app, window = _window(path, compare)
    try:
        window.document.prepare_timeline()
        return _rate(app, window, _play(window) if playing else _orbit(window))
    finally:
        _close(app, window)


def _bare_items(window, compare: bool):
    """The same bones (and ghost) as static buffer sets that never change, hidden; and the
    vertex count."""
    from app.widgets.viewport.bone_buffers import BoneMeshItem
    from app.widgets.viewport.shading import LIT
    from app.widgets.viewport.skeleton_item import EDGE_COLOR

    drawing, doc = window.viewport.drawing, window.document
    poses = [(doc.pose(), EDGE_COLOR, "opaque")]
    if compare:
        poses.append((doc.ghost_pose(), None, "translucent"))
    items, vertices = [], 0
    for pose, edges, options in poses:  # one static buffer set per skeleton
        item = BoneMeshItem(parentItem=None, shader=LIT, glOptions=options, edge_color=edges)
        item.setTransform(drawing._root.transform())
        colors = np.tile([0.8, 0.82, 0.86, 1.0], (len(pose.bone_names), 1))
        item.set_bones(pose.heads[0], pose.tails[0], colors)
        item.setVisible(False)
        window.viewport.addItem(item)
        items.append(item)
        vertices += 24 * item.count
    return items, vertices


def floor_states(window, compare: bool):
    """``(empty, bare, scene, vertices)``: three functions putting ``window``'s viewport in
    the state of the empty floor (nothing drawn, no labels), of the bare VBO floor (only the
    bones as static buffers) and of the scene as the editor draws it."""
    drawing, viewport = window.viewport.drawing, window.viewport
    bare, vertices = _bare_items(window, compare)

    def show(root: bool, items: bool) -> None:
        drawing._root.setVisible(root)
        for item in bare:
            item.setVisible(items)
        if root:
            viewport.refresh()  # the labels again
        else:
            drawing.labels.set_labels(np.zeros((0, 3)), [], np.zeros((0, 4)))

    def state(root: bool, items: bool):
        return lambda: show(root, items)

    return state(False, False), state(False, True), state(True, False), vertices


class WidgetFloor:
    """The empty floor as it was before the viewport left the widgets' composition: the same
    main window with pyqtgraph's ``GLViewWidget`` (a ``QOpenGLWidget``, what the viewport was)
    in the viewport's place, drawing nothing but its clear."""

    def __init__(self, path):
        import pyqtgraph.opengl as gl

        from app.widgets.viewport.viewport import BACKGROUND

        def swap(window):
            self.kept = window.takeCentralWidget()  # the viewport, put back to close
            self.kept.hide()
            self.view = gl.GLViewWidget()
            self.view.setBackgroundColor(BACKGROUND)
            window.setCentralWidget(self.view)

        self.app, self.window = _window(path, False, setup=swap)
        while not self.view.isValid():
            self.app.processEvents()

    def step(self, k) -> None:
        self.view.orbit(1.0, 0.0)

    def close(self) -> None:
        self.window.setCentralWidget(self.kept)
        _close(self.app, self.window)


def floors(path, compare: bool) -> tuple[float, float, int]:
    """(empty viewport fps, bare VBO fps, vertices) in the window on ``path``."""
    app, window = _window(path, compare)
    try:
        empty, bare, _, vertices = floor_states(window, compare)
        empty()
        empty_fps = _rate(app, window, _orbit(window))
        bare()
        return empty_fps, _rate(app, window, _orbit(window)), vertices
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

_OPEN = (
    _PEAK
    + """
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
)

_PARSE = """
import json, sys, time
import numpy as np
text = open(sys.argv[1], encoding="utf-8").read()
t = time.perf_counter()
motion = text.partition("MOTION")[2].split("\\n", 3)[3]
data = np.fromstring(motion, sep=" ")
print(json.dumps({"parse": time.perf_counter() - t}))
"""

_WINDOW = (
    _PEAK
    + """
import json, sys
from benchmarks.bench_editor import _window, _close
from benchmarks.bench_editor import measure_scrub_latency_ms
app, window = _window(sys.argv[1], compare=False)
ms = measure_scrub_latency_ms(app, window, warm=False, samples=40)
rss = peak_mb()
_close(app, window)
print(json.dumps({"scrub_ms": ms, "rss_mb": rss}))
"""
)

_BARE = (
    _PEAK
    + """
import json
import numpy, pyqtgraph.opengl
from PySide6 import QtWidgets
print(json.dumps({"rss_mb": peak_mb()}))
"""
)


def _child(code: str, *args) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
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


def scene_rounds(
    path, compare: bool, orbiting: bool, rounds: int = 3, widget_floor: bool = False
) -> tuple[Rounds, int]:
    """The window on ``path`` as the empty floor, the bare VBO floor, the scene playing (and
    orbiting), in turn, round after round (and the same window composing a ``QOpenGLWidget``
    that draws nothing); and the floor's vertex count."""
    app, window = _window(path, compare)
    other = WidgetFloor(path) if widget_floor else None
    try:
        window.document.prepare_timeline()
        empty, bare, scene, vertices = floor_states(window, compare)
        r = Rounds(app)
        if other is not None:
            r.add("widget", other.window, other.step, view=other.view)
        r.add("empty", window, _orbit(window), empty)
        r.add("bare", window, _orbit(window), bare)
        if orbiting:
            r.add("orbit", window, _orbit(window), scene)
        r.add("play", window, _play(window), scene)
        r.run(rounds)
        return r, vertices
    finally:
        if other is not None:
            other.close()
        _close(app, window)


def rows() -> list[Row]:
    foot = demo_scene()
    w, h = SIZE
    out = []

    # --- the foot roll, Compare on --------------------------------------------------------
    r, verts = scene_rounds(foot, compare=True, orbiting=True, widget_floor=True)
    empty, bare, orbit, play = (r.median(k) for k in ("empty", "bare", "orbit", "play"))
    widget = r.median("widget")
    app, window = _window(foot, compare=True)
    try:
        change = scrub_ms(app, window, warm=True)
    finally:
        _close(app, window)
    empty_ms = 1e3 / empty
    out += [
        Row(
            f"floor: empty viewport, {w}×{h} window, orbiting",
            empty,
            "fps",
            "the viewport as a QOpenGLWidget (before issue 28)",
            widget,
            "≥ 1.4×",
            empty >= 1.4 * widget,
            ratio=empty / widget,
            note=f"the window, GL clear and swap; nothing drawn; {r.spread('empty')}; "
            f"the QOpenGLWidget's composition {r.spread('widget')}",
        ),
        Row(
            f"floor: bare VBO, foot roll + ghost ({verts} vertices), orbiting",
            bare,
            "fps",
            "empty viewport",
            empty,
            ratio=bare / empty,
        ),
        Row(
            "foot roll, Compare on, orbiting",
            orbit,
            "fps",
            "empty viewport",
            empty,
            "≥ 120 fps",
            orbit >= 120,
            ratio=orbit / empty,
            note=r.spread("orbit"),
        ),
        Row(
            "foot roll, Compare on, playing",
            play,
            "fps",
            "bare VBO, same vertices",
            bare,
            "≥ 100 fps",
            play >= 100,
            ratio=play / bare,
            note=r.spread("play"),
        ),
        Row(
            "foot roll, timeline change → swapped frame, Compare on",
            change,
            "ms",
            "empty viewport frame",
            empty_ms,
            "≤ 10 ms (median)",
            change <= 10,
            note="timeline cache warm",
        ),
    ]

    # --- the crowd and the rig, playing ---------------------------------------------------
    for path, label in (
        (CROWD, "crowd, 10 × CMU 01_01 (310 bones)"),
        (RIG, "200-bone rig, 20 FABRIK + 10 multi-parent"),
    ):
        r, verts_s = scene_rounds(path, compare=False, orbiting=False)
        empty_s, bare_s, play_s = (r.median(k) for k in ("empty", "bare", "play"))
        ok = play_s >= 60 and play_s >= 0.8 * bare_s
        live = "every constraint live, read from the warm timeline cache; " if path == RIG else ""
        out += [
            Row(
                f"floor: bare VBO, {label.split(',')[0]} ({verts_s} vertices), orbiting",
                bare_s,
                "fps",
                "empty viewport",
                empty_s,
                ratio=bare_s / empty_s,
                note=r.spread("bare"),
            ),
            Row(
                f"{label}, playing",
                play_s,
                "fps",
                "bare VBO, same vertices",
                bare_s,
                "≥ 60 fps, ≥ 0.8× bare VBO",
                ok,
                ratio=play_s / bare_s,
                note=live + r.spread("play"),
            ),
        ]

    # --- one-frame evaluation -------------------------------------------------------------
    for path, label, target in (
        (ARM, "FABRIK arm (5 bones, hinge)", 0.5),
        (RIG, "200-bone rig (30 constraints)", 5.0),
    ):
        t, fk = one_frame_ms(path)
        out.append(
            Row(
                f"one-frame evaluation, {label}",
                t,
                "ms",
                "forward kinematics alone",
                fk,
                f"≤ {target:g} ms",
                t <= target,
                note="caches warm",
            )
        )

    # --- the 100,000-frame BVH ------------------------------------------------------------
    long = long_clip_figures()
    out += [
        Row(
            "open the 100,000-frame BVH (31 joints, load + document + first pose)",
            long["open"] * 1e3,
            "ms",
            "np.fromstring of its numbers",
            long["parse"] * 1e3,
            "≤ 2 s",
            long["open"] <= 2.0,
            note="subprocess, median of 3",
        ),
        Row(
            "scrub the 100,000-frame BVH: timeline change → swapped frame",
            long["scrub_ms"],
            "ms",
            "empty viewport frame",
            empty_ms,
            "≤ 16 ms (median)",
            long["scrub_ms"] <= 16,
            note="each frame evaluated on demand",
        ),
        Row(
            "peak RSS, editor window on the 100,000-frame BVH, scrubbed",
            long["window_rss"],
            "MB",
            "bare Qt+pyqtgraph+numpy",
            long["bare_rss"],
            "≤ 500 MB",
            long["window_rss"] <= 500,
            note=f"opening without a window: {long['open_rss']:.0f} MB",
        ),
    ]
    return out
