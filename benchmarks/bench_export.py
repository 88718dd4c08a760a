"""Export figures: BVH and CSV export of CMU 01_01's bake, against straightforward loops and
bvhio's writer, measured side by side in the same run."""

from __future__ import annotations

import csv
import io
import math
import tempfile
from pathlib import Path

import numpy as np

from app.scene.evaluate import bake
from app.scene.formats.bvh import load_bvh
from app.scene.formats.bvh_export import bvh_from_bake, write_bvh
from app.scene.formats.csv_export import csv_from_bake
from app.scene.math.transforms import rotation_from_matrix
from benchmarks.common import Row, median_time

CMU = Path("/usr/share/assimp/models/BVH/01_01.bvh")


def loop_bvh_motion(scene, result, frame_indices) -> list[str]:
    """The straightforward way: per frame, per joint (depth first), the local rotation from
    the parent's and the joint's world matrices, ZXY Euler angles by the textbook formulas,
    and a formatted line. Rigid rigs only (no polar decomposition)."""
    names = [b.name for b in scene.bones]
    parents = [-1 if b.parent is None else names.index(b.parent) for b in scene.bones]
    children = {i: [j for j, p in enumerate(parents) if p == i] for i in range(-1, len(names))}
    order, stack = [], list(reversed(children[-1]))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children[i]))
    lines = []
    for f in frame_indices:
        values = []
        for i in order:
            world = result.bone_to_world[f, i]
            if parents[i] < 0:
                local_r, local_t = world[:3, :3], world[:3, 3]
                values += [float(v) for v in local_t]
            else:
                parent = result.bone_to_world[f, parents[i]]
                local_r = parent[:3, :3].T @ world[:3, :3]
            m = local_r
            b = math.atan2(m[2, 1], math.hypot(m[0, 1], m[1, 1]))
            a = math.atan2(-m[0, 1], m[1, 1])
            c = math.atan2(-m[2, 0], m[2, 2])
            values += [math.degrees(a), math.degrees(b), math.degrees(c)]
        lines.append(" ".join(f"{round(v, 12):.15g}" for v in values))
    return lines


def bvh_rows(scene, result) -> list[Row]:
    n = f"{len(result.frames)} × {len(result.bone_names)}"
    t_ours = median_time(lambda: bvh_from_bake(scene, result), repeat=7)
    slice_ = np.arange(0, len(result.frames), 10)
    t_loop = median_time(lambda: loop_bvh_motion(scene, result, slice_), repeat=3)
    t_loop *= len(result.frames) / len(slice_)
    # Same numbers (away from gimbal lock the textbook formulas agree with ours).
    ours = bvh_from_bake(scene, result).text.split("Frame Time:")[1].splitlines()[1:]
    mine = np.array([line.split() for line in ours[::10]], float)
    theirs = np.array([line.split() for line in loop_bvh_motion(scene, result, slice_)], float)
    assert np.allclose(np.mod(mine - theirs + 180, 360) - 180, 0, atol=1e-9)
    rows = [
        Row(
            f"BVH export of CMU 01_01's bake to text, {n}",
            t_ours * 1e3,
            "ms",
            "per-frame loop",
            t_loop * 1e3,
            "≤ 300 ms",
            t_ours <= 0.3,
            note="loop timed on every 10th frame, ×10; both mostly format text",
        )
    ]
    try:
        import bvhio
    except ImportError:
        return rows + [
            Row("BVH export to a file, CMU 01_01", t_ours * 1e3, "ms", "bvhio: not installed", None)
        ]
    container = bvhio.readAsBvh(str(CMU))
    with tempfile.TemporaryDirectory() as tmp:
        ours_path, theirs_path = Path(tmp) / "ours.bvh", Path(tmp) / "bvhio.bvh"
        t_file = median_time(lambda: write_bvh(ours_path, scene, result), repeat=5)
        t_bvhio = median_time(
            lambda: bvhio.writeBvh(str(theirs_path), container), repeat=3, warmup=0
        )
    return rows + [
        Row(
            "BVH export to a file, CMU 01_01",
            t_file * 1e3,
            "ms",
            "bvhio writeBvh",
            t_bvhio * 1e3,
            "faster than bvhio",
            t_file < t_bvhio,
            note="bvhio writes its parsed local rotations; ours starts from world transforms",
        )
    ]


def loop_csv(result, frame_indices) -> str:
    """Per frame and bone: the rotation of one matrix, a csv.writer row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for f in frame_indices:
        for b, name in enumerate(result.bone_names):
            q = rotation_from_matrix(result.bone_to_world[f, b])
            writer.writerow(
                [
                    f,
                    str(name),
                    *result.heads[f, b].tolist(),
                    *result.tails[f, b].tolist(),
                    *q.tolist(),
                ]
            )
    return out.getvalue()


def csv_rows(result) -> list[Row]:
    n = f"{len(result.frames)} × {len(result.bone_names)}"
    t_ours = median_time(lambda: csv_from_bake(result), repeat=5)
    slice_ = np.arange(0, len(result.frames), 20)
    t_loop = median_time(lambda: loop_csv(result, slice_), repeat=3)
    t_loop *= len(result.frames) / len(slice_)
    return [
        Row(
            f"CSV export of CMU 01_01's bake to text, {n}",
            t_ours * 1e3,
            "ms",
            "per-row loop",
            t_loop * 1e3,
            "≤ 1.5 s",
            t_ours <= 1.5,
            note="loop timed on every 20th frame, ×20",
        )
    ]


def rows() -> list[Row]:
    scene = load_bvh(CMU)
    result = bake(scene)
    return bvh_rows(scene, result) + csv_rows(result)
