"""The command line: ``python main.py [COMMAND] ...``.

Commands:
  (none) [SCENE]   open the editor (on the demo scene when SCENE is omitted)
  bake             evaluate a scene, BVH or glTF file and write the arrays to a .npz
  screenshot       render a scene in the editor's viewport to a PNG (works under Xvfb)
  export           write the evaluated animation as BVH, CSV, NPZ, glTF or PNG images
  retarget         put a clip's motion on another character (glTF, JSON out)

Bad input exits with status 2 and a one-line reason on standard error (never a traceback;
what the loaded file says about itself, its messages, is printed only when the command
succeeds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

EXIT_BAD_INPUT = 2
ROOT = Path(__file__).resolve().parent.parent
DEMO_SCENE = ROOT / "resources" / "scenes" / "foot_roll.json"


def one_line(text) -> str:
    """``text`` as one printable line: line breaks as spaces, what the terminal's encoding
    cannot show (a lone surrogate) escaped."""
    line = " ".join(str(text).split("\n"))
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    return line.encode(encoding, "backslashreplace").decode(encoding, "replace")


def refuse(prog: str, error) -> int:
    """Print ``prog: error`` on one line to standard error; the bad-input exit status."""
    print(one_line(f"{prog}: {error}"), file=sys.stderr)
    return EXIT_BAD_INPUT


#: What bad input can raise besides SceneError and ValueError: more than the machine can
#: hold, or nesting past Python's recursion limit (each a refusal, with one line).
_LIMITS = (MemoryError, RecursionError)


def _limit_reason(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "not enough memory for this input (try fewer frames with --frames)"
    return "the input is nested too deeply"


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors exit 2 with one line (argparse's own status is 2 too)."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, one_line(f"{self.prog}: {message}") + "\n")


def parse_frames(text: str) -> np.ndarray:
    """``START:END[:STEP]`` (END included) as an array of frames.

    Raises
    ------
    ValueError
        With a message naming what is wrong.
    """
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise ValueError(f"--frames must be START:END[:STEP], got {text!r}")
    try:
        start, end = float(parts[0]), float(parts[1])
        step = float(parts[2]) if len(parts) == 3 else 1.0
    except ValueError:
        raise ValueError(f"--frames must be numbers START:END[:STEP], got {text!r}") from None
    if not all(np.isfinite([start, end, step])):
        raise ValueError(f"--frames must be finite, got {text!r}")
    if step <= 0:
        raise ValueError(f"--frames STEP must be > 0, got {parts[2]!r}")
    if end < start:
        raise ValueError(f"--frames END {end:g} is before START {start:g}")
    count = np.floor((end - start) / step + 1e-9) + 1
    from app.scene.bounds import check_frame_count

    check_frame_count(count, "--frames")  # 0:1e300 is refused here, not allocated
    return start + step * np.arange(int(count))


def _bake(argv) -> int:
    parser = _Parser(
        prog="main.py bake",
        description="Evaluate SCENE (a scene file, .bvh, .gltf, .glb or .fbx) and write a NumPy "
        ".npz "
        "with bone_names, frames, bone_to_world, heads, tails and limit_violation_deg.",
    )
    parser.add_argument("scene", help="scene file (.json), motion capture (.bvh), glTF "
                        "(.gltf, .glb) or FBX (.fbx)")  # fmt: skip
    parser.add_argument("--out", required=True, help="output .npz path")
    parser.add_argument("--frames", help="START:END[:STEP], END included (default: all)")
    parser.add_argument("--animation", metavar="NAME",
                        help="glTF and FBX: the animation or take to import (default: the "
                        "first)")  # fmt: skip
    parser.add_argument("--space", choices=("world", "object"),
                        help="evaluate every constraint in this space")  # fmt: skip
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


def _load(path, animation):
    """``load_scene``, with ``--animation`` for glTF and FBX files (refused for others)."""
    from app.scene.io import FBX_SUFFIX, GLTF_SUFFIXES, load_scene

    if animation is not None and Path(path).suffix.lower() not in GLTF_SUFFIXES + (FBX_SUFFIX,):
        raise ValueError(f"--animation applies to glTF and FBX files (.gltf, .glb, .fbx), not "
                         f"{path!r}")  # fmt: skip
    return load_scene(path, animation=animation)


def _screenshot(argv) -> int:
    parser = _Parser(prog="main.py screenshot",
                     description="Render SCENE in the editor and save a PNG.")  # fmt: skip
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
        help="select a bone, a constraint or CONSTRAINT/PIVOT (repeatable)",
    )
    parser.add_argument("--axes", action="store_true", help="draw each bone's frame axes")
    parser.add_argument(
        "--viewport-only", action="store_true", help="save only the viewport, not the whole window"
    )
    parser.add_argument("--show", choices=("both", "mesh", "bones"), default="both",
                        help="skinned meshes and bones, the meshes only, or the bones only")
    parser.add_argument("--no-xray", action="store_true",
                        help="let the meshes hide the bones inside them")  # fmt: skip
    parser.add_argument("--orbit", default="0,0", metavar="AZ,EL",
                        help="turn the camera by these degrees after framing (default 0,0)")
    parser.add_argument("--frame-selection", action="store_true",
                        help="point the camera at the selection instead of everything")
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
    parser.add_argument("scene", help="scene file (.json), motion capture (.bvh), glTF "
                        "(.gltf, .glb) or FBX (.fbx)")  # fmt: skip
    parser.add_argument("--out", required=True, help="output path")
    parser.add_argument("--format", choices=tuple(FORMATS),
                        help="default: from the suffix of --out")  # fmt: skip
    parser.add_argument("--frames", help="START:END[:STEP], END included (default: all)")
    parser.add_argument("--animation", metavar="NAME",
                        help="glTF and FBX: the animation or take to import (default: the "
                        "first)")  # fmt: skip
    parser.add_argument("--space", choices=("world", "object"),
                        help="evaluate every constraint in this space")  # fmt: skip
    parser.add_argument("--rotation-order", default="ZXY", metavar="ORDER",
                        help="BVH rotation channel order (default ZXY: Zrotation Xrotation "
                        "Yrotation)")  # fmt: skip
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
        request = ExportRequest(scene, Path(args.out), frames, args.space,
                                {"rotation_order": args.rotation_order, "size": size})  # fmt: skip
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


RETARGET_OUT = (".glb", ".gltf", ".json")


def _retarget(argv) -> int:
    parser = _Parser(
        prog="main.py retarget",
        description="Put the motion of MOTION (a .bvh, a glTF or FBX clip, a scene file) on "
        "CHARACTER (a glTF or FBX character, a scene file): each bone the two humanoid maps "
        "share points where the clip's does, the hips travel by the ratio of leg lengths, the "
        "clip's frame rate and length are kept. OUT is written atomically: .glb/.gltf (the "
        "character with its meshes and the motion) or .json (a scene file keeping the map).",
    )
    parser.add_argument("motion", help="the clip: .bvh, .gltf, .glb, .fbx or a scene file")
    parser.add_argument("--onto", required=True, metavar="CHARACTER",
                        help="the character: .gltf, .glb, .fbx or a scene file")  # fmt: skip
    parser.add_argument("--out", required=True, help="output .glb, .gltf or .json")
    parser.add_argument("--animation", metavar="NAME",
                        help="the clip's animation or take, for a glTF or FBX file with several "
                        "(default: the first)")  # fmt: skip
    args = parser.parse_args(argv)

    from app.scene.errors import SceneError

    try:
        if Path(args.out).suffix.lower() not in RETARGET_OUT:
            raise ValueError(f"--out must end in .glb, .gltf or .json, got {args.out!r}")
        motion = _load(args.motion, args.animation)
        character = _load(args.onto, None)
        done, notes = retarget_and_write(motion, character, args.out, args.onto)
    except (SceneError, ValueError) as e:
        return refuse("main.py retarget", e)
    except _LIMITS as e:
        return refuse("main.py retarget", _limit_reason(e))
    for message in motion.messages:
        print(one_line(message), file=sys.stderr)
    for note in done.messages + notes:
        print(one_line(f"note: {note}"), file=sys.stderr)
    from app.scene.words import plural

    frames = plural(done.scene.frame_end - done.scene.frame_start + 1, "frame")
    print(f"retargeted {frames} of {args.motion} onto {args.onto} "
          f"({plural(len(done.pairs), 'bone')} mapped on both, hips x {done.scale:.4g}) "
          f"to {args.out}")  # fmt: skip
    return 0


def retarget_and_write(motion, character, out, character_path):
    """Retarget ``motion`` onto ``character`` with their maps and write ``out``; the result
    and the writer's notes.

    Raises
    ------
    SceneError, ValueError
    """
    from app.scene.io import save_scene
    from app.scene.retarget.map_file import map_of, with_map
    from app.scene.retarget.transfer import retarget

    character_map = map_of(character)
    done = retarget(motion, map_of(motion), character, character_map)
    scene = done.scene
    if Path(out).suffix.lower() == ".json":
        scene.extra = with_map(scene.extra, character_map)
        save_scene(scene, out)
        return done, []
    from app.scene.evaluate import bake
    from app.scene.formats.gltf.export import write_gltf

    return done, write_gltf(out, scene, bake(scene))


def _open(argv) -> int:
    parser = _Parser(prog="main.py", description="Open the Pivotal editor.")
    parser.add_argument("scene", nargs="?", help="scene or .bvh to open (default: demo)")
    parser.add_argument("--animation", metavar="NAME",
                        help="glTF and FBX: the animation or take to open (default: the "
                        "first; the others are named on standard error)")  # fmt: skip
    args = parser.parse_args(argv)
    from app.window.application import run_editor

    return run_editor(args.scene or str(DEMO_SCENE), play=args.scene is None,
                      animation=args.animation)  # fmt: skip


COMMANDS = {"bake": _bake, "screenshot": _screenshot, "export": _export, "retarget": _retarget}

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
                 put a clip's motion (BVH, glTF, FBX) on another character, through each
                 skeleton's humanoid map

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
