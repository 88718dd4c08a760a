"""BVH motion capture as a scene (``docs/scene-format.md``, "BVH import").

One bone per ROOT/JOINT with ``translation`` = OFFSET; position channels (on any joint)
become ``translation_keys`` (a component without a channel keeps the OFFSET's); rotation
channels, in their listed order, become ``rotation_keys`` with ``R = R_c1 @ R_c2 @ R_c3``
(degrees); an End Site becomes the bone's ``tail``. Frame ``k`` of the motion is frame ``k``,
``fps = 1 / Frame Time``.

Errors name the line. More motion lines than ``Frames:`` declares are cut to the declared
count and reported in ``scene.messages``; fewer are refused as truncated. A plain MOTION
section is read from the file's bytes in chunks (:mod:`decimal_text`, bit for bit
``float``); anything else goes line by line, which names what is wrong.

One idea: BVH text to a scene, and a BVH's hierarchy as it is written (for a writer that
keeps it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.scene import bounds
from app.scene.errors import SceneError
from app.scene.formats import decimal_text
from app.scene.formats.bvh_rotations import quats_from_channels
from app.scene.formats.json_values import check_name
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene
from app.scene.words import plural

_CHANNELS = {f"{a}{kind}" for a in "XYZ" for kind in ("position", "rotation")}


@dataclass
class _Joint:
    name: str
    parent: int
    line: int
    offset: tuple = (0.0, 0.0, 0.0)
    channels: list = field(default_factory=list)
    end_site: tuple | None = None


class _Lines:
    """Non-blank lines as token lists, with their 1-based line numbers."""

    def __init__(self, text: str):
        self.items = []
        for number, line in enumerate(text.splitlines(), start=1):
            tokens = line.split()
            if tokens:
                self.items.append((number, tokens))
        self.pos = 0

    def next(self, what: str):
        if self.pos >= len(self.items):
            last = self.items[-1][0] if self.items else 0
            raise SceneError(f"unexpected end of file, expected {what}", f"line {last}")
        item = self.items[self.pos]
        self.pos += 1
        return item

    def peek(self):
        return self.items[self.pos] if self.pos < len(self.items) else (None, None)


def _floats(tokens, line, what):
    try:
        values = tuple(float(t) for t in tokens)
    except ValueError:
        raise SceneError(
            f"{what}: expected numbers, got {_shown(' '.join(tokens))}", f"line {line}"
        ) from None
    if not all(np.isfinite(values)):
        raise SceneError(f"{what}: numbers must be finite", f"line {line}")
    for v in values:
        bounds.check_magnitude(v, f"line {line}")
    return values


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message: a byte that is not UTF-8 (kept by the decoding as a
    lone surrogate) shows as ``\\x89``, a long text is cut with an ellipsis."""
    text = str(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _expect(lines, word):
    line, tokens = lines.next(f'"{word}"')
    if tokens[0] != word:
        if word == "HIERARCHY":  # the first word: whatever else it is, it is not BVH
            raise SceneError(
                f'it is not a BVH clip: it begins with {_shown(tokens[0])}, not with "HIERARCHY"',
                f"line {line}",
            )
        raise SceneError(f'expected "{word}", got {_shown(tokens[0])}', f"line {line}")
    return line, tokens


def _parse_joint(lines, joints, parent, name, header_line):
    """Parse one ROOT's block and every joint below it (iteratively: any depth up to the
    bound, never Python's recursion limit)."""
    # One entry per open joint: (index, name, header line, whether it has an OFFSET).
    stack = [_open_joint(lines, joints, parent, name, header_line)]
    while stack:
        index, name, header_line, seen_offset = stack[-1]
        line, tokens = lines.next('"}"')
        head = tokens[0]
        if head == "OFFSET":
            if len(tokens) != 4:
                raise SceneError("OFFSET needs 3 numbers", f"line {line}")
            joints[index].offset = _floats(tokens[1:], line, "OFFSET")
            stack[-1] = (index, name, header_line, True)
        elif head == "CHANNELS":
            if len(tokens) < 2:
                raise SceneError("CHANNELS needs a count", f"line {line}")
            try:
                count = int(tokens[1])
            except ValueError:
                raise SceneError(
                    f"CHANNELS count {_shown(tokens[1])} is not an integer", f"line {line}"
                ) from None
            names = tokens[2:]
            if count != len(names):
                declared = plural(count, "channel")
                raise SceneError(
                    f"CHANNELS declares {declared} but lists {len(names)}", f"line {line}"
                )
            for n in names:
                if n not in _CHANNELS:
                    raise SceneError(f"unknown channel {_shown(n)}", f"line {line}")
            if len(set(names)) != len(names):
                raise SceneError("a channel is listed twice", f"line {line}")
            joints[index].channels = names
        elif head == "JOINT":
            if len(tokens) < 2:
                raise SceneError("JOINT needs a name", f"line {line}")
            bounds.check_depth(len(stack) + 1, f"line {line}")
            stack.append(_open_joint(lines, joints, index, " ".join(tokens[1:]), line))
        elif head == "End" and tokens[1:2] == ["Site"]:
            _expect(lines, "{")
            oline, otokens = _expect(lines, "OFFSET")
            if len(otokens) != 4:
                raise SceneError("OFFSET needs 3 numbers", f"line {oline}")
            joints[index].end_site = _floats(otokens[1:], oline, "End Site OFFSET")
            bounds.check_tail(name, joints[index].end_site, f"line {oline}")
            _expect(lines, "}")
        elif head == "}":
            if not seen_offset:
                raise SceneError(f"joint {_shown(name)} has no OFFSET", f"line {header_line}")
            stack.pop()
        else:
            raise SceneError(
                f"unexpected {_shown(head)} inside joint {_shown(name)}", f"line {line}"
            )


def _open_joint(lines, joints, parent, name, header_line):
    """Start joint ``name`` (its header read): append it and read its ``{``."""
    bounds.check_bone_count(len(joints) + 1, f"line {header_line}")
    # A byte that is not UTF-8 becomes U+FFFD in the bone's name (a name is data, not bytes).
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    check_name(name, f"line {header_line}")
    joints.append(_Joint(name=name, parent=parent, line=header_line))
    _expect(lines, "{")
    return len(joints) - 1, name, header_line, False


def parse_bvh(text: str, file: str = "") -> Scene:
    """Parse BVH text into a scene; ``file`` names it in errors and messages."""
    return _scene(*_parse_bytes(text.encode("utf-8", errors="replace"), file))


def load_bvh(path) -> Scene:
    """Read a ``.bvh`` file as a scene (see the module docstring)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SceneError("no such file", file=str(path)) from None
    except OSError as e:
        raise SceneError(e.strerror or str(e), file=str(path)) from None
    parsed = _parse_bytes(raw, str(path))
    del raw  # the file's bytes are not needed to build the keys (a long clip's peak memory)
    return _scene(*parsed)


@dataclass(frozen=True)
class BvhLayout:
    """A BVH file's hierarchy as it is written: what :func:`app.scene.formats.bvh_export.
    bvh_in_layout` writes a new motion into, so that the file keeps its joints, their order,
    offsets, end sites and channels.

    Attributes
    ----------
    hierarchy : str
        The file's text up to its ``MOTION`` line, verbatim.
    joints : tuple of (str, int, tuple of str)
        Name, parent index (-1 for a root) and channels of each joint, in file order.
    offsets : tuple of tuple
        Each joint's OFFSET.
    """

    hierarchy: str
    joints: tuple
    offsets: tuple


def bvh_layout(path) -> BvhLayout:
    """The hierarchy of the ``.bvh`` file at ``path`` (:class:`BvhLayout`).

    Raises
    ------
    SceneError
        The file cannot be read or has no valid hierarchy.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise SceneError(e.strerror or str(e), file=str(path)) from None
    joints = _parse_bytes(raw, str(path))[0]
    found = _MOTION.search(raw)
    head = raw[: found.start()].decode("utf-8", errors="surrogateescape")
    return BvhLayout(
        head,
        tuple((j.name, j.parent, tuple(j.channels)) for j in joints),
        tuple(tuple(j.offset) for j in joints),
    )


def _parse_bytes(raw: bytes, file: str):
    """``_parse`` with ``file`` named in its errors."""
    try:
        return _parse(raw, file)
    except SceneError as e:
        raise e.with_file(file) from None


_MOTION = re.compile(rb"^[ \t]*MOTION[ \t]*\r?$", re.MULTILINE)


def _parse(raw: bytes, file: str):
    """The joints, frame count, frame time, ``(N, C)`` motion and messages of a BVH file's
    bytes (the arguments of :func:`_scene`). Only the hierarchy is decoded as text (UTF-8; a
    byte that is not is U+FFFD in a name and ``\\x89`` in a message); a plain motion section
    is read from the bytes in place."""
    found = _MOTION.search(raw)
    head = (raw[: found.start()] if found else raw).decode("utf-8", errors="surrogateescape")
    lines = _Lines(head)
    _expect(lines, "HIERARCHY")
    joints: list[_Joint] = []
    while True:
        line, tokens = lines.peek()
        if line is None:
            break
        lines.next("ROOT")
        if tokens[0] != "ROOT" or len(tokens) < 2:
            raise SceneError(
                f'expected "ROOT name", got {_shown(" ".join(tokens))}', f"line {line}"
            )
        _parse_joint(lines, joints, -1, " ".join(tokens[1:]), line)
    if not joints:
        raise SceneError("no ROOT joint", "line 1")
    names = {}
    for j in joints:
        if j.name in names:
            raise SceneError(
                f"joint name {_shown(j.name)} is used twice (first on line {names[j.name]})",
                f"line {j.line}",
            )
        names[j.name] = j.line
    if not found:
        raise SceneError('no "MOTION" section', f"line {len(head.splitlines())}")

    first_motion_line = head.count("\n") + 1
    frames, frame_time, data, messages = _parse_motion(
        raw, found.end(), first_motion_line, joints, file
    )
    return joints, frames, frame_time, data, messages


def _parse_motion(text: bytes, begin: int, line0: int, joints, file: str):
    """Frames, frame time, the (N, C) channel array, and messages about the motion, which
    is ``text[begin:]`` (from the end of the "MOTION" word)."""
    channels = sum(len(j.channels) for j in joints)
    fast = _fast_motion(text, begin, channels, len(joints))
    if fast is not None:
        return (*fast, [])
    raw = text[begin:].decode("utf-8", errors="surrogateescape").splitlines()
    # raw[0] is the rest of the "MOTION" line; raw[i] is line line0 + i of the file.
    numbered = [(line0 + i, s) for i, s in enumerate(raw) if s.strip()]
    header = [(n, s) for n, s in numbered[:2]]
    if len(header) < 2:
        raise SceneError('expected "Frames:" and "Frame Time:" after MOTION', f"line {line0}")
    (n1, s1), (n2, s2) = header
    t1, t2 = s1.split(), s2.split()
    if t1[:1] != ["Frames:"] or len(t1) != 2:
        raise SceneError(f'expected "Frames: N", got {_shown(s1.strip())}', f"line {n1}")
    try:
        declared = int(t1[1])
    except ValueError:
        raise SceneError(f"frame count {_shown(t1[1])} is not an integer", f"line {n1}") from None
    if declared < 1:
        raise SceneError(f"frame count must be at least 1, got {declared}", f"line {n1}")
    bounds.check_frame_count(declared, f"line {n1}")
    bounds.check_poses(declared, len(joints), f"line {n1}")
    if t2[:2] != ["Frame", "Time:"] or len(t2) != 3:
        raise SceneError(f'expected "Frame Time: seconds", got {_shown(s2.strip())}', f"line {n2}")
    frame_time = _floats(t2[2:], n2, "Frame Time")[0]
    if frame_time <= 0:
        raise SceneError(f"Frame Time must be > 0, got {t2[2]}", f"line {n2}")
    if not 1.0 / bounds.MAX_FPS <= frame_time <= 1.0 / bounds.MIN_FPS:
        raise SceneError(
            f"Frame Time {t2[2]} s lies outside [{1 / bounds.MAX_FPS:g}, {1 / bounds.MIN_FPS:g}] s",
            f"line {n2}",
        )

    rows = numbered[2:]
    channels = sum(len(j.channels) for j in joints)
    messages = []
    if len(rows) < declared:
        last = rows[-1][0] if rows else n2
        raise SceneError(
            f"truncated: Frames declares {plural(declared, 'frame')} but the file "
            f"has {plural(len(rows), 'motion line')}",
            f"line {last}",
        )
    if len(rows) > declared:
        extra = len(rows) - declared
        messages.append(
            f"{file or 'BVH'}: line {rows[declared][0]}: {plural(extra, 'motion line')} beyond "
            f"the {declared} that Frames declares {'was' if extra == 1 else 'were'} ignored"
        )
        rows = rows[:declared]
    counts = np.fromiter((len(s.split()) for _, s in rows), dtype=np.intp, count=len(rows))
    bad = np.flatnonzero(counts != channels)
    if len(bad):
        n, _ = rows[bad[0]]
        raise SceneError(
            f"expected {channels} numbers (the channels of the hierarchy), got {counts[bad[0]]}",
            f"line {n}",
        )
    try:
        data = np.array(" ".join(s for _, s in rows).split(), dtype=float)
    except ValueError:
        for n, s in rows:
            _floats(s.split(), n, "motion")
        raise  # pragma: no cover - _floats raises first
    data = data.reshape(declared, channels) if channels else np.zeros((declared, 0))
    finite = np.isfinite(data).all(axis=1)
    if not finite.all():
        n, _ = rows[int(np.argmin(finite))]
        raise SceneError("motion values must be finite numbers", f"line {n}")
    small = (np.abs(data) <= bounds.MAX_MAGNITUDE).all(axis=1)
    if not small.all():
        n, _ = rows[int(np.argmin(small))]
        bounds.check_magnitude(float(np.max(np.abs(data[np.argmin(small)]))), f"line {n}")
    return declared, frame_time, data, messages


_HEADER = re.compile(
    rb"(?:[ \t\r]*\n)*[ \t]*Frames:[ \t]+(\d+)[ \t\r]*\n(?:[ \t\r]*\n)*"
    rb"[ \t]*Frame[ \t]+Time:[ \t]+(\S+)[ \t\r]*\n"
)
#: Bytes of motion text read at a time: the temporaries of a chunk are about 45 times this
#: (``decimal_text``), about 11 MB besides the file's bytes and the result.
_CHUNK = 1 << 18
#: A plain motion line has at most this many bytes per channel (a number and its spaces).
_LONGEST_BYTES_PER_CHANNEL = 64


def _fast_motion(text: bytes, begin: int, channels: int, joints: int):
    """``(frames, frame_time, data (N, C))`` of a plain, well-formed MOTION section
    ``text[begin:]``, read from the bytes in place, or ``None`` for anything else (the
    caller then parses it line by line and names what is wrong). The 100,000-frame clip's
    numbers take about a third of the CPU time ``np.fromstring`` needs for them
    (``decimal_text``), bit for bit the same.

    Plain means: ``Frames: N`` and ``Frame Time: t`` on their own lines, then exactly ``N``
    non-blank lines of ``channels`` ASCII-whitespace-separated decimal numbers each, within
    the bounds on hostile input (anything past them is left to the slow path, which names
    it).
    """
    found = _HEADER.match(text, begin)
    if found is None or channels == 0:
        return None
    declared = int(found.group(1))
    try:
        frame_time = float(found.group(2))
    except ValueError:
        return None
    if declared < 1 or not frame_time > 0 or not np.isfinite(frame_time):
        return None
    if not 1.0 / bounds.MAX_FPS <= frame_time <= 1.0 / bounds.MIN_FPS:
        return None
    if declared > bounds.MAX_FRAMES or declared * max(joints, 1) > bounds.MAX_POSES:
        return None
    view = memoryview(text)
    scratch = decimal_text.Scratch()
    data = np.empty(declared * channels)
    filled = 0
    start = found.end()
    while start < len(text):  # chunk by chunk, on line ends
        stop = text.find(b"\n", min(start + _CHUNK, len(text)))
        stop = len(text) if stop < 0 else stop + 1
        if stop - start > _CHUNK + _LONGEST_BYTES_PER_CHANNEL * channels:
            return None  # a line longer than any plain one: not worth this chunk's buffers
        raw = np.frombuffer(text, dtype=np.uint8, count=stop - start, offset=start)
        returns = np.flatnonzero(raw == 13)
        if len(returns) and (returns[-1] + 1 >= len(raw) or np.any(raw[returns + 1] != 10)):
            return (
                None  # a lone CR ends a line where the slow path reads lines (universal newlines)
            )
        starts, ends = decimal_text.token_bounds(raw, scratch)
        line_ends = np.flatnonzero(np.equal(raw, 10, out=scratch.get("flag", len(raw), bool)))
        if len(line_ends) == 0 or line_ends[-1] != len(raw) - 1:
            line_ends = np.append(line_ends, len(raw))
        counts = np.diff(np.searchsorted(starts, line_ends), prepend=0)
        counts = counts[counts > 0]  # blank lines
        if np.any(counts != channels) or filled + len(starts) > len(data):
            return None
        values = data[filled : filled + len(starts)]
        try:
            decimal_text.floats_from_tokens(view[start:stop], raw, starts, ends, values, scratch)
        except ValueError:  # a token that is not a number
            return None
        if not (np.abs(values) <= bounds.MAX_MAGNITUDE).all():  # also NaN
            return None
        filled += len(starts)
        start = stop
    if filled != len(data):
        return None
    return declared, frame_time, data.reshape(declared, channels)


def _scene(joints, n_frames, frame_time, data, messages) -> Scene:
    key_frames = np.arange(n_frames, dtype=float)
    key_frames.setflags(write=False)  # one array shared by every joint's keys
    columns = {}
    rotations = {}
    column = 0
    for i, j in enumerate(joints):
        columns[i] = {name: column + k for k, name in enumerate(j.channels)}
        column += len(j.channels)
        rot = [(name[0], columns[i][name]) for name in j.channels if name.endswith("rotation")]
        if rot:
            rotations[i] = rot
    quats = quats_from_channels(data, rotations)
    bones = []
    for i, j in enumerate(joints):
        cols = columns[i]
        translation_keys = rotation_keys = None
        if any(name.endswith("position") for name in j.channels):
            values = np.tile(np.array(j.offset, dtype=float), (n_frames, 1))
            for axis, a in enumerate("XYZ"):
                if f"{a}position" in cols:
                    values[:, axis] = data[:, cols[f"{a}position"]]
            translation_keys = Keys(key_frames, values)
        if i in quats:
            rotation_keys = Keys(key_frames, quats.pop(i))
        bones.append(
            Bone(
                name=j.name,
                parent=None if j.parent < 0 else joints[j.parent].name,
                translation=tuple(j.offset),
                tail=None if j.end_site is None else tuple(j.end_site),
                translation_keys=translation_keys,
                rotation_keys=rotation_keys,
            )
        )
    return Scene(
        bones=bones,
        fps=1.0 / frame_time,
        frame_start=0,
        frame_end=n_frames - 1,
        messages=messages,
    )
