"""Writing a file all at once: a temporary file next to the target, then a rename.

A crash, a full disk or a refused export never leaves a half-written file where the user's
old one was; the old file (if any) keeps its permissions. A process killed while writing
leaves only its hidden temporary file (``.name.<pid>.*.tmp[suffix]``), which the next write to the
same place removes once that process is gone.
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from pathlib import Path

from app.scene.errors import SceneError


def write_atomic(path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically.

    Raises
    ------
    SceneError
        Naming the file and the reason when it cannot be written; the old file, if any, is
        untouched and no temporary file is left behind.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(payload)
        f.flush()
        os.fsync(f.fileno())


@contextlib.contextmanager
def atomic_path(path, suffix: str = ""):
    """A temporary path beside ``path`` for a writer that wants a file name (a library that
    saves by path); renamed over ``path`` when the block ends without an error, removed
    otherwise.

    Parameters
    ----------
    path : path-like
        The target.
    suffix : str
        Appended to the temporary name, for libraries that choose the format by extension
        (``".usda"``).

    Raises
    ------
    SceneError
        Naming the file when the temporary cannot be made or renamed (an ``OSError`` in the
        block too); any other error in the block propagates after the temporary is removed.
    """
    path = Path(path)
    remove_stale_temporaries(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp" + suffix,
                                   dir=path.parent)  # fmt: skip
    except OSError as e:
        raise SceneError(f"cannot write: {e.strerror or e}", file=str(path)) from None
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise SceneError(f"cannot write: {e.strerror or e}", file=str(path)) from None
        raise


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale_temporaries(path) -> list[Path]:
    """Remove the temporary files that killed writers of ``path`` left; returns them."""
    path = Path(path)
    removed = []
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp*"):
        pid = tmp.name[len(path.name) + 2 :].split(".")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            try:
                tmp.unlink()
            except OSError:
                continue
            removed.append(tmp)
    return removed
