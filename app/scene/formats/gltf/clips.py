"""The animations a glTF file holds: their names (an unnamed one is ``animation N``), the
one a name or an index chooses, and the list read from the file's JSON alone (File ▸ Open
asks which to open; ``--animation NAME`` names one)."""

from __future__ import annotations

from pathlib import Path

from app.scene.errors import SceneError
from app.scene.formats.gltf.buffers import explained, items, read_document


def chosen_animation(doc: dict, name) -> int | None:
    """The index of the animation ``name`` names (its ``name``, or an index; the first for
    ``None``); ``None`` when the file has no animation.

    Raises
    ------
    SceneError
        When no animation has that name (or index).
    """
    animations = items(doc, "animations")
    if isinstance(name, int) and not isinstance(name, bool):
        if not 0 <= name < len(animations):
            raise SceneError(f"no animation {name} (the file has {len(animations)})", "/animations")
        return name
    if name is not None:
        found = [
            i for i, a in enumerate(animations) if isinstance(a, dict) and a.get("name") == name
        ]
        if not found:
            have = [a.get("name") for a in animations if isinstance(a, dict)]
            raise SceneError(f"no animation named {name!r} (the file has {have})", "/animations")
        return found[0]
    return 0 if animations else None


def animation_titles(doc: dict) -> list[str]:
    """Each animation's name, or ``animation N`` for one without (N from 0)."""
    out = []
    for k, a in enumerate(items(doc, "animations")):
        name = a.get("name") if isinstance(a, dict) else None
        out.append(name if isinstance(name, str) and name else f"animation {k}")
    return out


def animation_names(path) -> list[str]:
    """The animations of a ``.gltf``/``.glb`` file (:func:`animation_titles`), read from its
    JSON alone.

    Raises
    ------
    SceneError
    """
    path = Path(path)
    try:
        data = path.read_bytes()
        doc, _ = read_document(data)
    except OSError as e:
        raise SceneError(e.strerror or str(e), file=str(path)) from None
    except SceneError as e:
        raise explained(e, path, data) from None
    return animation_titles(doc)
