"""ufbx as a second FBX oracle, for files Blender cannot read (ASCII FBX). Run once, by hand,
with pyufbx 0.0.7 and pufbx 0.1.0 (``pip install --target DIR pyufbx==0.0.7 pufbx==0.1.0``,
source builds), not by the tests (``tests/data/fbx/README.md``):

    PYTHONPATH=DIR python tools/fbx_ufbx_oracle.py tests/data/fbx/pivots.fbx

writes ``<file>.ufbx.json`` with, in Pivotal's axes (a Z-up file's ``(x, y, z)`` written as
``(x, z, -y)``) and metres (times ufbx's ``unit_meters``):

- ``rest_heads``: each node's ``node_to_world`` translation at rest (pyufbx: ufbx evaluates the
  whole FBX transform chain, pre- and post-rotation, pivots and offsets);
- ``heads``: per frame of the first take at the file's frame rate, each node's world head from
  ufbx's baked local transforms (``pufbx.anim_to_array``, ``ufbx_bake_anim``) multiplied down
  the hierarchy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pufbx
import ufbx


def _matrix(d) -> np.ndarray:
    """``T @ R @ S`` of pufbx's ``[tx, ty, tz, qx, qy, qz, qw, sx, sy, sz]``."""
    x, y, z, w = d[3:7]
    r = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    m = np.eye(4)
    m[:3, :3] = r * d[7:10]
    m[:3, 3] = d[0:3]
    return m


def main(name: str) -> None:
    path = Path(name)
    scene = ufbx.load_file(str(path))
    unit = scene.settings.unit_meters
    z_up = scene.settings.axes.up.value == 4  # COORDINATE_AXIS_POSITIVE_Z

    def pivotal(p) -> list:
        x, y, z = np.asarray(p, dtype=float) * unit
        x, y, z = (x, z, -y) if z_up else (x, y, z)
        return [float(x), float(y), float(z)]

    rest = {
        n.name: pivotal(np.asarray(n.node_to_world)[3, :3]) for n in scene.nodes if not n.is_root
    }
    fps = scene.settings.frames_per_second
    data, times, names = pufbx.anim_to_array(str(path), anim_index=0, resample_rate=fps)
    parent = {
        n.name: (n.parent.name if n.parent is not None else None)
        for n in pufbx.load_fbx(str(path)).nodes
    }
    index = {n: i for i, n in enumerate(names)}
    heads = {}
    for f, t in enumerate(times):
        frame = {}
        for name_ in names:
            chain, k = [], name_
            while k in index:
                chain.append(k)
                k = parent.get(k)
            m = np.eye(4)
            for c in reversed(chain):
                m = m @ _matrix(data[index[c], f])
            frame[name_] = pivotal(m[:3, 3])
        heads[str(int(round(t * fps)))] = frame
    out = {
        "file": path.name,
        "reader": "pyufbx 0.0.7 (rest), pufbx 0.1.0 (take)",
        "fps": fps,
        "rest_heads": rest,
        "heads": heads,
    }
    target = path.with_name(path.name + ".ufbx.json")
    target.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"{target}: {len(rest)} rest heads, {len(heads)} frames")


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        main(argument)
