"""Where a camera stands to keep an animation in view: the bounding sphere of what moves, the
distance at which that sphere fits the field of view, and the smoothed path a following camera
centre takes.

Framing works on spheres because a sphere looks the same from every side: whatever the view
angle, a sphere that fits stays fitted when the user orbits. A following camera keeps its
distance and moves its centre along a smoothed path of the followed point (the root or the
selection); the sphere it fits holds every point of every frame *relative to that path*, so
every frame is in view while the centre follows, and the smoothing keeps a walk's bob and
sway out of the camera.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The fitted sphere's radius is this much larger than the bounding sphere: a margin on every
#: side of the view.
MARGIN = 1.12
#: Seconds of motion a following centre averages over (a walk's step is about one second).
SMOOTHING_SECONDS = 1.0
#: Smallest radius framed (a single point, a bone of zero length).
MIN_RADIUS = 0.05


def bounding_sphere(points) -> tuple[np.ndarray, float]:
    """Centre ``(3,)`` and radius of a sphere holding every finite point of ``points``.

    The sphere is the one around the axis-aligned box of the points (centre: the box's
    centre; radius: half its diagonal, at least :data:`MIN_RADIUS`). ``points`` has shape
    ``(..., 3)``; with no finite point the centre is the origin.
    """
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) == 0:
        return np.zeros(3), MIN_RADIUS
    lo, hi = points.min(axis=0), points.max(axis=0)
    return (lo + hi) / 2, max(float(np.linalg.norm(hi - lo)) / 2, MIN_RADIUS)


def half_fields_of_view(fov_degrees: float, aspect: float) -> tuple[float, float]:
    """Half the horizontal and half the vertical field of view, in radians.

    ``fov_degrees`` is the horizontal field of view (pyqtgraph's ``fov``); ``aspect`` is
    width over height: ``tan(half_vertical) = tan(half_horizontal) / aspect``.
    """
    half_h = np.radians(fov_degrees) / 2.0
    half_v = np.arctan(np.tan(half_h) / aspect) if aspect > 0 else half_h
    return float(half_h), float(half_v)


def framing_distance(
    radius: float, fov_degrees: float, aspect: float = 1.0, margin: float = MARGIN
) -> float:
    """Camera distance at which a sphere of ``margin × radius`` just fits both the horizontal
    and the vertical field of view.

    A sphere of radius ``r`` seen from distance ``d`` spans the half angle ``asin(r / d)``
    about the line of sight, so it fits when that angle is at most the narrower half field.

    Parameters
    ----------
    radius : float
        Of the bounding sphere (> 0).
    fov_degrees : float
        The horizontal field of view (pyqtgraph's ``fov``).
    aspect : float
        Width over height of the view; a narrow view (aspect < 1) needs more distance.
    margin : float
        How much larger than ``radius`` the fitted sphere is (>= 1).
    """
    half = min(half_fields_of_view(fov_degrees, aspect))
    return float(margin * radius / np.sin(half))


def smooth_path(path, width: float) -> np.ndarray:
    """A moving average of ``path`` ``(F, 3)`` over ``width`` samples.

    Beyond its ends the path is mirrored through its end points (``2 p[0] - p[k]``), so a
    steady walk stays exactly on its path up to the last frame instead of lagging behind it.
    ``width`` below 2 returns the path unchanged. Linear in ``F`` (a cumulative sum).
    """
    path = np.asarray(path, dtype=float).reshape(-1, 3)
    half = min(int(round(width / 2)), len(path) - 1)
    if half < 1:
        return path.copy()
    before = 2 * path[0] - path[half:0:-1]
    after = 2 * path[-1] - path[-2 : -half - 2 : -1]
    padded = np.concatenate([before, path, after])
    sums = np.concatenate([np.zeros((1, 3)), np.cumsum(padded, axis=0)])
    n = 2 * half + 1
    return (sums[n:] - sums[:-n]) / n


@dataclass(frozen=True)
class FollowPlan:
    """What a following camera does over a timeline.

    Attributes
    ----------
    frames : ndarray, shape (F,)
        The frames the plan was made from (increasing).
    path : ndarray, shape (F, 3)
        The smoothed world position of the followed point at each frame.
    lo, hi : ndarray, shape (3,)
        The box holding every point of every frame relative to the path.
    travel : float
        How far the followed point goes (the diagonal of its path's box).
    """

    frames: np.ndarray
    path: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    travel: float

    @property
    def offset(self) -> np.ndarray:
        """The centre of the framed sphere relative to the path, (3,)."""
        return bounding_sphere(np.stack([self.lo, self.hi]))[0]

    @property
    def radius(self) -> float:
        """Radius of the sphere that holds every point of every frame around the path."""
        return bounding_sphere(np.stack([self.lo, self.hi]))[1]

    def at(self, frames) -> np.ndarray:
        """The path at ``frames`` (any shape ``S``), linear between the plan's frames:
        shape ``S + (3,)``."""
        frames = np.asarray(frames, dtype=float)
        flat = frames.reshape(-1)
        out = np.stack([np.interp(flat, self.frames, self.path[:, k]) for k in range(3)], -1)
        return out.reshape(frames.shape + (3,))

    def holding(self, relative) -> FollowPlan:
        """The plan with its box grown to hold ``relative`` too: points ``(..., 3)`` already
        taken relative to the path (a mesh at a few frames, the handles at this frame)."""
        relative = np.asarray(relative, dtype=float).reshape(-1, 3)
        relative = relative[np.all(np.isfinite(relative), axis=1)]
        if len(relative) == 0:
            return self
        lo = np.minimum(self.lo, relative.min(axis=0))
        hi = np.maximum(self.hi, relative.max(axis=0))
        return FollowPlan(self.frames, self.path, lo, hi, self.travel)

    @property
    def worth_following(self) -> bool:
        """Whether the followed point travels further than the framed size (the diameter of
        the sphere a following camera fits): then following shows the motion larger than
        framing all of it at once."""
        return self.travel > 2 * self.radius


def follow_plan(frames, points, followed, fps: float) -> FollowPlan:
    """Plan a camera centre that follows ``followed`` over ``frames``.

    Parameters
    ----------
    frames : array_like, shape (F,)
        Increasing frame numbers (all of a timeline, or a sample of it).
    points : array_like, shape (F, N, 3)
        World points to keep in view at each frame (joints, mesh vertices).
    followed : array_like, shape (F, 3)
        The followed point at each frame (the root, the selection's centre), finite.
    fps : float
        Frames per second: the path averages over :data:`SMOOTHING_SECONDS`.
    """
    frames = np.asarray(frames, dtype=float).reshape(-1)
    points = np.asarray(points, dtype=float).reshape(len(frames), -1, 3)
    followed = np.asarray(followed, dtype=float).reshape(len(frames), 3)
    step = float(np.median(np.diff(frames))) if len(frames) > 1 else 1.0
    path = smooth_path(followed, SMOOTHING_SECONDS * fps / max(step, 1e-9))
    travel = float(np.linalg.norm(np.ptp(followed, axis=0))) if len(followed) else 0.0
    empty = FollowPlan(frames, path, np.full(3, np.inf), np.full(3, -np.inf), travel)
    plan = empty.holding(points - path[:, None, :])
    if not np.all(plan.lo <= plan.hi):  # nothing to hold: a point at the path
        plan = FollowPlan(frames, path, np.zeros(3), np.zeros(3), travel)
    return plan


def framed_ends(scene) -> tuple[np.ndarray, np.ndarray]:
    """Which bones' heads and tails framing holds, two ``(B,)`` bool masks: every one, except,
    in a scene with skinned meshes, those of a leaf bone that moves no vertex (an exporter's
    end marker, which may sit metres off: a file's ``_end`` bones), and a parent's tail
    where it is such a leaf's head. The meshes show the body; a marker never decides the
    framing."""
    from app.scene.formats.leaf_bones import weighted_bones

    count = len(scene.bones)
    heads, tails = np.ones(count, bool), np.ones(count, bool)
    if not scene.meshes:
        return heads, tails
    weighted = weighted_bones(scene)
    first_child: dict = {}
    for i, b in enumerate(scene.bones):
        if b.parent is not None:
            first_child.setdefault(b.parent, i)
    for i, b in enumerate(scene.bones):
        if b.name not in first_child and b.name not in weighted:
            heads[i] = tails[i] = False
    for i, b in enumerate(scene.bones):
        child = first_child.get(b.name)
        if b.tail is None and child is not None and not heads[child]:
            tails[i] = False
    return heads, tails
