"""``python main.py retarget MOTION --onto CHARACTER --out OUT [--animation NAME] [--plant]``:
a clip's motion put on another character through both skeletons' humanoid maps
(:mod:`app.scene.retarget`), written as ``.glb``/``.gltf`` (the character with its meshes and
the motion) or ``.json`` (a scene file that keeps the character's map); ``--plant`` plants the
result's feet first (:func:`app.scene.motion.plant.plant_feet`, as ``plant-feet`` does) and
prints the figures before and after."""

from __future__ import annotations

import sys
from pathlib import Path

from app.cli_parts import _LIMITS, _limit_reason, _load, _Parser, one_line, refuse

PROG = "main.py retarget"
OUTPUTS = (".glb", ".gltf", ".json")


def main(argv) -> int:
    parser = _Parser(
        prog=PROG,
        description="Put the motion of MOTION (a .bvh, a glTF or FBX clip, a scene file) on "
        "CHARACTER (a glTF or FBX character, a scene file): each bone the two humanoid maps "
        "share points where the clip's does, the hips travel by the ratio of leg lengths, the "
        "clip's frame rate and length are kept. OUT is written atomically: .glb/.gltf (the "
        "character with its meshes and the motion) or .json (a scene file keeping the map).",
    )
    parser.add_argument("motion", help="the clip: .bvh, .gltf, .glb, .fbx or a scene file")
    parser.add_argument(
        "--onto",
        required=True,
        metavar="CHARACTER",
        help="the character: .gltf, .glb, .fbx or a scene file",
    )
    parser.add_argument("--out", required=True, help="output .glb, .gltf or .json")
    parser.add_argument(
        "--animation",
        metavar="NAME",
        help="the clip's animation or take, for a glTF or FBX file with several "
        "(default: the first)",
    )
    parser.add_argument(
        "--plant",
        action="store_true",
        help="plant the result's feet (as plant-feet does) before writing it; "
        "the output is the foot-roll rig on each leg, keyed",
    )
    args = parser.parse_args(argv)

    from app.scene.errors import SceneError
    from app.scene.motion.plant import PlantError

    try:
        if Path(args.out).suffix.lower() not in OUTPUTS:
            raise ValueError(f"--out must end in .glb, .gltf or .json, got {args.out!r}")
        motion = _load(args.motion, args.animation)
        character = _load(args.onto, None)
        done, planted, notes = retarget_and_write(motion, character, args.out, args.plant)
    except (SceneError, PlantError, ValueError) as e:
        return refuse(PROG, e)
    except _LIMITS as e:
        return refuse(PROG, _limit_reason(e))
    for message in motion.messages:
        print(one_line(message), file=sys.stderr)
    for note in done.messages + notes:
        print(one_line(f"note: {note}"), file=sys.stderr)
    from app.scene.words import plural

    frames = plural(done.scene.frame_end - done.scene.frame_start + 1, "frame")
    print(
        f"retargeted {frames} of {args.motion} onto {args.onto} "
        f"({plural(len(done.pairs), 'bone')} mapped on both, hips x {done.scale:.4g})"
        + (", feet planted" if planted is not None else "")
        + f" to {args.out}"
    )
    if planted is not None:
        from app.cli_plant import figures_table

        for line in figures_table(planted):
            print(line)
    return 0


def retarget_and_write(motion, character, out, plant: bool = False):
    """Retarget ``motion`` onto ``character`` with their maps, plant its feet when ``plant``,
    and write ``out``; the retarget, the plant (``None`` without) and the writer's notes.

    Raises
    ------
    SceneError, PlantError, ValueError
    """
    from app.scene.io import save_scene
    from app.scene.retarget.map_file import map_of, with_map
    from app.scene.retarget.transfer import retarget

    character_map = map_of(character)
    done = retarget(motion, map_of(motion), character, character_map)
    scene = done.scene
    scene.extra = with_map(scene.extra, character_map)  # the legs the plant reads, too
    planted, baked = None, None
    if plant:
        from app.scene.motion.plant import plant_feet

        planted = plant_feet(scene)
        scene, baked = planted.scene, planted.baked
    if Path(out).suffix.lower() == ".json":
        save_scene(scene, out)
        return done, planted, []
    from app.scene.evaluate import bake
    from app.scene.formats.gltf.export import write_gltf

    return done, planted, write_gltf(out, scene, baked if baked is not None else bake(scene))
