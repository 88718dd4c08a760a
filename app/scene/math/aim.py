"""Turning one direction onto another: the shortest arc, and an up axis that fixes the roll.

Every points-at in Pivotal (the constraint, each bone of a FABRIK chain, each limit) is built
from :func:`aim_delta`: the smallest rotation taking a bone's current tail direction onto a
desired one, optionally followed by a roll about the new direction that brings one of the
bone's axes as close as it can to an "up" direction (Maya's aim constraint, Blender's Track
To). All functions work on stacks ``(..., 3)`` and never raise for a zero desired direction:
a bone with nowhere to point keeps pointing where it did.
"""

from __future__ import annotations

import numpy as np

from app.scene.math import quat

#: Below this length (relative to the vectors' scale) a projected vector has no direction.
DEGENERATE = 1e-12


def unit(v) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors and a mask of the ones that had (near) zero length.

    Returns
    -------
    unit : ndarray, shape (..., 3)
        ``v / |v|``, and ``0`` where ``v`` had no length.
    zero : ndarray of bool, shape (...)
    """
    v = np.asarray(v, dtype=float)
    n = np.sqrt(np.einsum("...i,...i->...", v, v))
    zero = n <= DEGENERATE
    return v / np.where(zero, 1.0, n)[..., None] * ~zero[..., None], zero


def signed_angle(a, b, axis) -> np.ndarray:
    """Angle in radians turning ``a`` to ``b`` about ``axis`` (right hand), in ``(-pi, pi]``.

    ``a`` and ``b`` should be perpendicular to the unit ``axis``; shapes ``(..., 3)``.
    """
    cross = np.cross(a, b)
    return np.arctan2(np.einsum("...i,...i->...", cross, axis), np.einsum("...i,...i->...", a, b))


def arc(u, v) -> np.ndarray:
    """Shortest-arc rotations taking direction ``u`` to direction ``v``, shape ``(..., 4)``.

    Like :func:`app.scene.math.quat.shortest_arc` (stable near equal and near opposite
    directions), except that where ``v`` has no length the rotation is the identity, and so
    it is where ``u`` has none (a bone scaled to nothing by its parents has no direction to
    turn: it keeps its pose).
    """
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    u, v = np.broadcast_arrays(u, v)
    _, zero = unit(v)
    v = np.where(zero[..., None], u, v)
    lost = ~(np.linalg.norm(u, axis=-1) > 0)  # its square underflowed (1e-300), or zero
    if not np.any(lost):
        return quat.shortest_arc(u, v)
    x = np.array([1.0, 0.0, 0.0])
    u = np.where(lost[..., None], x, u)
    v = np.where(lost[..., None], x, v)
    q = quat.shortest_arc(u, v)
    q[lost] = (1.0, 0.0, 0.0, 0.0)
    return q


def roll_to_up(aim_dir, up_dir, toward) -> np.ndarray:
    """Rotations about ``aim_dir`` that bring ``up_dir`` as close as possible to ``toward``.

    Both are projected onto the plane across ``aim_dir``; the roll is the signed angle between
    the projections. Where either projection vanishes (the up axis lies along the aim, or
    ``toward`` does) the roll is the identity: the roll is then left as the arc made it.

    Parameters
    ----------
    aim_dir : array_like, shape (..., 3)
        Unit directions the bone now points along.
    up_dir : array_like, shape (..., 3)
        Where the bone's up axis now points.
    toward : array_like, shape (..., 3)
        Where it should point.

    Returns
    -------
    ndarray, shape (..., 4)
    """
    aim_dir = np.asarray(aim_dir, dtype=float)
    up_dir, _ = unit(up_dir)
    toward, _ = unit(toward)
    up_p = up_dir - np.einsum("...i,...i->...", up_dir, aim_dir)[..., None] * aim_dir
    toward_p = toward - np.einsum("...i,...i->...", toward, aim_dir)[..., None] * aim_dir
    # Within 1e-9 rad of the aim a projection's direction is rounding noise: no roll there.
    degenerate = (np.linalg.norm(up_p, axis=-1) < 1e-9) | (np.linalg.norm(toward_p, axis=-1) < 1e-9)
    angle = np.where(degenerate, 0.0, signed_angle(up_p, toward_p, aim_dir))
    return quat.quat_from_axis_angle(aim_dir, angle)


def aim_delta(tail_dir, desired, up_dir=None, toward=None) -> np.ndarray:
    """The rotation that points ``tail_dir`` along ``desired``, rolled by an up axis.

    Parameters
    ----------
    tail_dir : array_like, shape (..., 3)
        The bone's current tail direction (non-zero), in some frame ``C``.
    desired : array_like, shape (..., 3)
        Where it should point, in ``C``; zero keeps the current direction.
    up_dir, toward : array_like, shape (..., 3), optional
        The bone's up axis as it now points in ``C``, and the direction it should turn
        toward (Maya's aim "up vector"). Without them the result is the shortest arc.

    Returns
    -------
    ndarray, shape (..., 4)
        Rotations in ``C`` (apply on the left of the bone's rotation in ``C``).
    """
    delta = arc(tail_dir, desired)
    if up_dir is None:
        return delta
    aim_dir, _ = unit(quat.rotate(delta, tail_dir))
    roll = roll_to_up(aim_dir, quat.rotate(delta, up_dir), toward)
    return quat.mul(roll, delta)
