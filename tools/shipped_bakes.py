"""Fingerprints of every shipped scene's bake in the three space modes, for
``tests/scene/test_shipped_bakes.py`` (issue 29: a refactoring keeps every bake).

    python tools/shipped_bakes.py [OUT]   (default: tests/data/shipped_bakes.npz)

Per scene and space (``None``: as authored, ``"world"``, ``"object"``): the heads and tails
at up to 24 frames evenly spaced from the first to the last, the sum over all frames of
``bone_to_world`` ``(B, 4, 4)`` (so every frame counts) and, where the scene reports them,
the sum over frames of the limit violations. Regenerate only when a change of evaluation is
meant, and say so in the commit.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SPACES = (None, "world", "object")
SAMPLES = 24


def shipped_scenes() -> list[Path]:
    """Every scene the repository ships (the demo, examples and scale scenes)."""
    scenes = ROOT / "resources" / "scenes"
    return sorted([*scenes.glob("*.json"), *scenes.glob("*.glb")])


def fingerprint(path: Path) -> dict[str, np.ndarray]:
    """The arrays of one scene, keyed ``"<file>|<space>|<array>"``."""
    from app.scene.evaluate import bake
    from app.scene.io import load_scene

    scene = load_scene(path)
    out = {}
    for space in SPACES:
        result = bake(scene, space=space)
        frames = len(result.heads)
        picked = np.unique(np.linspace(0, frames - 1, min(SAMPLES, frames)).round().astype(int))
        key = f"{path.name}|{space}"
        out[f"{key}|frames"] = np.array(frames)
        out[f"{key}|heads"] = np.asarray(result.heads)[picked]
        out[f"{key}|tails"] = np.asarray(result.tails)[picked]
        out[f"{key}|bone_to_world_sum"] = np.asarray(result.bone_to_world).sum(axis=0)
        violations = getattr(result, "limit_violation_deg", None)
        if violations is not None:
            out[f"{key}|violation_sum"] = np.nansum(np.asarray(violations), axis=0)
    return out


def main(out: str = str(ROOT / "tests" / "data" / "shipped_bakes.npz")) -> None:
    sys.path.insert(0, str(ROOT))
    arrays = {}
    for path in shipped_scenes():
        arrays.update(fingerprint(path))
    np.savez_compressed(out, **arrays)
    print(f"{len(arrays)} arrays of {len(shipped_scenes())} scenes -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
