"""The command line: ``python main.py [COMMAND] ...``.

Commands:
  (none) [SCENE]   open the editor (on the demo scene when SCENE is omitted)
  bake             evaluate a scene, BVH or glTF file and write the arrays to a .npz
  screenshot       render a scene in the editor's viewport to a PNG (works under Xvfb)
  export           write the evaluated animation as BVH, CSV, NPZ, glTF or PNG images
  plant-feet       plant a clip's feet (or many clips' on every core) and print the figures
  retarget         put a clip's motion on another character (glTF, JSON out)

Bad input exits with status 2 and a one-line reason on standard error (never a traceback;
what the loaded file says about itself, its messages, is printed only when the command
succeeds).
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.cli_parts import (  # the commands' shared parts
    _LIMITS,
    EXIT_BAD_INPUT,  # noqa: F401  (read by callers as app.cli.EXIT_BAD_INPUT)
    _limit_reason,
    _load,
    _Parser,
    one_line,
    parse_frames,
    refuse,
)

ROOT = Path(__file__).resolve().parent.parent
DEMO_SCENE = ROOT / "resources" / "scenes" / "foot_roll.json"


def _bake(argv) -> int:
    parser = _Parser(
        prog="main.py bake",
        description="Evaluate SCENE (a scene file, .bvh, .gltf, .glb or .fbx) and write a NumPy "
        ".npz "
        "with bone_names, frames, bone_to_world, heads, tails and limit_violation_deg.",
    )
    parser.add_argument(
        "scene", help="scene file (.json), motion capture (.bvh), glTF (.gltf, .glb) or FBX (.fbx)"
    )
    parser.add_argument("--out", required=True, help="output .npz path")
    parser.add_argument("--frames", help="START:END[:STEP], END included (default: all)")
    parser.add_argument(
        "--animation",
        metavar="NAME",
        help="glTF and FBX: the animation or take to import (default: the first)",
    )
    parser.add_argument(
        "--space", choices=("world", "object"), help="evaluate every constraint in this space"
    )
    args = parser.parse_args(argv)

    from app.scene.errors import SceneError
    from app.scene.evaluate import bake_to_npz

    try:
        frames = parse_frames(args.frames) if args.frames else None
        scene = _load(args.scene, args.animation)
        try:  # chunk by chunk into the file: the whole result is never held
            frames, bones = bake_to_npz(scene, args.out, frames=frames, space=args.space)
        except SceneError as e:
            raise _in_file(e, args.scene) from None
    except (SceneError, ValueError) as e:
        return refuse("main.py bake", e)
    except _LIMITS as e:
        return refuse("main.py bake", _limit_reason(e))
    for message in scene.messages:
        print(one_line(message), file=sys.stderr)
    from app.scene.words import plural

    frames, bones = plural(frames, "frame"), plural(bones, "bone")
    print(f"baked {frames} x {bones} to {args.out}")
    return 0


def _in_file(error, scene_path):
    """A refusal of the evaluation (a constraint that cannot be solved), naming the scene's
    file when it names no file of its own (the command's own arguments excepted)."""
    if error.file or error.path in ("frames", "--frames", "--space"):
        return error
    return error.with_file(str(scene_path))


def _screenshot(argv) -> int:
    parser = _Parser(
        prog="main.py screenshot", description="Render SCENE in the editor and save a PNG."
    )
    parser.add_argument("scene", nargs="?", default=str(DEMO_SCENE))
    parser.add_argument("--out", required=True, help="output .png path")
    parser.add_argument("--frame", type=float, help="frame to show (default: the first)")
    parser.add_argument("--size", default="1280x800", help="window size WxH")
    parser.add_argument(
        "--space",
        choices=("world", "object"),
        help="evaluate every constraint in this space (default: as authored)",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="Compare mode: the other space as a ghost, and the differences",
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="NAME",
        help="select a bone, a constraint, or a part of one as CONSTRAINT/PART: a pivot by its "
        "name, a target or pole by that word (repeatable)",
    )
    parser.add_argument("--axes", action="store_true", help="draw each bone's frame axes")
    parser.add_argument(
        "--viewport-only", action="store_true", help="save only the viewport, not the whole window"
    )
    parser.add_argument(
        "--show",
        choices=("both", "mesh", "bones"),
        default="both",
        help="skinned meshes and bones, the meshes only, or the bones only",
    )
    parser.add_argument(
        "--no-xray", action="store_true", help="let the meshes hide the bones inside them"
    )
    parser.add_argument(
        "--orbit",
        default="0,0",
        metavar="AZ,EL",
        help="turn the camera by these degrees after framing (default 0,0)",
    )
    parser.add_argument(
        "--frame-selection",
        action="store_true",
        help="point the camera at the selection instead of everything",
    )
    args = parser.parse_args(argv)
    from app.window.application import render_screenshot

    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
        orbit = tuple(float(v) for v in args.orbit.split(","))
        if len(orbit) != 2:
            raise ValueError(f"--orbit {args.orbit!r}: give AZIMUTH,ELEVATION in degrees")
        path = render_screenshot(
            args.scene,
            args.out,
            frame=args.frame,
            size=(width, height),
            space=args.space,
            compare=args.compare,
            select=args.select,
            axes=args.axes,
            viewport_only=args.viewport_only,
            show=args.show,
            xray=not args.no_xray,
            orbit=orbit,
            frame_selection=args.frame_selection,
        )
    except ValueError as e:  # SceneError too
        return refuse("main.py screenshot", e)
    except _LIMITS as e:
        return refuse("main.py screenshot", _limit_reason(e))
    print(path)
    return 0


def _export(argv) -> int:
    from app.editor.export import FORMATS, ExportRequest, format_for, run_export
    from app.window.render import register_formats

    register_formats()  # png and png-sequence render with the window's viewport

    parser = _Parser(
        prog="main.py export",
        description="Evaluate SCENE (constraints included) and write it in another format. "
        "Every format writes atomically; nothing is written when the input is refused. "
        "png renders the viewport at the first frame, png-sequence every frame into the "
        "folder --out (frame_0000.png...); both need a display (use xvfb-run without one).",
    )
    parser.add_argument(
        "scene", help="scene file (.json), motion capture (.bvh), glTF (.gltf, .glb) or FBX (.fbx)"
    )
    parser.add_argument("--out", required=True, help="output path")
    parser.add_argument(
        "--format", choices=tuple(FORMATS), help="default: from the suffix of --out"
    )
    parser.add_argument("--frames", help="START:END[:STEP], END included (default: all)")
    parser.add_argument(
        "--animation",
        metavar="NAME",
        help="glTF and FBX: the animation or take to import (default: the first)",
    )
    parser.add_argument(
        "--space", choices=("world", "object"), help="evaluate every constraint in this space"
    )
    parser.add_argument(
        "--rotation-order",
        default="ZXY",
        metavar="ORDER",
        help="BVH rotation channel order (default ZXY: Zrotation Xrotation Yrotation)",
    )
    parser.add_argument(
        "--size",
        default="1280x720",
        metavar="WxH",
        help="image size for png and png-sequence (default 1280x720)",
    )
    args = parser.parse_args(argv)

    from app.scene.errors import SceneError

    try:
        fmt = format_for(args.format, args.out)
        size = _parse_size(args.size) if fmt.name.startswith("png") else None
        frames = parse_frames(args.frames) if args.frames else None
        scene = _load(args.scene, args.animation)
        request = ExportRequest(
            scene,
            Path(args.out),
            frames,
            args.space,
            {"rotation_order": args.rotation_order, "size": size},
        )
        try:
            notes = run_export(fmt, request)
        except SceneError as e:
            raise _in_file(e, args.scene) from None
    except (SceneError, ValueError) as e:
        return refuse("main.py export", e)
    except _LIMITS as e:
        return refuse("main.py export", _limit_reason(e))
    for message in scene.messages:
        print(one_line(message), file=sys.stderr)
    for note in notes:
        print(one_line(f"note: {note}"), file=sys.stderr)
    print(f"exported {args.scene} as {fmt.name} to {args.out}")
    return 0


def _parse_size(text: str) -> tuple[int, int]:
    """``WxH`` as two integers (a ValueError names the text otherwise)."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size must be WxH in pixels, got {text!r}") from None
    return width, height


def _open(argv) -> int:
    parser = _Parser(prog="main.py", description="Open the Pivotal editor.")
    parser.add_argument("scene", nargs="?", help="scene or .bvh to open (default: demo)")
    parser.add_argument(
        "--animation",
        metavar="NAME",
        help="glTF and FBX: the animation or take to open (default: the "
        "first; the others are named on standard error)",
    )
    args = parser.parse_args(argv)
    from app.window.application import run_editor

    return run_editor(
        args.scene or str(DEMO_SCENE), play=args.scene is None, animation=args.animation
    )


def _plant_feet(argv) -> int:
    from app.cli_plant import main

    return main(argv)


def _retarget(argv) -> int:
    from app.cli_retarget import main

    return main(argv)


COMMANDS = {
    "bake": _bake,
    "screenshot": _screenshot,
    "export": _export,
    "plant-feet": _plant_feet,
    "retarget": _retarget,
}

HELP = f"""usage: python main.py [SCENE] [--animation NAME]
       python main.py COMMAND [ARGS]

Pivotal: a skeleton rig editor whose bodies rotate about several pivots at once.

With no command, opens the editor on SCENE (default: {DEMO_SCENE.relative_to(ROOT)}, which
then plays).

commands:
  bake SCENE --out OUT.npz [--frames START:END[:STEP]] [--space world|object]
       [--animation NAME]
                 evaluate a scene or .bvh and write the baked arrays
  screenshot [SCENE] --out OUT.png [--frame F] [--size WxH] [--space world|object]
             [--compare] [--select NAME]... [--axes] [--viewport-only]
                 render the editor's viewport to a PNG (use under Xvfb when headless)
  export SCENE --out PATH [--format bvh|csv|npz|glb|gltf|usda|usdc|png|png-sequence]
         [--frames START:END[:STEP]] [--space world|object] [--animation NAME]
         [--rotation-order ZXY]
         [--size WxH]
                 write the evaluated animation as BVH, CSV, NPZ, glTF 2.0 or USD, or render
                 the viewport to a PNG or a PNG sequence (format from PATH's suffix)

  retarget MOTION --onto CHARACTER --out OUT.glb|OUT.gltf|OUT.json [--animation NAME]
           [--plant]
                 put a clip's motion (BVH, glTF, FBX) on another character, through each
                 skeleton's humanoid map (--plant: plant the result's feet)

  plant-feet IN --out OUT [--frames A:B] [--height H] [--speed V]
  plant-feet FILES... --out DIR [-j N]
                 plant the feet of a clip (or of many, on every core): contacts on heel,
                 ball and toe held still, the result the foot-roll rig keyed; prints the
                 figures before and after (OUT: .bvh in the input's joints and channels,
                 .json, .glb, .gltf)

SCENE is a scene file (.json), a BVH (.bvh), a glTF 2.0 character (.gltf, .glb) or an FBX
character (.fbx: read, never written).

'python main.py COMMAND --help' describes a command.
"""


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("-h", "--help", "help"):
        print(HELP, end="")
        return 0
    if argv and argv[0] in COMMANDS:
        return COMMANDS[argv[0]](argv[1:])
    return _open(argv)
