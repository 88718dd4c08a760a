"""Filling the free frames of a correction so that nothing pops.

A correction (a foot's offset from its original path, the hips' offset) is known on some
frames (where a contact fixes it) and free on the others. :func:`fill` makes it continuous
with a continuous rate: across each run of free frames it is a cubic Hermite curve that
leaves the known value before the run with that value's rate and arrives at the known value
after it with that one's, so the corrected motion's velocity has no step and its
acceleration stays bounded by the correction's size over the blend window. A run longer than
two windows returns to zero a window after the known frames before it and leaves zero a
window before the known frames after it: far from contacts the motion is the original's.

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
    runs_start = np.maximum.accumulate(np.where(known & ~np.concatenate([[False], known[:-1]]),
                                                frames, 0))  # fmt: skip
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


def _hermite(tau, v0, m0, v1, m1, length):
    """Cubic Hermite at ``tau`` in [0, 1] from ``(v0, m0)`` to ``(v1, m1)`` (rates per frame,
    over ``length`` frames); arrays broadcast as ``(N, 1)`` against ``(N, D)``."""
    t2, t3 = tau * tau, tau * tau * tau
    return ((2 * t3 - 3 * t2 + 1) * v0 + (t3 - 2 * t2 + tau) * length * m0
            + (-2 * t3 + 3 * t2) * v1 + (t3 - t2) * length * m1)  # fmt: skip


def fill(values: np.ndarray, known: np.ndarray, window: float, span: int = 1) -> np.ndarray:
    """``values`` ``(F, D)`` with the frames where ``known`` ``(F,)`` is false filled in
    (module docstring); ``window`` is in frames (> 0), ``span`` the frames a rate at the
    edge of a known run is averaged over."""
    values = np.asarray(values, dtype=float)
    known = np.asarray(known, dtype=bool)
    count = len(values)
    out = np.where(known[:, None], values, 0.0)
    free = np.flatnonzero(~known)
    if len(free) == 0 or not np.any(known):
        return out
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
    zero = np.zeros_like(va)
    gap = (b - a).astype(float)
    # one curve across a short run between two known frames
    across = _hermite(((free - a) / np.where(has_a & has_b, gap, 1.0))[:, None],
                      va, ma, vb, mb, gap[:, None])  # fmt: skip
    # else: out of the known frames before, into those after, zero in between
    w = float(window)
    leave = _hermite(np.clip((free - a) / w, 0.0, 1.0)[:, None], va, ma, zero, zero, w)
    enter = _hermite(np.clip(1.0 - (b - free) / w, 0.0, 1.0)[:, None], zero, zero, vb, mb, w)
    leave = np.where((has_a & (free - a < w))[:, None], leave, 0.0)
    enter = np.where((has_b & (b - free < w))[:, None], enter, 0.0)
    short = has_a & has_b & (gap <= 2 * w)
    out[free] = np.where(short[:, None], across, leave + enter)
    return out
