"""Loading and saving scenes: scene files (JSON), BVH motion capture, glTF and FBX.

``load_scene`` never returns a partial scene: it parses and validates everything first and
raises :class:`~app.scene.errors.SceneError` naming the file, where and why. ``save_scene``
writes a temporary file next to the target and renames it over, so a crash or a full disk
never leaves a half-written scene where the old one was.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from app.scene.errors import SceneError
from app.scene.formats.atomic import write_atomic
from app.scene.formats.schema import scene_from_json, scene_to_json, validate
from app.scene.rig.model import Scene


def _reject_constant(token):
    raise ValueError(f"{token} is not a valid JSON number")


GLTF_SUFFIXES = (".gltf", ".glb")
FBX_SUFFIX = ".fbx"

#: What Pivotal opens, named in the error for a file that is none of them.
KINDS = (
    "a Pivotal scene (.json), a BVH clip (.bvh), a glTF file (.gltf, .glb) or an FBX file (.fbx)"
)


def load_scene(path, animation: str | None = None, leaf_bones: str = "auto") -> Scene:
    """Read a scene file, or a ``.bvh``, ``.gltf``, ``.glb`` or ``.fbx`` file (by extension) as
    a scene.

    ``animation`` names the glTF animation or FBX take to import (or is its index, from 0;
    default: the first; :func:`animation_names` lists them). ``leaf_bones`` (glTF and FBX):
    ``"auto"`` ignores the bones Blender adds at the ends of chains when the file says
    Blender wrote them, ``"ignore"`` always, ``"keep"`` never
    (:mod:`app.scene.formats.leaf_bones`).

    Raises
    ------
    SceneError
        For an unreadable, malformed or invalid file; the message names the file, the
        location (JSON path or line) and the reason.
    """
    path = Path(path)
    if path.suffix.lower() == ".bvh":
        from app.scene.formats.bvh import load_bvh

        return load_bvh(path)
    if path.suffix.lower() in GLTF_SUFFIXES:
        from app.scene.formats.gltf.importer import load_gltf
        from app.scene.formats.mesh_source import remember_source

        return keepable(remember_source(load_gltf(path, animation, leaf_bones), path), path)
    if path.suffix.lower() == FBX_SUFFIX:
        from app.scene.formats.fbx.importer import load_fbx
        from app.scene.formats.mesh_source import remember_source

        # The importer checks its keys as a scene file would (finite, within the bounds on
        # numbers and frames, unit rotations, no negative scale); the rest is checked here
        # without them, which keeps a 65-joint character's import fast.
        scene = remember_source(load_fbx(path, animation, leaf_bones), path)
        bare = scene.copy()
        bare.bones = [
            replace(b, translation_keys=None, rotation_keys=None, scale_keys=None)
            for b in scene.bones
        ]
        keepable(bare, path)
        return scene
    scene_suffix = path.suffix.lower() == ".json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SceneError("no such file", file=str(path)) from None
    except UnicodeDecodeError as e:
        if not scene_suffix:
            raise SceneError(f"it is not {KINDS}", file=str(path)) from None
        raise SceneError("not UTF-8 text", f"byte {e.start}", str(path)) from None
    except OSError as e:
        raise SceneError(e.strerror or str(e), file=str(path)) from None
    try:
        scene = loads_scene(text, str(path))
    except SceneError as e:
        # Another kind of file (a .txt, a .png): say what Pivotal opens, not where the
        # JSON parser gave up; a .json file keeps the parser's place and reason.
        if not scene_suffix and e.reason.startswith("malformed JSON"):
            raise SceneError(f"it is not {KINDS}", file=str(path)) from None
        raise
    if "meshes" in scene.extra:
        from app.scene.formats.mesh_source import load_meshes

        load_meshes(scene, path)
    return scene


def animation_names(path) -> list[str]:
    """The animations a file holds: a glTF file's animations, an FBX file's takes (an
    unnamed glTF animation is ``animation N``); ``[]`` for a scene file or a BVH (one clip).

    Raises
    ------
    SceneError
        For a file that cannot be read.
    """
    suffix = Path(path).suffix.lower()
    if suffix in GLTF_SUFFIXES:
        from app.scene.formats.gltf.clips import animation_names as gltf_names

        return gltf_names(path)
    if suffix == FBX_SUFFIX:
        from app.scene.formats.fbx import assimp

        if not Path(path).is_file():
            raise SceneError("no such file", file=str(path))
        try:
            return list(assimp.read_guarded(path).takes)
        except assimp.ReadError as e:  # assimp's words, translated (kept as details)
            from app.scene.formats.fbx.messages import refusal

            with open(path, "rb") as f:
                raise refusal(str(e), f.read(64)).with_file(str(path)) from None
    return []


def keepable(scene: Scene, path) -> Scene:
    """``scene`` (imported from another format), once its scene file is known to load back:
    what the scene format would refuse (a number past its bounds, ...) is refused here, at
    import, naming where in the scene it sits, rather than when it is saved.

    Raises
    ------
    SceneError
    """
    try:
        scene_from_json(json.loads(json.dumps(scene_to_json(scene), allow_nan=False)))
    except SceneError as e:
        where = e.path
        found = re.match(r"bones\[(\d+)\]", where)
        if found and int(found.group(1)) < len(scene.bones):  # the file's own name for it
            where = f"bone {scene.bones[int(found.group(1))].name!r} ({where})"
        raise SceneError(f"{e.reason} (a scene file could not keep it)", where, str(path)) from None
    except ValueError as e:  # a non-finite number
        raise SceneError(
            f"{e} (a scene file could not keep it)", "(top level)", str(path)
        ) from None
    return scene


_BAD_NUMBER = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN|-?\d{4000,})')


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"line {line} column {offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _place_of_bad_number(text: str) -> str:
    """Where the first NaN, Infinity or giant integer outside a string is ("" if none)."""
    for found in _BAD_NUMBER.finditer(text):
        if found.group(1):
            return _line_column(text, found.start(1))
    return ""


def loads_scene(text: str, file: str = "") -> Scene:
    """Parse a scene from JSON text; ``file`` names it in errors."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise SceneError(
            f"malformed JSON: {e.msg}", f"line {e.lineno} column {e.colno}", file
        ) from None
    except ValueError as e:  # NaN/Infinity, or an integer of thousands of digits
        raise SceneError(f"malformed JSON: {e}", _place_of_bad_number(text), file) from None
    except RecursionError:
        depth = re.match(r"[\s\[{]*", text).end()
        raise SceneError(
            "malformed JSON: arrays or objects nested too deeply", _line_column(text, depth), file
        ) from None
    try:
        return scene_from_json(value)
    except SceneError as e:
        raise e.with_file(file) from None


def dumps_scene(scene: Scene) -> str:
    """The scene file text (UTF-8 JSON, two-space indent, newline at the end)."""
    return json.dumps(scene_to_json(scene), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def save_scene(scene: Scene, path) -> None:
    """Write ``scene`` to ``path`` atomically (temporary file, then rename).

    Raises
    ------
    SceneError
        If the scene is invalid (nothing is written) or the file cannot be written (the old
        file, if any, is untouched).
    """
    path = Path(path)
    try:
        validate(scene)
        if scene.meshes or "meshes" in scene.extra:
            from app.scene.formats.mesh_source import source_for_save

            scene = scene.copy()
            if scene.meshes:
                scene.extra["meshes"] = source_for_save(scene, path)
            else:  # no meshes left: nothing to name
                del scene.extra["meshes"]
        text = dumps_scene(scene)
    except (SceneError, ValueError) as e:
        raise SceneError(f"cannot save: {e}", file=str(path)) from None
    except RecursionError:  # refused at load (unknown keys nest at most 64 deep): a safety net
        raise SceneError("cannot save: values nested too deeply", file=str(path)) from None
    write_atomic(path, text)
