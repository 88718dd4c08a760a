"""The feet of a clip: each foot's heel, ball and toe, the character's height, the floor.

A clip knows nothing of metres, so every threshold of the plant is scaled from a person
1.7 m tall (:data:`PERSON`): :func:`character_height` reads the character's height from its
legs, thigh and calf together being 0.491 of a standing height (Winter, *Biomechanics and
Motor Control of Human Movement*, 4th ed., table 4.1: thigh 0.245 H, leg 0.246 H), which
does not depend on the pose a clip starts in nor on where its up axis was at rest.

The points (all in the foot bone's own frame, so the foot carries them):

- **with a skinned mesh** bound to the foot, where the foot-roll rig puts its pivots
  (:func:`app.scene.builders.foot_roll.sole_points`: the sole's back end, under the toes'
  joint, its front end, each as low as the vertices there), taken at ``frame_start``;
- **on a skeleton alone** (contract, issue 24): the ball is the toe joint (the toes' head,
  the foot's tail); the heel is the point under the ankle at the toe joint's height *where
  the foot is flattest*, the frame at which ankle and toe joint are lowest together (mid
  stance: at heel strike the toe joint is up, at heel off the ankle); the toe is the toes'
  tail at that frame, or a third of the foot beyond the ball (level) when the toes have no
  length or there are none.

The floor (:func:`detect_floor`) is the height the lowest point of the feet rests at: the
median of each frame's lowest point over the frames where that point is slow, which a
mocap glitch of a few frames, a jump or a crouch does not move.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.builders.leg_names import Leg
from app.scene.math import quat
from app.scene.math.transforms import rotation_from_matrix

#: The editor's up axis (+Y, docs/scene-format.md).
UP = np.array([0.0, 1.0, 0.0])
#: Metres: the person every threshold is scaled from.
PERSON = 1.7
#: Thigh plus calf over standing height (Winter, table 4.1).
LEG_OF_HEIGHT = 0.491
#: The contact points of a foot, in this order everywhere.
POINTS = ("heel", "ball", "toe")
HEEL, BALL, TOE = 0, 1, 2


@dataclass(frozen=True)
class Foot:
    """One foot of the clip.

    Attributes
    ----------
    leg : Leg
        Thigh, calf, foot (and toes) bone names.
    points_in_foot : ndarray, shape (3, 3)
        Heel, ball and toe (:data:`POINTS`) in the foot bone's frame.
    points_from : str
        ``"mesh"`` or ``"bones"``: what they were placed from.
    """

    leg: Leg
    points_in_foot: np.ndarray
    points_from: str


@dataclass(frozen=True)
class FootMotion:
    """One foot's original motion over ``F`` frames (rigid frames: scale divided out).

    Attributes
    ----------
    rotation : ndarray, shape (F, 4)
        The foot's world rotation.
    head : ndarray, shape (F, 3)
        The foot's head (the ankle).
    points : ndarray, shape (3, 3)
        Heel and ball in the foot's frame; the toe tip in the toes' frame (in the foot's
        when ``toes_rotation`` is ``None``).
    toes_head : ndarray, shape (3,) or None
        The toes' head (the ball joint) in the foot's frame.
    toes_rotation : ndarray, shape (F, 4) or None
        The toes' rotation relative to the foot.
    """

    rotation: np.ndarray
    head: np.ndarray
    points: np.ndarray
    toes_head: np.ndarray | None = None
    toes_rotation: np.ndarray | None = None

    @property
    def has_toes(self) -> bool:
        return self.toes_rotation is not None

    def toe_in_foot(self, toes_rotation) -> np.ndarray:
        """The toe tip in the foot's frame for toes turned by ``toes_rotation`` ``(..., 4)``."""
        if not self.has_toes:
            return np.broadcast_to(self.points[TOE], np.shape(toes_rotation)[:-1] + (3,))
        return self.toes_head + quat.rotate(toes_rotation, self.points[TOE])

    def point_paths(self) -> np.ndarray:
        """World paths of heel, ball and toe tip, ``(F, 3, 3)``."""
        toe = (
            self.toe_in_foot(self.toes_rotation)
            if self.has_toes
            else np.broadcast_to(self.points[TOE], self.head.shape)
        )
        in_foot = np.stack(
            [
                np.broadcast_to(self.points[HEEL], self.head.shape),
                np.broadcast_to(self.points[BALL], self.head.shape),
                toe,
            ],
            axis=1,
        )
        return self.head[:, None] + quat.rotate(self.rotation[:, None], in_foot)


def units_per_metre(height: float) -> float:
    """Scene units per metre of a :data:`PERSON`-tall person for a character ``height``
    units tall."""
    return float(height) / PERSON


def character_height(heads: np.ndarray, index: dict, legs) -> float:
    """The standing height in scene units of the character whose ``legs`` these are.

    Parameters
    ----------
    heads : ndarray, shape (F, B, 3)
        World positions of the bones' heads (bone lengths are read at the first frame).
    index : dict
        Bone name -> column of ``heads``.
    legs : sequence of Leg
    """
    lengths = []
    for leg in legs:
        hip, knee, ankle = (heads[0, index[b]] for b in (leg.thigh, leg.calf, leg.foot))
        lengths.append(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
    height = float(np.mean(lengths)) / LEG_OF_HEIGHT
    if not np.isfinite(height) or height <= 0:
        raise ValueError("the legs have no length: cannot tell the character's height")
    return height


def flattest_frame(ankle: np.ndarray, ball: np.ndarray) -> int:
    """Index of the frame where ankle and toe joint (``(F, 3)`` each) are lowest together."""
    return int(np.argmin(ankle @ UP + ball @ UP))


def rigid(bone_to_world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotations ``(..., 4)`` (polar parts, scale divided out) and heads ``(..., 3)``."""
    return rotation_from_matrix(bone_to_world), np.asarray(bone_to_world)[..., :3, 3]


def foot_motion(foot_to_world, toes_to_world, toes_tail, height: float, sole=None) -> FootMotion:
    """One foot's original motion and its contact points (module docstring).

    Parameters
    ----------
    foot_to_world : ndarray, shape (F, 4, 4)
    toes_to_world : ndarray, shape (F, 4, 4) or None
        The toes bone, when the foot has one.
    toes_tail : ndarray, shape (F, 3) or None
        The toes' tail (world), or for a foot without toes the foot's tail.
    height : float
        The character's height: toes shorter than 1e-4 of it count as none.
    sole : ndarray, shape (3, 3) or None
        Heel, ball and toe (world) at the first frame, found on a skinned mesh; ``None``
        places them from the bones.
    """
    rotation, head = rigid(foot_to_world)
    toes = (
        toes_to_world is not None
        and np.linalg.norm(toes_tail[0] - toes_to_world[0, :3, 3]) > 1e-4 * height
    )
    ball = toes_to_world[:, :3, 3] if toes_to_world is not None else toes_tail
    if sole is None:
        f = flattest_frame(head, ball)
        a, b = head[f], ball[f]
        heel = a + ((b - a) @ UP) * UP  # under the ankle, at the toe joint's height
        level = (b - a) - ((b - a) @ UP) * UP
        tip = toes_tail[f] if toes else b + level / 3.0
        world = np.stack([heel, b, tip])
    else:
        f, world = 0, np.asarray(sole, dtype=float)
    in_foot = quat.rotate(quat.conj(rotation[f]), world - head[f])
    if not toes:
        return FootMotion(rotation, head, in_foot)
    toes_rotation, toes_head = rigid(toes_to_world)
    local = quat.mul(quat.conj(rotation), toes_rotation)
    toes_head_in_foot = quat.rotate(quat.conj(rotation[f]), toes_head[f] - head[f])
    tip_in_toes = quat.rotate(quat.conj(toes_rotation[f]), world[2] - toes_head[f])
    points = np.stack([in_foot[0], in_foot[1], tip_in_toes])
    return FootMotion(rotation, head, points, toes_head_in_foot, local)


def point_paths(foot_to_world: np.ndarray, points_in_foot: np.ndarray) -> np.ndarray:
    """World paths ``(F, P, 3)`` of points ``(P, 3)`` carried by a foot ``(F, 4, 4)``."""
    return (
        np.einsum("fij,pj->fpi", foot_to_world[:, :3, :3], points_in_foot)
        + foot_to_world[:, None, :3, 3]
    )


def speeds(paths: np.ndarray, fps: float) -> np.ndarray:
    """Speed (units per second) of each path ``(F, ...)``: central differences, one-sided
    at the ends (0 for a single frame)."""
    if len(paths) < 2:
        return np.zeros(paths.shape[:-1])
    velocity = np.gradient(paths, axis=0) * fps
    return np.linalg.norm(velocity, axis=-1)


def detect_floor(paths: np.ndarray, fps: float, slow: float) -> float:
    """The floor's height from the feet's points ``(F, ..., 3)`` (module docstring).

    ``slow`` is the speed (units per second) under which a point counts as resting.
    """
    flat = paths.reshape(len(paths), -1, 3)
    heights = flat @ UP
    lowest = np.argmin(heights, axis=1)
    frames = np.arange(len(flat))
    low = heights[frames, lowest]
    resting = speeds(flat, fps)[frames, lowest] < slow
    return float(np.median(low[resting] if np.count_nonzero(resting) else low))
