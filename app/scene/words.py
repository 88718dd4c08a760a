"""Words for people: a count with its noun in the right number ("1 key", "2 keys").

Every count the interface shows (undo texts, status messages, panels, file errors) goes
through :func:`plural`, so "1 keys" cannot come back in one place and not another.
"""

from __future__ import annotations

from numbers import Integral

IRREGULAR = {"vertex": "vertices", "mesh": "meshes", "pass": "passes", "axis": "axes"}


def plural(count, noun: str, many: str | None = None, fmt: str = "g") -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one.

    ``many`` is the plural when it is not ``noun + "s"`` (or a known irregular one);
    ``fmt`` formats the count (``"+g"`` for a signed offset: "+1 frame", "-2 frames").

    >>> plural(1, "key"), plural(3, "key"), plural(0, "mesh"), plural(-1.0, "frame", fmt="+g")
    ('1 key', '3 keys', '0 meshes', '-1 frame')
    """
    one = abs(count) == 1  # an int of any size, a float or a numpy number
    word = noun if one else (many or IRREGULAR.get(noun) or f"{noun}s")
    if isinstance(count, Integral):  # every digit of an integer, however large
        return f"{int(count):{fmt.replace('g', 'd')}} {word}"
    return f"{count:{fmt}} {word}"
