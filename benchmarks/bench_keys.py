"""Key interpolation (format §B): FK of CMU 01_01 with every key eased or stepped, against the
same clip with linear keys, at half frames (where the interpolation does something)."""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.formats.bvh import load_bvh
from app.scene.rig.keys import Keys
from app.scene.rig.skeleton import Skeleton, forward_kinematics, local_transforms
from benchmarks.bench_foundation import CMU
from benchmarks.common import Row, median_time


def _with_kind(scene, kind):
    def convert(keys):
        if keys is None:
            return None
        return Keys(keys.frames, keys.values, (kind,) * len(keys))

    out = scene.copy()
    out.bones = [
        dataclasses.replace(
            b, translation_keys=convert(b.translation_keys), rotation_keys=convert(b.rotation_keys)
        )
        for b in scene.bones
    ]
    return out


def _interleaved(fns: dict, repeat: int = 9) -> dict:
    """Median seconds of each function, timed in turns (the machine is shared: load that
    comes and goes then weighs on every figure alike)."""
    samples: dict = {name: [] for name in fns}
    for fn in fns.values():
        fn()  # warm up
    for _ in range(repeat):
        for name, fn in fns.items():
            samples[name].append(median_time(fn, repeat=1, warmup=0))
    return {name: float(np.median(v)) for name, v in samples.items()}


def rows() -> list[Row]:
    scene = load_bvh(CMU)
    frames = np.arange(scene.frame_start, scene.frame_end, 0.5)
    skeleton = Skeleton.from_scene(scene)

    def fk(s):
        return lambda: forward_kinematics(skeleton, local_transforms(s, frames))

    kinds = ("linear", "ease", "constant")
    times = _interleaved({kind: fk(_with_kind(scene, kind)) for kind in kinds})
    t_linear = times["linear"]
    out = []
    for kind in kinds[1:]:
        t = times[kind]
        out.append(
            Row(
                f"FK of CMU 01_01 with {kind} keys, {len(frames)} half frames × "
                f"{len(scene.bones)} bones",
                t * 1e3,
                "ms",
                "linear keys",
                t_linear * 1e3,
                "≤ 1.5× linear",
                t <= 1.5 * t_linear,
                ratio=t / t_linear,
                note="ratio: time / linear's",
            )
        )
    return out
