"""FK → IK snap-and-bake for the reverse-foot rig: the control's and the knee pole's keys
that make the rigged leg do what its motion did (what Rigify's and Maya's FK → IK snap with
a bake do; contract §F4, "Built on a leg with motion").

Every frame at once (numpy over the frames, no loop per frame): the control sits at the
ankle, turned as the foot has turned since ``frame_start`` (``control = foot · offset⁻¹``,
``offset`` the foot's world rotation at ``frame_start``, which the roll body carries as its
rest relative to the control: so the control is world-aligned at ``frame_start`` and the
body lands on the foot on every frame); the pole sits in the plane of hip, knee and ankle,
on the side the knee bends, a thigh's length from the knee. The leg's FABRIK then puts the
knee back where
it was (a two-bone chain with a pole has one solution, bent towards the pole), the foot's
copy rotation gives it back its rotation, and both IK bones keep their animated twist (the
shortest arc from their own pose, which already points where it must).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.math import quat
from app.scene.math.transforms import inverse, rotation_from_matrix

#: Where the leg is nearly straight the knee's side is nearly free: the pole direction is
#: ``bend + POLE_BLEND * leg_length * carried``, the knee's offset from the hip-ankle line
#: plus this much of the rest direction carried by the thigh. The knee lands within
#: ``2 * POLE_BLEND * leg_length`` of where it was (the worst case: a knee bent less than
#: that, towards the other side), and the pole does not swing wildly while the leg passes
#: through straight.
POLE_BLEND = 2.5e-5
#: Where a leg is nearly straight (hip to ankle from :data:`STRAIGHT_FROM` of its length,
#: fully at :data:`STRAIGHT_AT`) a pole keyed with ``straight_side`` takes the knee's side
#: from the thigh (``carried``) rather than from the knee's tiny, noisy offset.
STRAIGHT_FROM = 0.97
STRAIGHT_AT = 0.995
#: A leg whose control and pole keys stay within this share of the character's size of
#: their values at ``frame_start`` (and turn less than this many radians) does not move: it
#: gets one key.
STILL = 1e-9


@dataclass(frozen=True)
class LegKeys:
    """The keys of one leg's control and pole, in their parent's frame.

    Attributes
    ----------
    frames : ndarray, shape (K,)
    control_translation : ndarray, shape (K, 3)
    control_rotation : ndarray, shape (K, 4)
        ``[w, x, y, z]``, consecutive keys on the same hemisphere.
    pole_translation : ndarray, shape (K, 3)
    control_scale : ndarray, shape (3,)
        The control's static scale (its parent's inverse scale: 1 under an unscaled parent).
    body_rotation : ndarray, shape (4,)
        The roll body's rest rotation in the control's frame: the foot's world rotation at
        ``frames[0]`` (the control's world rotation there is the identity).
    """

    frames: np.ndarray
    control_translation: np.ndarray
    control_rotation: np.ndarray
    pole_translation: np.ndarray
    control_scale: np.ndarray
    body_rotation: np.ndarray


def _units(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``v`` (F, 3) normalized, and its lengths (F,) (a zero vector stays zero)."""
    n = np.linalg.norm(v, axis=-1)
    return v / np.where(n > 0, n, 1.0)[:, None], n


def _across(v: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """The part of ``v`` (F, 3) across the unit ``axis`` (F, 3)."""
    return v - np.einsum("fi,fi->f", v, axis)[:, None] * axis


def hemisphere_continuous(q: np.ndarray) -> np.ndarray:
    """Quaternions ``(F, 4)`` with signs flipped so that each lies on the hemisphere of the one
    before (the same rotations; curves without jumps)."""
    if len(q) < 2:
        return q.copy()
    flips = np.einsum("fi,fi->f", q[1:], q[:-1]) < 0
    sign = np.concatenate([[1.0], np.where(np.cumprod(np.where(flips, -1.0, 1.0)) < 0, -1.0, 1.0)])
    return q * sign[:, None]


def leg_keys(
    bone_to_world: np.ndarray,
    frames: np.ndarray,
    thigh: int,
    calf: int,
    foot: int,
    parent: int | None,
    knee_forward: np.ndarray,
    size: float,
    straight_side: float = 0.0,
) -> LegKeys:
    """The control's and pole's keys from a leg's motion.

    Parameters
    ----------
    bone_to_world : ndarray, shape (F, B, 4, 4)
        The scene's pose at ``frames`` (the first ``frame_start``).
    frames : ndarray, shape (F,)
    thigh, calf, foot : int
        The leg's bone indices.
    parent : int or None
        The index of the control's and pole's parent bone; ``None`` at the top level.
    knee_forward : ndarray, shape (3,)
        The unit direction the knee bends at ``frame_start`` (world), carried by the thigh to
        settle the pole where the leg is straight.
    size : float
        The character's size (its extent at ``frame_start``): what "does not move" is
        measured against.
    straight_side : float
        How much of the carried rest direction (times the leg's length) the pole adds
        where the leg is nearly straight (:data:`STRAIGHT_FROM`); 0, the build's, keys the
        knee's side as each frame has it, exact to the motion. Planting passes more: its legs
        bend where the original's were straight, and there the original knee's side is the
        noise of a tiny offset, which would swing the bent knee from frame to frame.

    Returns
    -------
    LegKeys
        One key per frame, or one key at ``frames[0]`` when nothing moves.
    """
    thigh_to_world = bone_to_world[:, thigh]
    hip, knee = thigh_to_world[:, :3, 3], bone_to_world[:, calf, :3, 3]
    foot_to_world = bone_to_world[:, foot]
    ankle = foot_to_world[:, :3, 3]
    if parent is None:
        world_to_parent = np.broadcast_to(np.eye(4), foot_to_world.shape)
    else:
        world_to_parent = inverse(bone_to_world[:, parent])

    # the control: at the ankle, turned as the foot has turned since frames[0] (world-aligned
    # there), so that the body, turned by the foot's rest rotation on it, is the foot
    foot_rotation = rotation_from_matrix(foot_to_world)
    foot_matrix = quat.matrix_from_quat(foot_rotation)
    control_to_world = np.zeros_like(foot_to_world)
    control_to_world[:, :3, :3] = foot_matrix @ foot_matrix[0].T
    control_to_world[:, :3, 3] = ankle
    control_to_world[:, 3, 3] = 1.0
    control_to_parent = world_to_parent @ control_to_world
    translation = control_to_parent[:, :3, 3]
    rotation = hemisphere_continuous(rotation_from_matrix(control_to_parent))
    scale = np.linalg.norm(control_to_parent[0, :3, :3], axis=0)

    # the pole: on the side the knee bends, settled by the rest direction where it is straight
    axis, _ = _units(ankle - hip)
    bend = _across(knee - hip, axis)
    thigh_rotation = quat.matrix_from_quat(rotation_from_matrix(thigh_to_world))
    carried = thigh_rotation @ (thigh_rotation[0].T @ np.asarray(knee_forward, dtype=float))
    carried, _ = _units(_across(carried, axis))
    thigh_length = float(np.linalg.norm(knee[0] - hip[0]))
    leg_length = thigh_length + float(np.linalg.norm(ankle[0] - knee[0]))
    side = np.full(len(hip), POLE_BLEND)
    if straight_side > 0:
        x = (np.linalg.norm(ankle - hip, axis=1) / leg_length - STRAIGHT_FROM) / (
            STRAIGHT_AT - STRAIGHT_FROM
        )
        x = np.clip(x, 0.0, 1.0)
        side = side + straight_side * x * x * (3 - 2 * x)
    direction, length = _units(bend + (side * leg_length)[:, None] * carried)
    direction = np.where((length > 0)[:, None], direction, carried)
    pole = knee + thigh_length * direction
    pole = np.einsum("fij,fj->fi", world_to_parent[:, :3, :3], pole) + world_to_parent[:, :3, 3]

    still = STILL * max(size, 1e-300)
    moves = (
        np.abs(translation - translation[0]).max() > still
        or np.abs(pole - pole[0]).max() > still
        or float(quat.angle_between(rotation, rotation[:1]).max()) > STILL
    )
    keep = slice(None) if moves else slice(0, 1)
    return LegKeys(
        np.asarray(frames, dtype=float)[keep],
        translation[keep],
        rotation[keep],
        pole[keep],
        scale,
        foot_rotation[0],
    )
