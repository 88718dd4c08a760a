"""ufbx as a second FBX oracle: the rest heads of every node, for files Blender cannot read
(ASCII FBX). Run once, by hand, with pyufbx 0.0.7 (``pip install --target DIR pyufbx==0.0.7``,
a source build), not by the tests (``tests/data/fbx/README.md``):

    PYTHONPATH=DIR python tools/fbx_ufbx_oracle.py tests/data/fbx/pivots.fbx

writes ``<file>.ufbx.json``: each node's ``node_to_world`` translation at rest (ufbx evaluates
the whole FBX transform chain: pre- and post-rotation, pivots and offsets), times the file's
``unit_meters``, with a Z-up file's ``(x, y, z)`` written as Pivotal's ``(x, z, -y)``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import ufbx

for name in sys.argv[1:]:
    path = Path(name)
    scene = ufbx.load_file(str(path))
    z_up = scene.settings.axes.up.value == 4  # COORDINATE_AXIS_POSITIVE_Z
    heads = {}
    for node in scene.nodes:
        if node.is_root:
            continue
        x, y, z = np.asarray(node.node_to_world)[3, :3] * scene.settings.unit_meters
        heads[node.name] = (
            [float(x), float(z), float(-y)] if z_up else [float(x), float(y), float(z)]
        )
    out = {"file": path.name, "reader": "pyufbx 0.0.7", "rest_heads": heads}
    target = path.with_name(path.name + ".ufbx.json")
    target.write_text(json.dumps(out, indent=1) + "\n")
    print(f"{target}: {len(heads)} heads")
