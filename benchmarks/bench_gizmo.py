"""Gizmo figures under Mesa's llvmpipe (run under xvfb-run, as ``make bench`` does).

- redraw rate of the demo scene (foot roll) at 1280x800 while playing, with the rotate
  gizmo on the selected pivot (its rings rebuilt for every new pose), next to the same
  redraw with the gizmo off;
- the CPU pick under the cursor on a mouse move (the hover highlight), next to one rebuild
  of the viewport's items from the document (what a pose change costs without the gizmo).
"""

from __future__ import annotations

import numpy as np

from benchmarks.bench_editor import SIZE, _close, _window, demo_scene, redraw_fps
from benchmarks.common import Row, median_time

PIVOT = ("foot_roll", "heel")


def _with_gizmo(mode: str):
    def setup(window):
        from app.scene.rig.refs import Ref

        window.document.set_selection([Ref.pivot_of(*PIVOT)])
        window.viewport.gizmo.set_mode(mode)

    return setup


def playing_fps(path, mode: str, frames: int = 90) -> float:
    """Redraws per second while the frame advances each redraw (warm timeline cache)."""
    return redraw_fps(path, False, True, frames, setup=_with_gizmo(mode))


def hover_and_refresh_ms(path) -> tuple[float, float]:
    """Median ms of a hover pick over the rotate gizmo, and of a viewport refresh with the
    gizmo off."""
    app, window = _window(path, compare=False, setup=_with_gizmo("rotate"))
    viewport = window.viewport
    ring = next(p for p in viewport.gizmo.parts() if p.name == "x")
    on_ring = viewport.project(ring.points[ring.mask])
    pixels = np.concatenate([on_ring, on_ring + (15.0, 0.0)])  # on and off the ring
    state = {"k": 0}

    def hover():
        state["k"] = (state["k"] + 1) % len(pixels)
        viewport.gizmo.hover(pixels[state["k"]])

    pick = median_time(hover, repeat=7, min_total=0.05)
    viewport.gizmo.set_mode("off")
    refresh = median_time(viewport.refresh, repeat=7, min_total=0.05)
    _close(app, window)
    return pick * 1e3, refresh * 1e3


def rows() -> list[Row]:
    path = demo_scene()
    name = path.name
    w, h = SIZE
    on = playing_fps(path, "rotate")
    off = playing_fps(path, "off")
    pick, refresh = hover_and_refresh_ms(path)
    return [
        Row(
            f"redraw {name}, rotate gizmo on a pivot, playing, {w}×{h}",
            on,
            "fps",
            "gizmo off",
            off,
            "≥ 0.8× gizmo off",
            on >= 0.8 * off,
            ratio=on / off,
            note="the absolute rate is bench_editor's row",
        ),
        Row(
            f"gizmo hover pick per mouse move, {name} pivot",
            pick,
            "ms",
            "viewport refresh, gizmo off",
            refresh,
            "≤ 2 ms (median)",
            pick <= 2.0,
        ),
    ]
