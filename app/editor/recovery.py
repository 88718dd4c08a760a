"""Autosave to a recovery file while there are unsaved changes, and recovery after a crash.

Each running editor writes ``session-<pid>.json`` (the scene) and ``session-<pid>.meta.json``
(where it came from, when) into the recovery directory every minute while the document has
unsaved changes, and removes them when the changes are saved, undone, or discarded on a
clean exit. Files left by a process that no longer runs are what a crash left behind; the
next start offers them back.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6 import QtCore

from app.scene.errors import SceneError
from app.scene.formats.atomic import remove_stale_temporaries_in, write_atomic
from app.scene.io import load_scene, save_scene

INTERVAL_MS = 60_000


def recovery_dir() -> Path:
    """``$PIVOTAL_RECOVERY_DIR``, else ``~/.local/share/pivotal/recovery`` (or the OS's)."""
    env = os.environ.get("PIVOTAL_RECOVERY_DIR")
    if env:
        return Path(env)
    base = QtCore.QStandardPaths.writableLocation(
        QtCore.QStandardPaths.StandardLocation.GenericDataLocation
    )
    return Path(base) / "pivotal" / "recovery"


def _remove(*files: Path) -> None:
    """Delete ``files``; one that is already gone is fine."""
    for f in files:
        f.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class RecoveryFile:
    """Unsaved work a crashed session left behind."""

    scene_file: Path
    meta_file: Path
    original_path: str | None
    saved_at: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        what = Path(self.original_path).name if self.original_path else "an untitled scene"
        return f"unsaved changes to {what}, autosaved {when}"

    def load(self):
        """The recovered scene (raises :class:`SceneError` if the file is damaged)."""
        return load_scene(self.scene_file)

    def discard(self) -> None:
        _remove(self.scene_file, self.meta_file)


def orphans(directory=None) -> list[RecoveryFile]:
    """Recovery files whose process is gone, newest first."""
    directory = Path(directory) if directory else recovery_dir()
    found = []
    remove_stale_temporaries_in(directory, "session-*")  # what killed autosaves left
    for meta_file in directory.glob("session-*.meta.json"):
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            pid = int(meta["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        scene_file = meta_file.with_name(meta_file.name.replace(".meta.json", ".json"))
        if pid == os.getpid() or _alive(pid) or not scene_file.exists():
            continue
        found.append(
            RecoveryFile(scene_file, meta_file, meta.get("path"), float(meta.get("saved_at", 0)))
        )
    return sorted(found, key=lambda r: -r.saved_at)


class Autosaver(QtCore.QObject):
    """Writes the document to this session's recovery file while it has unsaved changes."""

    def __init__(self, document, interval_ms: int = INTERVAL_MS, directory=None, parent=None):
        super().__init__(parent or document)
        self._document = document
        self.directory = Path(directory) if directory else recovery_dir()
        self.scene_file = self.directory / f"session-{os.getpid()}.json"
        self.meta_file = self.directory / f"session-{os.getpid()}.meta.json"
        self._timer = QtCore.QTimer(self)
        self._timer.timeout.connect(self.autosave)
        self._timer.start(interval_ms)
        document.dirty_changed.connect(self._on_dirty)

    def autosave(self) -> bool:
        """Write the recovery file now if there are unsaved changes; whether it wrote."""
        doc = self._document
        if not doc.dirty:
            return False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # What killed sessions' autosaves left goes now, not only at the next start.
            remove_stale_temporaries_in(self.directory, "session-*")
            save_scene(doc.scene, self.scene_file)
            meta = {"pid": os.getpid(), "path": doc.path, "saved_at": time.time()}
            # Atomic too: a meta file cut short by a kill would hide the recovery.
            write_atomic(self.meta_file, json.dumps(meta))
        except (OSError, SceneError) as e:
            doc.notify(f"Autosave failed: {e}")
            return False
        return True

    def _on_dirty(self, dirty: bool) -> None:
        if not dirty:
            self.discard()

    def discard(self) -> None:
        """Remove this session's recovery files (saved, or a clean exit)."""
        _remove(self.scene_file, self.meta_file)

    def stop(self) -> None:
        self._timer.stop()
