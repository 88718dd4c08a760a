"""Animation keys and their evaluation at any array of (fractional) frames at once.

Each key carries how the segment from it to the next key is interpolated (format §B):
``"linear"`` (lerp for vectors, slerp along the shorter arc for rotations), ``"constant"``
(hold the key's value until the next key: a step) or ``"ease"`` (the linear path with the
segment parameter ``u`` replaced by ``3u² − 2u³``). Before the first key the first value holds,
after the last the last value holds.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from app.scene.math.quat import slerp

#: Every interpolation a key may carry; the entry of key ``k`` governs the segment ``k → k+1``.
INTERPOLATIONS = ("linear", "constant", "ease")
LINEAR, CONSTANT, EASE = range(3)  # codes: indices into INTERPOLATIONS


def _check_kinds(kinds, count: int) -> tuple:
    kinds = tuple(kinds)
    if len(kinds) != count:
        raise ValueError(f"expected {count} interpolation entries (one per key), got {len(kinds)}")
    for kind in kinds:
        if kind not in INTERPOLATIONS:
            raise ValueError(f"unknown interpolation {kind!r} (known: {', '.join(INTERPOLATIONS)})")
    return kinds


@functools.lru_cache(maxsize=64)
def _all_linear(count: int) -> tuple:
    """``("linear",) * count``, one tuple per count: a clip's joints share it (100,000
    keys make an 800 KB tuple)."""
    return ("linear",) * count


@dataclass(frozen=True, eq=False)
class Keys:
    """Keyed values over frames.

    Attributes
    ----------
    frames : ndarray, shape (K,)
        Strictly increasing key frames (``K >= 1``).
    values : ndarray, shape (K, D)
        ``D = 3`` for positions and scales, ``D = 4`` for quaternions ``[w, x, y, z]``.
    interpolation : tuple of str, (K,)
        One of :data:`INTERPOLATIONS` per key, for the segment from that key to the next (the
        last key's entry is kept but unused). ``None`` at construction means all ``"linear"``.
    """

    frames: np.ndarray
    values: np.ndarray
    interpolation: tuple | None = None
    #: ``interpolation`` as codes (K,), or ``None`` when every key is linear (the fast path).
    codes: np.ndarray | None = field(init=False, repr=False, default=None)

    def __post_init__(self):
        frames = self.frames
        if not (
            isinstance(frames, np.ndarray)
            and frames.dtype == float
            and frames.ndim == 1
            and not frames.flags.writeable
        ):
            # A read-only array is shared as it is (every joint of a clip keys the same
            # frames); anything else is copied, so no caller can change the keys later.
            frames = np.array(frames, dtype=float).reshape(-1)
        values = np.array(self.values, dtype=float)
        if values.ndim != 2 or len(values) != len(frames) or len(frames) == 0:
            raise ValueError("keys need K >= 1 frames and a (K, D) array of values")
        if np.any(np.diff(frames) <= 0):
            raise ValueError("key frames must be strictly increasing")
        if self.interpolation is None:
            kinds = _all_linear(len(frames))
            codes = np.zeros(len(frames), dtype=np.int8)  # no per-key loop: clips are long
        else:
            if isinstance(self.interpolation, str):
                raise ValueError("interpolation is a sequence of strings, one per key")
            kinds = _check_kinds(self.interpolation, len(frames))
            codes = np.array([INTERPOLATIONS.index(k) for k in kinds], dtype=np.int8)
        frames.setflags(write=False)
        values.setflags(write=False)
        codes.setflags(write=False)
        object.__setattr__(self, "frames", frames)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "interpolation", kinds)
        # Only the segments matter: the last key's entry never changes a sample.
        object.__setattr__(self, "codes", codes if np.any(codes[:-1] != LINEAR) else None)

    def __eq__(self, other):
        if not isinstance(other, Keys):
            return NotImplemented
        return (
            np.array_equal(self.frames, other.frames)
            and np.array_equal(self.values, other.values)
            and self.interpolation == other.interpolation
        )

    def __len__(self):
        return len(self.frames)

    def index(self, frame: float) -> int:
        """Index of the key at exactly ``frame`` (``KeyError`` when there is none)."""
        i = int(np.searchsorted(self.frames, frame))
        if i < len(self.frames) and self.frames[i] == frame:
            return i
        raise KeyError(f"no key at frame {frame:g}")

    def with_key(self, frame: float, value, interpolation: str | None = None) -> Keys:
        """A copy with the key at ``frame`` set (added or replaced).

        A replaced key keeps its interpolation unless ``interpolation`` is given; a new key
        takes ``interpolation``, else ``"linear"``.
        """
        frames = list(self.frames)
        values = list(self.values)
        kinds = list(self.interpolation)
        i = int(np.searchsorted(self.frames, frame))
        if i < len(frames) and frames[i] == frame:
            values[i] = np.asarray(value, dtype=float)
            if interpolation is not None:
                kinds[i] = interpolation
        else:
            frames.insert(i, float(frame))
            values.insert(i, np.asarray(value, dtype=float))
            kinds.insert(i, "linear" if interpolation is None else interpolation)
        return Keys(np.array(frames), np.array(values), tuple(kinds))

    def without_key(self, frame: float) -> Keys | None:
        """A copy without the key at ``frame``; ``None`` when no key would remain."""
        keep = self.frames != frame
        if np.all(keep):
            raise KeyError(f"no key at frame {frame:g}")
        if not np.any(keep):
            return None
        kinds = tuple(k for k, kept in zip(self.interpolation, keep) if kept)
        return Keys(self.frames[keep], self.values[keep], kinds)

    def with_interpolation(self, frames, kind: str) -> Keys:
        """A copy whose keys at ``frames`` (each a key) interpolate their segment by ``kind``.

        Raises
        ------
        KeyError
            When one of ``frames`` has no key.
        ValueError
            For a ``kind`` not in :data:`INTERPOLATIONS`.
        """
        _check_kinds((kind,), 1)
        kinds = list(self.interpolation)
        for frame in np.atleast_1d(np.asarray(frames, dtype=float)):
            kinds[self.index(float(frame))] = kind
        return Keys(self.frames, self.values, tuple(kinds))


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


def shape_parameter(codes: np.ndarray | None, i: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The segment parameter after each segment's interpolation (format §B).

    Parameters
    ----------
    codes : ndarray of int (K,) or None
        :attr:`Keys.codes`; ``None`` (all linear) returns ``t`` itself.
    i, t : ndarray, same shape
        Segment index and linear fraction ``u ∈ [0, 1]`` from :func:`_bracket`.

    Returns
    -------
    ndarray
        ``u`` for linear, ``0`` before the segment's end and ``1`` at it for constant (the
        step lands on the next key's frame), ``3u² − 2u³`` for ease.
    """
    if codes is None:
        return t
    c = codes[i]
    held = np.where(t >= 1.0, 1.0, 0.0)
    eased = t * t * (3.0 - 2.0 * t)
    return np.where(c == CONSTANT, held, np.where(c == EASE, eased, t))


def interpolate_linear(keys: Keys, frames) -> np.ndarray:
    """Keys' vector values at ``frames`` (any shape), shape ``frames.shape + (D,)``.

    "Linear" names the path (a lerp between neighbouring keys); each segment's own
    interpolation sets how fast it is followed.
    """
    frames = np.asarray(frames, dtype=float)
    i, t = _bracket(keys.frames, frames)
    v = keys.values
    if len(v) == 1:
        return np.broadcast_to(v[0], frames.shape + v.shape[1:]).copy()
    t = shape_parameter(keys.codes, i, t)[..., None]
    # (1-t) a + t b is exact at both ends, unlike a + t (b - a).
    return (1.0 - t) * v[i] + t * v[i + 1]


def interpolate_slerp(keys: Keys, frames) -> np.ndarray:
    """Quaternion keys at ``frames`` (any shape) along slerp paths, ``frames.shape + (4,)``."""
    frames = np.asarray(frames, dtype=float)
    i, t = _bracket(keys.frames, frames)
    v = keys.values
    if len(v) == 1:
        return np.broadcast_to(v[0], frames.shape + (4,)).copy()
    return slerp(v[i], v[i + 1], shape_parameter(keys.codes, i, t))


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


def bracket_at(key_frames: np.ndarray, codes, frame: float) -> tuple[int, float]:
    """:func:`_bracket` and :func:`shape_parameter` at one frame (two keys or more): the
    key at or before it and the segment parameter, as Python numbers."""
    k = min(max(int(key_frames.searchsorted(frame, "right")) - 1, 0), len(key_frames) - 2)
    f0, f1 = float(key_frames[k]), float(key_frames[k + 1])
    t = min(max((frame - f0) / (f1 - f0), 0.0), 1.0)
    if codes is not None:
        code = codes[k]
        if code == CONSTANT:
            t = 1.0 if t >= 1.0 else 0.0
        elif code == EASE:
            t = t * t * (3.0 - 2.0 * t)
    return k, t


def _stacked_at(key_frames, values, codes, frame: float, rotation: bool) -> np.ndarray:
    """:func:`sample_stacked` at one frame, ``(M, 1, D)``: the same arithmetic (bit for bit)
    with the bracket found without arrays."""
    k, t = bracket_at(key_frames, codes, frame)
    a = values[:, k : k + 1]
    if t == 0:
        return a.copy()
    b = values[:, k + 1 : k + 2]
    if rotation:
        return slerp(a, b, np.full(a.shape[:-1], t))
    return (1.0 - t) * a + t * b


def sample_one(static, keys: Keys | None, frame: float) -> list:
    """:func:`sample` of a vector property (not a rotation) at one frame, as a list of
    floats: the same arithmetic without arrays, for the one-frame paths (a numpy call costs
    more than the whole lerp)."""
    if keys is None:
        return [float(c) for c in static]
    values = keys.values
    if len(values) == 1:
        return values[0].tolist()
    i, t = bracket_at(keys.frames, keys.codes, frame)
    return [(1.0 - t) * a + t * b for a, b in zip(values[i].tolist(), values[i + 1].tolist())]


def sample_many(statics, keys_list, frames, rotation: bool = False) -> np.ndarray:
    """:func:`sample` for many properties at once, shape ``(N, F, D)``.

    Properties whose keys share the same key frames and interpolations (every joint of a BVH
    clip) are interpolated together; frames that fall on a key cost only a copy of its value.
    """
    frames = np.asarray(frames, dtype=float).reshape(-1)
    n = len(keys_list)
    dim = 4 if rotation else 3
    groups: dict = {}
    for i, keys in enumerate(keys_list):
        if keys is not None:
            codes = b"" if keys.codes is None else keys.codes.tobytes()
            groups.setdefault((len(keys), keys.frames.tobytes(), codes), []).append(i)
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
    """Keys that share their key frames and interpolations, sampled together: ``(M, F, D)``."""
    values = np.stack([k.values for k in keys_list])  # (M, K, D)
    return sample_stacked(keys_list[0].frames, values, keys_list[0].codes, frames, rotation)


def sample_stacked(key_frames, values, codes, frames, rotation: bool) -> np.ndarray:
    """Several properties keyed on the same frames with the same interpolations, at ``frames``.

    Parameters
    ----------
    key_frames : ndarray, shape (K,)
    values : ndarray, shape (M, K, D)
    codes : ndarray of int (K,) or None
        :attr:`Keys.codes` shared by the group (``None``: all linear).
    frames : ndarray, shape (F,)
    rotation : bool
        Slerp (quaternions) instead of lerp.

    Returns
    -------
    ndarray, shape (M, F, D)
    """
    if len(key_frames) == 1:
        return np.repeat(values, len(frames), axis=1)
    if len(frames) == 1:
        return _stacked_at(key_frames, values, codes, float(frames[0]), rotation)
    k, t = _bracket(key_frames, frames)
    t = shape_parameter(codes, k, t)
    out = np.take(values, k, axis=1)  # the key at or before each frame
    # Frames at or after the last key (a pose that holds) all get the last segment's end:
    # interpolated for the first of them, copied to the others.
    at_end = np.flatnonzero(frames >= key_frames[-1])
    if len(at_end) > 1:
        t = t.copy()
        t[at_end[1:]] = 0.0
    between = np.flatnonzero(t != 0)
    if len(between):
        a = out[:, between]
        b = np.take(values, k[between] + 1, axis=1)
        tb = np.broadcast_to(t[between], a.shape[:-1])
        if rotation:
            out[:, between] = slerp(a, b, tb)
        else:
            out[:, between] = (1.0 - tb[..., None]) * a + tb[..., None] * b
    if len(at_end) > 1:
        out[:, at_end[1:]] = out[:, at_end[:1]]
    return out


def floats(value) -> tuple:
    """``value`` (a key's or a static one, of any shape) as the model holds it: a flat tuple
    of floats."""
    return tuple(float(v) for v in np.asarray(value, dtype=float).reshape(-1))
