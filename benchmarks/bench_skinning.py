"""Skinned meshes: linear blend skinning speed, and the viewport drawing one.

- deforming a 50,000-vertex mesh with 4 influences per vertex (positions and normals,
  float32 as the viewport uploads them), next to glTF's formula as a per-vertex Python loop
  timed on a slice and scaled to the whole mesh; and the same written in place into the
  viewport's interleaved vertex array (what a redraw while playing does);
- the 1280×800 editor window orbiting around the CMU 01_01 skeleton wrapped in that mesh,
  next to the same window without the mesh, and playing (skinning every redraw);
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
    vertex), with at least ``vertices`` vertices."""
    from app.scene.evaluate import bake
    from app.scene.rig.envelope import tube_mesh

    pose = bake(scene, np.array([float(scene.frame_start)]))
    heads, tails = pose.heads[0], pose.tails[0]
    lengths = np.linalg.norm(tails - heads, axis=1)
    tubes = int(np.sum(lengths > 1e-9))
    sides = 32
    rings = int(np.ceil((vertices / tubes - 2) / sides))
    radius = 0.18 * lengths
    return tube_mesh(pose.bone_to_world[0], heads, tails, [str(n) for n in pose.bone_names],
                     radius=radius, sides=sides, rings=rings, influences=4)  # fmt: skip


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
        Row(f"skin {v:,} vertices × {used:.0f} influences, positions + normals (float32)",
            fast, "ms", f"per-vertex Python loop ({SLICE} vertices, scaled)", loop,
            "≤ 5 ms per frame", fast <= 5.0),
        Row(f"skin {v:,} vertices × {used:.0f} influences into the viewport's vertex array "
            "(float32, in place)",
            into, "ms", f"per-vertex Python loop ({SLICE} vertices, scaled)", loop,
            "≤ 5 ms per frame", into <= 5.0),
        Row(f"skin {v:,} vertices × {used:.0f} influences, positions + normals (float64)",
            double, "ms", f"per-vertex Python loop ({SLICE} vertices, scaled)", loop,
            "(figure)", None),
    ]  # fmt: skip


def viewport_fps(scene, mesh, playing: bool, frames: int = 90, path=CMU_01_01) -> float:
    """Redraws per second of the 1280×800 window on ``scene`` (with ``mesh`` or without),
    orbiting a degree per redraw, or playing (a new frame, so a new skinning, per redraw)."""
    from benchmarks.bench_editor import redraw_fps

    def setup(window):
        shown = scene.copy()
        shown.meshes = () if mesh is None else (mesh,)
        window.document.replace_scene(shown, None)

    return redraw_fps(path, False, playing, frames, setup=setup)


def orbit_cpu_ms(scene, mesh, frames: int = 60, path=CMU_01_01) -> float:
    """Processor time (all of the process's threads) per orbiting redraw of the 1280×800
    window on ``scene`` with ``mesh`` (or without: ``None``), median of three runs."""
    import statistics
    import time

    from benchmarks.bench_editor import _close, _wait_swap, _window

    def setup(window):
        shown = scene.copy()
        shown.meshes = () if mesh is None else (mesh,)
        window.document.replace_scene(shown, None)

    app, window = _window(path, False, setup=setup)
    viewport = window.viewport
    swapped = []
    viewport.frameSwapped.connect(lambda: swapped.append(time.perf_counter()))

    def orbit(n):
        for _ in range(n):
            viewport.orbit(1.0, 0.0)
            _wait_swap(app, swapped, len(swapped) + 1)

    orbit(10)  # warm-up: shaders, buffers
    runs = []
    for _ in range(3):
        swapped.clear()
        start = time.process_time()
        orbit(frames)
        runs.append(1e3 * (time.process_time() - start) / max(len(swapped), 1))
    _close(app, window)
    return statistics.median(runs)


def rows() -> list[Row]:
    from app.scene.io import load_scene

    scene = load_scene(CMU_01_01)
    out = skinning_rows(scene)
    mesh = body(scene)
    v = len(mesh.positions)
    orbit_mesh = viewport_fps(scene, mesh, playing=False)
    orbit_bare = viewport_fps(scene, None, playing=False)
    play_mesh = viewport_fps(scene, mesh, playing=True)
    play_bare = viewport_fps(scene, None, playing=True)
    cpu_mesh = orbit_cpu_ms(scene, mesh)
    cpu_bare = orbit_cpu_ms(scene, None)
    humanoid = load_scene(HUMANOID)
    (body_mesh,) = humanoid.meshes
    hv = len(body_mesh.positions)
    orbit_human = viewport_fps(humanoid, body_mesh, playing=False, path=HUMANOID)
    orbit_skeleton = viewport_fps(humanoid, None, playing=False, path=HUMANOID)
    out += [
        Row(f"redraw CMU 01_01 with a {v:,}-vertex skinned mesh, 1280×800, orbiting",
            orbit_mesh, "fps", "no mesh", orbit_bare, "≥ 60 fps", orbit_mesh >= 60,
            ratio=orbit_mesh / orbit_bare),
        Row(f"redraw CMU 01_01 with a {v:,}-vertex skinned mesh, playing (skinned each redraw)",
            play_mesh, "fps", "no mesh", play_bare, "(figure)", None,
            ratio=play_mesh / play_bare),
        Row(f"processor time of one orbiting redraw of CMU 01_01 with the {v:,}-vertex mesh "
            "(all threads)",
            cpu_mesh, "ms", "no mesh", cpu_bare, "(figure)", None),
        Row(f"redraw humanoid.glb with its {hv:,}-vertex skinned body, 1280×800, orbiting",
            orbit_human, "fps", "no mesh", orbit_skeleton, "≥ 60 fps", orbit_human >= 60,
            ratio=orbit_human / orbit_skeleton),
    ]  # fmt: skip
    return out
