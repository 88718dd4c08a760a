"""Export formats, and running an export for the command line or the editor.

Every format is an :class:`ExportFormat` in the registry :data:`FORMATS`, whose ``writer`` is
the function ``writer(request: ExportRequest) -> list[str]`` (the notes to show the user).
This module registers the formats of the core; a layer above adds its own with
:func:`register`: the window registers the PNG formats of its renderer
(:func:`app.window.render.register_formats`) at start-up and ``main.py export`` before it
reads ``--format``, so this module never names the window.

Every writer writes atomically (a temporary file, then a rename), so a refused or failed
export leaves whatever was at the output path untouched. Long evaluations can report
progress and be cancelled (:func:`bake_in_chunks`), for the editor's progress dialog.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.scene import evaluate
from app.scene.evaluate import BakeResult, Evaluator, default_frames
from app.scene.registry import Registry
from app.scene.rig.model import Scene


class ExportCancelled(Exception):
    """The user cancelled a running export; nothing was written."""


@dataclass(frozen=True)
class ExportFormat:
    """One export format.

    Attributes
    ----------
    name : str
        ``--format`` value.
    suffix : str
        The usual file suffix, also used to guess the format from ``--out``.
    description : str
    writer : callable
        ``writer(request: ExportRequest) -> list[str]``: writes the file, returns the notes.
    """

    name: str
    suffix: str
    description: str
    writer: Callable[[ExportRequest], list[str]]


def format_for(name: str | None, out) -> ExportFormat:
    """The format called ``name``, or the one whose suffix ``out`` has.

    Raises
    ------
    ValueError
        Unknown name, or a suffix that names no format.
    """
    if name is None:
        suffix = Path(out).suffix.lower()
        matches = [f for f in FORMATS.values() if f.suffix and f.suffix == suffix]
        if not matches:
            raise ValueError(
                f"cannot tell the format from {str(out)!r}; give --format ({'|'.join(FORMATS)})"
            )
        fmt = matches[0]
    elif name not in FORMATS:
        raise ValueError(f"unknown format {name!r}; choose one of {', '.join(FORMATS)}")
    else:
        fmt = FORMATS[name]
    return fmt


#: ``progress(done, total) -> bool``: frames evaluated so far; return False to cancel.
Progress = Callable[[int, int], bool]


def bake_in_chunks(
    scene: Scene,
    frames=None,
    space: str | None = None,
    progress: Progress | None = None,
    chunk: int | None = None,
) -> BakeResult:
    """:func:`~app.scene.evaluate.bake`, ``chunk`` frames at a time, reporting progress.

    By default a chunk is the evaluation's own (:data:`~app.scene.evaluate.CHUNK_POSES` poses,
    at least 256 frames): a few hundredths of a second each, and no more calls than needed.

    One :class:`~app.scene.evaluate.Evaluator` evaluates every chunk, so constraint caches
    (the multi-parent integral) carry over and the result equals a single bake. The
    per-constraint ``info`` of a chunked bake is the last chunk's.

    Raises
    ------
    ExportCancelled
        When ``progress`` returns False.
    """
    frames = default_frames(scene) if frames is None else np.asarray(frames, float).reshape(-1)
    evaluator = Evaluator(scene)
    chunk = chunk or max(256, evaluate.CHUNK_POSES // max(len(scene.bones), 1))
    starts = range(0, max(len(frames), 1), chunk)
    result = None
    for start in starts:
        part = evaluator.evaluate(frames[start : start + chunk], space)
        if len(starts) == 1:
            result = part
        else:  # each chunk copied into the whole result's arrays as it comes
            if result is None:
                shape = (len(frames), len(part.bone_names))
                result = BakeResult(
                    bone_names=part.bone_names,
                    frames=np.empty(len(frames)),
                    bone_to_world=np.empty(shape + (4, 4)),
                    heads=np.empty(shape + (3,)),
                    tails=np.empty(shape + (3,)),
                    limit_violation_deg=np.empty(shape),
                )
            for name in BakeResult.ARRAYS[1:]:
                getattr(result, name)[start : start + len(part.frames)] = getattr(part, name)
            result.info = part.info
        del part
        if progress is not None and progress(min(start + chunk, len(frames)), len(frames)) is False:
            raise ExportCancelled("export cancelled")
    return result


@dataclass
class ExportRequest:
    """Everything one export needs.

    Attributes
    ----------
    scene : Scene
    out : Path
    frames : ndarray (F,) or None
        ``None``: the scene's whole timeline.
    space : {"world", "object"} or None
        Overrides every constraint's space, as in ``bake``.
    options : dict
        Format-specific options (``rotation_order`` for BVH).
    progress : Progress or None
    """

    scene: Scene
    out: Path
    frames: np.ndarray | None = None
    space: str | None = None
    options: dict = field(default_factory=dict)
    progress: Progress | None = None

    def bake(self) -> BakeResult:
        return bake_in_chunks(self.scene, self.frames, self.space, self.progress)


def write_bvh_request(request: ExportRequest) -> list[str]:
    from app.scene.formats.bvh_export import DEFAULT_ORDER, write_bvh

    order = request.options.get("rotation_order") or DEFAULT_ORDER
    export = write_bvh(request.out, request.scene, request.bake(), order=order)
    return list(export.notes)


def write_csv_request(request: ExportRequest) -> list[str]:
    from app.scene.formats.csv_export import write_csv

    write_csv(request.out, request.bake())
    return []


def write_gltf_request(request: ExportRequest) -> list[str]:
    from app.scene.formats.gltf.export import write_gltf

    result = request.bake()
    start = float(request.scene.frame_start)
    rest = None
    if result.frames[0] != start:  # the nodes' rest pose is frame_start's, exported or not
        rest = bake_in_chunks(request.scene, [start], request.space)
    return write_gltf(request.out, request.scene, result, rest)


def write_usd_request(request: ExportRequest) -> list[str]:
    from app.scene.formats.usd_export import write_usd

    return write_usd(request.out, request.scene, request.bake())


def write_npz_request(request: ExportRequest) -> list[str]:
    from app.scene.evaluate import bake_to_npz

    def progress(done, total):
        if request.progress is not None and request.progress(done, total) is False:
            raise ExportCancelled("export cancelled")

    # Chunk by chunk into the file (the whole result is never held).
    bake_to_npz(request.scene, request.out, request.frames, request.space, progress)
    return []


def run_export(fmt: ExportFormat, request: ExportRequest) -> list[str]:
    """Run ``fmt``'s writer on ``request``; the notes it returns are for the user.

    Raises
    ------
    SceneError, ValueError
        Bad input, naming where and why; nothing is written.
    ExportCancelled
    """
    return fmt.writer(request)


#: The export formats by ``--format`` name, in the order menus list them: the core's below,
#: the window's PNG formats once :func:`register` added them.
FORMATS: Registry[str, ExportFormat] = Registry("export format", key=lambda fmt: fmt.name)
#: ``register(fmt)``: add ``fmt`` to :data:`FORMATS` (or replace the format of that name).
register = FORMATS.register


for _format in (
    ExportFormat("bvh", ".bvh", "evaluated animation as BVH motion capture", write_bvh_request),
    ExportFormat(
        "csv", ".csv", "heads, tails and world quaternions per frame and bone", write_csv_request
    ),
    ExportFormat("npz", ".npz", "the baked arrays, as main.py bake writes them", write_npz_request),
    ExportFormat(
        "glb",
        ".glb",
        "glTF 2.0 binary: bones, skin, mesh and the baked animation",
        write_gltf_request,
    ),
    ExportFormat("gltf", ".gltf", "glTF 2.0 JSON (buffer inside): as glb", write_gltf_request),
    ExportFormat(
        "usda", ".usda", "USD text: UsdSkel skeleton, animation and meshes", write_usd_request
    ),
    ExportFormat("usdc", ".usdc", "USD binary (crate): as usda", write_usd_request),
):
    register(_format)
