"""Motion trails and onion skins: where points of the skeleton go around the current frame.

Animators judge arcs and spacing from the path a point traces over time (Blender's motion
paths, Maya's motion trails). The points traced here are what the constraints move: a
multi-parent body's head, a points-at bone's tail and a FABRIK chain's tip, plus the tails
of any bones the user picks. Paths are read from a whole-timeline bake (the editor's
cache), so a trail costs a slice, not an evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.rig.model import Scene


@dataclass(frozen=True)
class TrailPoint:
    """A point whose path is traced.

    Attributes
    ----------
    label : str
    bone : int
        Index of the bone in the scene.
    at : {"head", "tail"}
    """

    label: str
    bone: int
    at: str


def trail_points(scene: Scene, bones=()) -> list[TrailPoint]:
    """What the constraints move (body heads, chain and aim tips), then the tails of
    ``bones`` (names; the head of a root bone), without repeats."""
    out: list[TrailPoint] = []
    for c in scene.constraints:
        bone, at = c.trail_point()
        words = "head" if at == "head" else "tip"
        out.append(TrailPoint(f"{bone} {words}", scene.bone_index(bone), at))
    for name in bones:  # a root's head is where the whole body goes (a mocap hip)
        root = scene.bone(name).parent is None
        out.append(
            TrailPoint(
                f"{name} {'head' if root else 'tip'}",
                scene.bone_index(name),
                "head" if root else "tail",
            )
        )
    seen, unique = set(), []
    for p in out:
        if (p.bone, p.at) not in seen:
            seen.add((p.bone, p.at))
            unique.append(p)
    return unique


def window(frame: float, before: int, after: int, frame_start: int, frame_end: int) -> np.ndarray:
    """Whole frames from ``before`` frames before ``frame`` to ``after`` after it, within the
    timeline, ``(W,)``; empty when neither reaches a frame of it."""
    lo = max(int(np.ceil(frame - before)), frame_start)
    hi = min(int(np.floor(frame + after)), frame_end)
    return np.arange(lo, hi + 1, dtype=float) if hi >= lo else np.zeros(0)


def ghost_frames(
    frame: float, before: int, after: int, every: int, frame_start: int, frame_end: int
) -> np.ndarray:
    """Onion-skin frames: every ``every`` frames out from ``frame`` within the window,
    the current frame itself left out (the solid pose is there), ``(G,)``."""
    if every <= 0:
        return np.zeros(0)
    back = frame - every * np.arange(1, before // every + 1)
    ahead = frame + every * np.arange(1, after // every + 1)
    out = np.concatenate([back[::-1], ahead])
    return out[(out >= frame_start) & (out <= frame_end)]


def paths(points: list[TrailPoint], heads, tails, timeline_frames, frames) -> np.ndarray:
    """World positions of ``points`` at ``frames``, read from a bake of ``timeline_frames``.

    Parameters
    ----------
    points : list of TrailPoint
    heads, tails : ndarray, shape (F, B, 3)
        The bake's heads and tails.
    timeline_frames : ndarray, shape (F,)
        Evenly spaced whole frames of the bake (the timeline).
    frames : ndarray, shape (W,)
        Whole frames among them.

    Returns
    -------
    ndarray, shape (K, W, 3)
        One path per point.
    """
    frames = np.asarray(frames, dtype=float)
    if len(points) == 0 or len(frames) == 0:
        return np.zeros((len(points), len(frames), 3))
    rows = np.rint(frames - timeline_frames[0]).astype(np.intp)
    bones = np.array([p.bone for p in points])
    on_tail = np.array([p.at == "tail" for p in points])
    source = np.where(on_tail[None, :, None], tails[rows][:, bones], heads[rows][:, bones])
    return np.swapaxes(source, 0, 1)
