"""Retargeting (issue 25): CMU ``01_01.bvh`` (2,752 frames) onto a Mixamo character.

- the retarget itself (both humanoid maps read, the motion put on the character, keyed at
  every frame), beside loading the two files in the same run;
- the editor (1280×800) playing the result with its skinned mesh, beside the same window
  playing the bare skeleton.

The character is the Mixamo-named A-pose character in centimetres the tests build
(``tests/helpers/retarget_judge.py``), saved as a glTF binary with a skinned body of envelope tubes
around its bones (about as many vertices as Mixamo's X Bot); set ``PIVOTAL_RETARGET_ONTO``
to a character file (Mixamo's ``Xbot.glb``, say) to measure on that instead.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.common import Row, median_time

CMU_01_01 = Path("/usr/share/assimp/models/BVH/01_01.bvh")
BODY_VERTICES = 15_000


def _character_file(folder: Path) -> Path:
    given = os.environ.get("PIVOTAL_RETARGET_ONTO")
    if given:
        return Path(given)
    from app.scene.formats.gltf.export import write_meshes_glb
    from tests.helpers.retarget_judge import mixamo_body, mixamo_character

    character = mixamo_character()
    character.meshes = (mixamo_body(character, BODY_VERTICES),)
    path = folder / "mixamo_character.glb"
    write_meshes_glb(character, path)
    return path


def rows() -> list[Row]:
    from app.scene.io import load_scene
    from app.scene.retarget.map_file import map_of
    from app.scene.retarget.transfer import retarget

    with tempfile.TemporaryDirectory() as folder:
        path = _character_file(Path(folder))
        clip, character = load_scene(CMU_01_01), load_scene(path)

        def run():
            return retarget(clip, map_of(clip), character, map_of(character))

        def load_both():
            load_scene(CMU_01_01)
            load_scene(path)

        t_retarget = median_time(run, repeat=5)
        t_load = median_time(load_both, repeat=5)
        done = run()
        scene = done.scene
        vertices = sum(len(m.positions) for m in scene.meshes)
        with_mesh = _play(scene, keep_meshes=True)
        bare = _play(scene, keep_meshes=False)
        cpu_mesh = _play_cpu_ms(scene, keep_meshes=True)
        cpu_bare = _play_cpu_ms(scene, keep_meshes=False)
    frames = clip.frame_end - clip.frame_start + 1
    name = path.name
    return [
        Row(
            f"retarget CMU 01_01 ({frames:,} frames × {len(clip.bones)} joints) onto {name} "
            f"({len(character.bones)} bones, {len(done.pairs)} mapped on both): both maps "
            "and the keyed character",
            t_retarget * 1e3,
            "ms",
            "loading both files",
            t_load * 1e3,
            "≤ 500 ms",
            t_retarget <= 0.5,
        ),
        Row(
            f"the editor playing the retargeted clip with its {vertices:,}-vertex skinned "
            "mesh, 1280×800",
            with_mesh,
            "fps",
            "the bare skeleton",
            bare,
            "≥ 60 fps",
            with_mesh >= 60,
            ratio=with_mesh / bare,
        ),
        Row(
            f"processor time of one playing redraw of the retargeted clip with its "
            f"{vertices:,}-vertex mesh (all threads; 60 fps is 16.7 ms)",
            cpu_mesh,
            "ms",
            "the bare skeleton",
            cpu_bare,
            "(figure)",
            None,
        ),
    ]


def _play(scene, keep_meshes: bool) -> float:
    from benchmarks.bench_editor import redraw_fps

    def setup(window):
        shown = scene.copy()
        if not keep_meshes:
            shown.meshes = ()
        window.document.replace_scene(shown, None)

    return redraw_fps(CMU_01_01, False, True, setup=setup)


def _play_cpu_ms(scene, keep_meshes: bool, frames: int = 60) -> float:
    """Processor time (every thread of the process: llvmpipe rasterizes in its own) per
    redraw while playing, median of three runs: what a frame costs, which the machine's
    other jobs inflate far less than they do a frame rate."""
    import statistics
    import time

    from benchmarks.bench_editor import _close, _wait_swap, _window

    def setup(window):
        shown = scene.copy()
        if not keep_meshes:
            shown.meshes = ()
        window.document.replace_scene(shown, None)

    app, window = _window(CMU_01_01, False, setup=setup)
    doc = window.document
    doc.prepare_timeline()
    swapped = []
    window.viewport.frameSwapped.connect(lambda: swapped.append(time.perf_counter()))
    span = scene.frame_end - scene.frame_start + 1

    def play(n, start):
        for k in range(n):
            doc.set_frame(scene.frame_start + (start + k) % span)
            _wait_swap(app, swapped, len(swapped) + 1)

    play(10, 0)  # warm-up: shaders, buffers
    runs = []
    for r in range(3):
        swapped.clear()
        begin = time.process_time()
        play(frames, 10 + r * frames)
        runs.append(1e3 * (time.process_time() - begin) / max(len(swapped), 1))
    _close(app, window)
    return statistics.median(runs)
