"""The fuzz harness: structural mutations of scene files and BVH clips, and the one check
every input must pass (issues 10 and 20; ``docs/reliability.md``).

An input is loaded with :func:`app.scene.io.load_scene`; when accepted, it is saved and loaded
back (the scene must come back equal), then baked in both spaces, at its timeline, at no
frames at all, at the lists of :func:`frame_lists` (fractional frames, frames out of order)
and at each of :func:`single_frames` alone, which must put every head and tail where that
row of the timeline's bake puts them, to 1e-9 of the scene's size (issue 27: and report the
same limit violations); ``bake_to_npz`` must write exactly ``bake``'s arrays, every imported
mesh must hold finite numbers and skin to finite vertices at every frame of the bake, and the
bake must export to glTF. The only allowed outcomes are a
:class:`SceneError` with a place (a JSON path, a line or a byte; for FBX, whose reader gives
no place, the file) at load or at bake, or finite arrays of the documented shapes (the bone
names exactly the scene's); anything else — a scene that loads but does not save or comes back
different, another exception, NaN/Inf, a wrong shape, an export that fails, an input that
takes longer than :data:`HANG_SECONDS` — is a defect. :func:`check_cli` runs a refused input
through ``main.py bake``: one line on stderr and status 2. The input classes for what issues
19 and 20 added (the follow kinds, cycles, FBX, eight influences) are in
``tests/helpers/fuzz_rigs.py``,
those of issue 27 (squashed parents under follows and FABRIK, FBX with edited numbers) in
``tests/helpers/fuzz_squash.py``.

Used by ``tests/scene/test_fuzz.py`` (hypothesis, derandomized) and ``tools/fuzz.py``
(``make fuzz``). Another format joins by adding its bases and mutations here (the shipped
``.glb`` files take byte flips and truncations); the check itself, :func:`check_input`, takes
any ``(path or bytes, suffix)``.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.scene.errors import SceneError
from app.scene.evaluate import bake, bake_to_npz
from app.scene.formats.fbx import assimp
from app.scene.formats.gltf.export import gltf_bytes, gltf_from_bake
from app.scene.io import load_scene, save_scene
from app.scene.rig.skinning import bind
from tests.helpers import fuzz_rigs, fuzz_squash

ROOT = Path(__file__).resolve().parents[2]
SCENE_FILES = sorted((ROOT / "resources" / "scenes").glob("*.json"))
#: Binary glTF files shipped with the scenes: byte-level mutations only (the glTF helper's
#: tests/scene/formats/test_gltf_fuzz.py mutates glTF's JSON structure).
GLB_FILES = sorted((ROOT / "resources" / "scenes").glob("*.glb"))
CMU_FILES = sorted(Path("/usr/share/assimp/models/BVH").glob("*.bvh"))
#: Motion lines kept of each CMU clip as a base: mutations reach the header and the motion
#: alike while one example stays a few milliseconds.
BVH_BASE_FRAMES = 40
#: An input that takes longer than this to load and bake is a defect (a hang): seconds of
#: the process's CPU time (user and system), so that a machine shared with other work does not
#: make a slow input of a busy moment; the FBX reader's child, whose CPU time is its own, has
#: its own (wall-clock) guard below.
HANG_SECONDS = 10.0
#: The FBX reader's child is given less than that, so that a hang in assimp is its refusal
#: ("did not finish within") and never leaves the harness waiting for the child.
assimp._GUARD_SECONDS = min(assimp._GUARD_SECONDS, HANG_SECONDS - 3)
#: How often an FBX base is drawn, against 1 for every other base: each read forks a reader
#: (50-150 ms), so FBX stays a small class of ``make fuzz``.
FBX_WEIGHT = 0.15

JSON_KINDS = (
    "delete_key",
    "duplicate_key",
    "duplicate_item",
    "delete_item",
    "swap_type",
    "huge_number",
    "truncate",
    "flip_bytes",
    # issue 20: what loads but could not be saved or baked
    "lone_surrogate",
    "control_name",
    "unknown_key",
    "tutorial_data",
    "tiny_tail",
    "tiny_scale",
)
JSON_KINDS += fuzz_rigs.SCENE_KINDS  # issues 19 and 20: the follow kinds, cycles, stacks
JSON_KINDS += fuzz_squash.SCENE_KINDS  # issue 27: squashed parents under follows and FABRIK
GLB_KINDS = ("truncate", "flip_bytes")
#: FBX takes byte flips and truncations, and edited numbers (issue 27) as often as those.
FBX_KINDS = GLB_KINDS + fuzz_squash.FBX_KINDS * 2
BVH_KINDS = (
    "delete_line",
    "duplicate_line",
    "swap_type",
    "huge_number",
    "truncate",
    "flip_bytes",
    "channel_count",
    "frames_header",
    "frame_time_header",
    "control_name",
    "tiny_end_site",
)

HUGE = (
    "1e308",
    "-1e308",
    "1e300",
    "1e400",
    "-1e400",
    "9223372036854775807",
    "18446744073709551617",
    "1" + "0" * 400,
    "1e16",
    "-1e16",
    "10000001",
    "5e-324",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e-320",
    "0",
    "-1",
)
OTHER_TYPES = ('"text"', "[]", "{}", "null", "true", "[1, 2, 3]", '{"a": 1}', "0.5", '""')
#: Halves of surrogate pairs, and what goes into names: control characters (NUL, tab,
#: newline, unit separator, DEL, a C1 control) and harmless neighbours.
SURROGATES = ("\ud800", "\udbff", "\udc00", "\udfff")
NAME_CHARACTERS = ("\x00", "\t", "\n", "\x1f", "\x7f", "\x85", " ", "\u00e9", "\U0001f9b4")
#: Raw JSON for an unknown key's value (or inside tutorial data): numbers past the floats,
#: nesting about the bound (64) and far past it, surrogates in strings and keys, and values
#: that must come back as they were.
EXTRA_VALUES = (
    "1e400",
    "-1e400",
    "[1, 1e999]",
    '{"a": [0.5, {"b": -1e309}]}',
    '"\\ud800"',
    '{"\\udfff": 1}',
    '["x\\ud834"]',
    '"a\\u0000b"',
    "123456789012345678901234567890",
    "5e-324",
    "-0.0",
    "1e-400",
    '{"nested": {"list": [true, null, "x"]}}',
    "[" * 63 + "]" * 63,
    "[" * 64 + "]" * 64,
    "[" * 65 + "]" * 65,
    '{"a":' * 70 + "0" + "}" * 70,
    "[" * 900 + "]" * 900,
    "[" * 2000 + "]" * 2000,
)
TINY = ("1e-300", "5e-324", "1e-320", "1e-7", "9.99e-7", "1e-6", "0")


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


def _place_ok(e: SceneError, suffix: str = "") -> bool:
    # FBX: assimp's reasons come without a place; the refusal names the file.
    return bool(e.path) or (suffix.lower() == ".fbx" and bool(e.file))


def _check_result(result, scene, space, frames=None) -> None:
    frames = scene.frame_end - scene.frame_start + 1 if frames is None else frames
    bones = len(scene.bones)
    if list(result.bone_names) != scene.bone_names():  # a NUL at a name's end is lost there
        raise Defect(f"bake({space}): the bone names differ from the scene's")
    shapes = {
        "bone_names": (bones,),
        "frames": (frames,),
        "bone_to_world": (frames, bones, 4, 4),
        "heads": (frames, bones, 3),
        "tails": (frames, bones, 3),
        "limit_violation_deg": (frames, bones),
    }
    for name, shape in shapes.items():
        array = getattr(result, name)
        if array.shape != shape:
            raise Defect(f"bake({space}): {name} has shape {array.shape}, expected {shape}")
        if name != "bone_names" and not np.all(np.isfinite(array)):
            raise Defect(f"bake({space}): {name} is not finite")


def _check_saves(scene, folder: Path) -> None:
    """Save ``scene`` into ``folder`` and load it back: it must save, and come back equal."""
    saved = folder / "saved.json"
    try:
        save_scene(scene, saved)
        back = load_scene(saved)
    except Exception as e:
        raise Defect(f"loads but does not save and load back: {type(e).__name__}: {e}") from e
    if back != scene:
        raise Defect("saved and loaded back, the scene is not the same")


def frame_lists(scene) -> list[list[float]]:
    """Frame lists besides the timeline, the empty one and :func:`single_frames`: fractional
    frames, and frames out of order past the timeline's ends."""
    f0, f1 = scene.frame_start, scene.frame_end
    return [[f0 + 0.5, f0 + 0.25, f1], [f1 + 2.5, f0 - 1, f0]]


def single_frames(scene) -> list[float]:
    """Frames evaluated alone (as the editor does while playing), each compared with that
    frame of the timeline's bake: one that is not ``frame_start`` (the follow kinds then
    measure their offset at ``frame_start`` alone) and the middle one."""
    f0, f1 = scene.frame_start, scene.frame_end
    return sorted({min(f0 + 1, f1), f0 + (f1 - f0) // 2})


#: How far one frame evaluated alone may lie from that frame of the timeline's bake, as a
#: share of the scene's size (the largest coordinate of a head or tail in the bake, at
#: least 1).
ONE_FRAME = 1e-9
#: How far a limit violation may differ, in degrees, where the joints agree to ONE_FRAME.
ONE_FRAME_DEGREES = 1e-6


def _check_frame_lists(scene, space, whole) -> None:
    """Each of :func:`frame_lists` bakes finite; each of :func:`single_frames` evaluated
    alone puts every head and tail where the whole timeline's bake puts them (to
    :data:`ONE_FRAME` of the scene's size; a FABRIK chain solved with other frames may stop
    at another point within its ``tolerance``, and the rotation of a bone 10⁻⁶ long toward
    it is then another: joints, not matrices, with ten times the largest tolerance as slack),
    and where they agree that closely, reports the same limit violations (to
    :data:`ONE_FRAME_DEGREES`)."""
    slack = max([getattr(c, "tolerance", 0.0) for c in scene.constraints], default=0.0)
    for frames in frame_lists(scene):
        result = bake(scene, frames=frames, space=space)
        _check_result(result, scene, space, frames=len(frames))
    size = max(
        1.0,
        float(np.abs(whole.heads).max(initial=0.0)),
        float(np.abs(whole.tails).max(initial=0.0)),
    )
    for frame in single_frames(scene):
        alone = bake(scene, frames=[frame], space=space)
        _check_result(alone, scene, space, frames=1)
        row = int(frame - scene.frame_start)
        error = max(
            float(np.abs(alone.heads[0] - whole.heads[row]).max(initial=0.0)),
            float(np.abs(alone.tails[0] - whole.tails[row]).max(initial=0.0)),
        )
        if error > ONE_FRAME * size + 10 * slack:
            raise Defect(
                f"bake({space}) of frame {frame} alone differs from that frame of the "
                f"timeline's by {error:.3g} (the scene's size: {size:.3g})"
            )
        if error <= ONE_FRAME * size:
            off = np.abs(alone.limit_violation_deg[0] - whole.limit_violation_deg[row])
            if off.max(initial=0.0) > ONE_FRAME_DEGREES:
                bone = scene.bones[int(np.argmax(off))].name
                raise Defect(
                    f"bake({space}) of frame {frame} alone reports a limit violation "
                    f"of {alone.limit_violation_deg[0].max():.4g} degrees on "
                    f"{bone!r}, the timeline's "
                    f"{whole.limit_violation_deg[row].max():.4g}"
                )


def _check_meshes(scene, whole) -> None:
    """Every mesh of an imported scene holds finite numbers, and skins (linear blend, as the
    viewport draws it) to finite vertices and normals at every frame of the bake."""
    for mesh in scene.meshes:
        for name in ("positions", "normals", "inverse_bind", "weights"):
            array = getattr(mesh, name)
            if array is not None and not np.all(np.isfinite(array)):
                raise Defect(f"mesh {mesh.name!r}: its {name} are not finite after import")
        positions, normals = bind(mesh, whole.bone_names).deform(whole.bone_to_world)
        if not (np.all(np.isfinite(positions)) and np.all(np.isfinite(normals))):
            raise Defect(f"mesh {mesh.name!r}: skinned at the bake's poses, it is not finite")


def _check_npz(scene, folder: Path, whole) -> None:
    """``bake_to_npz`` (world space, the timeline) writes exactly ``bake``'s arrays."""
    out = folder / "bake.npz"
    bake_to_npz(scene, out, space="world")
    with np.load(out) as npz:
        for name in ("frames", "bone_to_world", "heads", "tails", "limit_violation_deg"):
            if not np.array_equal(npz[name], getattr(whole, name)):
                raise Defect(f"bake_to_npz: {name} differs from bake's")
        if list(npz["bone_names"]) != list(whole.bone_names):
            raise Defect("bake_to_npz: bone_names differ from bake's")


def _check_export(scene, whole) -> None:
    """The bake exports as a ``.glb`` without error."""
    try:
        gltf_bytes(gltf_from_bake(scene, whole), binary=True)
    except Exception as e:
        raise Defect(f"does not export to glTF: {type(e).__name__}: {e}") from e


def check_cli(data, suffix: str) -> str:
    """``main.py bake`` of a refused input: exactly one line on stderr and status 2.

    Returns the line; raises :class:`Defect` otherwise."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(bytes(data))
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "main.py"),
                "bake",
                str(path),
                "--out",
                str(Path(tmp) / "out.npz"),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            cwd=ROOT,
        )
    lines = done.stderr.strip().splitlines()
    if done.returncode != 2 or len(lines) != 1:
        raise Defect(
            f"main.py bake: status {done.returncode}, {len(lines)} lines on stderr: "
            f"{done.stderr[-300:]!r}"
        )
    return lines[0]


def check_input(data, suffix: str) -> Outcome:
    """Load ``data`` (a path, or the bytes of a file with ``suffix``); when accepted, save it
    and load it back, and bake it in both spaces (its timeline, and no frames at all).

    Returns
    -------
    Outcome
        ``refused`` (a SceneError with a place) or ``accepted`` (saved and loaded back equal,
        finite, documented shapes).

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
        previous = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, HANG_SECONDS)
        warned = warnings.catch_warnings()
        warned.__enter__()
        warnings.simplefilter("error")  # an overflow warning is a NaN/Inf on its way
        try:
            scene = load_scene(path)
            _check_saves(scene, Path(tmp))
            wholes = {}
            for space in ("world", "object"):
                wholes[space] = whole = bake(scene, space=space)
                _check_result(whole, scene, space)
                _check_result(bake(scene, frames=[], space=space), scene, space, frames=0)
                _check_frame_lists(scene, space, whole)
            _check_npz(scene, Path(tmp), wholes["world"])
            _check_meshes(scene, wholes["world"])
            _check_export(scene, wholes["world"])
        except SceneError as e:
            if not _place_ok(e, path.suffix):
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
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
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
        _BASES.update(fuzz_rigs.scene_bases())
        _BASES.update(fuzz_rigs.gltf_bases())
        _BASES.update(fuzz_rigs.fbx_bases())
        _BASES.update(fuzz_squash.fbx_bases())
    return _BASES


def weight(name: str) -> float:
    """How often base ``name`` is drawn (:data:`FBX_WEIGHT` for FBX files, 1 for the rest)."""
    return FBX_WEIGHT if name.endswith(".fbx") else 1.0


def kinds_for(name: str) -> tuple[str, ...]:
    if name.endswith(".fbx"):
        return FBX_KINDS
    if name.endswith(".glb"):
        return GLB_KINDS
    if name.endswith(".gltf"):
        return fuzz_rigs.GLTF_KINDS
    return BVH_KINDS if name.endswith(".bvh") else JSON_KINDS


# --- mutations ---------------------------------------------------------------------------


def _containers(value):
    """Every dict and list inside ``value`` (``value`` included), in document order (without
    recursion: an earlier mutation may have nested a value hundreds deep)."""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            out.append(item)
            children = item.values() if isinstance(item, dict) else item
            stack.extend(c for c in reversed(list(children)) if isinstance(c, (dict, list)))
    return out


def _slots(containers):
    """(container, key) of every value inside the ``containers``."""
    return [(c, k) for c in containers for k in (c if isinstance(c, dict) else range(len(c)))]


_MARK = "\u0000fuzz\u0000"


def _json_mutation(data: bytes, kind: str, rng: random.Random) -> bytes:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # an earlier mutation broke it, or nested it deep
        return _bytes_mutation(data, "flip_bytes", rng)
    containers = _containers(value)
    slots = _slots(containers)
    dicts = [c for c in containers if isinstance(c, dict) and c]
    lists = [c for c in containers if isinstance(c, list) and c]
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
        numbers = [
            (c, k)
            for c, k in slots
            if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)
        ]
        if numbers:
            c, k = rng.choice(numbers)
            c[k] = _MARK + rng.choice(HUGE)
    elif kind in ("truncate", "flip_bytes"):
        return _bytes_mutation(data, kind, rng)
    elif kind in ("lone_surrogate", "control_name"):
        _rename(containers, slots, kind, rng)
    elif kind == "unknown_key" and dicts:
        rng.choice(dicts)[rng.choice(("fuzz", "notes", "\ud800"))] = _MARK + rng.choice(
            EXTRA_VALUES
        )
    elif kind == "tutorial_data" and isinstance(value, dict):
        value["tutorial"] = {
            "steps": [
                {
                    "text": "Lift the heel",
                    "bones": ["foot"],
                    "weight": _MARK + rng.choice(EXTRA_VALUES),
                }
            ]
        }
    elif kind in ("tiny_tail", "tiny_scale"):
        _tiny(value, kind, rng)
    elif kind in fuzz_rigs.SCENE_KINDS:
        fuzz_rigs.mutate_scene(value, kind, rng)
    elif kind in fuzz_squash.SCENE_KINDS:
        fuzz_squash.mutate_scene(value, kind, rng)
    elif kind == "influences":
        fuzz_rigs.break_influences(value, rng)
    text = json.dumps(value)  # compact: the C encoder (an indent takes the Python one)
    # Raw JSON for the marked values (NaN, 1e400, a duplicated key) that json.dumps cannot
    # write itself.
    text = re.sub(r'"\\u0000fuzz\\u0000(.*?)(?<!\\)"', lambda m: _unmark(m.group(1)), text)
    return text.encode()


def _strings(slots):
    """The string values among ``slots``, and the keys of the objects holding them."""
    return [(c, k) for c, k in slots if isinstance(c[k], str)]


def _rename(containers, slots, kind: str, rng: random.Random) -> None:
    """Put a lone surrogate or a control character into a string: a name, renamed everywhere
    it appears (so that the scene still holds together), or any string or key."""
    extra = rng.choice(SURROGATES if kind == "lone_surrogate" else NAME_CHARACTERS)
    names = [c[k] for c, k in _strings(slots) if k in ("name", "parent", "bone", "body")]
    if names and rng.random() < 0.7:
        old = rng.choice(names)
        new = rng.choice((old + extra, extra + old, extra, old[:1] + extra + old[1:]))
        for c, k in _strings(slots):
            if c[k] == old:
                c[k] = new
        for d in [c for c in containers if isinstance(c, dict) and old in c]:
            d[new] = d.pop(old)  # a FABRIK chain's limits are keyed by bone name
        return
    strings = _strings(slots)
    dicts = [c for c in containers if isinstance(c, dict) and c]
    if strings and rng.random() < 0.5:
        c, k = rng.choice(strings)
        c[k] += extra
    elif dicts:
        d = rng.choice(dicts)
        key = rng.choice(list(d))
        d[key + extra] = d.pop(key)


def _tiny(value, kind: str, rng: random.Random) -> None:
    """A bone's tail (or a child's head, its default tail) or scale of almost nothing."""
    bones = value.get("bones") if isinstance(value, dict) else None
    bones = [b for b in bones if isinstance(b, dict)] if isinstance(bones, list) else []
    if not bones:
        return
    bone = rng.choice(bones)
    tiny = [_MARK + rng.choice(TINY) for _ in range(3)]
    if kind == "tiny_tail":
        vector = [tiny[0], 0, 0] if rng.random() < 0.6 else tiny
        bone["tail" if rng.random() < 0.6 else "translation"] = vector
    elif rng.random() < 0.6 or not isinstance(bone.get("scale_keys"), list):
        bone["scale"] = [tiny[0], 1, 1] if rng.random() < 0.5 else tiny
    else:
        bone["scale_keys"] = [[0, tiny], [1, [1, 1, 1]]]


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
        motion = [
            j for j, s in enumerate(lines) if _NUMBER.fullmatch(s.split()[0] if s.split() else "x")
        ]
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
    elif kind == "control_name":
        named = [j for j, s in enumerate(lines) if s.strip().split()[:1] in (["ROOT"], ["JOINT"])]
        if named:
            j = rng.choice(named)
            lines[j] = lines[j].rstrip() + rng.choice(("\x00", "\x01", "\x7f", "\x85"))
    elif kind == "tiny_end_site":
        sites = [j for j, s in enumerate(lines) if s.strip().startswith("End Site")]
        if sites:
            j = rng.choice(sites) + 2  # End Site, {, OFFSET
            if j < len(lines) and lines[j].strip().startswith("OFFSET"):
                lines[j] = "OFFSET " + " ".join(rng.choice(TINY) for _ in range(3))
    elif kind == "frames_header":
        for j, s in enumerate(lines):
            if s.startswith("Frames:"):
                lines[j] = "Frames: " + rng.choice(
                    (
                        "0",
                        "-1",
                        "1",
                        "39",
                        "41",
                        "1000000",
                        "10000001",
                        "1e308",
                        "2.5",
                        "x",
                        "99999999999999999999999",
                        "",
                        "40 40",
                    )
                )
    elif kind == "frame_time_header":
        for j, s in enumerate(lines):
            if s.startswith("Frame Time:"):
                lines[j] = "Frame Time: " + rng.choice(
                    (
                        "0",
                        "-0.01",
                        "1e-320",
                        "5e-324",
                        "1e300",
                        "nan",
                        "inf",
                        "-inf",
                        "x",
                        "1e-7",
                        "1e7",
                        "0.5 0.5",
                        "",
                    )
                )
    return "\n".join(lines).encode()


def mutate(name: str, steps) -> bytes:
    """Base ``name`` after the mutations ``steps``: ``[(kind, seed), ...]`` in order."""
    data = bases()[name]
    for kind, seed in steps:
        rng = random.Random(seed)
        if kind in fuzz_squash.FBX_KINDS:
            data = fuzz_squash.edit_fbx(data, rng)
        elif name.endswith((".glb", ".fbx")):
            data = _bytes_mutation(data, kind, rng)
        elif name.endswith(".bvh"):
            data = _bvh_mutation(data, kind, rng)
        else:
            data = _json_mutation(data, kind, rng)
    return data


def suffix_of(name: str) -> str:
    return Path(name).suffix
