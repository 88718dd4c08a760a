"""The hips' correction: where a leg cannot reach its planted ankle, the hips come down or
forward only as much as needed (Kovar, Schreiner & Gleicher, "Footskate cleanup for motion
capture editing", SCA 2002, section 4.2: adjust the root, then smooth the adjustment).

Per frame the least translation ``d`` of the hips (every hip joint moves with them) that
puts each planted ankle within its leg's reach (thigh plus calf, less a hair) is the point
nearest to zero in the intersection of two balls, found by Dykstra's alternating projections
(vectorized over frames). The per-frame corrections are then made smooth without losing
reach: their size is replaced by the largest size within half a window, averaged over a
raised cosine as wide (never smaller than needed), along their smoothed direction; a
second pass adds what the first still misses. The result is capped at ``cap`` (2 cm for a
1.7 m person): where more would be needed the leg does not quite reach, and the frames say
so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.motion.foot_path import lift

#: Dykstra iterations; two balls converge in a handful, this leaves a wide margin.
ITERATIONS = 40
#: The reach kept in hand: a leg is asked to reach only this share of its length (a leg
#: asked for all of it ends straight, and a straight knee snaps for the least change).
SLACK = 0.005
#: A leg whose hip-to-ankle distance is within this share of its length of straight is
#: nearly straight, fully so within :data:`STRAIGHT_AT` (a knee bent 16 and 6 degrees).
STRAIGHT_FROM = 0.01
STRAIGHT_AT = 0.0015


@dataclass(frozen=True)
class HipsCorrection:
    """The hips' translation per frame and where the legs still fall short.

    Attributes
    ----------
    offset : ndarray, shape (F, 3)
        World translation of the hips (0 where both legs reach).
    short : ndarray, shape (F,)
        How far the farther planted ankle stays out of reach after the correction (0 where
        both reach, within the FABRIK tolerance's order).
    """

    offset: np.ndarray
    short: np.ndarray


def _project(points, centres, radii):
    """Each of ``points`` ``(F, 3)`` moved into the ball ``centres`` ``(F, 3)``, ``radii``."""
    away = points - centres
    distance = np.linalg.norm(away, axis=1)
    scale = np.where(distance > radii, radii / np.maximum(distance, 1e-300), 1.0)
    return centres + away * scale[:, None]


def least_offsets(hips, ankles, reach) -> np.ndarray:
    """Per frame the shortest hips translation putting every ankle within reach.

    Parameters
    ----------
    hips, ankles : ndarray, shape (F, L, 3)
        Each leg's hip joint and planted ankle.
    reach : ndarray, shape (L,)
        Each leg's length.
    """
    centres = ankles - hips  # the translation must land within reach of each ankle
    radii = np.asarray(reach, dtype=float) * (1.0 - SLACK)
    out = np.zeros(centres.shape[::2])
    far = np.flatnonzero(np.any(np.linalg.norm(centres, axis=2) > radii, axis=1))
    if not len(far):
        return out
    centres = centres[far]
    x = np.zeros(centres.shape[::2])
    legs = centres.shape[1]
    fixes = np.zeros((legs,) + x.shape)
    for _ in range(ITERATIONS):  # Dykstra: the nearest point of the intersection to 0
        for k in range(legs):
            y = _project(x + fixes[k], centres[:, k], radii[k])
            fixes[k] = x + fixes[k] - y
            x = y
    out[far] = x
    return out


def _smooth(need: np.ndarray, window: float) -> np.ndarray:
    size = np.linalg.norm(need, axis=1)
    if not np.any(size > 0):
        return np.zeros_like(need)
    grown = lift(size, window)
    half = max(1, int(round(window / 2)))
    kernel = np.hanning(2 * half + 3)[1:-1]
    direction = np.stack(
        [np.convolve(np.pad(need[:, i], half), kernel, mode="valid") for i in range(3)], axis=1
    )
    length = np.linalg.norm(direction, axis=1)
    direction = np.where(length[:, None] > 0, direction / np.maximum(length, 1e-300)[:, None], 0.0)
    return grown[:, None] * direction


def _straightness(distance: np.ndarray, reach) -> np.ndarray:
    """0 for a leg bent well enough, rising smoothly to 1 as it comes within
    :data:`STRAIGHT_FROM` of straight and reaches 1 at :data:`STRAIGHT_AT`."""
    x = (distance / np.asarray(reach) - (1 - STRAIGHT_FROM)) / (STRAIGHT_FROM - STRAIGHT_AT)
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3 - 2 * x)


def knee_offsets(hips, ankles, original_ankles, reach) -> np.ndarray:
    """Per frame the shortest hips translation that keeps each nearly straight leg's
    hip-to-ankle distance as it was (``(F, L, 3)`` arrays, ``reach`` ``(L,)``).

    A nearly straight knee turns a lot for a little change in that distance (the law of
    cosines has no slope at full extension): a planted ankle a centimetre further along a
    straight leg would snap the knee several centimetres. Each leg asks the hips to move
    along it by its ankle's change of distance, weighted by how straight the original leg is
    (:func:`_straightness`); the translation is the least one that answers every leg."""
    before = np.linalg.norm(original_ankles - hips, axis=2)
    along = ankles - hips
    after = np.linalg.norm(along, axis=2)
    unit = along / np.maximum(after, 1e-300)[..., None]
    weight = _straightness(before, reach)
    want = weight * (after - before)  # (F, L): the move each leg asks for, along it
    a = unit * weight[..., None]  # rows of the least-squares system, (F, L, 3)
    rhs = want * weight
    # least-norm through the normal equations of the (at most two) active rows
    coef = np.linalg.solve(
        np.einsum("fli,fmi->flm", a, a) + 1e-12 * np.eye(a.shape[1]), rhs[..., None]
    )[..., 0]
    return np.einsum("fli,fl->fi", a, coef)


def _blurred(values: np.ndarray, window: float) -> np.ndarray:
    """``values`` ``(F, 3)`` averaged over a raised cosine half a window wide."""
    half = max(1, int(round(window / 2)))
    kernel = np.hanning(2 * half + 3)[1:-1]
    kernel /= kernel.sum()
    return np.stack(
        [
            np.convolve(np.pad(values[:, i], half, mode="edge"), kernel, mode="valid")
            for i in range(values.shape[1])
        ],
        axis=1,
    )


def correct_hips(
    hips, ankles, reach, window: float, cap: float, original_ankles=None
) -> HipsCorrection:
    """The smooth hips correction (module docstring); arrays as :func:`least_offsets`,
    ``window`` in frames, ``cap`` the largest translation in scene units; with
    ``original_ankles`` the nearly straight legs keep their knees (:func:`knee_offsets`)."""
    hips = np.asarray(hips, dtype=float)
    ankles = np.asarray(ankles, dtype=float)
    offset = np.zeros(hips.shape[::2])
    if original_ankles is not None:
        offset = _blurred(
            knee_offsets(hips, ankles, np.asarray(original_ankles, dtype=float), reach), window
        )
    for _ in range(2):
        need = least_offsets(hips + offset[:, None], ankles, reach)
        if not np.any(need):
            break
        offset = offset + _smooth(need, window)
    size = np.linalg.norm(offset, axis=1)
    offset *= np.minimum(1.0, cap / np.maximum(size, 1e-300))[:, None]
    moved = hips + offset[:, None]
    short = np.maximum(np.linalg.norm(ankles - moved, axis=2) - np.asarray(reach), 0.0).max(axis=1)
    return HipsCorrection(offset, short)
