"""What a click, a paint and a space switch cost in the viewport (issue 26, items 1 to 3), under
Mesa's llvmpipe (run under xvfb-run, as ``make bench`` does), on the rigged humanoid (both
legs' foot-roll rigs: 23 bones, 12 handles and labels):

- the pick under the cursor on a mouse move (the hover, and what a click selects: a handle's
  dot, a bone's body, what is under it next), next to one rebuild of the viewport's items;
- laying out the labels beside their handles, as each paint does, next to the same rebuild;
- a space switch with Compare on that must frame the animation again (World on the demo at
  its last frame: the pose would leave the view), next to the same switch on a camera that
  already holds both spaces (the check alone).
"""

from __future__ import annotations

import numpy as np

from benchmarks.bench_editor import _close, _window, demo_scene
from benchmarks.common import Row, median_time


def _rig(window) -> None:
    from app.editor.operations.rig_operations import add_foot_roll_rig, suggested_leg

    doc = window.document
    for side in ("right", "left"):
        add_foot_roll_rig(doc, suggested_leg(doc, side))
    window.viewport.frame_opened()


def pick_labels_refresh_ms() -> tuple[float, float, float]:
    """Median ms of a pick at a bone's middle, of one label layout and of one refresh."""
    from app.editor.files import SHIPPED

    app, window = _window(SHIPPED / "scenes" / "humanoid.glb", compare=False, setup=_rig)
    vp = window.viewport
    pose = window.document.pose()
    middles = vp.project(0.5 * (pose.heads[0] + pose.tails[0]))
    state = {"k": 0}

    def pick():
        state["k"] = (state["k"] + 1) % len(middles)
        vp.pick(middles[state["k"]])

    picked = median_time(pick, repeat=7, min_total=0.05)
    labels = vp.drawing.labels
    laid = median_time(labels.layout, repeat=7, min_total=0.05)
    refresh = median_time(vp.refresh, repeat=7, min_total=0.05)
    _close(app, window)
    return picked * 1e3, laid * 1e3, refresh * 1e3


def space_switch_ms() -> tuple[float, float]:
    """Median ms of World → Object → World with Compare on at the demo's last frame: framed
    again each time (the camera put back first), and with a camera that holds both."""
    path = demo_scene()

    def setup(window):
        doc = window.document
        doc.set_frame(doc.scene.frame_end)

    app, window = _window(path, compare=True, setup=setup)
    doc, vp = window.document, window.viewport
    start = dict(vp.opts)

    def reframed():
        vp.opts.update(start)  # the camera of the opened scene: World takes the pose out
        doc.set_space("world")
        doc.set_space("object")

    framing = median_time(reframed, repeat=5)
    doc.set_space("world")
    held = dict(vp.opts)  # framed for both spaces now

    def checked():
        vp.opts.update(held)
        doc.set_space("object")
        doc.set_space("world")

    check = median_time(checked, repeat=5)
    assert np.isfinite(framing) and np.isfinite(check)
    _close(app, window)
    return framing * 1e3 / 2, check * 1e3 / 2


def rows() -> list[Row]:
    picked, laid, refresh = pick_labels_refresh_ms()
    framing, check = space_switch_ms()
    return [
        Row(
            "pick under the cursor per mouse move, rigged humanoid",
            picked,
            "ms",
            "viewport refresh",
            refresh,
            "≤ 2 ms (median)",
            picked <= 2.0,
        ),
        Row(
            "label layout per paint, rigged humanoid (12 labels)",
            laid,
            "ms",
            "viewport refresh",
            refresh,
            "≤ 1 ms (median)",
            laid <= 1.0,
        ),
        Row(
            "space switch that frames again, demo with Compare, last frame",
            framing,
            "ms",
            "space switch, camera holds both",
            check,
            "≤ 100 ms (median)",
            framing <= 100.0,
        ),
    ]
