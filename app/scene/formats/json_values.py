"""Reading JSON values with a place: each reader checks one value and names its JSON path when it
is wrong (``bones[3].rotation: expected a number, got a string``).

What a scene keeps must also be writable again: names (:func:`read_name`) and unknown keys
(:func:`read_extra`, checked by :func:`check_saveable`) are refused at load when a save could
not write them back as they came (``docs/scene-format.md``, "What a scene file can hold").
The writers at the end (:func:`keys_json`, :func:`num`, :func:`vec`) are their inverse.
"""

from __future__ import annotations

import json
import math

import numpy as np

from app.scene.bounds import (
    MAX_MAGNITUDE,
    bad_name_character,
    check_magnitude,
    unsaveable_character,
)
from app.scene.errors import SceneError
from app.scene.rig.keys import INTERPOLATIONS, Keys

UNIT_TOLERANCE = 1e-6
#: Deepest nesting of arrays and objects inside an unknown key's value (the unknown key itself
#: counts as the first level): deeper values are refused at load, so that saving never
#: recurses without bound.
MAX_NESTING = 64


def type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def read_object(value, path) -> dict:
    if not isinstance(value, dict):
        raise SceneError(f"expected an object, got {type_name(value)}", path)
    return value


def read_array(value, path) -> list:
    if not isinstance(value, list):
        raise SceneError(f"expected an array, got {type_name(value)}", path)
    return value


def read_number(value, path) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SceneError(f"expected a number, got {type_name(value)}", path)
    try:
        number = float(value)  # an integer past 1.8e308 overflows: refused, not wrapped
    except OverflowError:
        raise SceneError(
            f"the number is too large: beyond the bound of +-{MAX_MAGNITUDE:g} on numbers", path
        ) from None
    if not math.isfinite(number):
        raise SceneError(f"{value} is not a finite number", path)
    check_magnitude(number, path)
    return number


def read_integer(value, path) -> int:
    number = read_number(value, path)
    if number != int(number):
        raise SceneError(f"expected an integer, got {value}", path)
    return int(number)


def read_string(value, path, non_empty=True) -> str:
    if not isinstance(value, str):
        raise SceneError(f"expected a string, got {type_name(value)}", path)
    if non_empty and not value:
        raise SceneError("must not be empty", path)
    return value


def check_text(text: str, path) -> None:
    """Refuse text that UTF-8 cannot hold (a lone surrogate), naming ``path``."""
    why = unsaveable_character(text)
    if why:
        raise SceneError(why, path)


def check_name(name: str, path) -> None:
    """Refuse a name that could not be saved or shown as it is: a lone surrogate or a
    control character (a tab, a newline, a NUL, ...)."""
    why = bad_name_character(name)
    if why:
        raise SceneError(why, path)


def read_name(value, path) -> str:
    """A name (of a bone, a constraint, a pivot) or a reference to one: a non-empty string
    without control characters or lone surrogates."""
    name = read_string(value, path)
    check_name(name, path)
    return name


def read_vector(value, path, size) -> tuple:
    items = read_array(value, path)
    if len(items) != size:
        raise SceneError(f"expected {size} numbers, got {len(items)}", path)
    return tuple(read_number(x, f"{path}[{i}]") for i, x in enumerate(items))


def read_unit_quat(value, path) -> tuple:
    q = read_vector(value, path, 4)
    length = math.sqrt(sum(x * x for x in q))
    if abs(length - 1.0) > UNIT_TOLERANCE:
        raise SceneError(f"length {length:.6g} is not a unit quaternion", path)
    return q


#: Why a scale is refused (a scale of 0 is kept: a bone scaled to 0 draws nothing).
SCALE_RULE = "every scale factor must be >= 0 (0 hides the bone; bones cannot mirror)"


def read_keys(value, path, size, quaternion=False, scale=False) -> Keys:
    """A key list: ``[[frame, value], ...]``, each key optionally ``[frame, value, interpolation]``.

    ``scale`` refuses a negative component (scale keys: 0 hides a bone, as glTF allows; a
    mirror is not a scale).
    """
    items = read_array(value, path)
    if not items:
        raise SceneError("a key list must not be empty", path)
    frames, values, kinds = [], [], []
    for i, item in enumerate(items):
        ipath = f"{path}[{i}]"
        pair = read_array(item, ipath)
        if len(pair) not in (2, 3):
            raise SceneError("expected [frame, value] or [frame, value, interpolation]", ipath)
        kinds.append(_interpolation(pair[2], f"{ipath}[2]") if len(pair) == 3 else "linear")
        frame = read_number(pair[0], f"{ipath}[0]")
        if frames and frame <= frames[-1]:
            raise SceneError(
                f"key frame {frame:g} is not after the previous key's frame {frames[-1]:g}"
                " (keys are sorted by frame, no frame twice)",
                f"{ipath}[0]",
            )
        frames.append(frame)
        values.append(
            read_unit_quat(pair[1], f"{ipath}[1]")
            if quaternion
            else read_vector(pair[1], f"{ipath}[1]", size)
        )
        if scale and min(values[-1]) < 0:
            raise SceneError(SCALE_RULE, f"{ipath}[1]")
    return Keys(np.array(frames), np.array(values), tuple(kinds))


def _interpolation(value, path) -> str:
    if not isinstance(value, str) or value not in INTERPOLATIONS:
        shown = repr(value) if isinstance(value, str) else type_name(value)
        raise SceneError(
            f"unknown interpolation {shown} (known: {', '.join(INTERPOLATIONS)})", path
        )
    return value


def read_extra(obj: dict, known: set, path: str = "") -> dict:
    """The unknown keys of ``obj`` (at ``path``), kept to be written back as they came.

    Raises
    ------
    SceneError
        When a save could not write one back (:func:`check_saveable`).
    """
    extra = {k: v for k, v in obj.items() if k not in known}
    for key, value in extra.items():
        check_saveable(key, value, _child(path, key))
    return extra


def _child(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    key = key_text(key)
    return f"{path}.{key}" if path else key


def key_text(key: str) -> str:
    """A key as a JSON path shows it: as it is, or escaped (``\\ud800``) when it holds what a
    message could not print (a lone surrogate, a control character)."""
    if bad_name_character(key):
        return json.dumps(key)[1:-1]
    return key


def check_saveable(key: str, value, path: str) -> None:
    """Refuse an unknown key ``key`` whose value a save could not write back as it came: a
    number beyond the floats (``1e400`` reads as infinity), a lone surrogate in a string or
    a key, or arrays and objects nested deeper than :data:`MAX_NESTING`.

    Iterative, so that any depth is refused, never recursed into; ``path`` is the key's JSON
    path, and the message names the place inside it (the key itself for a nesting too deep).
    """
    check_text(key, path)
    stack = [(value, path, 1)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                raise SceneError(
                    "a number too large to save: it reads as infinity (the "
                    "largest number is about 1.8e308)",
                    where,
                )
        elif isinstance(item, str):
            check_text(item, where)
        elif isinstance(item, (list, dict)):
            if depth > MAX_NESTING:
                raise SceneError(
                    f"arrays and objects are nested more than {MAX_NESTING} deep "
                    "in this unknown key",
                    path,
                )
            if isinstance(item, dict):
                for k in item:
                    check_text(k, _child(where, k))
                children = list(item.items())
            else:
                children = list(enumerate(item))
            # Reversed, so that the first offender in the file is the one named.
            stack.extend((child, _child(where, k), depth + 1) for k, child in reversed(children))


# --- writing ------------------------------------------------------------------------------


def keys_json(keys: Keys) -> list:
    """``[frame, value]`` per key, ``[frame, value, interpolation]`` when it is not linear."""
    return [
        [num(f), [float(x) for x in v]] + ([] if kind == "linear" else [kind])
        for f, v, kind in zip(keys.frames, keys.values, keys.interpolation)
    ]


def num(x: float):
    """Integers stay integers in the file (frames, counts); other numbers as floats."""
    x = float(x)
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


def vec(v) -> list:
    return [float(x) for x in v]
