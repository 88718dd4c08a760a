"""Evaluating a scene: forward kinematics, then each constraint after what it reads.

``bake(scene, frames=None, space=None)`` is the entry point the tests use (``bake_to_npz`` the
command line's); a long bake is evaluated in chunks of frames (:data:`CHUNK_POSES`), so its
memory is its result's arrays (none for ``bake_to_npz``) and one chunk's working arrays. The
editor keeps an :class:`Evaluator`, which holds the constraints' caches (the multi-parent
integral) between evaluations.

A constraint solver (found by the constraint's class in :mod:`app.scene.constraints.registry`)
has ``apply(constraint, context)``; it reads the current world transforms from the
:class:`Context` and writes the driven bones' world transforms back with
:meth:`Context.set_world`, which carries the change down to the descendants. A solver that
caches work between evaluations (in ``context.cache[constraint.name]``) may also define
``is_stale(constraint, cache_entry, scene) -> bool``, which the editor asks through
:meth:`Evaluator.stale_constraints` to say that a recomputation is coming.

A solver that keeps a relation measured at ``frame_start`` (``offset: "frame_start"`` of the
kinds of contract §F2) reads it with :meth:`Context.at_frame_start`: from the batch when it
holds ``frame_start``, else as measured by an earlier evaluation of the same scene, else by
one evaluation of that single frame (once per edit, not per frame played).

One idea: a scene's evaluation, from its frames to the baked arrays, held in memory
(:func:`bake`) or written chunk by chunk into the ``.npz`` of ``main.py bake``
(:func:`bake_to_npz`).
"""

from __future__ import annotations

import mmap
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from app.scene import bounds
from app.scene.constraints import batches
from app.scene.constraints.order import order_of
from app.scene.constraints.registry import solver_for
from app.scene.errors import SceneError
from app.scene.formats.npz_stream import Rows, write_npz
from app.scene.math.transforms import transform_points
from app.scene.rig.keys import sample
from app.scene.rig.model import SPACES, Scene, Target, same_items
from app.scene.rig.prepared import PreparedRig, prepare
from app.scene.rig.skeleton import Skeleton, forward_kinematics, propagate, propagate_many


@dataclass
class Context:
    """What a constraint solver sees while one batch of frames is evaluated.

    Attributes
    ----------
    scene : Scene
    skeleton : Skeleton
    frames : ndarray, shape (F,)
    bone_to_parent : ndarray, shape (F, B, 4, 4)
        The animated local transforms (before constraints).
    bone_to_world : ndarray, shape (F, B, 4, 4)
        The current world transforms; solvers update them through :meth:`set_world`.
    limit_violation_deg : ndarray, shape (F, B)
        Degrees by which each bone leaves its limits; world-space solvers write it.
    cache : dict
        Per-constraint storage that lives as long as the :class:`Evaluator`
        (``cache[constraint.name]``); the multi-parent integral lives here.
    info : dict
        Per-constraint diagnostics of this evaluation (iterations, distances, ...).
    rig : PreparedRig or None
        What does not change with the frame (:mod:`app.scene.rig.prepared`); solvers keep
        their own static data in it (``rig.static(constraint, build)``).
    at_start : dict
        What each constraint measured at ``frame_start`` (:meth:`at_frame_start`), by name;
        the evaluator empties it when the scene's bones or constraints, ``frame_start`` or
        the space override change.
    evaluate_start : callable or None
        Evaluates ``frame_start`` alone with the same evaluator (which fills ``at_start``).
    """

    scene: Scene
    skeleton: Skeleton
    frames: np.ndarray
    bone_to_parent: np.ndarray
    bone_to_world: np.ndarray
    limit_violation_deg: np.ndarray
    space_override: str | None = None
    cache: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    rig: PreparedRig | None = None
    at_start: dict = field(default_factory=dict)
    evaluate_start: Callable[[], object] | None = None

    def space_of(self, constraint) -> str:
        """The space a constraint is evaluated in: the override, else its own."""
        return self.space_override or constraint.space

    def set_world(self, bone: int, bone_to_world) -> None:
        """Set bone ``bone``'s world transforms ``(F, 4, 4)``; its descendants follow."""
        self.bone_to_world[:, bone] = bone_to_world
        propagate(self.skeleton, self.bone_to_parent, self.bone_to_world, bone)

    def set_world_many(self, bones, bone_to_world) -> None:
        """Set bones' world transforms ``(F, k, 4, 4)`` at once (none of ``bones`` below
        another); their descendants follow, one product per depth level."""
        bones = tuple(int(b) for b in bones)
        self.bone_to_world[:, list(bones)] = bone_to_world
        propagate_many(self.skeleton, self.bone_to_parent, self.bone_to_world, bones)

    def at_frame_start(self, constraint, measure: Callable[[np.ndarray], object]):
        """``measure(bone_to_world)`` on the pose at ``frame_start`` as the constraints that
        run before ``constraint`` leave it (``bone_to_world`` shape ``(1, B, 4, 4)``).

        When this batch holds ``frame_start`` it is measured here (the constraints before
        this one have just run on it) and kept; otherwise the kept value is used, and if
        there is none yet, ``frame_start`` is first evaluated alone to measure it.
        """
        row = np.flatnonzero(self.frames == self.scene.frame_start)
        if len(row):
            value = self.at_start[constraint.name] = measure(self.bone_to_world[row[:1]])
            return value
        if constraint.name not in self.at_start and self.evaluate_start is not None:
            self.evaluate_start()
        if constraint.name not in self.at_start:  # a context made without an evaluator
            raise SceneError(
                f"constraint {constraint.name!r} needs frame_start "
                f"({self.scene.frame_start}) evaluated first",
                "frame_start",
            )
        return self.at_start[constraint.name]

    def target_positions(self, target: Target) -> np.ndarray:
        """World positions ``(F, 3)`` of a target at the context's frames (current pose)."""
        if target.bone is None:
            return sample(target.position, target.position_keys, self.frames)
        b = self.skeleton.index(target.bone)
        if target.at == "head":
            return self.bone_to_world[:, b, :3, 3].copy()
        rig = self.rig if self.rig is not None else prepare(self.scene)
        return transform_points(self.bone_to_world[:, b], rig.tails_in_bone[b])


@dataclass
class BakeResult:
    """The evaluated animation; the arrays of the ``.npz`` of ``main.py bake``.

    Attributes
    ----------
    bone_names : ndarray of str, (B,)
    frames : ndarray, (F,)
    bone_to_world : ndarray, (F, B, 4, 4)
    heads, tails : ndarray, (F, B, 3)
    limit_violation_deg : ndarray, (F, B)
    info : dict
        Per-constraint diagnostics (not written to the ``.npz``).
    """

    bone_names: np.ndarray
    frames: np.ndarray
    bone_to_world: np.ndarray
    heads: np.ndarray
    tails: np.ndarray
    limit_violation_deg: np.ndarray
    info: dict = field(default_factory=dict)

    ARRAYS = ("bone_names", "frames", "bone_to_world", "heads", "tails", "limit_violation_deg")


def default_frames(scene: Scene) -> np.ndarray:
    """Every frame from ``frame_start`` to ``frame_end`` inclusive.

    Raises
    ------
    SceneError
        When there are more than the bound of frames (``app.scene.bounds``).
    """
    bounds.check_frame_count(bounds.frame_count(scene.frame_start, scene.frame_end), "frame_end")
    return np.arange(scene.frame_start, scene.frame_end + 1, dtype=float)


def _frames_argument(frames) -> np.ndarray:
    """``bake(frames=...)`` as a flat float array, refused past the bound on frames."""
    try:
        size = np.size(frames)
    except (TypeError, ValueError):
        size = None
    if size is not None:
        bounds.check_frame_count(size, "frames")
    try:
        return np.asarray(frames, float).reshape(-1)
    except (TypeError, ValueError, OverflowError) as e:
        raise SceneError(f"frames must be numbers ({e})", "frames") from None


class Evaluator:
    """Evaluates one scene repeatedly, keeping the constraints' caches between calls.

    The scene may be edited between calls (items replaced); caches compare the inputs they
    depend on and recompute only what changed.
    """

    def __init__(self, scene: Scene):
        self.scene = scene
        self.cache: dict = {}
        self._planned = None  # (constraints, rig, space, steps) of the last plan
        self._at_start = (None, {})  # (what it was measured on, Context.at_start)

    def stale_constraints(self) -> list[str]:
        """Names of the constraints whose cached work no longer matches the scene.

        The next :meth:`evaluate` recomputes them (from the first frame whose inputs changed).
        """
        stale = []
        for i, c in enumerate(self.scene.constraints):
            is_stale = getattr(solver_for(c, f"constraints[{i}]"), "is_stale", None)
            if is_stale is not None and is_stale(c, self.cache.get(c.name), self.scene):
                stale.append(c.name)
        return stale

    def checked_frames(self, frames, space):
        """The frames to evaluate (default: the timeline), checked with ``space``."""
        scene = self.scene
        if space is not None and space not in SPACES:
            raise SceneError(f'space must be "world" or "object", got {space!r}', "--space")
        if frames is None:
            frames = default_frames(scene)
        else:
            frames = _frames_argument(frames)
        bounds.check_poses(len(frames), len(scene.bones), "frames")
        if not np.all(np.isfinite(frames)):
            raise SceneError("frames must be finite numbers", "frames")
        return frames

    def context(
        self, frames=None, space: str | None = None, until: str | None = None, out=None
    ) -> Context:
        """The evaluation's context after forward kinematics and the constraints before
        ``until`` (all of them when ``None``).

        With ``until`` naming a constraint, the context holds the pose that constraint
        starts from: the step-through traces a solver from there. With ``out`` (shape
        ``(4, 4, B, F)``, more than two frames) the world transforms are computed in it.

        Raises
        ------
        SceneError
            Bad input, or no constraint named ``until``.
        """
        return self._context(self.checked_frames(frames, space), space, until, out)

    def _context(self, frames: np.ndarray, space, until=None, out=None) -> Context:
        """:meth:`context` of ``frames`` already checked (:meth:`checked_frames`): a chunked
        evaluation checks its frames once, not once per chunk."""
        scene = self.scene
        names = [c.name for c in scene.constraints]
        if until is not None and until not in names:
            raise SceneError(f"no constraint named {until!r}", "constraints")
        rig = prepare(scene)  # rebuilt only when a bone was replaced
        skeleton = rig.skeleton
        bone_to_parent = rig.local_transforms(frames)
        ctx = Context(
            scene=scene,
            skeleton=skeleton,
            frames=frames,
            bone_to_parent=bone_to_parent,
            bone_to_world=forward_kinematics(skeleton, bone_to_parent, out=out),
            limit_violation_deg=np.zeros((len(frames), len(scene.bones))),
            space_override=space,
            cache=self.cache,
            rig=rig,
            at_start=self._at_start_values(rig, space),
            evaluate_start=lambda: self.context([float(scene.frame_start)], space),
        )
        live = set(names)
        for stale in [k for k in self.cache if k not in live]:
            del self.cache[stale]
        if until is not None:  # the step-through: one by one, up to that constraint
            for i in order_of(scene):
                constraint = scene.constraints[i]
                if constraint.name == until:
                    break
                solver_for(constraint, f"constraints[{i}]").apply(constraint, ctx)
            return ctx
        for run in self._plan(ctx):  # in run order; a run of alike, independent ones at once
            first = scene.constraints[run[0]]
            module = solver_for(first, f"constraints[{run[0]}]")
            if len(run) == 1:
                module.apply(first, ctx)
            else:
                module.apply_group([scene.constraints[i] for i in run], ctx)
        return ctx

    def _at_start_values(self, rig, space) -> dict:
        """:attr:`Context.at_start`, kept while the bones (``rig``), the constraints,
        ``frame_start`` and the space override are the same items and values."""
        key = (rig, tuple(self.scene.constraints), self.scene.frame_start, space)
        kept, values = self._at_start
        if (
            kept is None
            or kept[0] is not key[0]
            or kept[2:] != key[2:]
            or not same_items(kept[1], key[1])
        ):
            values = {}
            self._at_start = (key, values)
        return values

    def _plan(self, ctx) -> list[list[int]]:
        """The batches of :mod:`app.scene.constraints.batches` over the constraints in their
        run order (:mod:`app.scene.constraints.order`), kept while the constraints, the
        prepared rig and the space override stay the same."""
        constraints = tuple(self.scene.constraints)
        kept = self._planned
        if (
            kept is None
            or kept[1] is not ctx.rig
            or kept[2] != ctx.space_override
            or not same_items(kept[0], constraints)
        ):
            order = order_of(self.scene)
            steps = batches.plan([constraints[i] for i in order], ctx)
            steps = [[order[k] for k in run] for run in steps]
            kept = self._planned = (constraints, ctx.rig, ctx.space_override, steps)
        return kept[3]

    def evaluate(self, frames=None, space: str | None = None) -> BakeResult:
        """Evaluate ``frames`` (default: the whole timeline).

        Parameters
        ----------
        frames : array_like, shape (F,), optional
            Frames in any order, fractional allowed.
        space : {"world", "object"}, optional
            Overrides every constraint's ``space``, the copy kinds' too (it says which
            rotations or points they copy), like the editor's toggle.
        """
        frames = self.checked_frames(frames, space)
        spans = chunks(len(frames), len(self.scene.bones))
        if len(spans) == 1:
            return _result_of(self._context(frames, space))
        shape = (len(frames), len(self.scene.bones))
        # Laid out as forward kinematics lays out its own (component-major, frames last):
        # each chunk is evaluated in place there, nothing copied.
        component_major = _result_array((4, 4) + shape[::-1])
        bone_to_world = np.moveaxis(component_major, (0, 1, 2, 3), (2, 3, 1, 0))
        out = BakeResult(
            bone_names=None,
            frames=frames,
            bone_to_world=bone_to_world,
            heads=_result_array(shape + (3,)),
            tails=_result_array(shape + (3,)),
            limit_violation_deg=_result_array(shape),
        )
        pieces: dict = {}
        for lo, hi, piece in self.pieces_checked(frames, space, component_major):
            out.heads[lo:hi] = piece.heads
            out.tails[lo:hi] = piece.tails
            out.limit_violation_deg[lo:hi] = piece.limit_violation_deg
            for name, entry in piece.info.items():
                pieces.setdefault(name, []).append(entry)
            del piece  # before the next chunk's arrays are made
        out.bone_names = prepare(self.scene).name_array
        out.info = {name: _joined(entries) for name, entries in pieces.items()}
        return out

    def pieces(self, frames=None, space: str | None = None, into=None):
        """:meth:`evaluate` chunk by chunk (:func:`chunks`): yields ``(start, stop, piece)``,
        ``piece`` the :class:`BakeResult` of ``frames[start:stop]``.

        A piece's ``bone_to_world`` is overwritten by the next chunk's: use it before asking
        for the next. With ``into`` (shape ``(4, 4, B, F)``, component-major) each chunk's world
        transforms are computed in their place there (the whole result's array).
        """
        yield from self.pieces_checked(self.checked_frames(frames, space), space, into)

    def pieces_checked(self, frames: np.ndarray, space, into=None):
        """:meth:`pieces` of ``frames`` already checked (:meth:`checked_frames`), which a
        chunked evaluation does once for all its chunks."""
        spans = chunks(len(frames), len(self.scene.bones))
        if into is None and len(spans) > 1:  # one chunk's buffer, used again by each
            longest = max(hi - lo for lo, hi in spans)
            into = np.empty((4, 4, len(self.scene.bones), longest))
            spans = [(lo, hi, into[..., : hi - lo]) for lo, hi in spans]
        else:
            spans = [(lo, hi, None if into is None else into[..., lo:hi]) for lo, hi in spans]
        for lo, hi, out in spans:
            piece = _result_of(self._context(frames[lo:hi], space, out=out))
            yield lo, hi, piece
            del piece  # before the next chunk's arrays are made


def _result_of(ctx: Context) -> BakeResult:
    """The :class:`BakeResult` of an evaluated context (its arrays, not copies)."""
    return BakeResult(
        bone_names=ctx.rig.name_array,
        frames=ctx.frames,
        bone_to_world=ctx.bone_to_world,
        heads=ctx.bone_to_world[..., :3, 3].copy(),
        tails=transform_points(ctx.bone_to_world, ctx.rig.tails_in_bone),
        limit_violation_deg=ctx.limit_violation_deg,
        info=ctx.info,
    )


#: A bake of more poses (frames times bones) than this runs in chunks of frames of about
#: this many poses: each working array of one chunk is then at most ~8 MiB (an ``(F, B, 4,
#: 4)`` array is 128 bytes a pose), whatever the bake's length; smaller than 2**18, so that
#: they stay in the cache and the allocator reuses them (a third less time a pose), larger than
#: 2**14, so that numpy's cost per call stays small. Every frame is evaluated independently
#: of the others (the multi-parent integral, which is not, is computed once for the whole
#: timeline and read by each chunk), so the chunks give the same bits.
CHUNK_POSES = 2**16
#: No chunk has fewer frames than this (one or two frames take other, plain-float paths).
MIN_CHUNK_FRAMES = 16


def chunks(frames: int, bones: int) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` spans of about :data:`CHUNK_POSES` poses covering ``frames``
    frames of ``bones`` bones, of equal lengths (within one frame)."""
    count = min(-(-frames * max(bones, 1) // CHUNK_POSES), frames // MIN_CHUNK_FRAMES)
    if count <= 1:
        return [(0, frames)]
    edges = [frames * k // count for k in range(count + 1)]
    return list(zip(edges[:-1], edges[1:]))


def _result_array(shape) -> np.ndarray:
    """An array of floats for a chunked bake's result, its pages mapped and zeroed by the
    kernel in one call (Linux's ``MAP_POPULATE``): for a result of 1.3 GB that takes 0.4 s
    where numpy's own allocation, touched page by page (or compacted into huge pages on a
    busy machine), took 0.8 to 3.6 s. Elsewhere, or for an empty array, numpy's."""
    size = int(np.prod(shape)) * 8
    populate = getattr(mmap, "MAP_POPULATE", None)
    if populate is None or size == 0:
        return np.empty(shape)
    try:
        buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | populate)
    except OSError:  # no room: numpy's allocation says so as a MemoryError
        return np.empty(shape)
    return np.frombuffer(buffer, dtype=float).reshape(shape)


def _joined(entries: list):
    """One constraint's diagnostics over all chunks: arrays (per frame) joined, anything
    else (such as where the multi-parent integral was recomputed) from the first chunk."""
    first = entries[0]
    if not isinstance(first, dict):
        return first
    return {
        key: np.concatenate([e[key] for e in entries]) if isinstance(value, np.ndarray) else value
        for key, value in first.items()
    }


def bake(scene: Scene, frames=None, space: str | None = None) -> BakeResult:
    """Evaluate ``scene`` at ``frames`` (default: every frame of its timeline).

    Parameters
    ----------
    scene : Scene
        From :func:`app.scene.io.load_scene` (a scene file or a ``.bvh``).
    frames : array_like, shape (F,), optional
    space : {"world", "object"}, optional
        Overrides every constraint's ``space``, the copy kinds' too (it says which
        rotations or points they copy; ``child_of`` reads the target's whole transform in
        either), like the editor's toggle and ``--space``.

    Returns
    -------
    BakeResult
    """
    return Evaluator(scene).evaluate(frames, space)


def bake_to_npz(
    scene: Scene, path, frames=None, space: str | None = None, progress=None
) -> tuple[int, int]:
    """:func:`bake` written to ``path`` as the ``.npz`` of ``main.py bake``, chunk by chunk.

    The result is never held whole: each chunk's arrays are appended to the file's members
    as they come (:mod:`app.scene.formats.npz_stream`), so the memory is one chunk's, whatever
    the bake's length. The file is written atomically; an evaluation that fails part way
    leaves ``path`` as it was.

    Parameters
    ----------
    progress : callable, optional
        ``progress(done, total)`` after each chunk (frames); it may raise to stop.

    Returns
    -------
    (frames, bones) : tuple of int
        The counts baked.

    Raises
    ------
    SceneError
        Bad input, a constraint that cannot be solved, or a file that cannot be written.
    """
    evaluator = Evaluator(scene)
    frames = evaluator.checked_frames(frames, space)
    shape = (len(frames), len(scene.bones))

    per_pose = {"bone_to_world": (4, 4), "heads": (3,), "tails": (3,), "limit_violation_deg": ()}

    def blocks():
        for _, hi, piece in evaluator.pieces_checked(frames, space):
            yield {name: getattr(piece, name) for name in per_pose}
            if progress is not None:
                progress(hi, len(frames))

    members = {"bone_names": prepare(scene).name_array, "frames": frames}
    members.update({name: Rows(shape + tail) for name, tail in per_pose.items()})
    write_npz(path, members, blocks())
    return shape
