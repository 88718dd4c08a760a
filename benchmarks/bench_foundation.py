"""Foundation figures: FK and BVH loading of CMU 01_01, and the anticommutator."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from app.scene.formats.bvh import load_bvh
from app.scene.math import quat
from app.scene.math.anticommutator import normalized_anticommutator
from app.scene.math.transforms import trs
from app.scene.rig.keys import sample
from app.scene.rig.skeleton import Skeleton, forward_kinematics, local_transforms
from benchmarks.common import Row, median_time

CMU = Path("/usr/share/assimp/models/BVH/01_01.bvh")


def loop_fk(scene, frames):
    """The straightforward way: per frame, per bone, sample keys and multiply by the parent."""
    index = {b.name: i for i, b in enumerate(scene.bones)}
    out = np.empty((len(frames), len(scene.bones), 4, 4))
    for k, f in enumerate(frames):
        for i, bone in enumerate(scene.bones):
            t = sample(bone.translation, bone.translation_keys, f)
            q = sample(bone.rotation, bone.rotation_keys, f, rotation=True)
            local = trs(t, q, bone.scale)
            out[k, i] = local if bone.parent is None else out[k, index[bone.parent]] @ local
    return out


def fk_rows(scene) -> list[Row]:
    frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=float)
    skeleton = Skeleton.from_scene(scene)

    def ours():
        return forward_kinematics(skeleton, local_transforms(scene, frames))

    t_ours = median_time(ours, repeat=9)
    slice_ = frames[::10]  # every tenth frame, scaled by 10 below
    t_loop = median_time(lambda: loop_fk(scene, slice_), repeat=3) * len(frames) / len(slice_)
    assert np.allclose(ours()[::10], loop_fk(scene, slice_), atol=1e-9)
    n = f"{len(frames)} × {len(scene.bones)}"
    return [
        Row(
            f"FK of CMU 01_01, keys to bone_to_world, {n}",
            t_ours * 1e3,
            "ms",
            "per-frame loop",
            t_loop * 1e3,
            "≤ 20 ms",
            t_ours <= 0.020,
            note="loop timed on every 10th frame, ×10",
        )
    ]


def bvhio_parse_fk(path: Path):
    import bvhio

    root = bvhio.readAsHierarchy(str(path))
    joints = [j for j, _, _ in root.layout()]
    frames = root.getKeyframeRange()[1] + 1
    positions = np.empty((frames, len(joints), 3))
    for f in range(frames):
        root.loadPose(f)
        for k, j in enumerate(joints):
            positions[f, k] = tuple(j.PositionWorld)
    return positions


def parse_rows() -> list[Row]:
    def ours():
        scene = load_bvh(CMU)
        frames = np.arange(scene.frame_end + 1, dtype=float)
        return forward_kinematics(Skeleton.from_scene(scene), local_transforms(scene, frames))

    t_ours = median_time(ours, repeat=7)
    try:
        import bvhio  # noqa: F401
    except ImportError:
        return [
            Row(
                "BVH parse + FK of CMU 01_01",
                t_ours * 1e3,
                "ms",
                "bvhio: not installed",
                None,
                "≤ 300 ms, ≥ 5× bvhio",
                t_ours <= 0.3,
            )
        ]
    theirs = bvhio_parse_fk(CMU)
    assert np.abs(theirs - ours()[..., :3, 3]).max() < 1e-4  # same answer (bvhio is float32)
    t_bvhio = median_time(lambda: bvhio_parse_fk(CMU), repeat=3, warmup=0)
    return [
        Row(
            "BVH parse + FK of CMU 01_01",
            t_ours * 1e3,
            "ms",
            "bvhio 1.5",
            t_bvhio * 1e3,
            "≤ 300 ms, ≥ 5× bvhio",
            t_ours <= 0.3 and t_bvhio / t_ours >= 5,
        )
    ]


def definition(qs):
    """The seed's definition, vectorized over permutations: every order's product, summed."""
    n = len(qs)
    orders = np.array(list(itertools.permutations(range(n))))
    product = qs[orders[:, 0]]
    for k in range(1, n):
        product = quat.mul(product, qs[orders[:, k]])
    total = product.sum(axis=0)
    return total / np.linalg.norm(total)


def anticommutator_rows() -> list[Row]:
    rng = np.random.default_rng(1)
    rows = []
    measured_definition = {}
    for n in (4, 8, 9):
        qs = quat.quat_from_axis_angle(rng.normal(size=(n, 3)), rng.uniform(0, 0.2, n))
        measured_definition[n] = median_time(lambda qs=qs: definition(qs), repeat=3)
    for n in (4, 8, 12):
        qs = quat.quat_from_axis_angle(rng.normal(size=(n, 3)), rng.uniform(0, 0.2, n))
        t = median_time(lambda qs=qs: normalized_anticommutator(qs), repeat=9, min_total=0.02)
        if n in measured_definition:
            ref, note = measured_definition[n], ""
            assert np.allclose(definition(qs), normalized_anticommutator(qs), atol=1e-12)
        else:  # n! * n products: scale the n = 9 time
            ref = measured_definition[9] * (math.factorial(n) * n) / (math.factorial(9) * 9)
            note = "definition extrapolated from n = 9 by n!·n"
        target, ok = ("< 5 ms", t < 0.005) if n == 12 else ("", None)
        rows.append(
            Row(
                f"normalized anticommutator, n = {n}, one step",
                t * 1e3,
                "ms",
                "definition (n! orders)",
                ref * 1e3,
                target,
                ok,
                note=note,
            )
        )
    return rows


def rows() -> list[Row]:
    scene = load_bvh(CMU)
    return fk_rows(scene) + parse_rows() + anticommutator_rows()
