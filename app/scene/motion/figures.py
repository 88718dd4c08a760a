"""The figures that say how much a clip's feet slide, and how far a cleanup moved it.

- **Skating ratio** (Karunratanakul et al. 2023, *Guided Motion Diffusion*,
  ``calculate_skating_ratio`` in ``data_loaders/humanml/utils/metrics.py`` of
  github.com/korrawe/guided-motion-diffusion), reproduced step for step: the toe joints'
  horizontal speed between adjacent frames (``(F - 1, 2)``) and its 5-frame moving average
  (zero-padded at both ends, as ``scipy.ndimage.uniform_filter1d(mode="constant")``); a toe
  skates over a frame pair when it is below 5 cm on both frames and faster than 0.5 m/s
  both on that pair and on average; the ratio counts the pairs where either toe skates, over
  ``F - 1``. Heights are taken above the floor, speeds at the clip's own frame rate (GMD's
  HumanML3D clips are 20 fps with the floor at 0), and 5 cm and 0.5 m/s are scaled from a
  person 1.7 m tall like every threshold here.
- **Longest slide**: over every contact (a point, a run of frames), the farthest the point
  gets horizontally from where it was on the contact's first frame.
- **Mean joint displacement**: the mean over frames and joints of the distance between each
  joint (bone head) of two versions of a clip.
- **Acceleration**: each joint's 99th-percentile acceleration (second differences times
  ``fps**2``), to say that a cleanup made nothing pop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.motion.contacts import intervals_of
from app.scene.motion.feet import UP, units_per_metre

#: GMD's thresholds (metres, metres per second) and window (frames).
SKATE_HEIGHT_M = 0.05
SKATE_SPEED_M = 0.5
SKATE_WINDOW = 5


def _moving_average(values: np.ndarray, size: int) -> np.ndarray:
    """Centred moving average along axis 0, zeros beyond the ends (``(T, ...)``)."""
    padded = np.concatenate(
        [
            np.zeros((size // 2,) + values.shape[1:]),
            values,
            np.zeros((size - 1 - size // 2,) + values.shape[1:]),
        ]
    )
    sums = np.cumsum(np.concatenate([np.zeros((1,) + values.shape[1:]), padded]), axis=0)
    return (sums[size:] - sums[:-size]) / size


def skating_ratio(toes: np.ndarray, floor: float, fps: float, height: float) -> float:
    """GMD's skating ratio of toe joint paths ``(F, 2, 3)`` (module docstring)."""
    toes = np.asarray(toes, dtype=float)
    if len(toes) < 2:
        return 0.0
    per_metre = units_per_metre(height)
    horizontal = toes - (toes @ UP)[..., None] * UP
    plane_speed = np.linalg.norm(np.diff(horizontal, axis=0), axis=-1) * fps  # (F-1, 2)
    speed_average = _moving_average(plane_speed, SKATE_WINDOW)
    low = (toes @ UP) - floor < SKATE_HEIGHT_M * per_metre
    contact = low[:-1] & low[1:]
    fast = SKATE_SPEED_M * per_metre
    skating = contact & (plane_speed > fast) & (speed_average > fast)
    return float(np.count_nonzero(skating.any(axis=1)) / skating.shape[0])


def contact_slides(paths: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The slide of every contact: paths ``(F, N, 3)`` and their contact mask ``(F, N)``;
    returns ``(K,)``, one per run of ``True`` (columns in order, runs in time)."""
    out = []
    horizontal = paths - (paths @ UP)[..., None] * UP
    for column in range(mask.shape[1]):
        runs = intervals_of(mask[:, column])
        if not len(runs):
            continue
        first = np.zeros(len(mask), dtype=np.int64)
        first[runs[:, 0]] = runs[:, 0]
        first = np.maximum.accumulate(first)
        moved = np.linalg.norm(horizontal[:, column] - horizontal[first, column], axis=-1)
        moved = np.where(mask[:, column], moved, 0.0)
        out.append(np.maximum.reduceat(moved, runs[:, 0]))
        # reduceat runs to the next start: the frames between runs are 0, which is no max
    return np.concatenate(out) if out else np.zeros(0)


def mean_displacement(heads_a: np.ndarray, heads_b: np.ndarray) -> float:
    """Mean over frames and joints of ``|a - b|`` (``(F, J, 3)`` each)."""
    return float(np.linalg.norm(np.asarray(heads_a) - np.asarray(heads_b), axis=-1).mean())


def acceleration_p99(heads: np.ndarray, fps: float) -> np.ndarray:
    """Each joint's 99th-percentile acceleration, units per second squared, ``(J,)``."""
    if len(heads) < 3:
        return np.zeros(heads.shape[1])
    accel = np.linalg.norm(np.diff(heads, n=2, axis=0), axis=-1) * fps**2
    return np.percentile(accel, 99, axis=0)


@dataclass(frozen=True)
class Figures:
    """The figures of one version of a clip (lengths in scene units).

    Attributes
    ----------
    skating_ratio : float
        GMD's, in [0, 1].
    longest_slide : float
        Over the contacts.
    mean_displacement : float
        From the original clip (0 for the original itself).
    units_per_metre : float
        How the lengths read in metres of a 1.7 m person.
    """

    skating_ratio: float
    longest_slide: float
    mean_displacement: float
    units_per_metre: float

    def row(self) -> tuple[str, str, str]:
        """The three figures as words: ``("12.3 %", "27.0 mm", "0.40 cm")``."""
        metres = 1.0 / self.units_per_metre
        return (
            f"{100 * self.skating_ratio:.1f} %",
            f"{self.longest_slide * metres * 1000:.1f} mm",
            f"{self.mean_displacement * metres * 100:.2f} cm",
        )


def figures_of(heads, toes, paths, mask, original_heads, floor, fps, height) -> Figures:
    """:class:`Figures` of a version of a clip.

    Parameters
    ----------
    heads, original_heads : ndarray, shape (F, J, 3)
        Its joints and the original's (the same joints).
    toes : ndarray, shape (F, 2, 3)
        Its toe joints (one per foot; a one-legged clip repeats its foot).
    paths : ndarray, shape (F, N, 3)
        Its contact points, with their contact ``mask`` ``(F, N)``.
    """
    slides = contact_slides(paths, mask)
    return Figures(
        skating_ratio(toes, floor, fps, height),
        float(slides.max()) if len(slides) else 0.0,
        mean_displacement(heads, original_heads),
        units_per_metre(height),
    )
