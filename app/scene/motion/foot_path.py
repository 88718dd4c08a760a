"""A planted foot's path: where one foot (and its toes) are on every frame once its
contacts hold.

Input (:class:`FootMotion`): the foot's original rigid frames (rotation ``Q_o(f)``, head
``t_o(f)``), the toes' rotation in the foot, and the contact points: heel and ball carried
by the foot, the toe tip by the toes (which bend at the ball), or by the foot when it has no
toes; and which points are down on each frame (:mod:`app.scene.motion.contacts`). Output
(:class:`FootPath`): the planted frames, the toes' planted rotation and, per frame, the
point the foot turns about (its *pivot*).

- **The heel and the ball or the toe tip down** (on a foot without toes, any two points):
  the foot turns only about the line through heel and ball, as the original does (turning
  any other way about one point would slide the other), from the mean of its original
  rotations over that run of frames; a toe tip that is down too stays where it landed, the
  toes bending to keep it there.
- **One foot point down**: it stays where it is and the foot turns about it, as the
  original turns (its rotation corrected by a rotation vector ``d(f)``, in the foot's frame,
  that carries it smoothly into and out of the held runs): heel strike, heel off about the
  ball while the toes keep the toe tip down, and toe off about the toe tip, the toes then
  fixed in the foot.
- **No point down**: the foot follows the original, its corrections filled in by
  :func:`app.scene.motion.blend.fill` (continuous, with continuous rates).

The pivot is the foot point down longest (the toe tip when it alone is down). The first
pivot of a run of contact frames (a *stance*) is placed across at the mean of its original
positions over its contact; each later one where the planted foot has it when it takes
over. Up and down, a pivot moves as the original's point does (continuously across a change
of pivot), and a stance is lifted, smoothly, where a down point would go below the floor.
The per-stance bookkeeping is a loop over contact events (a few per step); every per-frame
quantity is vectorized over a phase's frames.

One idea: one foot's planted path, from its contacts to its frames and pivots.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.math import quat
from app.scene.math.aim import arc
from app.scene.motion.blend import fill as _fill
from app.scene.motion.contacts import intervals_of
from app.scene.motion.feet import BALL, HEEL, TOE, UP, FootMotion

TWIST = True
#: The share of the blend window over which a correction's rate at the edge of a contact is
#: averaged (35 ms of a 0.25 s window: the rate of the motion, not of its jitter).
RATE_OF_WINDOW = 0.14


@dataclass(frozen=True)
class Blend:
    """How corrections are filled across free frames (:func:`app.scene.motion.blend.fill`).

    Attributes
    ----------
    window : float
        Frames over which a correction returns to the original.
    weight : ndarray, shape (F,) or None
        The foot's clock: 1 where it is in the air, small near the floor.
    ease : float
        Frames over which a contact's rate eases to zero.
    """

    window: float
    weight: np.ndarray | None = None
    ease: float = 0.0

    def __call__(self, values, known):
        span = max(1, int(round(RATE_OF_WINDOW * self.window)))
        return _fill(values, known, self.window, span, self.weight, self.ease)

    def across(self, offsets, known):
        """A head's offsets ``(F, 3)`` filled: across on the foot's clock (what skates),
        up and down on the frames' (what lifts the foot back onto its path at once)."""
        if self.weight is None:
            return self(offsets, known)
        up = offsets @ UP
        flat = offsets - up[:, None] * UP
        span = max(1, int(round(RATE_OF_WINDOW * self.window)))
        return (
            _fill(flat, known, self.window, span, self.weight, self.ease)
            + _fill(up[:, None], known, self.window, span, None, self.ease) * UP
        )

    @property
    def timed(self):
        """The same blend on the frames' clock."""
        return dataclasses.replace(self, weight=None)


def fill(values, known, window):
    """:func:`app.scene.motion.blend.fill` with the rate averaged over a share of the window
    (``window`` a number of frames or a :class:`Blend`)."""
    blend = window if isinstance(window, Blend) else Blend(float(window))
    return blend(values, known)


#: The share of a leg's length kept in hand when a stance is moved within its reach (as
#: :data:`app.scene.motion.hips.SLACK`).
SLACK = 0.005

#: Frames of the centred average that takes the jitter out of a pivot's height.
SMOOTH_FRAMES = 1


def _smoothed(values: np.ndarray, frames: int) -> np.ndarray:
    """Centred moving average of ``values`` ``(F, ...)`` over ``frames`` (odd), the ends
    held."""
    half = frames // 2
    if len(values) < 2 or half < 1:
        return np.asarray(values, dtype=float)
    padded = np.concatenate(
        [np.repeat(values[:1], half, axis=0), values, np.repeat(values[-1:], half, axis=0)]
    )
    sums = np.cumsum(np.concatenate([np.zeros((1,) + values.shape[1:]), padded]), axis=0)
    return (sums[frames:] - sums[:-frames]) / frames


@dataclass(frozen=True)
class FootPath:
    """A planted foot over ``F`` frames.

    Attributes
    ----------
    rotation : ndarray, shape (F, 4)
        The foot's world rotation.
    head : ndarray, shape (F, 3)
    toes_rotation : ndarray, shape (F, 4) or None
        The toes' rotation relative to the foot.
    pivot : ndarray of int, shape (F,)
        The point (0 heel, 1 ball, 2 toe tip) the foot turns about, ``-1`` where none is down.
    pivot_in_foot : ndarray, shape (F, 3)
        That point in the foot's frame (the toe tip's moves as the toes bend).
    held : ndarray of bool, shape (F,)
        Frames where the foot holds still.
    offset : ndarray, shape (F, 3)
        The head's correction on the frames where a point is down (0 elsewhere).
    known : ndarray of bool, shape (F,)
        Frames where the head's correction is fixed (a point down, or outside the range).
    original_head : ndarray, shape (F, 3)
    blend : Blend
    """

    rotation: np.ndarray
    head: np.ndarray
    toes_rotation: np.ndarray | None
    pivot: np.ndarray
    pivot_in_foot: np.ndarray
    held: np.ndarray
    offset: np.ndarray | None = None
    known: np.ndarray | None = None
    original_head: np.ndarray | None = None
    blend: Blend | None = None

    def carried(self, base: np.ndarray) -> FootPath:
        """The same plant with the free frames following ``base`` ``(F, 3)`` (the hips'
        correction: a foot in the air moves with the body) instead of the original."""
        if self.known is None or not np.any(self.known) or not np.any(base):
            return self if not np.any(base) else dataclasses.replace(self, head=self.head + base)
        base = np.asarray(base, dtype=float)
        relative = np.where(self.known[:, None], self.offset - base, 0.0)
        head = self.original_head + base + self.blend.across(relative, self.known)
        return dataclasses.replace(self, head=head)


def continuous(q: np.ndarray) -> np.ndarray:
    """Quaternions ``(F, 4)`` with signs flipped so that neighbours are on one hemisphere."""
    q = np.array(q, dtype=float)
    if len(q) > 1:
        flips = np.sign(np.einsum("fi,fi->f", q[1:], q[:-1]))
        flips[flips == 0] = 1.0
        q[1:] *= np.cumprod(flips)[:, None]
    return q


def runs_mean(values: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Mean of ``values`` ``(F, D)`` over each run ``[first, last]`` of ``runs`` ``(K, 2)``."""
    sums = np.cumsum(np.concatenate([np.zeros((1,) + values.shape[1:]), values]), axis=0)
    return (sums[runs[:, 1] + 1] - sums[runs[:, 0]]) / (runs[:, 1] - runs[:, 0] + 1)[:, None]


def run_index(mask: np.ndarray, runs: np.ndarray) -> np.ndarray:
    """Per frame, the index of the run of ``mask`` it is in (``-1`` outside every run)."""
    starts = np.zeros(len(mask), dtype=np.int64)
    starts[runs[:, 0]] = 1
    return np.where(mask, np.cumsum(starts) - 1, -1)


def corrected(
    rotation: np.ndarray, target: np.ndarray, known: np.ndarray, window: float
) -> np.ndarray:
    """``rotation`` ``(F, 4)`` turned to ``target`` on the ``known`` frames and by a filled
    correction (a rotation vector on the right) elsewhere."""
    correction = np.zeros((len(rotation), 3))
    correction[known] = quat.rotvec_from_quat(quat.mul(quat.conj(rotation[known]), target[known]))
    return quat.mul(rotation, quat.quat_from_rotvec(fill(correction, known, window)))


def twist(q: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """The part of rotations ``q`` ``(..., 4)`` about the unit ``axis`` (swing-twist)."""
    along = (q[..., 1:] @ axis)[..., None] * axis
    twisted = np.concatenate([q[..., :1], along], axis=-1)
    size = np.linalg.norm(twisted, axis=-1, keepdims=True)
    return np.where(size > 1e-12, twisted / np.maximum(size, 1e-300), quat.identity(q.shape[:-1]))


def _held_rotation(
    rotation: np.ndarray, held: np.ndarray, still: np.ndarray, axis, window: float
) -> np.ndarray:
    """Held runs turn only about the line through heel and ball (``axis``, in the foot's
    frame), as the original does, from the run's mean rotation; the rest is filled."""
    runs = intervals_of(held)
    if not len(runs):
        return rotation
    mean = quat.normalize(runs_mean(rotation, runs))
    target = np.array(rotation)
    base = mean[run_index(held, runs)[held]]
    target[held] = (
        quat.mul(base, twist(quat.mul(quat.conj(base), rotation[held]), axis)) if TWIST else base
    )
    return corrected(rotation, target, held | still, window)


def _pivots(down: np.ndarray, has_toes: bool) -> np.ndarray:
    """Per frame, the foot point down longest (ties: heel, ball, toe), the toe tip when it
    alone is down, else -1."""
    count = len(down)
    began = np.full(down.shape, np.iinfo(np.int64).max)
    for i in range(3):
        runs = intervals_of(down[:, i])
        if len(runs):
            start = np.zeros(count, dtype=np.int64)
            start[runs[:, 0]] = runs[:, 0]
            began[:, i] = np.where(down[:, i], np.maximum.accumulate(start), began[:, i])
    if has_toes:  # the toe tip is the pivot only when no foot point is down
        began[:, TOE] = np.where(down[:, :TOE].any(axis=1), np.iinfo(np.int64).max, began[:, TOE])
    return np.where(down.any(axis=1), np.argmin(began, axis=1), -1)


def plant_foot(motion: FootMotion, down, floor: float, window, still=None, reach=None) -> FootPath:
    """Plant one foot (module docstring).

    Parameters
    ----------
    motion : FootMotion
    down : ndarray of bool, shape (F, 3)
        Which points are in contact on each frame.
    floor : float
        Height no down point goes below.
    window : float or Blend
        Blend window, frames (or the whole :class:`Blend`).
    still : ndarray of bool, shape (F,), optional
        Frames that keep the original motion (outside the range planted); no point may be
        down on them.
    reach : (ndarray, float), optional
        The leg's hip joint ``(F, 3)`` and length: a stance the leg could not reach is moved
        across (as a whole, as little as needed) until it can.
    """
    rotation = continuous(quat.normalize(motion.rotation))
    head = np.asarray(motion.head, dtype=float)
    down = np.asarray(down, dtype=bool)
    still = np.zeros(len(down), dtype=bool) if still is None else np.asarray(still, dtype=bool)
    toes = continuous(quat.normalize(motion.toes_rotation)) if motion.has_toes else None
    held = (
        (down[:, HEEL] & (down[:, BALL] | down[:, TOE]))
        if motion.has_toes
        else down.sum(axis=1) >= 2
    )
    line = motion.points[BALL] - motion.points[HEEL]
    line = line / max(float(np.linalg.norm(line)), 1e-300)
    blend = window if isinstance(window, Blend) else Blend(float(window))
    planted = _held_rotation(rotation, held, still, line, blend.timed)
    pivot = _pivots(down, motion.has_toes)
    stance = _Stances(motion, rotation, head, toes, planted, down, pivot)
    for first, last in intervals_of(pivot >= 0):
        stance.plant(first, last)
    pinned = pivot >= 0
    planted_head = head
    offset = np.zeros_like(head)
    if np.any(pinned):
        stance.lift(floor, blend.window)
        if reach is not None:
            stance.within_reach(*reach)
        offset = np.where(pinned[:, None], stance.head - head, 0.0)
        planted_head = head + blend.across(offset, pinned | still)
    planted_toes = None
    if toes is not None:
        toe_down = down[:, TOE]
        planted_toes = (
            corrected(toes, stance.toes, toe_down | still, blend.timed)
            if np.any(toe_down)
            else toes
        )
    pivot_in_foot = np.zeros((len(head), 3))
    for i in (HEEL, BALL):
        pivot_in_foot[pivot == i] = motion.points[i]
    on_toe = pivot == TOE
    pivot_in_foot[on_toe] = motion.toe_in_foot(
        planted_toes[on_toe] if toes is not None else np.zeros((np.count_nonzero(on_toe), 4))
    )
    return FootPath(
        planted,
        planted_head,
        planted_toes,
        pivot,
        pivot_in_foot,
        held,
        offset,
        pinned | still,
        head,
        blend,
    )


class _Stances:
    """The per-stance walk of :func:`plant_foot`: heads on the pinned frames, toes where the
    toe tip is down (``head`` and ``toes`` are filled in as stances are planted)."""

    def __init__(self, motion, rotation, head, toes, planted, down, pivot):
        self.motion, self.original, self.original_head = motion, rotation, head
        self.original_toes, self.rotation, self.down, self.pivot = toes, planted, down, pivot
        self.head = np.array(head)
        self.toes = None if toes is None else np.array(toes)
        self.paths = motion.point_paths()  # the original points, (F, 3, 3)
        # a pivot rises and falls as its original point does, less the joint's jitter
        self.heights = _smoothed(self.paths @ UP, SMOOTH_FRAMES)

    def _point(self, i, frames, toes=None) -> np.ndarray:
        """Point ``i`` in the foot's frame at ``frames`` (the toe tip with ``toes`` or the
        planted toes)."""
        if i != TOE:
            return np.broadcast_to(self.motion.points[i], (len(frames), 3))
        if not self.motion.has_toes:
            return np.broadcast_to(self.motion.points[TOE], (len(frames), 3))
        return self.motion.toe_in_foot(self.toes[frames] if toes is None else toes)

    def plant(self, first: int, last: int) -> None:
        """Plant the stance ``[first, last]``: phase by phase (runs of one pivot)."""
        pivot = self.pivot[first : last + 1]
        cuts = np.flatnonzero(np.diff(pivot)) + 1
        starts = np.concatenate([[0], cuts]) + first
        ends = np.concatenate([cuts, [len(pivot)]]) + first - 1
        toe_anchor = previous = None
        for a, b in zip(starts, ends):
            p = int(self.pivot[a])
            frames = np.arange(a, b + 1)
            if p == TOE and self.motion.has_toes:  # the toes keep their bend over the phase
                before = (
                    self.toes[a - 1]
                    if a > first and self.down[a - 1, TOE]
                    else self.original_toes[a]
                )
                self.toes[frames] = before
            if a == first:
                across = self._first_anchor(p, a)
                up = 0.0
            else:
                where = self._taking_over(p, a, previous)
                across = where - (where @ UP) * UP
                up = float(where @ UP - self.heights[a, p])
            previous = (p, across, up)
            height = self.heights[frames, p] + up
            at_pivot = across + height[:, None] * UP
            self.head[frames] = at_pivot - quat.rotate(
                self.rotation[frames], self._point(p, frames)
            )
            if p == TOE:
                toe_anchor = at_pivot[-1] - (at_pivot[-1] @ UP) * UP
            elif self.motion.has_toes:
                toe_anchor = self._aim_toes(frames, toe_anchor)

    def _taking_over(self, p: int, a: int, previous) -> np.ndarray:
        """Where pivot ``p`` is on frame ``a``, when it takes over from ``previous`` (its
        pivot, across and up): held by the old pivot if that is still down on ``a``; else
        where the foot had it on the frame before if it was down there; else (arriving as
        the old one lifts) where the foot's original step from there takes it."""
        old, across, up = previous
        if self.down[a, old]:
            at_old = across + (self.heights[a, old] + up) * UP
            # the toes keep the bend they had while the toe tip was the pivot
            toes = self.toes[a - 1 : a] if old == TOE and self.toes is not None else None
            foot = at_old - quat.rotate(self.rotation[a], self._point(old, [a], toes)[0])
            return foot + quat.rotate(self.rotation[a], self._point(p, [a])[0])
        if self.down[a - 1, p]:
            return self.head[a - 1] + quat.rotate(self.rotation[a - 1], self._point(p, [a - 1])[0])
        step = self.original_head[a] - self.original_head[a - 1]
        return self.head[a - 1] + step + quat.rotate(self.rotation[a], self._point(p, [a])[0])

    def _first_anchor(self, p: int, frame: int) -> np.ndarray:
        """Across: the mean of point ``p``'s original path over its contact at ``frame``."""
        runs = intervals_of(self.down[:, p])
        run = runs[np.searchsorted(runs[:, 0], frame, side="right") - 1]
        mean = self.paths[run[0] : run[1] + 1, p].mean(axis=0)
        return mean - (mean @ UP) * UP

    def _aim_toes(self, frames: np.ndarray, anchor):
        """Bend the toes on the ``frames`` (a phase held by heel or ball) where the toe tip is
        down so that it stays where it landed; returns the anchor it ends the phase with."""
        on = self.down[frames, TOE]
        if not np.any(on):
            return None
        out = anchor
        for s, e in intervals_of(on):  # the toe tip's contacts within the phase
            run = frames[s : e + 1]
            if out is None or s > 0:  # it lands here: where the planted foot puts it
                f = run[0]
                tip = self.head[f] + quat.rotate(
                    self.rotation[f], self.motion.toe_in_foot(self.original_toes[f])
                )
                out = tip - (tip @ UP) * UP
            self.toes[run] = self._toes_at(run, out)
        return out if on[-1] else None

    def _toes_at(self, frames, anchor) -> np.ndarray:
        """Toes rotations (in the foot) putting the toe tip at ``anchor`` across, as low
        under the ball as the toes' length allows."""
        m = self.motion
        ball = self.head[frames] + quat.rotate(self.rotation[frames], m.toes_head)
        length = float(np.linalg.norm(m.points[TOE]))
        flat = anchor - ball
        flat -= (flat @ UP)[:, None] * UP
        across = np.linalg.norm(flat, axis=1)
        drop = np.sqrt(np.maximum(length**2 - across**2, 0.0))
        want = flat - drop[:, None] * UP
        toes_world = quat.mul(self.rotation[frames], self.original_toes[frames])
        now = quat.rotate(toes_world, np.broadcast_to(m.points[TOE], (len(frames), 3)))
        turned = quat.mul(arc(now, want), toes_world)
        return quat.mul(quat.conj(self.rotation[frames]), turned)

    def within_reach(self, hips: np.ndarray, length: float) -> None:
        """Move each stance across, as a whole and as little as needed, so that the leg
        (hip joint ``hips`` ``(F, 3)``, ``length``) reaches its ankle on every frame; the
        frames where only lowering the hips would do are left to the hips."""
        pinned = self.pivot >= 0
        for first, last in intervals_of(pinned):
            frames = np.arange(first, last + 1)
            c = hips[frames] - self.head[frames]
            up = c @ UP
            across = c - up[:, None] * UP
            radius = np.sqrt(np.maximum((length * (1 - SLACK)) ** 2 - up**2, 0.0))
            if np.all(np.linalg.norm(across, axis=1) <= radius):
                continue
            keep = radius > 0
            plane = np.stack([across[:, 0], across[:, 2]], axis=1)  # UP is +Y
            d = _nearest_in_discs(plane[keep], radius[keep])
            self.head[frames] += np.array([d[0], 0.0, d[1]])

    def lift(self, floor: float, window: float) -> None:
        """Raise each pinned frame smoothly where a down point would be below ``floor``."""
        pinned = self.pivot >= 0
        frames = np.flatnonzero(pinned)
        low = np.full(len(self.head), np.inf)
        for i in range(3):
            on = frames[self.down[frames, i]]
            heights = (self.head[on] + quat.rotate(self.rotation[on], self._point(i, on))) @ UP
            low[on] = np.minimum(low[on], heights)
        need = np.where(pinned, np.maximum(floor - low, 0.0), 0.0)
        self.head[frames] += lift(need, window)[frames][:, None] * UP


def _nearest_in_discs(centres, radii, iterations: int = 24) -> np.ndarray:
    """A short 2-vector within every disc ``centres`` ``(N, 2)``, ``radii`` ``(N,)`` (or as
    close as a few projections onto the worst one get)."""
    d = np.zeros(2)
    for _ in range(iterations):
        v = centres - d
        dist = np.linalg.norm(v, axis=1)
        over = dist - radii
        k = int(np.argmax(over))
        if over[k] <= 0:
            break
        d = d + v[k] / dist[k] * over[k] * (1 + 1e-9)
    return d


def lift(need: np.ndarray, window: float) -> np.ndarray:
    """A smooth ``(F,)`` curve at least ``need`` ``(F,)`` everywhere (both >= 0): the
    largest need within half a window, averaged over a raised cosine as wide."""
    half = max(1, int(round(window / 2)))
    if not np.any(need > 0):
        return need
    padded = np.concatenate([np.zeros(half), need, np.zeros(half)])
    dilated = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1).max(axis=1)
    kernel = np.hanning(2 * half + 3)[1:-1]
    kernel /= kernel.sum()
    return np.convolve(np.pad(dilated, half, mode="edge"), kernel, mode="valid")
