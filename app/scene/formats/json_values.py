"""Reading JSON values with a place: each reader checks one value and names its JSON path when it
is wrong (``bones[3].rotation: expected a number, got a string``).
"""

from __future__ import annotations

import math

import numpy as np

from app.scene.bounds import MAX_MAGNITUDE, check_magnitude
from app.scene.errors import SceneError
from app.scene.rig.keys import INTERPOLATIONS, Keys

UNIT_TOLERANCE = 1e-6


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
        raise SceneError(f"the number is too large: beyond the bound of +-{MAX_MAGNITUDE:g} "
                         "on numbers", path) from None  # fmt: skip
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


def read_keys(value, path, size, quaternion=False, positive=False) -> Keys:
    """A key list: ``[[frame, value], ...]``, each key optionally ``[frame, value, interpolation]``.

    ``positive`` refuses a component that is not > 0 (scale keys).
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
        values.append(read_unit_quat(pair[1], f"{ipath}[1]") if quaternion else
                      read_vector(pair[1], f"{ipath}[1]", size))  # fmt: skip
        if positive and min(values[-1]) <= 0:
            raise SceneError("every scale factor must be > 0", f"{ipath}[1]")
    return Keys(np.array(frames), np.array(values), tuple(kinds))


def _interpolation(value, path) -> str:
    if not isinstance(value, str) or value not in INTERPOLATIONS:
        shown = repr(value) if isinstance(value, str) else type_name(value)
        raise SceneError(
            f"unknown interpolation {shown} (known: {', '.join(INTERPOLATIONS)})", path
        )
    return value


def read_extra(obj: dict, known: set) -> dict:
    return {k: v for k, v in obj.items() if k not in known}
