"""A rig for long bakes: 121 bones in a binary tree, each turning on three keys, used by the
memory tests and ``benchmarks/bench_long_bakes.py`` (in child processes, under memory
limits)."""

import numpy as np

from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene


def binary_tree(frames: int, bones: int = 121) -> Scene:
    """A scene of ``frames`` frames (0 to ``frames - 1``) whose ``bones`` bones form a binary
    tree (bone ``i``'s parent is ``(i - 1) // 2``), each turning 74° about X and back."""
    last = float(frames - 1)
    turn = Keys(
        np.array([0.0, 100.0, last]), np.array([[1.0, 0, 0, 0], [0.6, 0.8, 0, 0], [1.0, 0, 0, 0]])
    )
    tree = [Bone(name="b0", rotation_keys=turn)] + [
        Bone(
            name=f"b{i}", parent=f"b{(i - 1) // 2}", translation=(0.0, 1.0, 0.0), rotation_keys=turn
        )
        for i in range(1, bones)
    ]
    return Scene(bones=tree, frame_start=0, frame_end=frames - 1)
