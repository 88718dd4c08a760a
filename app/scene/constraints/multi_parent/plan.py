"""The multi-parent step plan: the pivots' keys laid onto the integration grid.

One idea: cutting the grid into pieces of equal steps that the scans integrate in closed form.

A multi-parent constraint integrates on the grid ``t_n = frame_start + n / substeps``
(``docs/scene-format.md``). Step ``n`` needs, for every pivot ``i``, the increment
``R_i = q_i(t_{n+1}) q_i(t_n)^-1`` and the pivot's position on the body at ``t_n``.

Between keys both are simple. Slerp from key ``a`` to key ``b`` is
``q(t) = (b a^-1)^tau(t) a`` with ``tau`` linear in time (``b`` taken on ``a``'s hemisphere),
so ``q(t_{n+1}) q(t_n)^-1 = (b a^-1)^dtau`` is the same quaternion for every step of the key
interval, and a linearly keyed position moves by the same vector every step. The plan
therefore cuts the grid into *pieces*, runs of equal substeps that it describes once:

- a constant piece: grid steps between key frames that lie on the grid (and the scan's block
  boundaries, see :mod:`app.scene.constraints.multi_parent.scan`); its increment comes straight
  from the
  key interval, ``exp(dtau log(b a^-1))``;
- a general step: a grid step with a key strictly inside it (a key frame off the grid); there
  ``R_i`` is taken literally from the slerped keys at the step's ends (on the shorter arc,
  ``w >= 0``, so keys ``q`` and ``-q`` give the same motion).

Large steps are subdivided. With ``theta_i`` a bound on how far pivot ``i`` turns within a
grid step (its fastest key interval's angular speed times the step), the step is integrated as

    m = max(1, ceil(max_i theta_i / MAX_PIVOT_STEP_ANGLE), ceil(sum_i theta_i / MAX_STEP_ANGLE))

equal substeps. In each substep no pivot turns more than ``MAX_PIVOT_STEP_ANGLE`` (the
accuracy bound), and all together no more than ``MAX_STEP_ANGLE``: every product in the
anticommutator's sum then lies within ``MAX_STEP_ANGLE / 2`` of the identity on the unit
sphere (``w >= cos(MAX_STEP_ANGLE / 2)``), so the sum cannot vanish and normalizing it loses
nothing. ``m`` depends only on the keys and the grid, so the subdivision is deterministic.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from app.scene.bounds import check_steps
from app.scene.constraints.multi_parent.nonlinear import nonlinear_steps
from app.scene.errors import SceneError
from app.scene.math.quat import canonical, conj, mul, mul_components, normalize
from app.scene.rig.keys import CONSTANT, Keys, sample
from app.scene.rig.model import Pivot

#: Largest turn (radians) of one pivot in one integration substep: keeps the scheme's own
#: per-step error small. Everyday animation (a quarter turn over two frames at 4 substeps per
#: frame) stays below it.
MAX_PIVOT_STEP_ANGLE = np.pi / 8
#: Largest turn of all pivots together in one substep: every product in the anticommutator's
#: sum keeps w >= cos(pi/4) > 0.7, so the sum is far from vanishing.
MAX_STEP_ANGLE = np.pi / 2


def ordered_pivots(pivots) -> tuple[Pivot, ...]:
    """The pivots in the order the integrator sums them: by name (stable).

    The result does not depend on the order of the file; the sums over pivots are then the
    same bit for bit whatever order the user lists them in.
    """
    return tuple(sorted(pivots, key=lambda p: p.name))


def last_key_frame(pivots) -> float:
    """The last frame at which any pivot is keyed (``-inf`` when none is)."""
    frames = [k.frames[-1] for p in pivots for k in (p.rotation_keys, p.position_keys) if k]
    return max(frames, default=-np.inf)


def grid_time(frame_start: float, substeps: int, n) -> np.ndarray:
    """Times of grid points ``n`` (frames): ``frame_start + n / substeps``."""
    return frame_start + np.asarray(n, dtype=float) / substeps


@dataclass(frozen=True, eq=False)
class _Track:
    """One pivot's keys prepared for the plan.

    ``speed``, ``axis`` describe rotation key interval ``j`` (from key ``j`` to ``j + 1``):
    the angular speed in radians per frame and the world-or-object axis of ``b a^-1``.
    ``velocity`` is the position keys' per-frame velocity per interval (body frame, scaled).
    """

    pivot: Pivot
    rot_frames: np.ndarray  # (K,), empty without rotation keys
    speed: np.ndarray  # (K - 1,)
    axis: np.ndarray  # (K - 1, 3)
    pos_frames: np.ndarray  # (K',)
    velocity: np.ndarray  # (K' - 1, 3)
    #: Each rotation interval's whole angle (``speed`` is zero where the interval is constant:
    #: its change is a jump at the next key), and the intervals' interpolation codes (``None``
    #: when all are linear; see :mod:`app.scene.constraints.multi_parent.nonlinear`).
    angle: np.ndarray | None = None
    rot_codes: np.ndarray | None = None
    pos_codes: np.ndarray | None = None

    @cached_property
    def angular_velocity(self) -> np.ndarray:
        """``speed * axis`` per rotation key interval, component-major ``(3, K - 1)``."""
        return np.ascontiguousarray((self.speed[:, None] * self.axis).T)


def _track(pivot: Pivot, scale: np.ndarray) -> _Track:
    keys = pivot.rotation_keys
    if keys is not None and len(keys) >= 2:
        # b a^-1 on the shorter arc, component-major (one expression per component over all
        # key intervals: a long shot keyed every frame has as many intervals as frames).
        values = np.ascontiguousarray(np.asarray(keys.values, dtype=float).T)  # (4, K)
        a, b = values[:, :-1], values[:, 1:]
        delta = mul_components(b, a * np.array([1.0, -1.0, -1.0, -1.0])[:, None])
        length = np.sqrt(
            delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2] + delta[3] * delta[3]
        )
        delta /= length
        delta *= np.where(delta[0] < 0, -1.0, 1.0)
        s = np.sqrt(delta[1] * delta[1] + delta[2] * delta[2] + delta[3] * delta[3])
        angle = 2.0 * np.arctan2(s, delta[0])
        axis = np.where(s > 0, delta[1:] / np.where(s == 0, 1, s), 0.0).T  # (K - 1, 3)
        with np.errstate(over="ignore"):  # keys 5e-324 frames apart: refused just below
            rot_frames, speed = keys.frames, angle / np.diff(keys.frames)
        rot_codes = None if keys.codes is None else keys.codes[:-1]
        if rot_codes is not None:
            speed = np.where(rot_codes == CONSTANT, 0.0, speed)
        _check_rates(pivot, "rotation", keys.frames, speed)
    else:
        rot_frames, speed, axis = np.empty(0), np.empty(0), np.empty((0, 3))
        angle, rot_codes = np.empty(0), None
    keys = pivot.position_keys
    if keys is not None and len(keys) >= 2:
        with np.errstate(over="ignore"):  # as for the speed above
            velocity = np.diff(keys.values, axis=0) * scale / np.diff(keys.frames)[:, None]
        pos_frames = keys.frames
        pos_codes = None if keys.codes is None else keys.codes[:-1]
        if pos_codes is not None:
            velocity = np.where((pos_codes == CONSTANT)[:, None], 0.0, velocity)
        _check_rates(pivot, "position", keys.frames, velocity)
    else:
        pos_frames, velocity, pos_codes = np.empty(0), np.empty((0, 3)), None
    return _Track(pivot, rot_frames, speed, axis, pos_frames, velocity, angle, rot_codes, pos_codes)


def _check_rates(pivot: Pivot, what: str, frames, rates) -> None:
    """Refuse keys so close (``5e-324`` frames apart) that moving between them would be
    infinitely fast, naming the pivot and the two keys' frames."""
    bad = ~np.isfinite(rates).reshape(len(rates), -1).all(axis=1)
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise SceneError(
            f"pivot {pivot.name!r}: its {what} keys at frames {frames[k]:g} and "
            f"{frames[k + 1]:g} are so close that the motion between them would "
            "be infinitely fast",
            "pivots",
        )


#: Tracks of the pivots planned lately, by pivot identity and body scale: a pivot is an
#: immutable item, so its track is computed once per edit (an edit replaces the pivot), not
#: once per evaluation. Bounded; entries hold their pivot so an id is never reused under them.
_TRACKS: dict = {}
_MAX_TRACKS = 64


def track_of(pivot: Pivot, scale: np.ndarray) -> _Track:
    """:func:`_track` of ``pivot``, kept while the same pivot object is planned again."""
    key = (id(pivot), scale.tobytes())
    hit = _TRACKS.get(key)
    if hit is not None and hit[0] is pivot:
        return hit[1]
    track = _track(pivot, scale)
    # Pivots keyed on the same frames share one frames array: later lookups see it by
    # identity instead of comparing the frames again at every evaluation.
    for _, seen in _TRACKS.values():
        if len(seen.rot_frames) == len(track.rot_frames) > 0 and np.array_equal(
            seen.rot_frames, track.rot_frames
        ):
            track = dataclasses.replace(track, rot_frames=seen.rot_frames)
            break
    for array in (
        track.rot_frames,
        track.speed,
        track.axis,
        track.pos_frames,
        track.velocity,
        track.angle,
        track.rot_codes,
        track.pos_codes,
    ):
        if array is not None and array.flags.owndata:
            array.setflags(write=False)  # shared between plans: nobody may write to it
    if len(_TRACKS) >= _MAX_TRACKS:
        _TRACKS.clear()
    _TRACKS[key] = (pivot, track)
    return track


def _interval(key_frames: np.ndarray, times: np.ndarray):
    """Index of the key interval containing each time, and whether it is inside the keys."""
    j = np.searchsorted(key_frames, times, side="right") - 1
    inside = (j >= 0) & (j < len(key_frames) - 1)
    # (minimum and maximum rather than clip: this runs for every scrubbed frame)
    return np.minimum(np.maximum(j, 0), max(len(key_frames) - 2, 0)), inside


def max_turn_rate(keys: Keys | None, t0, t1) -> np.ndarray:
    """Fastest angular speed (radians per frame) of slerped ``keys`` within each ``[t0, t1]``.

    Zero before the first key, after the last and without keys. Only the key intervals the
    spans touch are looked at.
    """
    t0 = np.asarray(t0, dtype=float)
    t1 = np.asarray(t1, dtype=float)
    if keys is None or len(keys) < 2:
        return np.zeros(t0.shape)
    frames, values = keys.frames, keys.values
    first = np.searchsorted(frames, t0, side="right") - 1  # interval containing t0
    last = np.searchsorted(frames, t1, side="left") - 1  # ... and the one reaching t1
    out = np.zeros(t0.shape)
    for extra in range(int(np.max(last - first, initial=0)) + 1):
        j = np.minimum(first + extra, last)
        inside = (j >= 0) & (j < len(frames) - 1)
        jc = np.clip(j, 0, len(frames) - 2)
        delta = canonical(normalize(mul(values[jc + 1], conj(values[jc]))))
        angle = 2.0 * np.arctan2(np.linalg.norm(delta[..., 1:], axis=-1), delta[..., 0])
        with np.errstate(over="ignore"):  # keys 5e-324 apart: inf, refused by the step bound
            rate = angle / (frames[jc + 1] - frames[jc])
        out = np.maximum(out, np.where(inside, rate, 0.0))
    return out


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    values = np.sort(values)
    return values[np.append(True, values[1:] != values[:-1])] if len(values) else values


def subdivisions(angles) -> np.ndarray:
    """Substeps each step needs when its pivots turn by ``angles (P, X)`` radians in it."""
    angles = np.asarray(angles, dtype=float)
    if len(angles) == 0:
        return np.ones(angles.shape[1:], dtype=np.intp)
    m = np.maximum(
        np.ceil(angles.max(axis=0) / MAX_PIVOT_STEP_ANGLE),
        np.ceil(angles.sum(axis=0) / MAX_STEP_ANGLE),
    )
    # Keys a hair apart turn impossibly fast: refuse before the count is cast (or is inf).
    check_steps(np.max(m, initial=0.0), "pivots")
    return np.maximum(1, m).astype(np.intp)


@dataclass(frozen=True, eq=False)
class StepPlan:
    """The grid cut into pieces of equal substeps, from one block on.

    Every array over pieces is component-major (components first, pieces last).

    Attributes
    ----------
    rotation : ndarray, shape (4, P, Np), or None
        Each pivot's increment ``R_i`` per substep of the piece (unit, ``w >= 0``); ``None``
        where ``rotvec`` describes the turns (the exact plan's: the scan needs no ``R_i``,
        :meth:`pivot_rotations` forms them for the pieces asked).
    position : ndarray, shape (3, P, Np)
        Each pivot's position on the body, scaled by the body's scale (``S pos_i``), at the
        piece's first substep. Read-only; the exact plan gives a broadcast view (stride 0 over
        pieces) when no pivot has position keys.
    velocity : ndarray, shape (3, P, Np), or None
        How much ``S pos_i`` moves per substep; ``None`` when no pivot has position keys.
    length : ndarray of int, shape (Np,)
        Substeps in each piece.
    grid_start : ndarray of int, shape (Np,)
        The grid point where the piece starts; ``-1`` for the later substeps of a
        subdivided general step, which start between grid points.
    per_grid : ndarray of int, shape (Np,)
        Substeps per grid step in the piece: grid point ``g`` of the piece is its substep
        ``(g - grid_start) * per_grid``.
    block : ndarray of int, shape (Np,)
        The scan block each piece lies in (pieces never straddle blocks).
    first_grid, n_steps, block_steps : int
        The first grid point described, the grid's last point, the grid steps per block.
    subdivided : int
        Grid steps (of the whole grid) integrated as several substeps.
    """

    rotation: np.ndarray
    position: np.ndarray
    velocity: np.ndarray | None
    length: np.ndarray
    grid_start: np.ndarray
    per_grid: np.ndarray
    block: np.ndarray
    first_grid: int
    n_steps: int
    block_steps: int
    subdivided: int
    #: Frame time at which each piece starts, ``(Np,)``, where pieces are cut at keys off
    #: the grid (the exact integrator's); ``None`` where equal substeps tell it.
    start_time: np.ndarray | None = None
    #: The exact integrator's eased pieces (:class:`~.nonlinear.EaseFlows`), integrated by the
    #: scan in its space; ``None`` when there are none.
    ease: object = None
    #: Each pivot's turn per substep as a rotation vector ``(3, P, Np)`` where the plan has it
    #: (the exact integrator's), so the step need not take ``2 log R_i`` again.
    rotvec: np.ndarray | None = None

    def pivot_rotations(self, index) -> np.ndarray:
        """``R_i (4, P, n)`` of pieces ``index``: from ``rotation``, or ``exp(phi_i / 2)``
        of ``rotvec`` where the plan has no ``rotation``."""
        if self.rotation is not None:
            return self.rotation[..., index]
        phi = self.rotvec[..., index]
        angle = np.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
        big = angle > 1e-8
        ratio = np.where(
            big, np.sin(0.5 * angle) / np.where(big, angle, 1.0), 0.5 - angle * angle / 48.0
        )
        return np.concatenate([np.cos(0.5 * angle)[None], ratio * phi])

    def from_block(self, block: int) -> StepPlan:
        """The part of the plan from block ``block`` on."""
        i = int(np.searchsorted(self.block, block))
        return StepPlan(
            rotation=None if self.rotation is None else self.rotation[..., i:],
            position=self.position[..., i:],
            velocity=None if self.velocity is None else self.velocity[..., i:],
            length=self.length[i:],
            grid_start=self.grid_start[i:],
            per_grid=self.per_grid[i:],
            block=self.block[i:],
            first_grid=block * self.block_steps,
            n_steps=self.n_steps,
            block_steps=self.block_steps,
            subdivided=self.subdivided,
            start_time=None if self.start_time is None else self.start_time[i:],
            ease=None if self.ease is None else self.ease.from_piece(i),
            rotvec=None if self.rotvec is None else self.rotvec[..., i:],
        )


def plan_steps(
    pivots, frame_start: float, substeps: int, n_steps: int, scale, block_steps: int
) -> StepPlan:
    """Cut grid steps ``0 .. n_steps - 1`` into pieces (module docstring).

    Parameters
    ----------
    pivots : sequence of Pivot
        In the integrator's order (:func:`ordered_pivots`).
    frame_start : float
    substeps : int
        Grid steps per frame.
    n_steps : int
        Grid steps to plan.
    scale : array_like, shape (3,)
        The body's scale: pivot positions are in its scaled frame.
    block_steps : int
        Grid steps per scan block; pieces are cut at every block boundary.

    Returns
    -------
    StepPlan
    """
    scale = np.asarray(scale, dtype=float)
    tracks = [track_of(p, scale) for p in pivots]
    P, N = len(tracks), int(n_steps)
    none = np.empty(0, np.intp)
    if N == 0:
        return StepPlan(
            np.empty((4, P, 0)),
            np.empty((3, P, 0)),
            None,
            none,
            none,
            none,
            none,
            0,
            0,
            block_steps,
            0,
        )

    # Where the grid must be cut: key frames on the grid, block boundaries; a key off the
    # grid makes its step a general one, cut on both sides.
    cuts = [np.array([0, N]), np.arange(0, N, block_steps)]
    general = []
    t_end = grid_time(frame_start, substeps, N)
    for track in tracks:
        for frames in (track.rot_frames, track.pos_frames):
            frames = frames[(frames > frame_start) & (frames < t_end)]
            n = np.rint((frames - frame_start) * substeps).astype(np.intp)
            on_grid = grid_time(frame_start, substeps, n) == frames
            cuts.append(n[on_grid])
            off = frames[~on_grid]
            n = np.floor((off - frame_start) * substeps).astype(np.intp)
            # Round-off in the product: make t_n < frame < t_(n+1) hold exactly.
            n -= grid_time(frame_start, substeps, n) > off
            n += grid_time(frame_start, substeps, n + 1) < off
            n = np.clip(n, 0, N - 1)
            general.append(n)
            cuts.extend([n, n + 1])
    # Constant and eased segments: their steps are taken literally from the keys.
    for track in tracks:
        steps = nonlinear_steps(track.pivot, frame_start, substeps, N)
        general.append(steps)
        cuts.extend([steps, steps + 1])
    general = _sorted_unique(np.concatenate(general)) if general else none
    bounds = _sorted_unique(np.concatenate(cuts))
    starts, ends = bounds[:-1], bounds[1:]
    is_general = np.isin(starts, general)

    # Constant segments: the key interval at each segment's middle gives its increments.
    t_a = grid_time(frame_start, substeps, starts)
    t_mid = 0.5 * (t_a + grid_time(frame_start, substeps, ends))
    seg_angle = np.zeros((P, len(starts)))  # each pivot's turn per grid step
    seg_axis = np.zeros((3, P, len(starts)))
    seg_velocity = np.zeros((3, P, len(starts)))  # per grid step
    for i, track in enumerate(tracks):
        if len(track.rot_frames) >= 2:
            j, inside = _interval(track.rot_frames, t_mid)
            seg_angle[i] = np.where(inside, track.speed[j] / substeps, 0.0)
            seg_axis[:, i] = track.axis[j].T
        if len(track.pos_frames) >= 2:
            j, inside = _interval(track.pos_frames, t_mid)
            seg_velocity[:, i] = np.where(inside, track.velocity[j].T / substeps, 0.0)
    m = subdivisions(seg_angle)

    # General steps: the fastest interval within the step bounds each pivot's turn.
    gen = np.flatnonzero(is_general)
    if len(gen):
        g0 = t_a[gen]
        g1 = grid_time(frame_start, substeps, starts[gen] + 1)
        bound = [max_turn_rate(t.pivot.rotation_keys, g0, g1) / substeps for t in tracks]
        m[gen] = subdivisions(np.array(bound))

    # Constant segments' pieces (every segment's, general ones overwritten below).
    half = seg_angle / (2.0 * m)
    rotation = np.empty((4, P, len(starts)))
    rotation[0] = np.cos(half)
    for i in range(P):
        rotation[1:, i] = np.sin(half[i]) * seg_axis[:, i]
    velocity = seg_velocity / m
    length = (ends - starts) * m
    position = np.empty((3, P, len(starts)))
    for i, track in enumerate(tracks):
        p = track.pivot
        if p.position_keys is None:
            position[:, i] = (np.asarray(p.position, dtype=float) * scale)[:, None]
        else:
            position[:, i] = (sample(p.position, p.position_keys, t_a) * scale).T
    grid_start, per_grid = starts, m
    block = starts // block_steps
    check_steps(float(np.sum(length, dtype=float)), "pivots")

    if len(gen):
        # Pieces in time order: one per constant segment, m per general step, whose
        # substep j runs from t_n + j/(s m) to t_n + (j+1)/(s m).
        pieces_per_seg = np.where(is_general, m, 1)
        first_piece = np.cumsum(pieces_per_seg) - pieces_per_seg
        const = np.flatnonzero(~is_general)
        cp = first_piece[const]
        n_pieces = int(pieces_per_seg.sum())

        def scatter(per_segment, fill):
            out = np.full(per_segment.shape[:-1] + (n_pieces,), fill, dtype=per_segment.dtype)
            out[..., cp] = per_segment[..., const]
            return out

        rotation, position = scatter(rotation, 0.0), scatter(position, 0.0)
        velocity, length = scatter(velocity, 0.0), scatter(length, 1)
        grid_start = np.full(n_pieces, -1, dtype=np.intp)
        grid_start[first_piece] = starts
        per_grid = np.repeat(np.where(is_general, 1, m), pieces_per_seg)
        block = np.repeat(block, pieces_per_seg)

        mg = m[gen]
        owner = np.repeat(np.arange(len(gen)), mg)
        j = np.arange(len(owner)) - np.repeat(np.cumsum(mg) - mg, mg)
        n0 = starts[gen][owner].astype(float)
        t0 = frame_start + (n0 + j / mg[owner]) / substeps
        t1 = np.where(
            j + 1 == mg[owner],
            grid_time(frame_start, substeps, n0 + 1),
            frame_start + (n0 + (j + 1) / mg[owner]) / substeps,
        )
        gp = np.repeat(first_piece[gen], mg) + j
        for i, track in enumerate(tracks):
            p = track.pivot
            q0 = sample(p.rotation, p.rotation_keys, t0, rotation=True)
            q1 = sample(p.rotation, p.rotation_keys, t1, rotation=True)
            rotation[:, i, gp] = canonical(normalize(mul(q1, conj(q0)))).T
            position[:, i, gp] = (sample(p.position, p.position_keys, t0) * scale).T

    has_velocity = any(len(t.pos_frames) >= 2 for t in tracks)
    return StepPlan(
        rotation=rotation,
        position=position,
        velocity=velocity if has_velocity else None,
        length=length,
        grid_start=grid_start,
        per_grid=per_grid,
        block=block,
        first_grid=0,
        n_steps=N,
        block_steps=block_steps,
        subdivided=int(np.sum((ends - starts)[m > 1])),
    )


@dataclass(frozen=True, eq=False)
class PieceTiming:
    """Where each piece of a plan lies in time (for tracing steps one at a time).

    Attributes
    ----------
    grid : ndarray of int, shape (Np,)
        The grid point at which the piece's grid step (or run of grid steps) starts.
    substeps : ndarray of int, shape (Np,)
        ``m``: substeps per grid step there (more than 1 where the step is subdivided).
    rank : ndarray of int, shape (Np,)
        For the pieces of a subdivided general step (one substep each), which substep of
        the grid step the piece is; 0 elsewhere.
    general : ndarray of bool, shape (Np,)
        The piece is a substep of a general step (a key inside the grid step).
    """

    grid: np.ndarray
    substeps: np.ndarray
    rank: np.ndarray
    general: np.ndarray


def piece_timing(plan: StepPlan) -> PieceTiming:
    """The timing of every piece of ``plan`` (a whole plan: its first piece is on the grid).

    A general step of ``m`` substeps is ``m`` consecutive pieces, the first on the grid and
    the others with ``grid_start == -1``; a constant piece runs ``per_grid`` substeps per
    grid step from its ``grid_start``.
    """
    starting = plan.grid_start >= 0
    group = np.cumsum(starting) - 1
    first = np.flatnonzero(starting)
    size = np.diff(np.append(first, len(plan.grid_start)))[group]
    general = size > 1
    rank = np.arange(len(plan.grid_start)) - first[group]
    substeps = np.where(general, size, plan.per_grid)
    return PieceTiming(plan.grid_start[first][group], substeps, rank, general)
