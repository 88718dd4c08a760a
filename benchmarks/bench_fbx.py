"""FBX figure: import of a 65-joint skinned, animated character (``tests/data/fbx/character65.fbx``,
made with Blender's FBX exporter; its README says how), against assimp's own read of the same
file in the same run."""

from __future__ import annotations

from pathlib import Path

from app.scene.formats.fbx import assimp
from app.scene.io import load_scene
from benchmarks.common import Row, median_time

CHARACTER = Path(__file__).resolve().parents[1] / "tests" / "data" / "fbx" / "character65.fbx"


def rows() -> list[Row]:
    scene = load_scene(CHARACTER)
    joints = len(scene.bones) - 1  # the armature's own node is a bone too
    vertices = sum(len(m.positions) for m in scene.meshes)
    frames = scene.frame_end - scene.frame_start + 1
    t_import = median_time(lambda: load_scene(CHARACTER), repeat=7)
    t_assimp = median_time(lambda: assimp.read(CHARACTER), repeat=7)
    return [
        Row(
            f"FBX import (load_scene of a .fbx), a {joints}-joint character, {vertices:,} "
            f"vertices, {frames} frames",
            t_import * 1e3,
            "ms",
            "assimp's read alone",
            t_assimp * 1e3,
            "≤ 200 ms",
            t_import <= 0.2,
            note="ours: assimp's read in a forked child (a crash guard) and its result piped "
            "back, the helper chains, bones, keys, skin and the scene-file check",
        ),
    ]
