"""Bounds on hostile input (``docs/scene-format.md``, "Bounds on hostile input").

A scene, BVH or glTF file whose evaluation would need more than :data:`MAX_STEPS` integration
steps or :data:`MAX_FRAMES` frames per evaluation, more than :data:`MAX_BONES` bones, or a
hierarchy deeper than :data:`MAX_DEPTH`, is refused at load; ``bake(frames=...)`` refuses the
same for its own frames. Each check here raises :class:`~app.scene.errors.SceneError` naming
``where`` (a JSON path or ``line N``) and the bound; a number too large to be a float
(``1e308`` frames, ``10**400``) is refused the same way, never wrapped or overflowed.

The bounds beyond the contract's four keep the editor and the arrays of one evaluation in
memory and time: :data:`MAX_POSES` frames times bones per evaluation (the ``(F, B, 4, 4)``
arrays), :data:`MAX_ITERATIONS` FABRIK iterations, :data:`MAX_MAGNITUDE` on every number
(no sum or square of them overflows), frame numbers within
:data:`MAX_FRAME_NUMBER` (Qt's integer spin boxes) and fps within
[:data:`MIN_FPS`, :data:`MAX_FPS`] (the playback timer). A bone's tail, when it has one, is
at least :data:`MIN_BONE_LENGTH` long.
"""

from __future__ import annotations

import math
import re

from app.scene.errors import SceneError

#: Integration steps of one multi-parent constraint in one evaluation (grid steps and their
#: subdivisions together).
MAX_STEPS = 10**7
#: Frames of one evaluation (a timeline, a ``bake(frames=...)``, a BVH's ``Frames:``).
MAX_FRAMES = 10**7
#: Bones of one scene.
MAX_BONES = 10**5
#: Bones on the longest chain from a root to a leaf (the root counts as 1).
MAX_DEPTH = 10**4
#: Frames times bones of one evaluation: each ``(F, B, 4, 4)`` array is 128 bytes a pose.
MAX_POSES = 10**7
#: A FABRIK constraint's ``max_iterations`` (each one is a pass over the frames).
MAX_ITERATIONS = 10**4
#: ``frame_start`` and ``frame_end`` lie within +-this (Qt's spin boxes hold 32-bit integers).
MAX_FRAME_NUMBER = 10**9
#: Largest magnitude of any number read (a coordinate, an angle, a key's frame): squares and
#: sums of such numbers stay far from overflowing to Inf.
MAX_MAGNITUDE = 1e15
#: Range of a scene's fps (a BVH's ``1 / Frame Time``).
MIN_FPS, MAX_FPS = 1e-3, 1e6
#: The shortest tail a bone may be given (other than ``[0, 0, 0]``, a bone without length):
#: a tail of ``1e-300`` only seems to have a direction (its square is 0).
MIN_BONE_LENGTH = 1e-6


def _as_float(n, what: str, where: str) -> float:
    """``n`` as a float; a number too large for one is refused, not overflowed."""
    try:
        value = float(n)
    except OverflowError:
        raise SceneError(f"{what} is too large a number", where) from None
    if math.isnan(value):
        raise SceneError(f"{what} is not a number", where)
    return value


def _check(n, bound, what: str, where: str) -> None:
    value = _as_float(n, what, where)
    if not value <= bound:
        shown = f"{n:.6g}" if isinstance(n, float) else str(n)
        raise SceneError(f"{what} {shown} is more than the bound of {bound:,}", where)


def check_magnitude(x: float, where: str) -> None:
    """Refuse a number beyond +-:data:`MAX_MAGNITUDE`."""
    if not abs(x) <= MAX_MAGNITUDE:
        raise SceneError(f"{x:g} lies beyond the bound of +-{MAX_MAGNITUDE:g} on numbers", where)


def check_frame_count(n, where: str) -> None:
    """Refuse more than :data:`MAX_FRAMES` frames in one evaluation."""
    _check(n, MAX_FRAMES, "frame count", where)


def check_steps(n, where: str) -> None:
    """Refuse more than :data:`MAX_STEPS` integration steps (``substeps`` included)."""
    _check(n, MAX_STEPS, "integration steps", where)


def check_bone_count(n, where: str) -> None:
    """Refuse more than :data:`MAX_BONES` bones."""
    _check(n, MAX_BONES, "bone count", where)


def check_depth(n, where: str) -> None:
    """Refuse a hierarchy deeper than :data:`MAX_DEPTH` (``n`` bones on one chain)."""
    _check(n, MAX_DEPTH, "hierarchy depth", where)


def check_poses(frames, bones, where: str) -> None:
    """Refuse more than :data:`MAX_POSES` frames times bones in one evaluation."""
    _check(
        _as_float(frames, "frame count", where) * bones,
        MAX_POSES,
        f"frames x bones ({bones} bones)",
        where,
    )


def check_iterations(n, where: str) -> None:
    """Refuse more than :data:`MAX_ITERATIONS` FABRIK iterations."""
    _check(n, MAX_ITERATIONS, "iterations", where)


def check_frame_number(n, where: str) -> None:
    """Refuse a ``frame_start``/``frame_end`` beyond +-:data:`MAX_FRAME_NUMBER`."""
    value = _as_float(n, "frame", where)
    if not abs(value) <= MAX_FRAME_NUMBER:
        raise SceneError(f"frame {n:g} lies beyond the bound of +-{MAX_FRAME_NUMBER:,}", where)


def check_fps(fps, where: str) -> None:
    """Refuse an fps outside [:data:`MIN_FPS`, :data:`MAX_FPS`]."""
    value = _as_float(fps, "fps", where)
    if not MIN_FPS <= value <= MAX_FPS:
        raise SceneError(f"fps {value:g} lies outside [{MIN_FPS:g}, {MAX_FPS:g}]", where)


def check_tail(name: str, tail, where: str) -> None:
    """Refuse a tail shorter than :data:`MIN_BONE_LENGTH` but not zero: it makes a zero-length
    bone that only seems to have a direction (Blender refuses zero-length bones too);
    ``[0, 0, 0]`` says plainly that the bone has no length."""
    length = math.hypot(*tail)  # hypot: 1e-300 is 1e-300 long, not 0 (its square is 0)
    if 0 < length < MIN_BONE_LENGTH:
        raise SceneError(
            f"bone {name!r} would have no length: its tail is {length:.3g} long, "
            f"shorter than the shortest bone, {MIN_BONE_LENGTH:g} (write "
            "[0, 0, 0] for a bone with no length)",
            where,
        )


#: Half of a UTF-16 surrogate pair alone (``"\\ud800"`` in JSON): no UTF-8 text can hold it.
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Control characters (C0, DEL, C1): a name holding one would not show, or would be cut short
#: (a NUL ends a name in NumPy's string arrays and in C).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def unsaveable_character(text: str) -> str | None:
    """Why ``text`` could not be saved as UTF-8 (a lone surrogate), or ``None``."""
    found = _SURROGATE.search(text)
    if found:
        return (
            f"the text holds half of a UTF-16 surrogate pair (U+{ord(found.group()):04X} "
            f"at character {found.start() + 1}) alone, which cannot be saved as UTF-8"
        )
    return None


def bad_name_character(name: str) -> str | None:
    """Why ``name`` could not be a name (a lone surrogate, a control character), or ``None``."""
    found = _CONTROL.search(name)
    if found:
        return (
            f"a name must not hold control characters (U+{ord(found.group()):04X} at "
            f"character {found.start() + 1})"
        )
    return unsaveable_character(name)


def frame_count(start, end) -> float:
    """Frames from ``start`` to ``end`` inclusive, as a float (never overflows)."""
    return max(0.0, _as_float(end, "frame", "") - _as_float(start, "frame", "") + 1.0)


def hierarchy_depths(parents) -> tuple[list[int], int | None]:
    """Each node's depth (a root is 1) and the first node whose parent chain has a cycle.

    Parameters
    ----------
    parents : sequence of int
        Each node's parent index, ``-1`` for a root.

    Returns
    -------
    depths : list of int
        0 for nodes on or below a cycle.
    first_cyclic : int or None

    Iterative and linear in the number of nodes, whatever the depth.
    """
    n = len(parents)
    depth = [0] * n  # 0: not yet known; -1: on or below a cycle
    first_cyclic = None
    for i in range(n):
        if depth[i]:
            continue
        path, on_path, node = [], set(), i
        while node >= 0 and depth[node] == 0 and node not in on_path:
            path.append(node)
            on_path.add(node)
            node = parents[node]
        if node >= 0 and (node in on_path or depth[node] < 0):
            for p in path:
                depth[p] = -1
            if first_cyclic is None:
                first_cyclic = i
            continue
        d = depth[node] if node >= 0 else 0
        for p in reversed(path):
            d += 1
            depth[p] = d
    return [max(d, 0) for d in depth], first_cyclic
