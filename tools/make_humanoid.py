"""Write ``resources/scenes/humanoid.glb``: a small skinned humanoid walking in place.

The character of the README's worked example and the "Bring your own character" tutorial:
19 bones (Y-up, metres, facing +Z, left is +X) looking around and waving, its left foot
turned out (48 frames at 24 fps, keys every 6 frames), and a body of
envelope-weighted tubes around the bones (about 2,400 vertices, up to 4 influences each),
exported with Pivotal's own glTF exporter.

    python tools/make_humanoid.py [--out resources/scenes/humanoid.glb]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.scene.evaluate import bake, default_frames  # noqa: E402
from app.scene.formats.gltf.export import write_gltf  # noqa: E402
from app.scene.formats.schema import scene_from_json  # noqa: E402
from app.scene.rig.envelope import tube_mesh  # noqa: E402

OUT = ROOT / "resources" / "scenes" / "humanoid.glb"
FPS, FRAMES = 24, 48

#: name, parent, head relative to the parent's head (its translation), tail, tube radius
TORSO = [
    ("hips", None, (0.0, 0.95, 0.0), (0.0, 0.12, 0.0), 0.125),
    ("spine", "hips", (0.0, 0.12, 0.0), (0.0, 0.2, 0.0), 0.12),
    ("chest", "spine", (0.0, 0.2, 0.0), (0.0, 0.2, 0.0), 0.14),
    ("neck", "chest", (0.0, 0.2, 0.0), (0.0, 0.09, 0.0), 0.045),
    ("head", "neck", (0.0, 0.09, 0.0), (0.0, 0.2, 0.01), 0.095),
]
#: the left side (+X); the right mirrors it
LIMBS = [
    ("upper_arm", "chest", (0.17, 0.17, 0.0), (0.24, -0.12, 0.0), 0.045),
    ("forearm", "upper_arm", (0.24, -0.12, 0.0), (0.22, -0.11, 0.02), 0.038),
    ("hand", "forearm", (0.22, -0.11, 0.02), (0.07, -0.04, 0.02), 0.03),
    ("thigh", "hips", (0.095, -0.02, 0.0), (0.0, -0.44, 0.0), 0.07),
    ("calf", "thigh", (0.0, -0.44, 0.0), (0.0, -0.42, -0.01), 0.052),
    ("foot", "calf", (0.0, -0.42, -0.01), (0.0, -0.06, 0.13), 0.04),
    ("toes", "foot", (0.0, -0.06, 0.13), (0.0, -0.005, 0.06), 0.03),
]


def _about(axis: int, degrees: float) -> list[float]:
    half = np.radians(degrees) / 2
    q = [float(np.cos(half)), 0.0, 0.0, 0.0]
    q[1 + axis] = float(np.sin(half))
    return q


KEY_FRAMES = np.arange(0, FRAMES + 1, 6)
WAVE = np.sin(2 * np.pi * KEY_FRAMES / FRAMES)  # one slow sway over the clip
WAVE2 = np.sin(4 * np.pi * KEY_FRAMES / FRAMES)  # twice as fast

#: bone -> (axis 0/1/2 for X/Y/Z, degrees at each key): looking around and waving; the
#: legs stand still (the left foot turned out), so a foot roll added later has a floor.
MOTION = {
    "spine": (1, 8 * WAVE),
    "chest": (1, 14 * WAVE),
    "head": (1, -30 * WAVE2),
    "upper_arm.R": (2, -70 - 10 * WAVE2),  # raised to the side
    "forearm.R": (2, -40 + 30 * np.sin(8 * np.pi * KEY_FRAMES / FRAMES)),  # the wave
    "upper_arm.L": (0, -12 * WAVE),
}
#: rest rotations (axis, degrees): the left foot turned out
REST = {"foot.L": (1, 40.0), "foot.R": (1, -8.0)}


def humanoid_json() -> dict:
    """The scene as Pivotal's JSON (bones and the keys of their motion)."""
    bones = []
    for name, parent, head, tail, _ in TORSO:
        bone = {"name": name, "translation": list(head), "tail": list(tail)}
        if parent:
            bone["parent"] = parent
        bones.append(bone)
    for suffix, side in ((".L", 1.0), (".R", -1.0)):
        for name, parent, head, tail, _ in LIMBS:
            mirror = np.array([side, 1.0, 1.0])
            bones.append(
                {
                    "name": name + suffix,
                    "parent": parent if parent in ("chest", "hips") else parent + suffix,
                    "translation": list(np.array(head) * mirror),
                    "tail": list(np.array(tail) * mirror),
                }
            )
    for bone in bones:
        if bone["name"] in REST:
            bone["rotation"] = _about(*REST[bone["name"]])
        if bone["name"] in MOTION:
            axis, degrees = MOTION[bone["name"]]
            bone["rotation_keys"] = [
                [int(f), _about(axis, float(d))] for f, d in zip(KEY_FRAMES, degrees)
            ]
    return {
        "format": "pivotal-scene",
        "version": 1,
        "fps": FPS,
        "frame_start": 0,
        "frame_end": FRAMES,
        "bones": bones,
    }


def radii() -> dict:
    out = {name: r for name, _, _, _, r in TORSO}
    for suffix in (".L", ".R"):
        out.update({name + suffix: r for name, _, _, _, r in LIMBS})
    return out


def humanoid_scene():
    """The scene with its body bound at frame 0."""
    scene = scene_from_json(humanoid_json())
    rest = bake(scene, np.array([0.0]))
    names = [str(n) for n in rest.bone_names]
    body = tube_mesh(
        rest.bone_to_world[0],
        rest.heads[0],
        rest.tails[0],
        names,
        radius=[radii()[n] for n in names],
        sides=14,
        rings=9,
        influences=4,
        name="body",
    )
    scene.meshes = (body,)
    return scene


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    scene = humanoid_scene()
    write_gltf(args.out, scene, bake(scene, default_frames(scene)))
    mesh = scene.meshes[0]
    print(
        f"{args.out}: {len(scene.bones)} bones, {len(mesh.positions)} vertices, "
        f"{len(mesh.indices)} triangles, frames 0-{FRAMES} at {FPS} fps"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
