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


#: File ▸ Leaf Bones: how glTF and FBX files are read (``app.scene.formats.leaf_bones``).
LEAF_BONES = ("auto", "ignore", "keep")


def leaf_bones() -> str:
    """The leaf-bone choice for the next glTF or FBX import (default ``"auto"``)."""
    value = str(settings().value("import/leaf_bones", "auto"))
    return value if value in LEAF_BONES else "auto"


def set_leaf_bones(choice: str) -> None:
    if choice not in LEAF_BONES:
        raise ValueError(f"leaf bones: one of {LEAF_BONES}, not {choice!r}")
    settings().setValue("import/leaf_bones", choice)
