"""Teaching and analysis figures under Mesa's llvmpipe (run under xvfb-run, as ``make bench``).

- scrubbing with the Curves and Matrix Chain docks open and trails and ghosts on: timeline
  value change to the swapped viewport frame, next to the same window with them off;
- the curve view on the CMU clip (2,752 frames per curve): a frame change until the plot has
  repainted (the curves are cached pixmaps; only the frame line moves), next to rebuilding
  its curves (a selection change);
- a step-through trace of one frame (FABRIK passes, multi-parent substeps) next to the
  evaluation of that frame, which it must keep up with while scrubbing;
- a PNG sequence of the foot roll through the viewport, per frame.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import bench_editor
from benchmarks.bench_editor import _close, measure_scrub_latency_ms
from benchmarks.common import Row, median_time

ROOT = Path(__file__).resolve().parent.parent
SCENES = ROOT / "resources" / "scenes"
CMU = Path("/usr/share/assimp/models/BVH/01_01.bvh")


def _window(path, teaching: bool):
    """The editor's benchmark window; with ``teaching``, Curves and Matrix docks, trails and
    ghosts on, a pivot (or the root) selected."""
    from app.widgets.viewport.teaching_drawing import TrailSettings

    def setup(window):
        window.curves_dock.show()
        window.matrix_dock.show()
        window.set_trails(TrailSettings(enabled=True, ghosts=True))
        window.document.set_selection(_pivot_or_root(window.document))

    return bench_editor._window(path, False, setup if teaching else None)


def _pivot_or_root(document):
    from app.scene.rig.refs import Ref

    for c in document.scene.constraints:
        if c.type == "multi_parent":
            return [Ref.pivot_of(c.name, c.pivots[0].name)]
    return [Ref.bone(document.scene.bones[0].name)]


def scrub_latency_ms(path, teaching: bool, samples: int = 60) -> float:
    """Median time from the frame spin box's new value to the swapped viewport frame, the
    timeline cache warm (as it is a moment after opening)."""
    app, window = _window(path, teaching)
    try:
        return measure_scrub_latency_ms(app, window, warm=True, samples=samples)
    finally:
        _close(app, window)


def curve_view_ms(path) -> tuple[float, float]:
    """The curve view alone (1000×320, a bone's quaternion and angle over every frame): a
    frame change until its plot has repainted; and rebuilding its curves (a new selection)."""
    from app.editor.document import Document
    from app.scene.rig.refs import Ref
    from app.widgets.panels.curve_view import CurveView
    from app.window.qt_app import application

    app = application()
    doc = Document.from_file(path)
    view = CurveView(doc)
    view.resize(1000, 320)
    view.show()
    doc.set_selection([Ref.bone(doc.scene.bones[1].name)])
    for _ in range(10):
        app.processEvents()
    scene = doc.scene
    frames = iter(np.arange(scene.frame_start, scene.frame_end + 1).tolist() * 50)

    def scrub():
        doc.set_frame(next(frames))
        app.processEvents()

    def rebuild():
        view.refresh()
        app.processEvents()

    scrub_s = median_time(scrub, repeat=7, warmup=5, min_total=0.2)
    rebuild_s = median_time(rebuild, repeat=5, warmup=1, min_total=0.2)
    view.close()
    view.deleteLater()
    app.processEvents()
    return scrub_s * 1e3, rebuild_s * 1e3


def trace_ms() -> list[tuple[str, float, float]]:
    """One frame traced for the step-through, against evaluating that frame."""
    from app.scene.constraints.fabrik import solver as fabrik
    from app.scene.constraints.multi_parent.steps import steps
    from app.scene.evaluate import Evaluator
    from app.scene.io import load_scene

    out = []
    arm = load_scene(SCENES / "fabrik_arm.json")
    c = arm.constraints[0]

    def trace_arm():
        ctx = Evaluator(arm).context([17.0], None, until=c.name)
        fabrik.trace(c, ctx)

    out.append(
        (
            "FABRIK passes, fabrik_arm.json frame 17",
            median_time(trace_arm, min_total=0.2),
            median_time(lambda: Evaluator(arm).evaluate([17.0]), min_total=0.2),
        )
    )
    box = load_scene(SCENES / "tumbling_box.json")
    mp = box.constraints[0]
    out.append(
        (
            "multi-parent substeps, tumbling_box.json frame 64",
            median_time(lambda: steps(mp, box, 64), min_total=0.2),
            median_time(lambda: Evaluator(box).evaluate([64.0]), min_total=0.2),
        )
    )
    return [(name, a * 1e3, b * 1e3) for name, a, b in out]


def png_sequence_ms_per_frame() -> tuple[float, float]:
    """The foot roll's 97 frames through the viewport to PNG files, per frame; and the
    viewport's own redraw of a frame (grab without encoding), per frame."""
    from app.window.render import render_at, viewport_image, write_sequence

    app, window = _window(SCENES / "foot_roll.json", teaching=False)
    doc, viewport = window.document, window.viewport
    doc.prepare_timeline()
    frames = np.arange(doc.scene.frame_start, doc.scene.frame_end + 1, dtype=float)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        write_sequence(lambda f: render_at(viewport, doc, f), frames, Path(tmp) / "seq")
        per_frame = (time.perf_counter() - start) / len(frames)
    start = time.perf_counter()
    for f in frames:
        doc.set_frame(f)
        viewport.refresh()
        app.processEvents()
        viewport_image(viewport)
    grab = (time.perf_counter() - start) / len(frames)
    _close(app, window)
    return per_frame * 1e3, grab * 1e3


def rows() -> list[Row]:
    foot = SCENES / "foot_roll.json"
    teaching = scrub_latency_ms(foot, teaching=True)
    plain = scrub_latency_ms(foot, teaching=False)
    out = [
        Row(
            "timeline value change → swapped frame, foot_roll.json, Curves + Matrix docks, "
            "trails and ghosts on",
            teaching,
            "ms",
            "all off",
            plain,
            "≤ 16 ms (median)",
            teaching <= 16,
            note="timeline cache warm",
        ),
    ]
    if CMU.exists():
        scrub, rebuild = curve_view_ms(CMU)
        out.append(
            Row(
                "curve view: frame change → plot repainted, CMU 01_01 (2,752 frames)",
                scrub,
                "ms",
                "rebuilding its curves",
                rebuild,
                "≤ 4 ms",
                scrub <= 4.0,
            )
        )
    for name, traced, evaluated in trace_ms():
        out.append(
            Row(
                f"step-through trace: {name}",
                traced,
                "ms",
                "evaluating that frame",
                evaluated,
                "≤ 16 ms",
                traced <= 16.0,
            )
        )
    per_frame, grab = png_sequence_ms_per_frame()
    out.append(
        Row(
            "PNG sequence export, foot_roll.json 1280×800 window, per frame",
            per_frame,
            "ms",
            "viewport redraw + grab only",
            grab,
            "",
            None,
        )
    )
    return out
