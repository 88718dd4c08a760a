"""Persistent preferences (``QSettings``, INI format): window layout and recent files."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore

ORGANIZATION = "Pivotal"
APPLICATION = "Pivotal"
MAX_RECENT = 8


def settings() -> QtCore.QSettings:
    """Pivotal's settings store (tests redirect it with ``QSettings.setPath``)."""
    return QtCore.QSettings(
        QtCore.QSettings.Format.IniFormat,
        QtCore.QSettings.Scope.UserScope,
        ORGANIZATION,
        APPLICATION,
    )


def recent_files() -> list[str]:
    """Recently opened or saved files, most recent first."""
    value = settings().value("recent_files", [])
    if isinstance(value, str):  # QSettings gives a lone string for a one-item list
        value = [value]
    return [str(v) for v in (value or [])]


def add_recent(path) -> list[str]:
    path = str(Path(path).resolve())
    files = [path] + [f for f in recent_files() if f != path]
    settings().setValue("recent_files", files[:MAX_RECENT])
    return files[:MAX_RECENT]


def remove_recent(path) -> list[str]:
    files = [f for f in recent_files() if f != str(path)]
    settings().setValue("recent_files", files)
    return files
