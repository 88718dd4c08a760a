"""When each point of a foot touches the floor: detection, and runs of frames as intervals.

A point is in contact on a frame when it is near the floor and slow (issue 24): within
``near`` of the floor and slower than ``speed`` there, for at least ``duration`` seconds; a
gap shorter than ``duration`` between two contacts of the same point is closed (a frame or
two of mocap noise must not lift a planted heel and put it down elsewhere). Defaults are
scaled from a person 1.7 m tall: 3 cm, 0.3 m/s, 50 ms.

Two refinements keep a foot that should stand from being let go while it slides:

- **Hysteresis.** A contact, once begun (near and slower than ``speed``), lasts while the
  point stays near and slower than ``release`` (1.5 times ``speed``): a standing foot
  whose speed wobbles about the threshold is one contact, not several short ones, each
  of which the plant would have to let go of and catch up with while the foot is still on
  the floor.
- **The clip's own standing speed** (:func:`standing_speed`). A foot that stands slides
  at a few centimetres a second in motion capture, but at 0.3 to 0.8 m/s in motion made by
  networks, where no contact would begin under 0.3 m/s. Unless a speed is given, the
  contact speed is twice the clip's standing speed (the median over frames of its slower
  foot's slowest point: at any moment one foot usually stands), at least 0.3 m/s and at most
  1 m/s (no foot stands at walking pace). Motion capture keeps 0.3 m/s.

A contact is an interval of frames ``[first, last]`` (both included, indices from the first
frame of the clip); a point's contacts are a sorted list of disjoint intervals, and
:func:`mask_of` / :func:`intervals_of` turn them into a ``(F,)`` mask and back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.motion.feet import UP, speeds, units_per_metre

#: Metres, metres per second and seconds for a 1.7 m person (issue 24).
NEAR_M = 0.03
SPEED_M = 0.3
DURATION_S = 0.05
#: A contact lasts while the point is slower than this many times the contact speed.
RELEASE = 1.5
#: The contact speed is this many times the clip's standing speed, within the bounds
#: (metres per second for a 1.7 m person).
STANDING_FACTOR = 2.0
SPEED_MAX_M = 1.0


@dataclass(frozen=True)
class Thresholds:
    """Contact thresholds in scene units.

    Attributes
    ----------
    near : float
        A point within this height above the floor (or anywhere below it) is near it.
    speed : float
        Units per second under which a point is slow enough for a contact to begin.
    frames : int
        Fewest frames a contact lasts, and fewest a gap between two contacts lasts.
    release : float
        Units per second under which a begun contact goes on (default ``RELEASE * speed``).
    """

    near: float
    speed: float
    frames: int
    release: float = 0.0

    def __post_init__(self):
        if self.release <= 0:
            object.__setattr__(self, "release", RELEASE * self.speed)

    @classmethod
    def scaled(cls, height: float, fps: float, speed: float | None = None) -> Thresholds:
        """The defaults for a character ``height`` units tall at ``fps``; ``speed`` (metres
        per second for a 1.7 m person) replaces 0.3 m/s."""
        per_metre = units_per_metre(height)
        frames = max(1, int(np.ceil(DURATION_S * fps - 1e-9)))
        return cls(
            NEAR_M * per_metre, (SPEED_M if speed is None else float(speed)) * per_metre, frames
        )


def standing_speed(paths: np.ndarray, fps: float) -> float:
    """How fast a standing foot moves in this clip: the median over frames of the slower
    foot's slowest point (``paths`` ``(F, L, P, 3)``, units per second)."""
    if len(paths) < 2:
        return 0.0
    return float(np.median(speeds(paths, fps).min(axis=(1, 2))))


def contact_speed(paths: np.ndarray, fps: float, height: float) -> float:
    """The default contact speed in metres per second for a 1.7 m person (module
    docstring): twice the clip's :func:`standing_speed`, within 0.3 and 1 m/s."""
    standing = standing_speed(paths, fps) / units_per_metre(height)
    return float(min(SPEED_MAX_M, max(SPEED_M, STANDING_FACTOR * standing)))


def intervals_of(mask: np.ndarray) -> np.ndarray:
    """The runs of ``True`` in a ``(F,)`` mask as ``(K, 2)`` inclusive ``[first, last]``."""
    m = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(m[1:] != m[:-1])
    return np.stack([edges[0::2], edges[1::2] - 1], axis=1) if len(edges) else np.zeros((0, 2), int)


def mask_of(intervals, count: int) -> np.ndarray:
    """A ``(count,)`` mask true on the frames of ``intervals`` (``(K, 2)`` inclusive)."""
    steps = np.zeros(count + 1, dtype=np.int64)
    iv = np.asarray(intervals, dtype=np.int64).reshape(-1, 2)
    iv = iv[(iv[:, 1] >= 0) & (iv[:, 0] < count) & (iv[:, 0] <= iv[:, 1])]
    np.add.at(steps, np.clip(iv[:, 0], 0, count), 1)
    np.add.at(steps, np.clip(iv[:, 1], -1, count - 1) + 1, -1)
    return np.cumsum(steps[:-1]) > 0


def cleaned(intervals: np.ndarray, frames: int) -> np.ndarray:
    """``intervals`` ``(K, 2)`` with the gaps shorter than ``frames`` between them closed,
    then those shorter than ``frames`` dropped."""
    intervals = np.asarray(intervals, dtype=np.int64).reshape(-1, 2)
    if len(intervals) == 0:
        return intervals
    gaps = intervals[1:, 0] - intervals[:-1, 1] - 1
    keep_start = np.concatenate([[True], gaps >= frames])
    keep_end = np.concatenate([gaps >= frames, [True]])
    merged = np.stack([intervals[keep_start, 0], intervals[keep_end, 1]], axis=1)
    return merged[merged[:, 1] - merged[:, 0] + 1 >= frames]


def grown(core: np.ndarray, loose: np.ndarray) -> np.ndarray:
    """The runs of ``loose`` ``(F,)`` that hold a frame of ``core`` (hysteresis: a contact
    begins where ``core`` holds and lasts while ``loose`` does)."""
    loose = np.asarray(loose, dtype=bool) | np.asarray(core, dtype=bool)
    starts = np.concatenate([[loose[0]], loose[1:] & ~loose[:-1]])
    label = np.cumsum(starts) - 1  # the run each frame is in (meaningful where loose)
    if not np.any(loose):
        return loose
    hit = np.zeros(int(label[-1]) + 1, dtype=bool)
    hit[label[core & loose]] = True
    return loose & hit[np.maximum(label, 0)]


def detect(paths: np.ndarray, floor: float, fps: float, thresholds: Thresholds) -> np.ndarray:
    """Contact mask ``(F, ...)`` of point paths ``(F, ..., 3)``: near the floor, slow (with
    hysteresis), and lasting (module docstring)."""
    shape = paths.shape[:-1]
    near = (paths @ UP) - floor < thresholds.near
    speed = speeds(paths, fps)
    begin = (near & (speed < thresholds.speed)).reshape(len(paths), -1)
    last = (near & (speed < thresholds.release)).reshape(len(paths), -1)
    out = np.zeros_like(begin)
    for column in range(begin.shape[1]):  # a handful of points, each vectorized over frames
        mask = grown(begin[:, column], last[:, column])
        out[:, column] = mask_of(cleaned(intervals_of(mask), thresholds.frames), len(mask))
    return out.reshape(shape)
