"""glTF animation samplers as keys: the frame rate from the key times, and sampler evaluation.

``fps`` is ``1 / Δ`` when every key time is a multiple of one step ``Δ`` (to ``1e-4`` of ``Δ``,
or to the float32 rounding of the time itself, whichever is larger: glTF stores times as
float32, and at ``t = 100 s`` one float32 step is already ``1e-4`` of a 30 fps frame), else 30.
A key at time ``t`` lands on frame ``t · fps``, snapped to the integer it is within that
tolerance of.

A step longer than a tenth of a second (keys 5.2 s apart give ``1 / 5.2`` fps) is no frame
rate: sampled there, a spline between its keys would be lost. The clip then takes the first
of 30, 24, 25, 60 and 50 fps that puts every key on a whole frame, else 30
(:func:`clip_rate`). ``LINEAR`` and ``STEP`` keys stay keys (the scene's linear and constant
keys evaluate them exactly as glTF does, slerp for rotations); ``CUBICSPLINE`` keys are
sampled at every frame.

``CUBICSPLINE`` samplers are evaluated here with the glTF 2.0 Hermite form (Appendix C):
``p(s) = (2s³ − 3s² + 1) v_k + t_d (s³ − 2s² + s) b_k``
``       + (−2s³ + 3s²) v_{k+1} + t_d (s³ − s²) a_{k+1}``
with ``t_d = t_{k+1} − t_k``, ``b`` the out-tangents and ``a`` the in-tangents.
"""

from __future__ import annotations

import numpy as np

#: The frame rate when key times are not multiples of one step.
FALLBACK_FPS = 30.0
#: The lowest step rate taken as the file's own frame rate.
MIN_FPS = 10.0
#: Frame rates tried, in order, when the key step is longer than ``1 / MIN_FPS``.
COMMON_FPS = (30.0, 24.0, 25.0, 60.0, 50.0)
_F32_EPS = float(np.finfo(np.float32).eps)


def _tolerance(times: np.ndarray, step: float) -> np.ndarray:
    return np.maximum(1e-4 * step, 2.0 * _F32_EPS * np.abs(times))


def frame_rate(times: np.ndarray) -> float:
    """The frame rate of a set of key times (seconds), shape ``(N,)``; see the module doc."""
    times = np.unique(np.asarray(times, dtype=float))
    gaps = np.diff(times)
    gaps = gaps[gaps > 0]
    if not len(gaps):
        return FALLBACK_FPS
    step = float(gaps.min())
    # The smallest gap of float32 times is only good to ~1e-5 of a step; refine it by least
    # squares over every key (twice: the multiples can only get better) before judging.
    for _ in range(2):
        n = np.round(times / step)
        if not np.any(n != 0):
            break
        step = float(np.dot(n, times) / np.dot(n, n))
    n = np.round(times / step)
    if np.any(np.abs(times - n * step) > _tolerance(times, step)):
        return FALLBACK_FPS
    fps = 1.0 / step
    nearest = round(fps)
    if nearest > 0 and abs(fps - nearest) <= 1e-6 * fps:
        return float(nearest)
    return fps


def clip_rate(times: np.ndarray) -> float:
    """The scene's frame rate for a clip's key times (seconds): :func:`frame_rate` when it is
    at least :data:`MIN_FPS`, else the first of :data:`COMMON_FPS` on whose frames every key
    lands, else :data:`FALLBACK_FPS`."""
    fps = frame_rate(times)
    if fps >= MIN_FPS:
        return fps
    times = np.unique(np.asarray(times, dtype=float))
    for rate in COMMON_FPS:
        frames = times * rate
        if np.all(np.abs(frames - np.round(frames)) <= _tolerance(times, 1.0 / rate) * rate):
            return rate
    return FALLBACK_FPS


def frames_of(times: np.ndarray, fps: float) -> np.ndarray:
    """Frames of key times: ``t · fps``, snapped to integers within the tolerance."""
    frames = np.asarray(times, dtype=float) * fps
    nearest = np.round(frames)
    close = np.abs(frames - nearest) <= _tolerance(np.asarray(times, float), 1.0 / fps) * fps
    return np.where(close, nearest, frames)


def sample_cubic(times: np.ndarray, triples: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A ``CUBICSPLINE`` sampler at times ``at`` (clamped to its first and last key).

    Parameters
    ----------
    times : ndarray, shape (K,)
    triples : ndarray, shape (3 K, D)
        The sampler's output: in-tangent, value, out-tangent per key.
    at : ndarray, shape (F,)

    Returns
    -------
    ndarray, shape (F, D)
    """
    k = len(times)
    a, v, b = triples[0::3], triples[1::3], triples[2::3]
    if k == 1:
        return np.repeat(v, len(at), axis=0)
    at = np.clip(at, times[0], times[-1])
    i = np.clip(np.searchsorted(times, at, side="right") - 1, 0, k - 2)
    td = times[i + 1] - times[i]
    s = ((at - times[i]) / td)[:, None]
    td = td[:, None]
    s2, s3 = s * s, s * s * s
    return (
        (2 * s3 - 3 * s2 + 1) * v[i]
        + td * (s3 - 2 * s2 + s) * b[i]
        + (-2 * s3 + 3 * s2) * v[i + 1]
        + td * (s3 - s2) * a[i + 1]
    )
