"""The worked example's character with the foot-roll rig (contract §F4) on both legs, the left
one rolling (``tools/add_foot_roll.py``): 23 bones, six constraints (two multi-parents, two
FABRIK legs, two copied rotations) and a skinned body of about 2,400 vertices.

- one frame evaluated with the evaluator's caches warm (the editor scrubbing to a frame it
  has not seen), next to forward kinematics alone; its process CPU time, and the skinning
  of the body for it, in the note;
- the 1280×800 editor window playing it (a new frame each redraw, read from the warm
  timeline cache), next to the same window orbiting the plain humanoid.
"""

from __future__ import annotations

import importlib.util
import time

import numpy as np

from benchmarks.bench_editor import ROOT, _close, _window
from benchmarks.bench_scale import _orbit, _play, _rate
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


def playing_fps() -> tuple[float, float]:
    """(the rigged humanoid playing, the plain humanoid orbiting) in the editor window."""
    add = _add_foot_roll()
    app, window = _window(HUMANOID, compare=False, setup=lambda w: add(w.document))
    try:
        window.document.prepare_timeline()
        play = _rate(app, window, _play(window))
    finally:
        _close(app, window)
    app, window = _window(HUMANOID, compare=False)
    try:
        orbit = _rate(app, window, _orbit(window))
    finally:
        _close(app, window)
    return play, orbit


def rows() -> list[Row]:
    scene = rigged_scene()
    alone, cpu, skinning, fk = one_frame_ms(scene)
    play, orbit = playing_fps()
    label = "humanoid, both foot-roll rigs and mesh"
    return [
        Row(f"{label}: one frame evaluated", alone, "ms", "forward kinematics alone", fk,
            "≤ 1 ms", alone <= 1.0,
            note=f"caches warm; process CPU time {cpu:.3f} ms; skinning the body for it "
            f"{skinning:.3f} ms more"),
        Row(f"{label}: playing, 1280×800 window", play, "fps", "plain humanoid, orbiting", orbit,
            "≥ 60 fps", play >= 60, ratio=play / orbit,
            note="a new frame each redraw, from the warm timeline cache"),
    ]  # fmt: skip
