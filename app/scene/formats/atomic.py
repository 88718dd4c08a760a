"""Writing a file all at once: a temporary file next to the target, then a rename.

A crash, a full disk or a refused export never leaves a half-written file where the user's
old one was; the old file (if any) keeps its permissions. The temporary is flushed to disk
before the rename and the directory after it, so that a power cut cannot lose the rename
either. A process killed while writing leaves only its hidden temporary file
(``.name.<pid>.*.tmp[suffix]``), which the next write to the same place removes: a writer holds
a lock on its temporary while it writes, and a temporary nobody holds a lock on belongs to a
writer that is gone (killed, even if not yet reaped; or an earlier process that had the same
pid).
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import tempfile
import time
from pathlib import Path

from app.scene.errors import SceneError

try:
    import fcntl
except ImportError:  # not on POSIX: the writer's pid alone says whether it is gone
    fcntl = None

#: A temporary younger than this whose lock is free may be a writer of this process between
#: creating its file and locking it: it is left alone (an older one is stale).
_GRACE_SECONDS = 2.0


def write_atomic(path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically.

    Raises
    ------
    SceneError
        Naming the file and the reason when it cannot be written; the old file, if any, is
        untouched and no temporary file is left behind.
    """
    try:
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    except UnicodeEncodeError as e:  # a lone surrogate: refused at load, kept out here too
        raise SceneError(
            f"cannot write: the text holds a character UTF-8 cannot hold at "
            f"character {e.start + 1}",
            file=str(path),
        ) from None
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
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp" + suffix, dir=path.parent
        )
    except OSError as e:
        raise SceneError(f"cannot write: {e.strerror or e}", file=str(path)) from None
    try:
        _lock(fd)  # held until the temporary is renamed or removed: "a writer is at work"
        yield Path(tmp)
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(tmp, path)
        _sync_directory(path.parent)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise SceneError(f"cannot write: {e.strerror or e}", file=str(path)) from None
        raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def scratch_file(path, suffix: str = ""):
    """A temporary file beside ``path`` for a part of what a writer of ``path`` writes, open
    for reading and writing (binary) and removed when the block ends.

    Named and locked like the temporaries of :func:`atomic_path`: if the process is killed,
    the next write to ``path`` removes it.

    Raises
    ------
    SceneError
        Naming ``path`` when the file cannot be made.
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp" + suffix, dir=path.parent
        )
    except OSError as e:
        raise SceneError(f"cannot write: {e.strerror or e}", file=str(path)) from None
    f = None
    try:
        _lock(fd)
        f = os.fdopen(fd, "w+b")
        yield f
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if f is not None:
            f.close()
        else:
            os.close(fd)


def _lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _sync_directory(directory: Path) -> None:
    """Flush the directory's entries (the rename) to disk; a file system that cannot sync a
    directory (some network ones) is left to its own guarantees."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a killed one not yet reaped, a zombie, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _stale(tmp: Path, pid: int) -> bool:
    """Whether ``tmp``, named for writer ``pid``, was left by a writer that is gone."""
    if fcntl is None:
        return pid != os.getpid() and not _alive(pid)
    try:
        fd = os.open(tmp, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a writer holds it
        fcntl.flock(fd, fcntl.LOCK_UN)
        if not _alive(pid):
            return True
        # A live process of that pid (this one, or one that got the pid again): stale unless
        # it may be a writer that has created the file and not yet locked it.
        return time.time() - os.fstat(fd).st_mtime > _GRACE_SECONDS
    finally:
        os.close(fd)


def remove_stale_temporaries(path) -> list[Path]:
    """Remove the temporary files that killed writers of ``path`` left; returns them."""
    path = Path(path)
    removed = []
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp*"):
        pid = tmp.name[len(path.name) + 2 :].split(".")[0]
        if pid.isdigit() and _stale(tmp, int(pid)):
            try:
                tmp.unlink()
            except OSError:
                continue
            removed.append(tmp)
    return removed


def remove_stale_temporaries_in(directory, pattern: str = "*") -> list[Path]:
    """:func:`remove_stale_temporaries` for every target in ``directory`` whose name matches
    ``pattern`` (the recovery folder: the autosaves of sessions that were killed)."""
    directory = Path(directory)
    targets = set()
    for tmp in directory.glob(f".{pattern}.*.tmp*"):
        found = _TEMPORARY.match(tmp.name)
        if found:
            targets.add(found.group(1))
    removed = []
    for target in sorted(targets):
        removed += remove_stale_temporaries(directory / target)
    return removed


#: ``.<target>.<pid>.<random>.tmp[suffix]``: the target's name (dots allowed) and the pid.
_TEMPORARY = re.compile(r"^\.(.+)\.(\d+)\.[^.]*\.tmp")
