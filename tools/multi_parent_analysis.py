"""Measure the multi-parent integrators against their limit (docs/multi-parent.md §8).

    QT_QPA_PLATFORM=offscreen python -m tools.multi_parent_analysis [--out docs]

Prints the markdown tables of §8 and writes three PNGs (pyqtgraph's exporter, no extra
dependency): ``multi-parent-order.png`` (distance to exact against substeps, log-log),
``multi-parent-drift.png`` (the seed's distance to exact along a ten-minute shot) and
``multi-parent-two-axes.png`` (two pivots on non-parallel axes: the head leaves both circles).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from pathlib import Path

import numpy as np

from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.math import quat
from app.scene.math.transforms import rotation_from_matrix
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene

ROOT = Path(__file__).resolve().parent.parent
SUBSTEPS = (1, 2, 4, 8, 16, 32, 64, 128)
#: A pixel at 1080p when the frame shows 2.2 units top to bottom (a standing 1.8 m figure
#: with head room, units in metres): 2.2 / 1080.
PIXEL = 2.2 / 1080


def order_scene(space: str, integrator: str = "exact", substeps: int = 1) -> Scene:
    """Three pivots on non-parallel axes, one sliding along the body, 24 frames (the
    benchmark's convergence scene)."""
    rng = np.random.default_rng(7)
    pivots = []
    for i, (position, axis) in enumerate(
        [
            ((0.3, -0.2, 0.1), (1, 0, 0)),
            ((-0.2, 0.1, 0.4), (0, 1, 0.3)),
            ((0.1, 0.4, -0.3), (0.2, 0, 1)),
        ]
    ):
        frames = np.arange(0.0, 25.0, 6.0)
        angles = np.cumsum(np.concatenate([[0.0], rng.uniform(0.3, 0.8, 4)]))
        pivots.append(
            Pivot(
                name=f"p{i}",
                position=position,
                rotation_keys=Keys(frames, quat.quat_from_axis_angle(axis, angles)),
            )
        )
    pivots[2] = dataclasses.replace(
        pivots[2], position_keys=Keys([0.0, 24.0], [[0.1, 0.4, -0.3], [0.3, -0.2, 0.2]])
    )
    mp = MultiParent(
        name="mp",
        body="body",
        pivots=tuple(pivots),
        substeps=substeps,
        space=space,
        integrator=integrator,
    )
    return Scene(
        bones=[Bone(name="body", translation=(0.0, 1.0, 0.0))], constraints=[mp], frame_end=24
    )


def with_integrator(scene: Scene, integrator: str, substeps: int) -> Scene:
    out = scene.copy()
    out.constraints = [
        dataclasses.replace(c, integrator=integrator, substeps=substeps)
        if isinstance(c, MultiParent)
        else c
        for c in scene.constraints
    ]
    return out


def state(scene: Scene, frames):
    m = bake(scene, frames).bone_to_world[:, 0]
    return m[:, :3, :3] / np.linalg.norm(m[:, :3, :3], axis=1, keepdims=True), m[:, :3, 3]


def angle_between(a, b):
    """Angles between rotation matrices ``(F, 3, 3)``."""
    # 2 asin(|A - B|_F / sqrt 8): accurate for small angles, where acos of the trace is not.
    return 2.0 * np.arcsin(np.clip(np.linalg.norm(a - b, axis=(1, 2)) / np.sqrt(8.0), 0, 1))


def order_table():
    frames = np.arange(0.0, 25.0)
    rows, curves = [], {}
    for space in ("world", "object"):
        R_exact, p_exact = state(order_scene(space), frames)
        for integrator in ("seed", "twist"):
            previous = None
            errors = []
            for n in SUBSTEPS:
                R, p = state(with_integrator(order_scene(space), integrator, n), frames)
                e_p = float(np.abs(p - p_exact).max())
                e_r = float(angle_between(R, R_exact).max())
                order = "" if previous is None else f"{math.log2(previous[0] / e_p):.2f}"
                order_r = (
                    ""
                    if previous is None or min(e_r, previous[1]) < 1e-12
                    else f"{math.log2(previous[1] / e_r):.2f}"
                )
                rows.append((space, integrator, n, e_p, order, e_r, order_r))
                previous = (e_p, e_r)
                errors.append(e_p)
            curves[(space, integrator)] = np.array(errors)
    return rows, curves


def long_shot(every: int = 12, minutes: int = 10, fps: int = 24):
    """The benchmark's ten-minute shot (four pivots, keys every 12 frames, world space)."""
    rng = np.random.default_rng(1)
    n = fps * 60 * minutes
    pivots = []
    for i in range(4):
        frames = np.arange(0, n + 1, every, dtype=float)
        values = [quat.identity()]
        for _ in frames[1:]:
            values.append(quat.mul(quat.quat_from_rotvec(rng.normal(size=3) * 0.2), values[-1]))
        pivots.append(
            Pivot(
                name=f"p{i}",
                position=tuple(rng.normal(size=3) * 0.3),
                rotation_keys=Keys(frames, np.array(values)),
            )
        )
    mp = MultiParent(
        name="mp", body="body", pivots=tuple(pivots), space="world", integrator="exact"
    )
    return Scene(
        bones=[Bone(name="body", translation=(0.0, 1.0, 0.0))],
        constraints=[mp],
        fps=fps,
        frame_end=n,
    )


def drift():
    scene = long_shot()
    frames = np.arange(0.0, scene.frame_end + 1)
    R_exact, p_exact = state(scene, frames)
    out = {}
    for n in (4, 16):
        R, p = state(with_integrator(scene, "seed", n), frames)
        out[n] = (
            np.linalg.norm(p - p_exact, axis=1),
            angle_between(R, R_exact),
            np.linalg.norm(p_exact - p_exact[0], axis=1),
        )
    return frames, out


def one_frame_errors(scene: Scene, substeps: int, space: str | None = None):
    """The seed's error made within each frame alone: from the exact state at frame f, one
    frame of the seed against one frame of the exact integrator (the local error)."""
    c = next(x for x in scene.constraints if isinstance(x, MultiParent))
    frames = np.arange(scene.frame_start, scene.frame_end, dtype=float)
    space = space or c.space
    body = scene.bone_index(c.body)
    exact = bake(with_integrator(scene, "exact", 1), frames, space).bone_to_world[:, body]
    errors = []
    for f, m in zip(frames, exact):

        def shifted(k, f=f):
            return None if k is None else Keys(k.frames - f, k.values, k.interpolation)

        pivots = tuple(
            dataclasses.replace(
                p, rotation_keys=shifted(p.rotation_keys), position_keys=shifted(p.position_keys)
            )
            for p in c.pivots
        )
        scale = np.asarray(scene.bone(c.body).scale)
        bone = dataclasses.replace(
            scene.bone(c.body),
            parent=None,
            translation_keys=None,
            rotation_keys=None,
            scale_keys=None,
            translation=tuple(m[:3, 3]),
            rotation=tuple(rotation_from_matrix(m[:3, :3] / scale)),
        )
        one = Scene(
            bones=[bone],
            constraints=[dataclasses.replace(c, pivots=pivots, space=space)],
            frame_start=0,
            frame_end=1,
        )
        a = bake(with_integrator(one, "seed", substeps), [1.0]).heads[0, 0]
        b = bake(with_integrator(one, "exact", 1), [1.0]).heads[0, 0]
        errors.append(float(np.linalg.norm(a - b)))
    return np.array(errors)


def two_axes():
    """Two pivots turning at once about perpendicular axes; the circles each would draw alone."""
    keys_x = Keys([0.0, 48.0], quat.quat_from_axis_angle((1, 0, 0), [0.0, 2.4]))
    keys_y = Keys([0.0, 48.0], quat.quat_from_axis_angle((0, 1, 0), [0.0, 2.4]))
    pivots = (
        Pivot(name="a", position=(0.0, 0.5, 0.0), rotation_keys=keys_x),
        Pivot(name="b", position=(0.0, 0.0, 0.5), rotation_keys=keys_y),
    )

    def head(pv, integrator="exact", n=1):
        mp = MultiParent(
            name="mp", body="body", pivots=pv, space="world", integrator=integrator, substeps=n
        )
        scene = Scene(bones=[Bone(name="body")], constraints=[mp], frame_end=48)
        return bake(scene, np.linspace(0, 48, 193)).heads[:, 0]

    both = head(pivots)
    alone = [head(pivots[:1]), head(pivots[1:])]
    seed4 = head(pivots, "seed", 1)
    return both, alone, seed4


def export(widget, path: Path, size=(900, 560)):
    import pyqtgraph.exporters as exporters
    from PySide6 import QtWidgets

    widget.resize(*size)
    widget.show()  # lays the plots out at this size (offscreen)
    QtWidgets.QApplication.processEvents()
    exporter = exporters.ImageExporter(widget.scene())
    exporter.parameters()["width"] = size[0]
    exporter.export(str(path))


def plots(out: Path, curves, drift_data, two):
    import pyqtgraph as pg
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    pg.setConfigOptions(antialias=True, background="w", foreground="k")
    colors = {
        ("world", "seed"): (220, 110, 0),
        ("world", "twist"): (30, 110, 220),
        ("object", "seed"): (250, 170, 80),
        ("object", "twist"): (120, 170, 240),
    }
    layout = pg.GraphicsLayoutWidget()
    p = layout.addPlot(title="Distance to exact (max over 24 frames) against substeps")
    p.setLogMode(x=True, y=True)
    p.addLegend(offset=(-10, 10))
    p.showGrid(x=True, y=True, alpha=0.3)
    p.setLabel("bottom", "substeps per frame")
    p.setLabel("left", "head position error (units)")
    for key, errors in curves.items():
        style = QtCore_dash() if key[0] == "object" else None
        p.plot(
            np.array(SUBSTEPS, float),
            errors,
            pen=pg.mkPen(colors[key], width=2.5, style=style),
            symbol="o",
            symbolSize=6,
            symbolBrush=colors[key],
            name=f"{key[1]}, {key[0]}",
        )
    slope = curves[("world", "seed")][0] / np.array(SUBSTEPS, float)
    p.plot(
        np.array(SUBSTEPS, float),
        slope * 0.5,
        pen=pg.mkPen((120, 120, 120), width=1, style=QtCore_dash()),
        name="slope −1 (first order)",
    )
    export(layout, out / "multi-parent-order.png")

    frames, data = drift_data
    layout = pg.GraphicsLayoutWidget()
    p = layout.addPlot(title="Seed against exact along the ten-minute shot (world space)")
    p.addLegend(offset=(10, 10))
    p.showGrid(x=True, y=True, alpha=0.3)
    p.setLabel("bottom", "frame")
    p.setLabel("left", "head distance to exact (units)")
    for n, color in ((4, (220, 110, 0)), (16, (30, 110, 220))):
        p.plot(frames, data[n][0], pen=pg.mkPen(color, width=1.5), name=f"seed, {n} substeps")
    p.addLine(y=PIXEL, pen=pg.mkPen((150, 0, 0), style=QtCore_dash()))
    export(layout, out / "multi-parent-drift.png")

    both, alone, seed = two
    layout = pg.GraphicsLayoutWidget()
    for title, (i, j) in (
        ("seen along world Z (x, y)", (0, 1)),
        ("seen along world Y (x, z)", (0, 2)),
        ("seen along world X (y, z)", (1, 2)),
    ):
        p = layout.addPlot(title=title)
        p.setAspectLocked(True)
        p.showGrid(x=True, y=True, alpha=0.3)
        p.addLegend(offset=(10, 10))
        p.plot(
            alone[0][:, i],
            alone[0][:, j],
            pen=pg.mkPen((30, 110, 220), width=2),
            name="pivot a alone (about X)",
        )
        p.plot(
            alone[1][:, i],
            alone[1][:, j],
            pen=pg.mkPen((0, 150, 60), width=2),
            name="pivot b alone (about Y)",
        )
        p.plot(both[:, i], both[:, j], pen=pg.mkPen((0, 0, 0), width=3), name="both: exact")
        p.plot(
            seed[:, i],
            seed[:, j],
            pen=pg.mkPen((220, 110, 0), width=1.5, style=QtCore_dash()),
            name="both: seed, 1 substep",
        )
    export(layout, out / "multi-parent-two-axes.png", size=(1350, 480))
    del app


def QtCore_dash():
    from PySide6 import QtCore

    return QtCore.Qt.PenStyle.DashLine


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    rows, curves = order_table()
    print(
        "| space | integrator | substeps | max position error | order | max angle (rad) | "
        "order |\n|---|---|---:|---:|---:|---:|---:|"
    )
    for space, integ, n, e_p, order, e_r, order_r in rows:
        print(f"| {space} | {integ} | {n} | {e_p:.3g} | {order} | {e_r:.3g} | {order_r} |")

    frames, data = drift()
    print("\nDrift along the ten-minute shot (world space), seed vs exact:")
    print(
        "| substeps | at 1 min | at 5 min | at 10 min | max | max angle (rad) | "
        "distance travelled |\n|---:|---:|---:|---:|---:|---:|---:|"
    )
    for n, (d, a, travelled) in data.items():
        at = [d[int(m * 60 * 24)] for m in (1, 5, 10)]
        print(
            f"| {n} | {at[0]:.3g} | {at[1]:.3g} | {at[2]:.3g} | {d.max():.3g} | "
            f"{a.max():.3g} | {travelled.max():.3g} |"
        )

    both, alone, seed = two_axes()
    off = [
        float(np.min(np.linalg.norm(both[:, None] - c[None], axis=2), axis=1).max()) for c in alone
    ]
    print(
        f"\nTwo pivots on perpendicular axes: the exact head passes up to {off[0]:.3f} and "
        f"{off[1]:.3f} units from the circles each pivot draws alone; the seed at 1 substep "
        f"ends {np.linalg.norm(seed[-1] - both[-1]):.4f} from it."
    )

    foot = load_scene(ROOT / "resources" / "scenes" / "foot_roll.json")
    print(f"\nOne pixel at 1080p framing 2.2 units: {PIXEL:.5f} units.")
    print(
        "| scene | space | substeps | largest one-frame error | px | largest accumulated | px |"
        "\n|---|---|---:|---:|---:|---:|---:|"
    )
    for space in ("object", "world"):
        exact_heads = bake(with_integrator(foot, "exact", 1), None, space).heads[:, 0]
        for n in (1, 4, 16, 64):
            local = one_frame_errors(foot, n, space).max()
            total = np.linalg.norm(
                bake(with_integrator(foot, "seed", n), None, space).heads[:, 0] - exact_heads,
                axis=1,
            ).max()
            print(
                f"| foot_roll | {space} | {n} | {local:.3g} | {local / PIXEL:.2f} | "
                f"{total:.3g} | {total / PIXEL:.1f} |"
            )
    plots(args.out, curves, (frames, data), (both, alone, seed))


if __name__ == "__main__":
    main()
