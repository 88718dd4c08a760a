"""The worked example's character with the foot-roll rig (contract §F4) on both legs, the left
one rolling (``tools/add_foot_roll.py``): 23 bones, six constraints (two multi-parents, two
FABRIK legs, two copied rotations) and a skinned body of about 2,400 vertices.

- one frame evaluated with the evaluator's caches warm (the editor scrubbing to a frame it
  has not seen), next to forward kinematics alone; its process CPU time, and the skinning
  of the body for it, in the note;
- the 1280×800 editor window playing it (a new frame each redraw, read from the warm
  timeline cache), next to the same window playing the plain humanoid (no rig) and the
  empty viewport (nothing drawn, orbiting: what llvmpipe's clear and the swap of the
  viewport's own window cost), the three measured in turn, round after
  round, in the same run: the machine is shared, so each figure is the median of the
  rounds, its spread in the note, and the process CPU time per frame (every thread:
  llvmpipe's too) says what a frame costs when other jobs stretch the wall time.
"""

from __future__ import annotations

import importlib.util
import statistics
import time

import numpy as np

from benchmarks.bench_editor import ROOT, _close, _window
from benchmarks.bench_scale import _orbit, _play, measure
from benchmarks.common import Row, median_time

HUMANOID = ROOT / "resources" / "scenes" / "humanoid.glb"


def _add_foot_roll():
    path = ROOT / "tools" / "add_foot_roll.py"
    spec = importlib.util.spec_from_file_location("add_foot_roll", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.add_foot_roll


def rigged_scene():
    """The humanoid with both rigs, through the editor's operations (a Qt application runs)."""
    from app.editor.document import Document
    from app.window.qt_app import application

    application()
    document = Document.from_file(HUMANOID)
    _add_foot_roll()(document)
    return document.scene


def one_frame_ms(scene) -> tuple[float, float, float, float]:
    """(evaluation, its process CPU time, skinning the body for it, forward kinematics
    alone) of one frame in ms, each frame a new one as scrubbing gives (the caches warm).

    The CPU time says what the evaluation costs when the machine's other jobs stretch the
    wall time (two cores shared by many)."""
    from app.scene.evaluate import Evaluator
    from app.scene.rig.skinning import bind

    evaluator = Evaluator(scene)
    evaluator.evaluate()  # the multi-parent integrals and the frame_start offsets
    (mesh,) = scene.meshes
    skin = bind(mesh, scene.bone_names(), dtype=np.float32)
    bare = scene.copy()
    bare.constraints = []
    fk = Evaluator(bare)
    span = scene.frame_end - scene.frame_start + 1
    state = {"k": 0}

    def frame():
        state["k"] += 7
        return [float(scene.frame_start + state["k"] % span)]

    pose = evaluator.evaluate(frame()).bone_to_world[0]
    alone = median_time(lambda: evaluator.evaluate(frame()), repeat=7, min_total=0.05)
    start, count = time.process_time(), 2000
    for _ in range(count):
        evaluator.evaluate(frame())
    cpu = (time.process_time() - start) / count
    skinning = median_time(lambda: skin.deform(pose), repeat=7, min_total=0.05)
    floor = median_time(lambda: fk.evaluate(frame()), repeat=7, min_total=0.05)
    return 1e3 * alone, 1e3 * cpu, 1e3 * skinning, 1e3 * floor


#: Rounds of (rigged, plain, empty) measured in turn; each figure is their median.
ROUNDS = 3


def _playing(setup=None, empty: bool = False) -> tuple[float, float]:
    """(redraws per second, process CPU ms per redraw) of the window on the humanoid:
    playing (``setup`` builds the rig first), or orbiting the empty viewport."""
    app, window = _window(HUMANOID, compare=False, setup=setup)
    try:
        window.document.prepare_timeline()
        step = _play(window)
        if empty:
            drawing = window.viewport.drawing
            drawing._root.setVisible(False)  # as bench_scale.floors
            drawing.labels.set_labels(np.zeros((0, 3)), [], np.zeros((0, 4)))
            step = _orbit(window)
        return measure(app, window, step)
    finally:
        _close(app, window)


def playing_fps(rounds: int = ROUNDS) -> dict[str, list[tuple[float, float]]]:
    """Per round, (fps, CPU ms per frame) of the rigged humanoid playing, the plain humanoid
    playing and the empty viewport, measured in turn."""
    add = _add_foot_roll()
    out = {"rigged": [], "plain": [], "empty": []}
    for _ in range(rounds):
        out["rigged"].append(_playing(lambda w: add(w.document)))
        out["plain"].append(_playing())
        out["empty"].append(_playing(empty=True))
    return out


def _spread(runs) -> str:
    fps = sorted(r[0] for r in runs)
    return f"{fps[0]:.0f}–{fps[-1]:.0f} fps over {len(fps)} rounds"


def rows() -> list[Row]:
    scene = rigged_scene()
    alone, cpu_one, skinning, fk = one_frame_ms(scene)
    runs = playing_fps()
    play, plain, empty = (
        statistics.median(r[0] for r in runs[k]) for k in ("rigged", "plain", "empty")
    )
    cpu, plain_cpu, empty_cpu = (
        statistics.median(r[1] for r in runs[k]) for k in ("rigged", "plain", "empty")
    )
    label = "humanoid, both foot-roll rigs and mesh"
    return [
        Row(
            f"{label}: one frame evaluated",
            alone,
            "ms",
            "forward kinematics alone",
            fk,
            "≤ 1 ms",
            alone <= 1.0,
            note=f"caches warm; process CPU time {cpu_one:.3f} ms; skinning the body for it "
            f"{skinning:.3f} ms more",
        ),
        Row(
            f"{label}: playing, 1280×800 window",
            play,
            "fps",
            "plain humanoid, playing",
            plain,
            "≥ 60 fps",
            play >= 60,
            ratio=play / plain,
            note=f"a new frame each redraw, from the warm timeline cache; {_spread(runs['rigged'])}"
            f" (plain {_spread(runs['plain'])}); process CPU {cpu:.1f} ms a frame, plain "
            f"{plain_cpu:.1f} ms",
        ),
        Row(
            "floor: empty viewport, the same window, orbiting",
            empty,
            "fps",
            "",
            None,
            note=f"nothing drawn: llvmpipe's clear and the swap of the viewport's window; "
            f"{_spread(runs['empty'])}; process CPU {empty_cpu:.1f} ms a frame",
        ),
    ]
