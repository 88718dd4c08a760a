"""Skinned meshes: linear blend skinning speed, and the viewport drawing one.

- deforming a 50,000-vertex mesh with 4 influences per vertex with numpy (positions and
  normals; what exports, framing and the viewport without OpenGL 3.1 use), next to glTF's
  formula as a per-vertex Python loop timed on a slice and scaled to the whole mesh; and the
  same written in place into an interleaved vertex array;
- the 1280×800 editor window orbiting around the CMU 01_01 skeleton wrapped in that mesh and
  playing it (a new pose skinned on the card each redraw), next to the same window without
  the mesh; and playing the 100,000-vertex, 8-influence character of
  ``tools/make_scale_scenes.py``; the windows are open at once and measured in turn, round
  after round (:class:`benchmarks.bench_scale.Rounds`), so each ratio is of rounds that
  alternate;
- one skinning pass of that character on the card, finished, next to numpy's skinning;
- the processor time of one orbiting redraw, all threads (llvmpipe rasterizes in its own),
  with the mesh and without: the cost of drawing the mesh, which the machine's other jobs
  inflate far less than they do a frame rate;
- the same window orbiting around the worked example's humanoid (its own ~2,400-vertex body),
  next to its bare skeleton.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.common import Row, median_time

VERTICES = 50_000
SLICE = 400
CMU_01_01 = Path("/usr/share/assimp/models/BVH/01_01.bvh")
HUMANOID = Path(__file__).resolve().parent.parent / "resources" / "scenes" / "humanoid.glb"


def body(scene, vertices: int = VERTICES):
    """The scene's skeleton at its first frame wrapped in envelope tubes (4 influences per
    vertex), with at least ``vertices`` vertices (``tools/make_scale_scenes.py``)."""
    from tools.make_scale_scenes import body as tubes

    return tubes(scene, vertices, influences=4)


def _loop_ms_per_vertex(mesh, skin, bone_to_world) -> float:
    """glTF's formula one vertex at a time (the palette of skin matrices given), on a slice."""
    palette = skin.skin_matrices(bone_to_world)[0]  # (J + 1, 3, 4)
    positions, normals = mesh.positions[:SLICE], skin.normals[:SLICE]
    joints, weights = mesh.joint_indices[:SLICE], mesh.weights[:SLICE]

    def loop():
        out_p, out_n = [], []
        for v in range(SLICE):
            m = np.zeros((3, 4))
            for k in range(4):
                m += weights[v, k] * palette[joints[v, k]]
            out_p.append(m[:, :3] @ positions[v] + m[:, 3])
            n = np.linalg.inv(m[:, :3]).T @ normals[v]
            out_n.append(n / np.linalg.norm(n))
        return out_p, out_n

    return 1e3 * median_time(loop, repeat=3) / SLICE


def skinning_rows(scene) -> list[Row]:
    from app.scene.evaluate import bake
    from app.scene.rig.skinning import bind

    mesh = body(scene)
    names = [b.name for b in scene.bones]
    frames = np.arange(scene.frame_start, scene.frame_start + 8, dtype=float)
    poses = bake(scene, frames).bone_to_world
    skin32 = bind(mesh, names, dtype=np.float32)
    skin64 = bind(mesh, names)
    used = int(np.sum(mesh.weights > 0)) / len(mesh.positions)
    state = {"k": 0}

    def deform(skin):
        def run():
            state["k"] = (state["k"] + 1) % len(poses)
            skin.deform(poses[state["k"]])

        return run

    fast = 1e3 * median_time(deform(skin32), repeat=15, warmup=2)
    vertices = np.empty((len(mesh.positions), 6), dtype=np.float32)  # the viewport's layout

    def in_place():
        state["k"] = (state["k"] + 1) % len(poses)
        skin32.deform(poses[state["k"]], out=(vertices[:, :3], vertices[:, 3:]))

    into = 1e3 * median_time(in_place, repeat=15, warmup=2)
    double = 1e3 * median_time(deform(skin64), repeat=9, warmup=1)
    loop = _loop_ms_per_vertex(mesh, skin64, poses[1]) * len(mesh.positions)
    v = len(mesh.positions)
    return [
        Row(
            f"skin {v:,} vertices × {used:.0f} influences, positions + normals (float32)",
            fast,
            "ms",
            f"per-vertex Python loop ({SLICE} vertices, scaled)",
            loop,
            "≤ 5 ms per frame",
            fast <= 5.0,
        ),
        Row(
            f"skin {v:,} vertices × {used:.0f} influences into the viewport's vertex array "
            "(float32, in place)",
            into,
            "ms",
            f"per-vertex Python loop ({SLICE} vertices, scaled)",
            loop,
            "≤ 5 ms per frame",
            into <= 5.0,
        ),
        Row(
            f"skin {v:,} vertices × {used:.0f} influences, positions + normals (float64)",
            double,
            "ms",
            f"per-vertex Python loop ({SLICE} vertices, scaled)",
            loop,
            "(figure)",
            None,
        ),
    ]


def _window_on(scene, mesh, path=CMU_01_01):
    """The 1280×800 editor window on ``scene`` with ``mesh`` (or none), timeline cached."""
    from benchmarks.bench_editor import _window

    def setup(window):
        shown = scene.copy()
        shown.meshes = () if mesh is None else (mesh,)
        window.document.replace_scene(shown, None)

    app, window = _window(path, False, setup=setup)
    window.document.prepare_timeline()
    return app, window


def viewport_fps(scene, mesh, playing: bool, frames: int = 90, path=CMU_01_01) -> float:
    """Redraws per second of the 1280×800 window on ``scene`` (with ``mesh`` or without),
    orbiting a degree per redraw, or playing (a new frame, so a new skinning, per redraw)."""
    from benchmarks.bench_editor import redraw_fps

    def setup(window):
        shown = scene.copy()
        shown.meshes = () if mesh is None else (mesh,)
        window.document.replace_scene(shown, None)

    return redraw_fps(path, False, playing, frames, setup=setup)


def card_pass_ms(window, repeat: int = 20) -> tuple[float, float]:
    """(wall, main thread CPU) ms of one skinning pass on the card of the window's mesh, the
    pass finished (``glFinish``), each pose a new one."""
    import time

    from OpenGL import GL

    (item,) = window.viewport.drawing.meshes.items
    window.viewport.makeCurrent()
    timeline = window.document.timeline()
    palettes = [item.gpu.palette(timeline.bone_to_world[k]) for k in range(repeat)]
    item.gpu.skin(palettes[0], item._vbo)
    GL.glFinish()
    wall, cpu = time.perf_counter(), time.thread_time()
    for palette in palettes:
        item.gpu.skin(palette, item._vbo)
        GL.glFinish()
    return (1e3 * (time.perf_counter() - wall) / repeat, 1e3 * (time.thread_time() - cpu) / repeat)


def rows() -> list[Row]:
    import statistics

    from app.scene.evaluate import bake
    from app.scene.io import load_scene
    from app.scene.rig.skinning import bind
    from benchmarks.bench_editor import _close
    from benchmarks.bench_scale import Rounds, _orbit, _play
    from tools.make_scale_scenes import skinned_character

    scene = load_scene(CMU_01_01)
    out = skinning_rows(scene)
    mesh = body(scene)
    heavy = skinned_character(100_000, 8).meshes[0]
    v, hv = len(mesh.positions), len(heavy.positions)
    windows = {
        name: _window_on(scene, m) for name, m in (("mesh", mesh), ("bare", None), ("heavy", heavy))
    }
    try:
        app = windows["mesh"][0]
        r = Rounds(app)
        for name, (_, window) in windows.items():
            if name != "heavy":
                r.add(f"orbit {name}", window, _orbit(window))
        for name, (_, window) in windows.items():
            r.add(f"play {name}", window, _play(window))
        r.run()
        card_wall, card_cpu = card_pass_ms(windows["heavy"][1])
    finally:
        for app, window in windows.values():
            _close(app, window)
    heavy_skin = bind(heavy, scene.bone_names(), dtype=np.float32)
    pose = bake(scene, np.array([float(scene.frame_start) + 10])).bone_to_world[0]
    heavy_numpy = 1e3 * median_time(lambda: heavy_skin.deform(pose), repeat=5)
    orbit_mesh, orbit_bare = r.median("orbit mesh"), r.median("orbit bare")
    play_mesh, play_bare, play_heavy = (r.median(f"play {k}") for k in ("mesh", "bare", "heavy"))
    cpu_mesh, cpu_bare = (statistics.median(r.cpu[f"orbit {k}"]) for k in ("mesh", "bare"))

    humanoid = load_scene(HUMANOID)
    (body_mesh,) = humanoid.meshes
    hv_small = len(body_mesh.positions)
    pair = {
        name: _window_on(humanoid, m, path=HUMANOID)
        for name, m in (("mesh", body_mesh), ("bare", None))
    }
    try:
        h = Rounds(pair["mesh"][0])
        for name, (_, window) in pair.items():
            h.add(name, window, _orbit(window))
        h.run()
    finally:
        for app, window in pair.values():
            _close(app, window)
    orbit_human, orbit_skeleton = h.median("mesh"), h.median("bare")
    out += [
        Row(
            f"redraw CMU 01_01 with a {v:,}-vertex skinned mesh, 1280×800, orbiting",
            orbit_mesh,
            "fps",
            "no mesh",
            orbit_bare,
            "≥ 60 fps, ≥ 0.9× no mesh",
            orbit_mesh >= 60 and orbit_mesh >= 0.9 * orbit_bare,
            ratio=orbit_mesh / orbit_bare,
            note=r.spread("orbit mesh"),
        ),
        Row(
            f"redraw CMU 01_01 with a {v:,}-vertex skinned mesh, playing (skinned each redraw, "
            "on the card)",
            play_mesh,
            "fps",
            "no mesh, playing",
            play_bare,
            "≥ 0.85× no mesh",
            play_mesh >= 0.85 * play_bare,
            ratio=play_mesh / play_bare,
            note=r.spread("play mesh"),
        ),
        Row(
            f"redraw CMU 01_01 with a {hv:,}-vertex, 8-influence character, playing",
            play_heavy,
            "fps",
            "no mesh, playing",
            play_bare,
            "≥ 60 fps",
            play_heavy >= 60,
            ratio=play_heavy / play_bare,
            note=r.spread("play heavy"),
        ),
        Row(
            f"skin the {hv:,}-vertex, 8-influence character on the card, one pose "
            "(transform feedback into the buffer drawn, finished)",
            card_wall,
            "ms",
            "numpy, float32",
            heavy_numpy,
            "(figure)",
            None,
            note=f"main thread CPU {card_cpu:.2f} ms",
        ),
        Row(
            f"processor time of one orbiting redraw of CMU 01_01 with the {v:,}-vertex mesh "
            "(all threads)",
            cpu_mesh,
            "ms",
            "no mesh",
            cpu_bare,
            "(figure)",
            None,
        ),
        Row(
            f"redraw humanoid.glb with its {hv_small:,}-vertex skinned body, 1280×800, orbiting",
            orbit_human,
            "fps",
            "no mesh",
            orbit_skeleton,
            "≥ 60 fps",
            orbit_human >= 60,
            ratio=orbit_human / orbit_skeleton,
            note=h.spread("mesh"),
        ),
    ]
    return out
