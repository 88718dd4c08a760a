"""Editor figures under Mesa's llvmpipe (run under xvfb-run, as ``make bench`` does).

- redraw rate of the demo scene (foot roll) at 1280x800 with the Compare ghost on, next to
  the same redraw without the ghost;
- latency from a timeline value change to the repainted frame (the frame swapped on
  screen), next to the same without Compare, scrubbing frames not seen before;
- ``python main.py`` to its first painted frame, in a subprocess, next to a bare interpreter
  importing the same libraries.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row

ROOT = Path(__file__).resolve().parent.parent
SCENES = ROOT / "resources" / "scenes"
SIZE = (1280, 800)


def demo_scene() -> Path:
    """The demo scene ``python main.py`` opens (the foot roll)."""
    from app.cli import DEMO_SCENE

    return Path(DEMO_SCENE)


def _window(path, compare: bool, setup=None):
    """The main window on ``path`` at the benchmark size, its GL context ready.

    ``setup(window)`` runs after showing and before settling (other benchmarks open docks).
    """
    from app.editor.document import Document
    from app.window.main_window import MainWindow
    from app.window.qt_app import application

    app = application()
    document = Document.from_file(path)
    window = MainWindow(document, restore_settings=False)
    window.resize(*SIZE)
    window.show()
    document.set_compare(compare)
    if setup is not None:
        setup(window)
    deadline = time.perf_counter() + 5
    while not window.viewport.isValid() and time.perf_counter() < deadline:
        app.processEvents()
    for _ in range(20):
        app.processEvents()
    return app, window


def _close(app, window) -> None:
    window.document.undo_stack.clear()
    window.autosaver.stop()
    window.close()
    window.deleteLater()
    app.processEvents()


def _wait_swap(app, swapped, count: int) -> None:
    deadline = time.perf_counter() + 2
    while len(swapped) < count and time.perf_counter() < deadline:
        app.processEvents()


def redraw_fps(path, compare: bool, playing: bool, frames: int = 90, setup=None) -> float:
    """Full redraws per second (paint, swap) of the 1280x800 window.

    ``playing=False`` orbits the camera a degree per redraw (the pose stays); ``True``
    advances the frame each redraw as playback does, reading the warm timeline cache.
    ``setup(window)`` prepares the window first (see :func:`_window`).
    """
    app, window = _window(path, compare, setup=setup)
    viewport, doc = window.viewport, window.document
    swapped = []
    viewport.frameSwapped.connect(lambda: swapped.append(time.perf_counter()))
    doc.prepare_timeline()
    span = doc.scene.frame_end - doc.scene.frame_start + 1

    def redraw_all(n):
        swapped.clear()
        for k in range(n):
            if playing:
                doc.set_frame(doc.scene.frame_start + k % span)
            else:
                viewport.orbit(1.0, 0.0)
            _wait_swap(app, swapped, len(swapped) + 1)
        return list(swapped)

    redraw_all(10)  # warm-up: shaders, buffers
    rates = []
    for _ in range(3):
        stamps = redraw_all(frames)
        rates.append((len(stamps) - 1) / (stamps[-1] - stamps[0]))
    _close(app, window)
    return statistics.median(rates)


def scrub_latency_ms(path, compare: bool, warm: bool, samples: int = 60) -> float:
    """Median time from the frame spin box's new value to the swapped frame showing it.

    ``warm``: the timeline cache is filled (as it is a moment after opening or editing);
    otherwise each frame is evaluated on demand, none of them seen before.
    """
    app, window = _window(path, compare)
    try:
        return measure_scrub_latency_ms(app, window, warm, samples)
    finally:
        _close(app, window)


def measure_scrub_latency_ms(app, window, warm: bool, samples: int = 60) -> float:
    """:func:`scrub_latency_ms` on a window already open (other benchmarks set it up)."""
    viewport, doc, spin = window.viewport, window.document, window.timeline.frame_spin
    doc._warm_timer.stop()
    if warm:
        doc.prepare_timeline()
    swapped = []
    viewport.frameSwapped.connect(lambda: swapped.append(time.perf_counter()))
    scene = doc.scene
    span = scene.frame_end - scene.frame_start + 1
    frames = [scene.frame_start + (7 * k) % span for k in range(1, min(samples, span - 1) + 1)]
    latencies = []
    for frame in frames:
        for _ in range(3):
            app.processEvents()
        swapped.clear()
        start = time.perf_counter()
        spin.setValue(frame)  # what typing a frame or a scrub does: the value changes
        _wait_swap(app, swapped, 1)
        if swapped:
            latencies.append(swapped[0] - start)
    return 1e3 * statistics.median(latencies)


def _first_paint_seconds(args, env) -> float:
    start = time.time()
    proc = subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    for line in proc.stdout.splitlines():
        if line.startswith("first-paint "):
            return float(line.split()[1]) - start
    raise RuntimeError(f"no first paint reported: {proc.stderr[-500:]}")


def startup_seconds(runs: int = 5) -> tuple[float, float]:
    """``python main.py`` to its first painted frame, and a bare interpreter that imports
    Qt, pyqtgraph.opengl and numpy and prints (the floor under any Python Qt editor)."""
    with tempfile.TemporaryDirectory() as home:
        env = dict(
            os.environ,
            PIVOTAL_EXIT_AFTER_FIRST_PAINT="1",
            XDG_CONFIG_HOME=home,
            PIVOTAL_RECOVERY_DIR=home,
            QT_QPA_PLATFORM="xcb",
        )
        ours = [_first_paint_seconds(["main.py"], env) for _ in range(runs)]
        bare = (
            "import time, numpy, pyqtgraph.opengl\n"
            "from PySide6 import QtWidgets\n"
            "print(f'first-paint {time.time():.6f}')\n"
        )
        floor = [_first_paint_seconds(["-c", bare], env) for _ in range(runs)]
    return statistics.median(ours), statistics.median(floor)


def rows() -> list[Row]:
    path = demo_scene()
    name = path.name
    w, h = SIZE
    orbit_ghost = redraw_fps(path, compare=True, playing=False)
    orbit_plain = redraw_fps(path, compare=False, playing=False)
    play_ghost = redraw_fps(path, compare=True, playing=True)
    play_plain = redraw_fps(path, compare=False, playing=True)
    warm = scrub_latency_ms(path, compare=True, warm=True)
    cold = scrub_latency_ms(path, compare=True, warm=False)
    startup, floor = startup_seconds()
    return [
        Row(
            f"redraw {name}, Compare ghost on, {w}×{h} window, orbiting",
            orbit_ghost,
            "fps",
            "ghost off",
            orbit_plain,
            "≥ 60 fps",
            orbit_ghost >= 60,
            ratio=orbit_ghost / orbit_plain,
        ),
        Row(
            f"redraw {name}, Compare ghost on, playing (new frame each redraw)",
            play_ghost,
            "fps",
            "ghost off",
            play_plain,
            "≥ 60 fps",
            play_ghost >= 60,
            ratio=play_ghost / play_plain,
        ),
        Row(
            f"timeline value change → swapped frame, {name}, Compare on",
            warm,
            "ms",
            "frames never evaluated",
            cold,
            "≤ 16 ms (median)",
            warm <= 16,
            note="timeline cache warm",
        ),
        Row(
            "python main.py → first painted frame",
            startup * 1e3,
            "ms",
            "bare python importing Qt+pyqtgraph",
            floor * 1e3,
            "≤ 2 s",
            startup <= 2.0,
            note="subprocess, median of 5",
        ),
    ]
