"""The limit-distance kind (issue 29) on real motion: CMU 01_01's left forearm kept within
its frame-start distance of the head, the whole clip at once.

Two figures, each measured side by side in one run: the solver (vectorized over frames)
against a per-frame loop of Blender's ``distlimit_evaluate`` written plainly, and the whole
bake with it against the same bake with a copy location (a kind of the same shape: one bone
placed from one target point, descendants following).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.scene.constraints.follows.model import CopyLocation
from app.scene.constraints.limit_distance import solver
from app.scene.constraints.limit_distance.model import LimitDistance
from app.scene.evaluate import Evaluator, bake
from app.scene.formats.bvh import load_bvh
from app.scene.rig.model import Target
from benchmarks.common import Row, median_time

CMU = Path("/usr/share/assimp/models/BVH/01_01.bvh")


def loop_limit(bone_to_world, bone_to_parent, b, t, below, distance):
    """Blender's way, one frame at a time: the head moved onto the sphere where it is out,
    then the bone's descendants (``below``: ``(child, parent)`` in hierarchy order) placed
    from it, as a per-frame evaluation does."""
    out = bone_to_world.copy()
    for f in range(len(out)):
        c = out[f, t, :3, 3]
        offset = out[f, b, :3, 3] - c
        r = float(np.sqrt(offset @ offset))
        if r > distance:
            out[f, b, :3, 3] = c + offset * (distance / r)
            for child, parent in below:
                out[f, child] = out[f, parent] @ bone_to_parent[f, child]
    return out


def rows() -> list[Row]:
    scene = load_bvh(CMU)
    frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=float)
    b, t = scene.bone_index("LeftForeArm"), scene.bone_index("Head")
    probe = Evaluator(scene).context(frames)
    reach = np.linalg.norm(
        probe.bone_to_world[:, b, :3, 3] - probe.bone_to_world[:, t, :3, 3], axis=-1
    )
    limit = LimitDistance(
        name="reach",
        space="world",
        bone="LeftForeArm",
        target=Target(bone="Head"),
        mode="inside",
        distance=float(np.median(reach)),
    )
    scene.constraints = [limit]
    ctx = Evaluator(scene).context(frames, until="reach")  # the pose it starts from
    start = np.array(ctx.bone_to_world)
    names = [bone.name for bone in scene.bones]
    below, todo = [], [b]
    while todo:  # the forearm's descendants, parents first
        parent = todo.pop(0)
        kids = [i for i, bone in enumerate(scene.bones) if bone.parent == names[parent]]
        below += [(k, parent) for k in kids]
        todo += kids

    def ours():  # idempotent: a limited head is on the sphere, so the same work each run
        solver.apply(limit, ctx)

    t_ours = median_time(ours, repeat=9)
    t_loop = median_time(
        lambda: loop_limit(start, ctx.bone_to_parent, b, t, below, limit.distance), repeat=3
    )
    expected = loop_limit(start, ctx.bone_to_parent, b, t, below, limit.distance)
    assert np.allclose(ctx.bone_to_world, expected, atol=1e-9)
    moved = int(np.sum(reach > limit.distance))

    copy = scene.copy()
    copy.constraints = [
        CopyLocation(name="reach", space="world", bone="LeftForeArm", target=Target(bone="Head"))
    ]
    t_bake_copy, t_bake_ours = [], []
    for _ in range(5):  # alternated, so the machine's load falls on both alike
        t_bake_copy.append(median_time(lambda: bake(copy, frames), repeat=1))
        t_bake_ours.append(median_time(lambda: bake(scene, frames), repeat=1))
    t_copy, t_bake = float(np.median(t_bake_copy)), float(np.median(t_bake_ours))
    n = f"{len(frames)} frames, {moved} limited"
    return [
        Row(
            f"limit distance solve, CMU 01_01 ({n})",
            t_ours * 1e3,
            "ms",
            "per-frame loop (Blender's)",
            t_loop * 1e3,
            "≥ 5×",
            t_loop >= 5 * t_ours,
        ),
        Row(
            "bake of CMU 01_01 with a limit distance",
            t_bake * 1e3,
            "ms",
            "with a copy location",
            t_copy * 1e3,
            "≤ 1.2× its time",
            t_bake <= 1.2 * t_copy,
        ),
    ]
