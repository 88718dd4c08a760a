"""The fuzz harness: structural mutations of scene files and BVH clips, and the one check
every input must pass (issue 10; ``docs/reliability.md``).

An input is loaded with :func:`app.scene.io.load_scene` and, when accepted, baked in both
spaces. The only allowed outcomes are a :class:`SceneError` with a place (a JSON path, a
line or a byte) or finite arrays of the documented shapes; anything else — another exception,
NaN/Inf, a wrong shape, an input that takes longer than :data:`HANG_SECONDS` — is a defect.

Used by ``tests/test_fuzz.py`` (hypothesis, derandomized) and ``tools/fuzz.py``
(``make fuzz``). Another format joins by adding its bases and mutations here (the shipped
``.glb`` files take byte flips and truncations); the check itself, :func:`check_input`, takes
any ``(path or bytes, suffix)``.
"""

from __future__ import annotations

import json
import random
import re
import signal
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.io import load_scene

ROOT = Path(__file__).resolve().parent.parent
SCENE_FILES = sorted((ROOT / "resources" / "scenes").glob("*.json"))
#: Binary glTF files shipped with the scenes: byte-level mutations only (the glTF helper's
#: tests/test_gltf_fuzz.py mutates glTF's JSON structure).
GLB_FILES = sorted((ROOT / "resources" / "scenes").glob("*.glb"))
CMU_FILES = sorted(Path("/usr/share/assimp/models/BVH").glob("*.bvh"))
#: Motion lines kept of each CMU clip as a base: mutations reach the header and the motion
#: alike while one example stays a few milliseconds.
BVH_BASE_FRAMES = 40
#: An input that takes longer than this to load and bake is a defect (a hang).
HANG_SECONDS = 10.0

JSON_KINDS = ("delete_key", "duplicate_key", "duplicate_item", "delete_item", "swap_type",
              "huge_number", "truncate", "flip_bytes")  # fmt: skip
GLB_KINDS = ("truncate", "flip_bytes")
BVH_KINDS = ("delete_line", "duplicate_line", "swap_type", "huge_number", "truncate",
             "flip_bytes", "channel_count", "frames_header", "frame_time_header")  # fmt: skip

HUGE = ("1e308", "-1e308", "1e300", "1e400", "-1e400", "9223372036854775807",
        "18446744073709551617", "1" + "0" * 400, "1e16", "-1e16", "10000001", "5e-324",
        "NaN", "Infinity", "-Infinity", "1e-320", "0", "-1")  # fmt: skip
OTHER_TYPES = ('"text"', "[]", "{}", "null", "true", "[1, 2, 3]", '{"a": 1}', "0.5", '""')


class Defect(AssertionError):
    """An outcome the contract does not allow."""


@dataclass
class Outcome:
    kind: str  # "refused" or "accepted"
    detail: str
    seconds: float


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _place_ok(e: SceneError) -> bool:
    return bool(e.path)


def _check_result(result, scene, space) -> None:
    frames = scene.frame_end - scene.frame_start + 1
    bones = len(scene.bones)
    shapes = {"bone_names": (bones,), "frames": (frames,), "bone_to_world": (frames, bones, 4, 4),
              "heads": (frames, bones, 3), "tails": (frames, bones, 3),
              "limit_violation_deg": (frames, bones)}  # fmt: skip
    for name, shape in shapes.items():
        array = getattr(result, name)
        if array.shape != shape:
            raise Defect(f"bake({space}): {name} has shape {array.shape}, expected {shape}")
        if name != "bone_names" and not np.all(np.isfinite(array)):
            raise Defect(f"bake({space}): {name} is not finite")


def check_input(data, suffix: str) -> Outcome:
    """Load ``data`` (a path, or the bytes of a file with ``suffix``) and bake it in both
    spaces when accepted.

    Returns
    -------
    Outcome
        ``refused`` (a SceneError with a place) or ``accepted`` (finite, documented shapes).

    Raises
    ------
    Defect
        For any other outcome (the cause chained).
    """
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(data, (bytes, bytearray)):
            path = Path(tmp) / f"input{suffix}"
            path.write_bytes(bytes(data))
        else:
            path = Path(data)
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
        warned = warnings.catch_warnings()
        warned.__enter__()
        warnings.simplefilter("error")  # an overflow warning is a NaN/Inf on its way
        try:
            scene = load_scene(path)
            for space in ("world", "object"):
                _check_result(bake(scene, space=space), scene, space)
        except SceneError as e:
            if not _place_ok(e):
                raise Defect(f"SceneError without a place: {e}") from e
            return Outcome("refused", str(e), time.perf_counter() - start)
        except _Hang:
            raise Defect(f"took longer than {HANG_SECONDS} s") from None
        except Defect:
            raise
        except Exception as e:  # every other exception is what the fuzzer looks for
            raise Defect(f"{type(e).__name__}: {e}") from e
        finally:
            warned.__exit__(None, None, None)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return Outcome("accepted", "", time.perf_counter() - start)


# --- bases -------------------------------------------------------------------------------

_BASES: dict[str, bytes] = {}


def _cut_bvh(text: str, frames: int) -> str:
    head, motion = re.split(r"^MOTION[ \t]*\r?$", text, maxsplit=1, flags=re.MULTILINE)
    lines = motion.strip().splitlines()
    rows = lines[2 : 2 + frames]
    return f"{head}MOTION\nFrames: {len(rows)}\n{lines[1].strip()}\n" + "\n".join(rows) + "\n"


def bases() -> dict[str, bytes]:
    """File name -> bytes of every base: the shipped scenes and the (cut) CMU clips."""
    if not _BASES:
        for f in SCENE_FILES + GLB_FILES:
            _BASES[f.name] = f.read_bytes()
        for f in CMU_FILES:
            text = f.read_text(encoding="utf-8", errors="replace")
            _BASES[f.name] = _cut_bvh(text, BVH_BASE_FRAMES).encode()
    return _BASES


def kinds_for(name: str) -> tuple[str, ...]:
    if name.endswith(".glb"):
        return GLB_KINDS
    return BVH_KINDS if name.endswith(".bvh") else JSON_KINDS


# --- mutations ---------------------------------------------------------------------------


def _containers(value, out=None):
    """Every dict and list inside ``value`` (``value`` included), in document order."""
    out = [] if out is None else out
    if isinstance(value, (dict, list)):
        out.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            _containers(child, out)
    return out


def _slots(value):
    """(container, key) of every value inside ``value``."""
    return [(c, k) for c in _containers(value) for k in (c if isinstance(c, dict) else
                                                          range(len(c)))]  # fmt: skip


_MARK = "\u0000fuzz\u0000"


def _json_mutation(data: bytes, kind: str, rng: random.Random) -> bytes:
    try:
        value = json.loads(data)
    except ValueError:
        return _bytes_mutation(data, "flip_bytes", rng)  # an earlier mutation broke it
    slots = _slots(value)
    dicts = [c for c in _containers(value) if isinstance(c, dict) and c]
    lists = [c for c in _containers(value) if isinstance(c, list) and c]
    if kind == "delete_key" and dicts:
        d = rng.choice(dicts)
        del d[rng.choice(list(d))]
    elif kind == "duplicate_key" and dicts:
        # The same key twice in one object, the second with another member's value:
        # JSON parsers keep the last.
        d = rng.choice(dicts)
        k = rng.choice(list(d))
        other = rng.choice(slots)
        d[k] = _MARK + "DUP" + json.dumps([k, d[k], other[0][other[1]]])
    elif kind == "duplicate_item" and lists:
        items = rng.choice(lists)
        i = rng.randrange(len(items))
        items.insert(rng.randrange(len(items) + 1), json.loads(json.dumps(items[i])))
    elif kind == "delete_item" and lists:
        items = rng.choice(lists)
        del items[rng.randrange(len(items))]
    elif kind == "swap_type" and slots:
        c, k = rng.choice(slots)
        c[k] = _MARK + rng.choice(OTHER_TYPES)
    elif kind == "huge_number":
        numbers = [(c, k) for c, k in slots
                   if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)]  # fmt: skip
        if numbers:
            c, k = rng.choice(numbers)
            c[k] = _MARK + rng.choice(HUGE)
    elif kind in ("truncate", "flip_bytes"):
        return _bytes_mutation(data, kind, rng)
    text = json.dumps(value, indent=1)
    # Raw JSON for the marked values (NaN, 1e400, a duplicated key) that json.dumps cannot
    # write itself.
    text = re.sub(r'"\\u0000fuzz\\u0000(.*?)(?<!\\)"', lambda m: _unmark(m.group(1)), text)
    return text.encode()


def _unmark(escaped: str) -> str:
    raw = json.loads(f'"{escaped}"')
    if raw.startswith("DUP"):
        key, first, second = json.loads(raw[3:])
        return f"{json.dumps(first)}, {json.dumps(key)}: {json.dumps(second)}"
    return raw


def _bytes_mutation(data: bytes, kind: str, rng: random.Random) -> bytes:
    if not data:
        return data
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")


def _bvh_mutation(data: bytes, kind: str, rng: random.Random) -> bytes:
    if kind in ("truncate", "flip_bytes"):
        return _bytes_mutation(data, kind, rng)
    lines = data.decode("utf-8", errors="replace").split("\n")
    if not lines:
        return data
    i = rng.randrange(len(lines))
    if kind == "delete_line":
        del lines[i]
    elif kind == "duplicate_line":
        lines.insert(i, lines[i])
    elif kind in ("swap_type", "huge_number"):
        numbered = [j for j, s in enumerate(lines) if _NUMBER.search(s)]
        if numbered:
            j = rng.choice(numbered)
            found = list(_NUMBER.finditer(lines[j]))
            m = rng.choice(found)
            new = rng.choice(HUGE if kind == "huge_number" else ("abc", "{", "}", "JOINT", ""))
            lines[j] = lines[j][: m.start()] + new + lines[j][m.end() :]
    elif kind == "channel_count":
        channels = [j for j, s in enumerate(lines) if s.strip().startswith("CHANNELS")]
        motion = [j for j, s in enumerate(lines) if _NUMBER.fullmatch(s.split()[0] if s.split()
                                                                         else "x")]  # fmt: skip
        choice = rng.randrange(4)
        if channels and choice == 0:  # the count disagrees with the names
            j = rng.choice(channels)
            tokens = lines[j].split()
            if len(tokens) > 1 and tokens[1].lstrip("-").isdigit():
                tokens[1] = str(int(tokens[1]) + rng.choice((-2, -1, 1, 2, 1000)))
                lines[j] = " ".join(tokens)
        elif channels and choice == 1:  # a channel more or less, count consistent
            j = rng.choice(channels)
            tokens = lines[j].split()
            names = tokens[2:]
            if names and rng.random() < 0.5:
                names.pop(rng.randrange(len(names)))
            else:
                names.append(rng.choice(("Xrotation", "Yposition", "Zrotation", "Wrotation")))
            lines[j] = " ".join(["CHANNELS", str(len(names))] + names)
        elif motion:  # a motion line with a value more or less
            j = rng.choice(motion)
            tokens = lines[j].split()
            if rng.random() < 0.5 and tokens:
                tokens.pop(rng.randrange(len(tokens)))
            else:
                tokens.append("0.0")
            lines[j] = " ".join(tokens)
    elif kind == "frames_header":
        for j, s in enumerate(lines):
            if s.startswith("Frames:"):
                lines[j] = "Frames: " + rng.choice(
                    ("0", "-1", "1", "39", "41", "1000000", "10000001", "1e308", "2.5", "x",
                     "99999999999999999999999", "", "40 40"))  # fmt: skip
    elif kind == "frame_time_header":
        for j, s in enumerate(lines):
            if s.startswith("Frame Time:"):
                lines[j] = "Frame Time: " + rng.choice(
                    ("0", "-0.01", "1e-320", "5e-324", "1e300", "nan", "inf", "-inf", "x",
                     "1e-7", "1e7", "0.5 0.5", ""))  # fmt: skip
    return "\n".join(lines).encode()


def mutate(name: str, steps) -> bytes:
    """Base ``name`` after the mutations ``steps``: ``[(kind, seed), ...]`` in order."""
    data = bases()[name]
    for kind, seed in steps:
        rng = random.Random(seed)
        if name.endswith(".glb"):
            data = _bytes_mutation(data, kind, rng)
        elif name.endswith(".bvh"):
            data = _bvh_mutation(data, kind, rng)
        else:
            data = _json_mutation(data, kind, rng)
    return data


def suffix_of(name: str) -> str:
    return Path(name).suffix
