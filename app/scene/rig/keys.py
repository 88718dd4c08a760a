"""Animation keys and their evaluation at any array of (fractional) frames at once.

Translation-like keys interpolate linearly; rotation keys by slerp along the shorter arc.
Before the first key the first value holds, after the last the last value holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.math.quat import slerp


@dataclass(frozen=True, eq=False)
class Keys:
    """Keyed values over frames.

    Attributes
    ----------
    frames : ndarray, shape (K,)
        Strictly increasing key frames (``K >= 1``).
    values : ndarray, shape (K, D)
        ``D = 3`` for positions, ``D = 4`` for quaternions ``[w, x, y, z]``.
    """

    frames: np.ndarray
    values: np.ndarray

    def __post_init__(self):
        frames = np.array(self.frames, dtype=float).reshape(-1)
        values = np.array(self.values, dtype=float)
        if values.ndim != 2 or len(values) != len(frames) or len(frames) == 0:
            raise ValueError("keys need K >= 1 frames and a (K, D) array of values")
        if np.any(np.diff(frames) <= 0):
            raise ValueError("key frames must be strictly increasing")
        frames.setflags(write=False)
        values.setflags(write=False)
        object.__setattr__(self, "frames", frames)
        object.__setattr__(self, "values", values)

    def __eq__(self, other):
        if not isinstance(other, Keys):
            return NotImplemented
        return np.array_equal(self.frames, other.frames) and np.array_equal(
            self.values, other.values
        )

    def __len__(self):
        return len(self.frames)

    def with_key(self, frame: float, value) -> Keys:
        """A copy with the key at ``frame`` set (added or replaced)."""
        frames = list(self.frames)
        values = list(self.values)
        i = int(np.searchsorted(self.frames, frame))
        if i < len(frames) and frames[i] == frame:
            values[i] = np.asarray(value, dtype=float)
        else:
            frames.insert(i, float(frame))
            values.insert(i, np.asarray(value, dtype=float))
        return Keys(np.array(frames), np.array(values))

    def without_key(self, frame: float) -> Keys | None:
        """A copy without the key at ``frame``; ``None`` when no key would remain."""
        keep = self.frames != frame
        if np.all(keep):
            raise KeyError(f"no key at frame {frame:g}")
        if not np.any(keep):
            return None
        return Keys(self.frames[keep], self.values[keep])


def _bracket(key_frames: np.ndarray, frames: np.ndarray):
    """Index of the key at or before each frame (clamped) and the fraction towards the next."""
    k = len(key_frames)
    i = np.clip(np.searchsorted(key_frames, frames, side="right") - 1, 0, max(k - 2, 0))
    if k == 1:
        return i, np.zeros(frames.shape)
    f0 = key_frames[i]
    f1 = key_frames[i + 1]
    t = np.clip((frames - f0) / (f1 - f0), 0.0, 1.0)
    return i, t


def interpolate_linear(keys: Keys, frames) -> np.ndarray:
    """Linear interpolation of ``keys`` at ``frames`` (any shape), shape ``frames.shape + (D,)``."""
    frames = np.asarray(frames, dtype=float)
    i, t = _bracket(keys.frames, frames)
    v = keys.values
    if len(v) == 1:
        return np.broadcast_to(v[0], frames.shape + v.shape[1:]).copy()
    t = t[..., None]
    # (1-t) a + t b is exact at both ends, unlike a + t (b - a).
    return (1.0 - t) * v[i] + t * v[i + 1]


def interpolate_slerp(keys: Keys, frames) -> np.ndarray:
    """Slerp of quaternion ``keys`` at ``frames`` (any shape), shape ``frames.shape + (4,)``."""
    frames = np.asarray(frames, dtype=float)
    i, t = _bracket(keys.frames, frames)
    v = keys.values
    if len(v) == 1:
        return np.broadcast_to(v[0], frames.shape + (4,)).copy()
    return slerp(v[i], v[i + 1], t)


def sample(static, keys: Keys | None, frames, rotation: bool = False) -> np.ndarray:
    """A property at ``frames``: its keys when it has them, else its static value.

    Returns
    -------
    ndarray, shape ``frames.shape + (D,)``
    """
    frames = np.asarray(frames, dtype=float)
    if keys is None:
        static = np.asarray(static, dtype=float)
        return np.broadcast_to(static, frames.shape + static.shape).copy()
    return interpolate_slerp(keys, frames) if rotation else interpolate_linear(keys, frames)


def sample_many(statics, keys_list, frames, rotation: bool = False) -> np.ndarray:
    """:func:`sample` for many properties at once, shape ``(N, F, D)``.

    Properties whose keys share the same key frames (every joint of a BVH clip) are
    interpolated together; frames that fall on a key cost only a copy of its value.
    """
    frames = np.asarray(frames, dtype=float).reshape(-1)
    n = len(keys_list)
    dim = 4 if rotation else 3
    groups: dict = {}
    for i, keys in enumerate(keys_list):
        if keys is not None:
            groups.setdefault((len(keys), keys.frames.tobytes()), []).append(i)
    if len(groups) == 1 and len(next(iter(groups.values()))) == n:
        return _sample_group([keys_list[i] for i in range(n)], frames, rotation)
    out = np.empty((n, len(frames), dim))
    for i, keys in enumerate(keys_list):
        if keys is None:
            out[i] = statics[i]
    for members in groups.values():
        out[members] = _sample_group([keys_list[i] for i in members], frames, rotation)
    return out


def _sample_group(keys_list, frames, rotation):
    """Keys that share their key frames, sampled together: ``(M, F, D)``."""
    key_frames = keys_list[0].frames
    values = np.stack([k.values for k in keys_list])  # (M, K, D)
    if len(key_frames) == 1:
        return np.repeat(values, len(frames), axis=1)
    k, t = _bracket(key_frames, frames)
    out = np.take(values, k, axis=1)  # the key at or before each frame
    between = np.flatnonzero(t != 0)
    if len(between):
        a = out[:, between]
        b = np.take(values, k[between] + 1, axis=1)
        tb = np.broadcast_to(t[between], a.shape[:-1])
        if rotation:
            out[:, between] = slerp(a, b, tb)
        else:
            out[:, between] = (1.0 - tb[..., None]) * a + tb[..., None] * b
    return out
