"""Make the scale scenes of issues 14 and 28 (a crowd, a 200-bone rig, a 100,000-frame clip,
a 100,000-vertex character).

    .venv/bin/python tools/make_scale_scenes.py            # crowd + rig into resources/scenes
    .venv/bin/python tools/make_scale_scenes.py --long build/scenes/cmu_01_01_100k.bvh
    .venv/bin/python tools/make_scale_scenes.py --character build/scenes/cmu_01_01_100k.glb

- ``crowd_10x_cmu_01_01.json``: ten copies of the CMU clip 01_01
  (``/usr/share/assimp/models/BVH/01_01.bvh``, read with :mod:`app.scene.formats.bvh`) side by
  side, 310 bones. Committed; to stay small (under 1 MB) it keeps the clip's first two
  seconds resampled to 30 fps (every fourth motion frame) and writes numbers to 6 decimals.
- ``rig_200_bones.json``: 200 bones, 20 FABRIK chains and 10 multi-parent constraints, every
  one of them live (animated targets and pivots). Committed (small: few keys).
- the 100,000-frame BVH: 01_01's motion lines looped (about 60 MB of text), written only
  when asked (``--long PATH``; the benchmarks build it into a temporary directory). Too big
  for the repository.
- the 100,000-vertex character: CMU 01_01 wrapped in envelope tubes of at least 100,000
  vertices, 8 influences each (:func:`skinned_character`; the benchmarks build it in
  memory); ``--character PATH`` writes it as a glb (about 14 MB: not committed).

Every file opens from File ▸ Open and ``python main.py PATH``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.scene.constraints.fabrik.model import Fabrik  # noqa: E402
from app.scene.constraints.multi_parent.model import MultiParent  # noqa: E402
from app.scene.formats.bvh import load_bvh  # noqa: E402
from app.scene.formats.scene_json import scene_to_json  # noqa: E402
from app.scene.math import quat  # noqa: E402
from app.scene.rig.keys import Keys  # noqa: E402
from app.scene.rig.model import Bone, Pivot, Scene, Target  # noqa: E402

CMU_01_01 = Path("/usr/share/assimp/models/BVH/01_01.bvh")
SCENES = ROOT / "resources" / "scenes"
CROWD = "crowd_10x_cmu_01_01.json"
RIG = "rig_200_bones.json"
LONG_FRAMES = 100_000


def _rounded(value, digits: int = 6):
    """JSON numbers rounded (the files stay small; integers stay integers)."""
    if isinstance(value, float):
        r = round(value, digits)
        return 0.0 if r == 0 else r
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    return value


def write_compact(scene: Scene, path) -> Path:
    """The scene file, compact (no indentation) with numbers to 6 decimals."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_rounded(scene_to_json(scene)), separators=(",", ":"), allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path


# --- the crowd ---------------------------------------------------------------------------


def crowd_scene(copies: int = 10, seconds: float = 2.0, every: int = 4) -> Scene:
    """``copies`` CMU 01_01 skeletons side by side along X, bone names prefixed ``wK_``.

    The clip is resampled to every ``every``-th motion frame and cut to ``seconds``.
    """
    clip = load_bvh(CMU_01_01)
    fps = clip.fps / every
    count = int(round(seconds * fps))
    rows = np.arange(count) * every
    frames = np.arange(count, dtype=float)

    def resample(keys):
        return None if keys is None else Keys(frames, keys.values[rows])

    # Spacing: the skeleton's size at its first frame, so neighbours do not overlap.
    from app.scene.evaluate import bake

    first = bake(clip, [0.0])
    points = np.concatenate([first.heads[0], first.tails[0]])
    size = points.max(axis=0) - points.min(axis=0)
    spacing = 1.15 * float(max(size[0], size[2], 0.6 * size[1]))  # arm spans apart
    bones = []
    for k in range(copies):
        offset = np.array([(k - (copies - 1) / 2) * spacing, 0.0, 0.0])
        for b in clip.bones:
            keys = resample(b.translation_keys)
            if b.parent is None:  # the root walks: shift its path sideways
                keys = Keys(frames, keys.values + offset) if keys is not None else None
            bones.append(
                Bone(
                    name=f"w{k}_{b.name}",
                    parent=None if b.parent is None else f"w{k}_{b.parent}",
                    translation=tuple(
                        np.asarray(b.translation) + (offset if b.parent is None else 0.0)
                    ),
                    rotation=b.rotation,
                    scale=b.scale,
                    tail=b.tail,
                    translation_keys=keys,
                    rotation_keys=resample(b.rotation_keys),
                )
            )
    return Scene(bones=bones, fps=fps, frame_start=0, frame_end=count - 1)


# --- the 200-bone rig --------------------------------------------------------------------


def rig_scene(tentacles: int = 20, joints: int = 9, bodies: int = 10, frames: int = 240) -> Scene:
    """A ring of ``tentacles`` chains of ``joints`` bones, each with a FABRIK constraint on
    its last six bones reaching for a keyed target, and ``bodies`` two-bone bodies each
    rocking about two keyed pivots (multi-parent): ``tentacles * joints + 2 * bodies`` bones.
    """
    bones, constraints = [], []
    key_frames = np.arange(0, frames + 1, 12, dtype=float)
    phase = 2 * np.pi * key_frames / frames
    segment = 0.3
    for t in range(tentacles):
        a = 2 * np.pi * t / tentacles
        base = (2.5 * np.cos(a), 0.0, 2.5 * np.sin(a))
        tangent = np.array([-np.sin(a), 0.0, np.cos(a)])
        sway = quat.quat_from_axis_angle(tangent, np.radians(10) * np.sin(phase + a))
        names = [f"t{t}_{j}" for j in range(joints)]
        for j, name in enumerate(names):
            bend = tuple(quat.quat_from_axis_angle(tangent, np.radians(6.0)))
            bones.append(
                Bone(
                    name=name,
                    parent=names[j - 1] if j else None,
                    translation=base if j == 0 else (0.0, segment, 0.0),
                    rotation=bend if j else (1.0, 0.0, 0.0, 0.0),
                    tail=(0.0, segment, 0.0) if j == joints - 1 else None,
                    rotation_keys=Keys(key_frames, sway) if j == 0 else None,
                )
            )
        # Targets well within the chain's reach (a FABRIK solve of a few iterations): a
        # circle above the chain's root, half the chain's length up.
        reach = segment * 6
        radial = np.array([np.cos(a), 0.0, np.sin(a)])
        circle = (
            np.array(base)
            + ((joints - 6) * segment + 0.5 * reach) * np.array([0, 1, 0])
            + 0.3
            * reach
            * (np.cos(2 * phase + a)[:, None] * radial + np.sin(2 * phase + a)[:, None] * tangent)
        )
        constraints.append(
            Fabrik(
                name=f"reach_{t}",
                chain=tuple(names[joints - 6 :]),
                target=Target(position=tuple(circle[0]), position_keys=Keys(key_frames, circle)),
            )
        )
    for m in range(bodies):
        x = (m - (bodies - 1) / 2) * 0.8
        body, tip = f"m{m}_body", f"m{m}_tip"
        bones.append(Bone(name=body, translation=(x, 0.0, -5.0), tail=(0.0, 0.0, 0.4)))
        bones.append(Bone(name=tip, parent=body, translation=(0.0, 0.0, 0.4), tail=(0.0, 0.3, 0.0)))
        rock = np.radians(20) * np.sin(phase + m)
        heel = quat.quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), np.maximum(rock, 0.0))
        toe = quat.quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), np.minimum(rock, 0.0))
        constraints.append(
            MultiParent(
                name=f"rock_{m}",
                body=body,
                pivots=(
                    Pivot(
                        name="heel", position=(0.0, 0.0, 0.0), rotation_keys=Keys(key_frames, heel)
                    ),
                    Pivot(
                        name="toe", position=(0.0, 0.0, 0.4), rotation_keys=Keys(key_frames, toe)
                    ),
                ),
            )
        )
    return Scene(bones=bones, constraints=constraints, fps=24.0, frame_start=0, frame_end=frames)


# --- the skinned characters ---------------------------------------------------------------


def body(scene: Scene, vertices: int, influences: int = 4):
    """``scene``'s skeleton at its first frame wrapped in envelope tubes (32 sides, rings
    enough for at least ``vertices`` vertices), ``influences`` per vertex."""
    from app.scene.evaluate import bake
    from app.scene.rig.envelope import tube_mesh

    pose = bake(scene, np.array([float(scene.frame_start)]))
    heads, tails = pose.heads[0], pose.tails[0]
    lengths = np.linalg.norm(tails - heads, axis=1)
    tubes = int(np.sum(lengths > 1e-9))
    sides = 32
    rings = int(np.ceil((vertices / tubes - 2) / sides))
    return tube_mesh(
        pose.bone_to_world[0],
        heads,
        tails,
        [str(n) for n in pose.bone_names],
        radius=0.18 * lengths,
        sides=sides,
        rings=rings,
        influences=influences,
    )


def skinned_character(vertices: int = 100_000, influences: int = 8) -> Scene:
    """CMU 01_01 with a body of at least ``vertices`` vertices and ``influences`` influences
    per vertex (the largest characters animators bring: Mixamo's are 10k-70k vertices)."""
    scene = load_bvh(CMU_01_01)
    scene.meshes = (body(scene, vertices, influences),)
    return scene


def write_character(path, vertices: int = 100_000, influences: int = 8) -> Path:
    """:func:`skinned_character` as a glb (its motion baked), for opening by hand."""
    from app.scene.evaluate import bake, default_frames
    from app.scene.formats.gltf.export import write_gltf

    scene = skinned_character(vertices, influences)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_gltf(path, scene, bake(scene, default_frames(scene)))
    return path


# --- the long clip -----------------------------------------------------------------------


def write_long_bvh(path, frames: int = LONG_FRAMES, source: Path = CMU_01_01) -> Path:
    """``source``'s motion lines repeated until ``frames`` frames: a looped clip."""
    text = source.read_text(encoding="utf-8", errors="replace")
    head, _, motion = text.partition("MOTION")
    lines = [s for s in motion.splitlines() if s.strip()]
    frame_time = lines[1].split()[-1]
    rows = lines[2:]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"{head}MOTION\nFrames: {frames}\nFrame Time: {frame_time}\n")
        whole, rest = divmod(frames, len(rows))
        block = "\n".join(rows) + "\n"
        for _ in range(whole):
            out.write(block)
        out.write("".join(r + "\n" for r in rows[:rest]))
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(SCENES), help="folder for the crowd and the rig")
    parser.add_argument("--long", metavar="PATH", help="also write the 100,000-frame BVH here")
    parser.add_argument(
        "--character",
        metavar="PATH",
        help="also write the 100,000-vertex, 8-influence character here (.glb)",
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    for path in (write_compact(crowd_scene(), out / CROWD), write_compact(rig_scene(), out / RIG)):
        print(f"{path}: {path.stat().st_size / 1e6:.2f} MB")
    if args.long:
        path = write_long_bvh(args.long)
        print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")
    if args.character:
        path = write_character(args.character)
        print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
