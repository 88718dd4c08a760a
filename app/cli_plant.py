"""``python main.py plant-feet``: plant the feet of one clip, or of many on every core.

One file::

    plant-feet IN --out OUT [--frames A:B] [--height H] [--speed V]

plants IN (BVH, glTF, FBX or scene file) and writes OUT: a ``.bvh`` in the joints, order
and channels of a BVH input (the hierarchy copied as it was), a ``.json`` scene file with the
rig and its contacts, or ``.glb``/``.gltf`` as ``main.py export`` writes them; then prints
the figures before and after.

Many files::

    plant-feet FILES... --out DIR [-j N]

plants each into ``DIR`` (the same name; an FBX becomes ``.glb``, FBX being read only) on
``N`` processes (default: every core); a file that fails is reported in one line and the
others go on; a progress bar shows on a terminal. The exit status is 2 when any failed.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from app.cli_parts import _LIMITS, EXIT_BAD_INPUT, _limit_reason, _Parser, one_line, parse_frames

PROG = "main.py plant-feet"
OUTPUTS = (".bvh", ".json", ".glb", ".gltf")


@dataclass(frozen=True)
class Done:
    """What planting one file gave: its output and figures, or why it failed."""

    source: str
    out: str | None
    lines: tuple = ()
    error: str | None = None
    messages: tuple = ()


def _frames(text):
    if text is None:
        return None
    frames = parse_frames(text)
    return int(round(frames[0])), int(round(frames[-1]))


def figures_table(planted) -> list[str]:
    """The figures before and after, as lines of a table."""
    before, after = planted.before.row(), planted.after.row()
    record = planted.scene.plant
    contacts = sum(len(spans) for foot in record.feet for spans in foot.contacts)
    height = 1.7 * planted.before.units_per_metre
    return [
        f"{len(record.feet)} feet, {contacts} contacts, floor at {record.floor:.4g}, contact "
        f"speed {record.speed:g} m/s",
        f"{'':24}{'before':>10}{'after':>10}",
        f"{'skating ratio (GMD)':24}{before[0]:>10}{after[0]:>10}",
        f"{'longest slide':24}{before[1]:>10}{after[1]:>10}",
        f"{'mean joint displacement':24}{before[2]:>10}{after[2]:>10}",
        f"(lengths for a 1.7 m person: the character is {height:.4g} units tall)",
        *planted.notes,
    ]


def write_planted(planted, source: Path, out: Path) -> list[str]:
    """Write a planted clip to ``out`` by its suffix (module docstring); returns notes."""
    from app.scene.evaluate import bake
    from app.scene.formats.atomic import write_atomic

    suffix = out.suffix.lower()
    if suffix == ".json":
        from app.scene.io import save_scene

        save_scene(planted.scene, out)
        return []
    if suffix == ".bvh":
        from app.scene.motion.plant import original_scene

        result = planted.baked if planted.baked is not None else bake(planted.scene)
        if source.suffix.lower() == ".bvh":
            from app.scene.formats.bvh import bvh_layout
            from app.scene.formats.bvh_export import bvh_in_layout

            write_atomic(out, bvh_in_layout(bvh_layout(source), result, planted.scene.fps))
            return []
        import dataclasses

        from app.scene.formats.bvh_export import write_bvh

        flat = original_scene(planted.scene)
        index = {str(n): i for i, n in enumerate(result.bone_names)}
        keep = [index[b.name] for b in flat.bones]
        sliced = dataclasses.replace(
            result,
            bone_names=result.bone_names[keep],
            bone_to_world=result.bone_to_world[:, keep],
            heads=result.heads[:, keep],
            tails=result.tails[:, keep],
            limit_violation_deg=result.limit_violation_deg[:, keep],
        )
        return list(write_bvh(out, flat, sliced).notes)
    if suffix in (".glb", ".gltf"):
        from app.editor.export import ExportRequest, format_for, run_export

        fmt = format_for(None, out)
        return run_export(fmt, ExportRequest(planted.scene, out, None, None, {}))
    raise ValueError(f"--out must end in {', '.join(OUTPUTS)}, not {out.name!r}")


def plant_file(source: str, out: str, frames, floor, speed) -> Done:
    """Plant one file and write it (what each process of a batch runs); never raises for
    bad input: the failure is the :class:`Done`'s ``error``."""
    from app.cli_parts import _load
    from app.scene.errors import SceneError
    from app.scene.motion.plant import PlantError, PlantOptions, plant_feet

    try:
        scene = _load(source, None)
        planted = plant_feet(scene, PlantOptions(frames=frames, floor=floor, speed=speed))
        notes = write_planted(planted, Path(source), Path(out))
    except (SceneError, PlantError, ValueError) as e:
        return Done(source, None, error=one_line(e))
    except _LIMITS as e:
        return Done(source, None, error=_limit_reason(e))
    return Done(
        source,
        out,
        tuple(figures_table(planted)) + tuple(f"note: {n}" for n in notes),
        messages=tuple(scene.messages),
    )


def _batch_out(source: Path, folder: Path) -> Path:
    suffix = source.suffix.lower()
    return folder / (source.stem + (".glb" if suffix == ".fbx" else suffix))


def _bar(done: int, total: int, width: int = 30) -> str:
    filled = int(width * done / max(total, 1))
    return f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


def main(argv) -> int:
    parser = _Parser(
        prog=PROG,
        description="Plant the feet of a clip (or of many on every "
        "core): contacts found on heel, ball and toe, feet held still on them, "
        "the result the foot-roll rig keyed; prints the figures before and "
        "after.",
    )
    parser.add_argument(
        "inputs", nargs="+", metavar="IN", help="BVH, glTF (.gltf, .glb), FBX or scene file (.json)"
    )
    parser.add_argument(
        "--out", required=True, help="output file (.bvh, .json, .glb, .gltf), or a folder for many"
    )
    parser.add_argument("--frames", help="A:B, the frames to plant (both included)")
    parser.add_argument(
        "--height",
        type=float,
        metavar="H",
        help="the floor's height in scene units (default: detected)",
    )
    parser.add_argument(
        "--speed",
        type=float,
        metavar="V",
        help="contact speed in m/s for a 1.7 m person (default: twice the "
        "speed at which the clip's standing foot slides, from 0.3 to 1)",
    )
    parser.add_argument(
        "-j", "--jobs", type=int, metavar="N", help="processes for many files (default: every core)"
    )
    args = parser.parse_args(argv)
    try:
        frames = _frames(args.frames)
        if args.speed is not None and not args.speed > 0:
            raise ValueError(f"--speed must be > 0, got {args.speed:g}")
        if args.jobs is not None and args.jobs < 1:
            raise ValueError(f"-j must be at least 1, got {args.jobs}")
    except ValueError as e:
        print(one_line(f"{PROG}: {e}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    out = Path(args.out)
    many = len(args.inputs) > 1 or out.is_dir()
    if not many:
        done = plant_file(args.inputs[0], args.out, frames, args.height, args.speed)
        if done.error:
            print(one_line(f"{PROG}: {_named(done)}"), file=sys.stderr)
            return EXIT_BAD_INPUT
        for message in done.messages:
            print(one_line(message), file=sys.stderr)
        print(f"planted {done.source} -> {done.out}")
        for line in done.lines:
            print(line)
        return 0
    return _many(args.inputs, out, frames, args.height, args.speed, args.jobs)


def _many(inputs, folder: Path, frames, floor, speed, jobs) -> int:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(one_line(f"{PROG}: {folder}: {e.strerror or e}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    jobs = jobs or os.cpu_count() or 1
    terminal = sys.stderr.isatty()
    failed = 0
    total = len(inputs)
    with ProcessPoolExecutor(max_workers=min(jobs, total)) as pool:
        futures = [
            pool.submit(plant_file, src, str(_batch_out(Path(src), folder)), frames, floor, speed)
            for src in inputs
        ]
        for count, future in enumerate(as_completed(futures), start=1):
            done = future.result()
            if terminal:
                print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
            if done.error:
                failed += 1
                print(one_line(f"{PROG}: {_named(done)}"), file=sys.stderr)
            else:
                print(one_line(f"{done.source} -> {done.out}: " + _summary(done)))
            if terminal:
                print(_bar(count, total), end="", file=sys.stderr, flush=True)
    if terminal:
        print(file=sys.stderr)
    print(f"planted {total - failed} of {total} files into {folder}")
    return EXIT_BAD_INPUT if failed else 0


def _named(done: Done) -> str:
    """The failure, naming the file once."""
    return done.error if done.error.startswith(done.source) else f"{done.source}: {done.error}"


def _summary(done: Done) -> str:
    """A figures line of one file: the table's rows side by side."""
    rows = [line.split() for line in done.lines[2:5]]
    words = ("skating", "slide", "displacement")
    parts = []
    for word, row in zip(words, rows):
        parts.append(f"{word} {row[-4]} {row[-3]} -> {row[-2]} {row[-1]}")
    return ", ".join(parts)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
