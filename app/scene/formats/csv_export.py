"""The evaluated animation as CSV: one row per frame and bone, for spreadsheets and scripts.

Columns (the header row names them)::

    frame,bone,head_x,head_y,head_z,tail_x,tail_y,tail_z,qw,qx,qy,qz

``head`` and ``tail`` are the bake's world positions; ``q`` is the bone's world orientation,
``rotation_from_matrix(bone_to_world)`` (``[w, x, y, z]``, ``w >= 0``; with scale, the polar
rotation). Rows go frame by frame, bones in file order. Every number is written as Python's
``repr``, the shortest text that reads back as the same double, so a script reading the file
gets the bake's values bit for bit. Whole frames are written without a decimal point.
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from app.scene.errors import SceneError
from app.scene.math.transforms import rotation_from_matrix

COLUMNS = (
    "frame",
    "bone",
    "head_x",
    "head_y",
    "head_z",
    "tail_x",
    "tail_y",
    "tail_z",
    "qw",
    "qx",
    "qy",
    "qz",
)


def _csv_field(text: str) -> str:
    """RFC 4180 quoting, only where needed."""
    if any(c in text for c in ',"\r\n') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def _frame_text(frame: float) -> str:
    return str(int(frame)) if float(frame).is_integer() else repr(float(frame))


def csv_from_bake(result) -> str:
    """CSV text of a bake.

    Parameters
    ----------
    result : BakeResult
        Its ``frames (F,)``, ``bone_names (B,)``, ``heads, tails (F, B, 3)`` and
        ``bone_to_world (F, B, 4, 4)``.

    Returns
    -------
    str
        A header line and ``F * B`` rows, ``\\n`` line ends.
    """
    return ",".join(COLUMNS) + "\n" + _rows(result, 0, len(result.frames))


def _rows(result, start: int, stop: int) -> str:
    """The rows of frames ``start:stop`` of :func:`csv_from_bake`."""
    frames = np.asarray(result.frames, dtype=float).reshape(-1)[start:stop]
    names = [str(n) for n in np.asarray(result.bone_names)]
    F, B = len(frames), len(names)
    values = np.empty((F, B, 11), dtype=object)
    values[:, :, 0] = np.array([_frame_text(f) for f in frames], dtype=object)[:, None]
    numbers = np.concatenate(
        [
            result.heads[start:stop],
            result.tails[start:stop],
            rotation_from_matrix(result.bone_to_world[start:stop]),
        ],
        axis=-1,
    )
    # tolist() makes Python floats, whose %r is the shortest exact text (numpy scalars would
    # print as "np.float64(...)").
    values[:, :, 1:] = np.array(numbers.tolist(), dtype=object).reshape(F, B, 10)
    rows = "".join(f"%s,{_csv_field(n).replace('%', '%%')}" + ",%r" * 10 + "\n" for n in names)
    return (rows * F) % tuple(values.ravel().tolist())


#: Rows (frames times bones) made into text at a time by :func:`write_csv`: the text of a
#: long bake is never held whole (a row's numbers as Python objects take ~25 times its
#: binary size).
BLOCK_ROWS = 2**15


def write_csv(path, result) -> None:
    """Write :func:`csv_from_bake` to ``path`` atomically, a block of frames at a time.

    Raises
    ------
    SceneError
        Naming the file when it cannot be written (the old file, if any, untouched).
    """
    from app.scene.formats.atomic import atomic_path

    step = max(1, BLOCK_ROWS // max(len(result.bone_names), 1))
    written = 0
    blocks = (_rows(result, start, start + step) for start in range(0, len(result.frames), step))
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        for text in itertools.chain([",".join(COLUMNS) + "\n"], blocks):
            try:
                f.write(text.encode("utf-8"))
            except UnicodeEncodeError as e:  # a lone surrogate: refused at load, kept out here
                raise SceneError(
                    f"cannot write: the text holds a character UTF-8 cannot hold "
                    f"at character {written + e.start + 1}",
                    file=str(path),
                ) from None
            written += len(text)
        f.flush()
        os.fsync(f.fileno())
