"""glTF figures: import and export of a 3,000-frame, 60-joint clip, each against a reference
measured in the same run (pygltflib's own parse of the same file, and straightforward
per-key / per-frame Python loops timed on a slice)."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import numpy as np
import pygltflib

from app.scene.evaluate import bake
from app.scene.formats.gltf.export import gltf_bytes, gltf_from_bake, write_gltf
from app.scene.formats.gltf.importer import load_gltf
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene
from benchmarks.common import Row, median_time

FRAMES, JOINTS = 3000, 60


def clip_scene() -> Scene:
    """60 joints (a spine of 20 with two arms of 20), every joint keyed at every frame."""
    rng = np.random.default_rng(11)
    frames = np.arange(FRAMES, dtype=float)
    bones = []
    for j in range(JOINTS):
        parent = None if j == 0 else (f"j{j - 1}" if j % 20 else "j0")
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        angle = 0.5 * np.sin(frames / (20 + j) + j)
        q = np.column_stack([np.cos(angle / 2), np.outer(np.sin(angle / 2), axis)])
        moves = None
        if j == 0:
            path = np.column_stack([np.sin(frames / 50), np.zeros(FRAMES), frames / 100])
            moves = Keys(frames, path)
        bones.append(
            Bone(
                name=f"j{j}",
                parent=parent,
                translation=(0.0, 0.1, 0.0),
                rotation_keys=Keys(frames, q),
                translation_keys=moves,
            )
        )
    return Scene(bones=bones, fps=30.0, frame_start=0, frame_end=FRAMES - 1)


def loop_read_keys(data: bytes, gltf: pygltflib.GLTF2, channels) -> list:
    """The straightforward way: every key of every channel unpacked with struct."""
    blob_start = data.index(b"BIN\x00") + 4
    out = []
    for c in channels:
        sampler = gltf.animations[0].samplers[c.sampler]
        keys = []
        for accessor_index in (sampler.input, sampler.output):
            acc = gltf.accessors[accessor_index]
            view = gltf.bufferViews[acc.bufferView]
            width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
            start = blob_start + view.byteOffset + acc.byteOffset
            keys.append(
                [
                    struct.unpack_from(f"<{width}f", data, start + 4 * width * k)
                    for k in range(acc.count)
                ]
            )
        out.append(keys)
    return out


def loop_local_trs(result, parents, frame_indices) -> list:
    """The straightforward way: per frame and bone, the local matrix and its T, R, S."""
    out = []
    for f in frame_indices:
        for b, p in enumerate(parents):
            m = result.bone_to_world[f, b]
            if p >= 0:
                m = np.linalg.inv(result.bone_to_world[f, p]) @ m
            s = np.linalg.norm(m[:3, :3], axis=0)
            r = m[:3, :3] / s
            w = np.sqrt(max(0.0, 1 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
            out.append(
                (
                    m[:3, 3],
                    (
                        w,
                        (r[2, 1] - r[1, 2]) / (4 * w),
                        (r[0, 2] - r[2, 0]) / (4 * w),
                        (r[1, 0] - r[0, 1]) / (4 * w),
                    ),
                    s,
                )
            )
    return out


def rows() -> list[Row]:
    scene = clip_scene()
    result = bake(scene)
    n = f"{FRAMES} frames × {JOINTS} joints"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "clip.glb"
        write_gltf(path, scene, result)
        data = path.read_bytes()
        back = load_gltf(path)
        heads = bake(back).heads
        assert np.abs(heads - result.heads).max() <= 1e-6 * np.ptp(result.heads).max()

        t_import = median_time(lambda: load_gltf(path), repeat=5)
        t_pygltf = median_time(lambda: pygltflib.GLTF2.load_from_bytes(data), repeat=5)
        gltf = pygltflib.GLTF2.load_from_bytes(data)
        channels = gltf.animations[0].channels
        part = channels[:: len(channels) // 18]
        t_loop = median_time(lambda: loop_read_keys(data, gltf, part), repeat=3, warmup=0)
        t_loop *= len(channels) / len(part)

        t_export = median_time(lambda: gltf_bytes(gltf_from_bake(scene, result), True), repeat=5)
        parents = [-1 if b.parent is None else int(b.parent[1:]) for b in scene.bones]
        slice_ = np.arange(0, FRAMES, 100)
        t_trs = median_time(lambda: loop_local_trs(result, parents, slice_), repeat=3, warmup=0)
        t_trs *= FRAMES / len(slice_)
    return [
        Row(
            f"glTF import (load_scene of a .glb), {n}",
            t_import * 1e3,
            "ms",
            "pygltflib parse",
            t_pygltf * 1e3,
            "≤ 300 ms",
            t_import <= 0.3,
            note="pygltflib only parses the container; ours also reads every accessor "
            "and builds the keys",
        ),
        Row(
            f"glTF import vs a per-key loop, {n}",
            t_import * 1e3,
            "ms",
            "struct loop",
            t_loop * 1e3,
            "≤ 300 ms",
            t_import <= 0.3,
            note="loop unpacks every key of 1/10 of the channels, ×10",
        ),
        Row(
            f"glTF export of the bake to .glb bytes, {n}",
            t_export * 1e3,
            "ms",
            "per-frame loop",
            t_trs * 1e3,
            "≤ 300 ms",
            t_export <= 0.3,
            note="loop: local T/R/S per frame and bone on every 100th frame, ×100; "
            "ours includes the whole file",
        ),
    ]
