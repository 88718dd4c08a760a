"""The multi-parent integral kept between evaluations, and what an edit invalidates.

The state at a frame is always the integral from ``frame_start`` along the timeline, so an
evaluator keeps it (:class:`Integral`: the state at the start of every piece of the plan,
from which any grid point follows in closed form, and the state at every whole frame) and,
after an edit, recomputes only from the first grid step whose inputs changed. The inputs are
compared, not tracked: :func:`agrees_until` finds, for each pivot, the last time up to which
its old and new keys describe the same motion. Recomputation restarts at the start of that
step's scan block (:mod:`app.scene.constraints.multi_parent.scan`) from the state the cache holds
there,
which gives the same bits as recomputing everything.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from app.scene.bounds import MAX_STEPS
from app.scene.constraints.multi_parent.exact import plan_exact
from app.scene.constraints.multi_parent.plan import last_key_frame, plan_steps
from app.scene.constraints.multi_parent.scan import PieceStates, integrate
from app.scene.errors import SceneError
from app.scene.rig.keys import Keys
from app.scene.rig.model import Pivot

#: Grid steps per scan block: the granularity of recomputation after an edit.
BLOCK_STEPS = 1024
#: Longest grid integrated (about 20 hours of animation at 24 fps and 4 substeps).
MAX_GRID_STEPS = MAX_STEPS


@dataclass(frozen=True)
class Inputs:
    """Everything the integral depends on, comparable with ``==``.

    ``rotation``/``position`` are the body's state at ``frame_start`` from forward kinematics,
    ``scale`` its scale; ``pivots`` are in the integrator's order.
    """

    space: str
    integrator: str
    substeps: int
    frame_start: int
    scale: tuple
    rotation: tuple
    position: tuple
    pivots: tuple[Pivot, ...]

    def same_start(self, other: Inputs) -> bool:
        """Whether everything but the pivots' keys matches (else nothing can be kept)."""
        return (
            self.space == other.space
            and self.integrator == other.integrator
            and self.substeps == other.substeps
            and self.frame_start == other.frame_start
            and self.scale == other.scale
            and self.rotation == other.rotation
            and self.position == other.position
            and [p.name for p in self.pivots] == [p.name for p in other.pivots]
        )


def _keys_agree_until(
    static_a, keys_a: Keys | None, static_b, keys_b: Keys | None, static_matters: bool
) -> float:
    """Last time up to which two keyed properties have the same value (``inf``: always).

    Interpolation between key ``j - 1`` and key ``j`` depends on both, so when the first
    difference is at key ``j`` the properties agree only up to key ``j - 1``.
    """
    if keys_a is None and keys_b is None:
        same = (not static_matters) or tuple(static_a) == tuple(static_b)
        return math.inf if same else -math.inf
    if keys_a is None or keys_b is None:
        return -math.inf
    k = min(len(keys_a), len(keys_b))
    differs = (keys_a.frames[:k] != keys_b.frames[:k]) | np.any(
        keys_a.values[:k] != keys_b.values[:k], axis=-1
    )
    if keys_a.codes is not None or keys_b.codes is not None:  # an interpolation changed
        codes_a, codes_b = (
            np.zeros(len(x), np.int8) if x.codes is None else x.codes for x in (keys_a, keys_b)
        )
        differs |= codes_a[:k] != codes_b[:k]
    j = int(np.argmax(differs)) if np.any(differs) else k
    if j == k and len(keys_a) == len(keys_b):
        return math.inf
    return -math.inf if j == 0 else float(keys_a.frames[j - 1])


def agrees_until(old: tuple[Pivot, ...], new: tuple[Pivot, ...]) -> float:
    """Last time (frames) up to which every pivot moves the same in ``old`` and ``new``.

    ``inf`` when nothing changed, ``-inf`` when the motion differs from the start. A pivot
    without rotation keys never turns, so its static ``rotation`` does not matter.
    """
    until = math.inf
    for a, b in zip(old, new):
        if a is b:  # the same (immutable) pivot: nothing to compare
            continue
        until = min(
            until,
            _keys_agree_until(a.rotation, a.rotation_keys, b.rotation, b.rotation_keys, False),
            _keys_agree_until(a.position, a.position_keys, b.position, b.position_keys, True),
        )
    return until


@dataclass(frozen=True, eq=False)
class Integral:
    """The integral for one set of inputs: per-piece states and the per-frame cache.

    Attributes
    ----------
    n_steps : int
        The grid's last point: the step containing the pivots' last key (nothing moves after).
    pieces : PieceStates
        The state at the start of every piece of the plan, from which any grid point's state
        follows in closed form.
    block_rotation, block_position : ndarray, shapes (4, nb + 1), (3, nb + 1)
        The scan's chained states at block starts (restart points), last the state at the end.
    frame_rotation, frame_position : ndarray, shapes (4, Fc), (3, Fc)
        The per-frame cache: ``q0`` and ``p0`` at frames ``frame_start .. frame_start + Fc - 1``,
        the last of them at or after the grid's end.
    subdivided : int
        Grid steps integrated as several substeps (large turns).
    recomputed_from : int
        The grid point from which the last update recomputed (``n_steps + 1``: nothing).
    """

    inputs: Inputs
    n_steps: int
    pieces: PieceStates
    block_rotation: np.ndarray
    block_position: np.ndarray
    frame_rotation: np.ndarray
    frame_position: np.ndarray
    subdivided: int
    recomputed_from: int

    def grid_states(self, g) -> tuple[np.ndarray, np.ndarray]:
        """``q0 (4, G)`` and ``p0 (3, G)`` at grid points ``g`` (``0 <= g <= n_steps``)."""
        g = np.asarray(g, dtype=np.intp).reshape(-1)
        inner = g < self.n_steps
        if not np.any(inner):
            return (
                np.repeat(self.block_rotation[:, -1:], len(g), axis=1),
                np.repeat(self.block_position[:, -1:], len(g), axis=1),
            )
        pieces = self.pieces
        starting = np.flatnonzero(pieces.grid_start >= 0)
        starts = pieces.grid_start[starting]  # increasing, from 0
        gi = np.where(inner, g, 0)
        if len(starts) == self.n_steps and starts[-1] == self.n_steps - 1:
            index = starting[gi]  # a piece starts at every grid point (keys every frame)
        else:
            index = starting[np.searchsorted(starts, gi, "right") - 1]
        k = (gi - pieces.grid_start[index]) * pieces.per_grid[index]
        # A grid point where its piece starts (every key frame) is the piece's own state:
        # zero substeps of the closed form add zeros, so it is read, not evaluated.
        later = k != 0
        rotation = np.take(pieces.rotation, index, axis=1)
        position = np.take(pieces.position, index, axis=1)
        if np.any(later):
            rotation[:, later], position[:, later] = pieces.at(index[later], k[later])
        end = ~inner  # at or after the grid's end: the state there
        if np.any(end):
            rotation[:, end] = self.block_rotation[:, -1:]
            position[:, end] = self.block_position[:, -1:]
        return rotation, position


def grid_steps(inputs: Inputs) -> int:
    """Grid steps to integrate: up to the step containing the pivots' last key.

    Raises
    ------
    SceneError
        When the keys reach so far that the grid would not fit in memory.
    """
    last = last_key_frame(inputs.pivots)
    if not math.isfinite(last):
        return 0
    # In floats first: 1e308 frames times the substeps is inf, which ceil cannot take.
    steps = max(0.0, (float(last) - float(inputs.frame_start)) * inputs.substeps)
    if not steps <= MAX_GRID_STEPS:
        raise SceneError(
            f"pivot keys reach frame {last:g}: {steps:.6g} integration steps from frame_start "
            f"{inputs.frame_start} at {inputs.substeps} substeps, more than the bound of "
            f"{MAX_GRID_STEPS:,}",
            "pivots",
        )
    return math.ceil(steps)


def first_stale_step(integral: Integral | None, inputs: Inputs) -> int:
    """The first grid step the cached integral cannot supply for ``inputs`` (0: none kept).

    Returns ``integral.n_steps`` when everything cached is still valid.
    """
    if integral is None or not integral.inputs.same_start(inputs):
        return 0
    until = agrees_until(integral.inputs.pivots, inputs.pivots)
    if until == math.inf:
        return integral.n_steps
    if until == -math.inf:
        return 0
    # Step n uses the keys over [t_n, t_(n+1)]; it is unchanged while t_(n+1) <= until.
    # One step of margin absorbs the rounding of the product below.
    n = math.floor((until - inputs.frame_start) * inputs.substeps) - 1
    return max(0, min(n, integral.n_steps))


def _frame_grid(inputs: Inputs, n_steps: int, first_frame: int = 0):
    """Grid points of the cached frames ``frame_start + first_frame ..`` (the end included)."""
    count = -(-n_steps // inputs.substeps) + 1  # up to the first frame at or after the end
    return np.minimum(np.arange(first_frame, count) * inputs.substeps, n_steps)


def staleness(integral: Integral | None, inputs: Inputs) -> tuple[int, int]:
    """``(n_steps, stale)``: the grid steps ``inputs`` need (:func:`grid_steps`) and the
    first one ``integral`` cannot supply (:func:`first_stale_step`), what :func:`update`
    decides from. Nothing is stale when ``stale == integral.n_steps == n_steps``.

    Raises
    ------
    SceneError
        As :func:`grid_steps`.
    """
    return grid_steps(inputs), first_stale_step(integral, inputs)


def update(
    integral: Integral | None, inputs: Inputs, known: tuple[int, int] | None = None
) -> Integral:
    """The integral for ``inputs``, reusing what ``integral`` computed before the first
    grid step whose inputs changed (from the start of that step's block).

    With nothing changed it returns ``integral`` itself. ``known`` is
    ``staleness(integral, inputs)`` when the caller has it already (not computed again).
    """
    n_steps, stale = staleness(integral, inputs) if known is None else known
    unchanged_start = integral is not None and integral.inputs.same_start(inputs)
    if unchanged_start and stale == integral.n_steps == n_steps:
        if integral.inputs == inputs:
            return integral
        # Only what does not move the body changed (a pivot's unused static rotation):
        # keep everything under the new inputs.
        return Integral(
            inputs,
            n_steps,
            integral.pieces,
            integral.block_rotation,
            integral.block_position,
            integral.frame_rotation,
            integral.frame_position,
            integral.subdivided,
            n_steps + 1,
        )
    stale = min(stale, n_steps)
    block = stale // BLOCK_STEPS if integral is not None else 0
    if block == 0:
        q_start, p_start = inputs.rotation, inputs.position
    else:
        q_start = integral.block_rotation[:, block]
        p_start = integral.block_position[:, block]
    planner = plan_exact if inputs.integrator == "exact" else plan_steps
    plan = planner(
        inputs.pivots, inputs.frame_start, inputs.substeps, n_steps, inputs.scale, BLOCK_STEPS
    )
    result = integrate(plan.from_block(block), inputs.integrator, inputs.space, q_start, p_start)
    start = block * BLOCK_STEPS
    if block:
        kept = int(np.searchsorted(integral.pieces.block, block))
        pieces = integral.pieces.head(kept).concatenate(result.pieces)
        block_rotation = np.concatenate(
            [integral.block_rotation[:, :block], result.block_rotation], axis=1
        )
        block_position = np.concatenate(
            [integral.block_position[:, :block], result.block_position], axis=1
        )
    else:
        pieces = result.pieces
        block_rotation, block_position = result.block_rotation, result.block_position
    new = Integral(
        inputs,
        n_steps,
        pieces,
        block_rotation,
        block_position,
        np.empty((4, 0)),
        np.empty((3, 0)),
        plan.subdivided,
        start,
    )
    # The per-frame cache: frames before the recomputed block are kept as they were.
    keep = -(-start // inputs.substeps) if block else 0
    rotation, position = new.grid_states(_frame_grid(inputs, n_steps, keep))
    if keep:
        rotation = np.concatenate([integral.frame_rotation[:, :keep], rotation], axis=1)
        position = np.concatenate([integral.frame_position[:, :keep], position], axis=1)
    return dataclasses.replace(new, frame_rotation=rotation, frame_position=position)
