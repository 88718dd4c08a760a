"""The tutorial index (``resources/tutorials/index.json``) for Help -> Tutorials.

Each entry pairs a scene with a short Markdown text that says what to try and what to notice.
Paths in the index are relative to the index file (absolute paths are allowed, for clips
that a system package installs). An entry that needs something outside the repository
carries ``"requires"``, shown while its scene file is missing. An entry whose text starts
with File ▸ New carries ``"starts_from_new": true``: New keeps its text open (opening any
other scene closes a tutorial, which no longer applies). No Qt here: the editor
builds its menu and text panel from :func:`load_tutorials`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.scene.errors import SceneError
from app.scene.math.transforms import inverse, transform_points

INDEX = Path(__file__).resolve().parents[2] / "resources" / "tutorials" / "index.json"
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
    starts_from_new : bool
        The text asks for File ▸ New: the new scene does not close the tutorial.
    """

    id: str
    title: str
    scene: Path
    text: Path
    requires: str | None = None
    starts_from_new: bool = False

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
                raise SceneError(f'"{key}" must be a non-empty string', f"{path}.{key}", str(index))
        if entry["id"] in seen:
            raise SceneError(f"id {entry['id']!r} is used twice", f"{path}.id", str(index))
        seen.add(entry["id"])
        tutorial = Tutorial(
            id=entry["id"],
            title=entry["title"],
            scene=(index.parent / entry["scene"]).resolve(),
            text=(index.parent / entry["text"]).resolve(),
            requires=entry.get("requires"),
            starts_from_new=entry.get("starts_from_new", False),
        )
        if not isinstance(tutorial.starts_from_new, bool):
            raise SceneError(
                '"starts_from_new" must be true or false', f"{path}.starts_from_new", str(index)
            )
        if not tutorial.text.is_file():
            raise SceneError(f"text {entry['text']!r} does not exist", f"{path}.text", str(index))
        out.append(tutorial)
    return out


@dataclass(frozen=True)
class BasisChange:
    """A scene's ``tutorial`` key of kind ``basis_change`` (``docs/scene-format.md``).

    Attributes
    ----------
    point, point_at, point_label : str
        The bone whose head (or tail) is the point, and its name in the text.
    frames : tuple of (str, str)
        ``(bone, label)`` of each basis the point is shown in.
    quoted : dict
        Bone name -> the coordinates the text quotes, ``(3,)``.
    forward : ndarray, shape (3,)
        The direction every basis looks along, in its own coordinates.
    """

    point: str
    point_at: str
    point_label: str
    frames: tuple
    quoted: dict
    forward: np.ndarray


def basis_change_of(scene) -> BasisChange | None:
    """The scene's basis-change tutorial data, or ``None`` (none, another kind, or bones
    that are not in the scene: the scene was edited)."""
    data = scene.extra.get("tutorial")
    if not isinstance(data, dict) or data.get("kind") != "basis_change":
        return None
    try:
        point = data["point"]
        frames = tuple((f["bone"], f.get("label", f["bone"])) for f in data["frames"])
        names = set(scene.bone_names())
        if point["bone"] not in names or any(b not in names for b, _ in frames):
            return None
        return BasisChange(
            point=point["bone"],
            point_at=point.get("at", "head"),
            point_label=point.get("label", point["bone"]),
            frames=frames,
            quoted={k: np.asarray(v, float) for k, v in data.get("point_in_frames", {}).items()},
            forward=np.asarray(data.get("forward", [0, 0, -1]), float),
        )
    except (KeyError, TypeError, ValueError):
        return None


def point_in_frames(tutorial: BasisChange, scene, bone_to_world) -> tuple[np.ndarray, dict]:
    """The point in world coordinates and in each basis.

    Parameters
    ----------
    bone_to_world : ndarray, shape (B, 4, 4)
        The evaluated pose.

    Returns
    -------
    point_in_world : ndarray, shape (3,)
    coordinates : dict
        Bone name of each basis -> the point in that basis, ``(3,)``.
    """
    i = scene.bone_index(tutorial.point)
    m = np.asarray(bone_to_world, float)
    local = np.zeros(3) if tutorial.point_at == "head" else np.asarray(scene.tail_of(i), float)
    world = transform_points(m[i], local)
    coordinates = {
        bone: transform_points(inverse(m[scene.bone_index(bone)]), world)
        for bone, _ in tutorial.frames
    }
    return world, coordinates
