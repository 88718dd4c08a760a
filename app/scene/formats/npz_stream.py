"""Writing a NumPy ``.npz`` whose largest arrays arrive a block of rows at a time.

The file is what ``np.savez`` writes (a zip of stored ``.npy`` members, in the given order;
``np.load`` reads it), but an array given as :class:`Rows` is never held whole: its ``.npy``
header is written for the full shape and each block's bytes are appended (the first axis
is the slowest, so a block of rows is a contiguous run of bytes). The first such array goes
straight into the zip; the others, which arrive at the same time, go to temporary files beside
the target and are copied into the zip in blocks once every row has come. The whole write is
atomic (:func:`app.scene.formats.atomic.atomic_path`): a failure part way, an error raised by
the blocks' producer included, leaves the target as it was and no temporary behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from app.scene.formats.atomic import atomic_path, scratch_file

#: Bytes copied at a time from a temporary file into the zip.
COPY_BLOCK = 1 << 24


@dataclass(frozen=True)
class Rows:
    """A member of ``shape`` and ``dtype`` whose rows (first axis) arrive in blocks."""

    shape: tuple
    dtype: object = float


def write_npz(path, members: dict, blocks: Iterable[dict]) -> None:
    """Write ``members`` (name -> array, or :class:`Rows`) to ``path`` as ``name.npy``.

    Parameters
    ----------
    path : path-like
    members : dict
        In the order of the zip's members.
    blocks : iterable of dict
        Each maps the name of every :class:`Rows` member to its next rows, in order.

    Raises
    ------
    SceneError
        When the file cannot be written (the target untouched).
    ValueError
        When the blocks do not add up to the :class:`Rows` shapes.
    """
    names = list(members)
    streamed = [name for name in names if isinstance(members[name], Rows)]
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            if not streamed:
                for name in names:
                    _write_whole(zf, name, members[name])
            else:
                _write_streamed(path, zf, members, streamed, blocks)
        f.flush()
        os.fsync(f.fileno())


def _write_streamed(path, zf, members, streamed, blocks) -> None:
    names = list(members)
    first = names.index(streamed[0])
    for name in names[:first]:
        _write_whole(zf, name, members[name])
    with contextlib.ExitStack() as stack:
        spill = {
            name: stack.enter_context(scratch_file(path, f".{name}.npy")) for name in streamed[1:]
        }
        with zf.open(f"{streamed[0]}.npy", "w", force_zip64=True) as direct:
            sinks = {streamed[0]: direct, **spill}
            for name, sink in sinks.items():
                spec = members[name]
                np.lib.format.write_array_header_1_0(
                    sink,
                    {
                        "descr": np.lib.format.dtype_to_descr(np.dtype(spec.dtype)),
                        "fortran_order": False,
                        "shape": tuple(spec.shape),
                    },
                )
            rows = dict.fromkeys(streamed, 0)
            for block in blocks:
                for name, sink in sinks.items():
                    spec = members[name]
                    part = np.ascontiguousarray(block[name], dtype=spec.dtype)
                    if part.shape[1:] != tuple(spec.shape[1:]):
                        raise ValueError(
                            f"{name}: a block of shape {part.shape} does not fit "
                            f"{tuple(spec.shape)}"
                        )
                    if part.size:
                        sink.write(memoryview(part).cast("B"))
                    rows[name] += len(part)
            for name in streamed:
                if rows[name] != members[name].shape[0]:
                    raise ValueError(
                        f"{name}: {rows[name]} rows came, {members[name].shape[0]} expected"
                    )
        for name in names[first + 1 :]:
            if name in spill:
                spill[name].seek(0)
                with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                    shutil.copyfileobj(spill[name], member, COPY_BLOCK)
            else:
                _write_whole(zf, name, members[name])


def _write_whole(zf, name: str, array) -> None:
    """One member as ``np.savez`` writes it."""
    with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
        np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
