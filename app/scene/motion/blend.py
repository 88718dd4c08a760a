"""Filling the free frames of a correction so that nothing pops, and nothing skates.

A correction (a foot's offset from its original path, its turn) is known on some frames
(where a contact fixes it) and free on the others. :func:`fill` makes it continuous with a
continuous rate, in three parts on each run of free frames:

- **easing out of the known frames**: the rate the correction had at the edge of a contact
  falls to zero over ``ease`` frames (and rises from zero into the next contact), so a
  planted foot starts and stops moving smoothly; while it eases the foot moves slower than
  the original;
- **a smooth step** (zero rate at both ends) from the value left after easing out to the
  value needed before easing in: one step across a short run; over a long run back to zero a
  window after the contact before it and away from zero a window before the contact after
  it, so far from contacts the motion is the original's;
- **on the foot's clock**: the step advances with ``weight``, a per-frame rate in (0, 1]
  (1 where the foot is in the air, small where it is on or near the floor), so a correction
  is made up while the foot is up rather than while it stands or slides on the floor: a foot
  near the floor moves as the original does (offset), never faster. A run that never leaves
  the floor steps evenly.

Rates at the edge of a known run are one-sided differences inside the run, averaged over a
few frames (zero for a run of one frame).
"""

from __future__ import annotations

import numpy as np


def _rates(values: np.ndarray, known: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """Per frame, the rate (per frame) looking backwards into the known run it ends and
    forwards into the known run it starts, averaged over up to ``span`` frames of the run;
    ``(F, D)`` each."""
    count = len(values)
    frames = np.arange(count)
    runs_start = np.maximum.accumulate(
        np.where(known & ~np.concatenate([[False], known[:-1]]), frames, 0)
    )
    ends = np.where(known & ~np.concatenate([known[1:], [False]]), frames, count)
    runs_end = np.minimum.accumulate(ends[::-1])[::-1]
    back_span = np.minimum(frames - runs_start, span)
    ahead_span = np.minimum(runs_end - frames, span)
    back_from = np.clip(frames - back_span, 0, count - 1)
    ahead_to = np.clip(frames + ahead_span, 0, count - 1)
    back = (values - values[back_from]) / np.maximum(back_span, 1)[:, None]
    ahead = (values[ahead_to] - values) / np.maximum(ahead_span, 1)[:, None]
    back = np.where((known & (back_span > 0))[:, None], back, 0.0)
    ahead = np.where((known & (ahead_span > 0))[:, None], ahead, 0.0)
    return back, ahead


def _step(s):
    """Smooth step from 0 to 1 over ``s`` in [0, 1] (zero slope at both ends)."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * (3.0 - 2.0 * s)


def _eased(x):
    """``x - x**2 / 2`` for ``x`` in [0, 1], ``1/2`` beyond: a rate falling from 1 to 0."""
    x = np.clip(x, 0.0, 1.0)
    return x - 0.5 * x * x


def fill(
    values: np.ndarray,
    known: np.ndarray,
    window: float,
    span: int = 1,
    weight: np.ndarray | None = None,
    ease: float = 0.0,
) -> np.ndarray:
    """``values`` ``(F, D)`` with the frames where ``known`` ``(F,)`` is false filled in
    (module docstring).

    Parameters
    ----------
    window : float
        Frames of the foot's clock (> 0) over which a correction returns to zero.
    span : int
        Frames a rate at the edge of a known run is averaged over.
    weight : ndarray, shape (F,), optional
        The clock's rate per frame, in (0, 1] (default 1: the frames themselves).
    ease : float
        Frames over which an edge's rate falls to zero (0: the step takes the rate).
    """
    values = np.asarray(values, dtype=float)
    known = np.asarray(known, dtype=bool)
    count = len(values)
    out = np.where(known[:, None], values, 0.0)
    free = np.flatnonzero(~known)
    if len(free) == 0 or not np.any(known):
        return out
    weight = np.ones(count) if weight is None else np.clip(np.asarray(weight, float), 1e-3, 1.0)
    clock = np.concatenate([[0.0], np.cumsum(weight[1:])])  # unit weights: the frame
    frames = np.arange(count)
    before = np.maximum.accumulate(np.where(known, frames, -1))
    after = np.minimum.accumulate(np.where(known, frames, count)[::-1])[::-1]
    back, ahead = _rates(out, known, max(1, int(span)))
    a, b = before[free], after[free]
    has_a, has_b = a >= 0, b < count
    ai, bi = np.clip(a, 0, count - 1), np.clip(b, 0, count - 1)
    va = np.where(has_a[:, None], out[ai], 0.0)
    ma = np.where(has_a[:, None], back[ai], 0.0)
    vb = np.where(has_b[:, None], out[bi], 0.0)
    mb = np.where(has_b[:, None], ahead[bi], 0.0)
    if ease > 0:
        # easing out of a and into b; a run between two contacts shares its frames
        e = np.where(has_a & has_b, np.minimum(float(ease), (b - a) / 2.0), float(ease))
        e = np.maximum(e, 1e-9)[:, None]
        dev_a = ma * e * (_eased((free - a)[:, None] / e) - 0.5)
        dev_b = -mb * e * (_eased((b - free)[:, None] / e) - 0.5)
        pa, pb = va + ma * e / 2.0, vb - mb * e / 2.0
    else:
        # no easing: the step itself is a cubic Hermite that takes the edges' rates
        dev_a = dev_b = 0.0
        pa, pb = va, vb
    pa = np.where(has_a[:, None], pa, 0.0)
    pb = np.where(has_b[:, None], pb, 0.0)
    dev_a = np.where(has_a[:, None], dev_a, 0.0)
    dev_b = np.where(has_b[:, None], dev_b, 0.0)
    ca = np.where(has_a, clock[ai], 0.0)
    cb = np.where(has_b, clock[bi], 0.0)
    c = clock[free]
    w = float(window)
    if ease > 0:
        across = pa + (pb - pa) * _step((c - ca) / np.maximum(cb - ca, 1e-12))[:, None]
        leave = pa * (1.0 - _step((c - ca) / w))[:, None]
        enter = pb * _step(1.0 - (cb - c) / w)[:, None]
    else:
        across = _hermite(
            ((c - ca) / np.maximum(cb - ca, 1e-12))[:, None],
            va,
            ma,
            vb,
            mb,
            (b - a)[:, None].astype(float),
        )
        leave = _hermite(np.clip((c - ca) / w, 0.0, 1.0)[:, None], va, ma, 0.0, 0.0, w)
        enter = _hermite(np.clip(1.0 - (cb - c) / w, 0.0, 1.0)[:, None], 0.0, 0.0, vb, mb, w)
    leave = np.where(has_a[:, None], leave, 0.0)
    enter = np.where(has_b[:, None], enter, 0.0)
    short = has_a & has_b & (cb - ca <= 2 * w)
    out[free] = np.where(short[:, None], across, leave + enter) + dev_a + dev_b
    return out


def _hermite(tau, v0, m0, v1, m1, length):
    """Cubic Hermite at ``tau`` in [0, 1] from ``(v0, m0)`` to ``(v1, m1)`` (rates per frame,
    over ``length`` frames); arrays broadcast as ``(N, 1)`` against ``(N, D)``."""
    t2, t3 = tau * tau, tau * tau * tau
    return (
        (2 * t3 - 3 * t2 + 1) * v0
        + (t3 - 2 * t2 + tau) * length * m0
        + (-2 * t3 + 3 * t2) * v1
        + (t3 - t2) * length * m1
    )
