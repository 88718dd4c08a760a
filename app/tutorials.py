"""The tutorial index (``resources/tutorials/index.json``) for Help -> Tutorials.

Each entry pairs a scene with a short Markdown text that says what to try and what to notice.
Paths in the index are relative to the index file (absolute paths are allowed, for clips
that a system package installs). An entry that needs something outside the repository
carries ``"requires"``, shown while its scene file is missing. No Qt here: the editor
builds its menu and text panel from :func:`load_tutorials`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from app.scene.errors import SceneError

INDEX = Path(__file__).resolve().parent.parent / "resources" / "tutorials" / "index.json"
FORMAT = "pivotal-tutorials"


@dataclass(frozen=True)
class Tutorial:
    """One tutorial of the index.

    Attributes
    ----------
    id, title : str
    scene, text : Path
        Absolute paths of the scene (``.json`` or ``.bvh``) and of its Markdown text.
    requires : str or None
        What outside the repository the scene needs.
    """

    id: str
    title: str
    scene: Path
    text: Path
    requires: str | None = None

    @property
    def available(self) -> bool:
        """Whether the tutorial can be opened now (its scene file exists)."""
        return self.scene.is_file()

    def why_unavailable(self) -> str:
        """A sentence for a disabled menu entry ("" when available)."""
        if self.available:
            return ""
        return f"needs {self.requires or self.scene}"

    def markdown(self) -> str:
        return self.text.read_text(encoding="utf-8")


def load_tutorials(index=INDEX) -> list[Tutorial]:
    """The tutorials of ``index`` in menu order.

    Raises
    ------
    SceneError
        A malformed index, naming the file, the entry and the reason; a missing text file
        is an error too (the texts ship with the program).
    """
    index = Path(index)
    try:
        value = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SceneError(f"cannot read the tutorial index: {e}", file=str(index)) from None
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise SceneError(f'"format" must be "{FORMAT}"', "format", str(index))
    entries = value.get("tutorials")
    if not isinstance(entries, list):
        raise SceneError('"tutorials" must be an array', "tutorials", str(index))
    out, seen = [], set()
    for k, entry in enumerate(entries):
        path = f"tutorials[{k}]"
        if not isinstance(entry, dict):
            raise SceneError("must be an object", path, str(index))
        for key in ("id", "title", "scene", "text"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise SceneError(f'"{key}" must be a non-empty string', f"{path}.{key}",
                                 str(index))  # fmt: skip
        if entry["id"] in seen:
            raise SceneError(f"id {entry['id']!r} is used twice", f"{path}.id", str(index))
        seen.add(entry["id"])
        tutorial = Tutorial(
            id=entry["id"],
            title=entry["title"],
            scene=(index.parent / entry["scene"]).resolve(),
            text=(index.parent / entry["text"]).resolve(),
            requires=entry.get("requires"),
        )
        if not tutorial.text.is_file():
            raise SceneError(f"text {entry['text']!r} does not exist", f"{path}.text",
                             str(index))  # fmt: skip
        out.append(tutorial)
    return out
