"""What the commands of ``main.py`` share: one-line refusals, the argument parser that
exits 2 with one line, ``--frames``, and loading an input file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

EXIT_BAD_INPUT = 2


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


def _load(path, animation):
    """``load_scene``, with ``--animation`` for glTF and FBX files (refused for others)."""
    from app.scene.io import FBX_SUFFIX, GLTF_SUFFIXES, load_scene

    if animation is not None and Path(path).suffix.lower() not in GLTF_SUFFIXES + (FBX_SUFFIX,):
        raise ValueError(
            f"--animation applies to glTF and FBX files (.gltf, .glb, .fbx), not {path!r}"
        )
    return load_scene(path, animation=animation)
