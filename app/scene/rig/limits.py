"""Rotation limits in a bone's object space, relative to its rest pose.

A bone's *rest frame* is the frame it would have with its static ``rotation`` (its rest pose)
in its parent's current frame, before its own scale. Its pose is then a rotation ``d`` of the
rest frame: ``local_rotation = rest_rotation * d``. The limits of ``docs/scene-format.md``
restrict ``d``:

- cone: the tail direction ``d u`` stays within ``degrees`` of its rest direction ``u``; an
  optional twist range restricts the twist of ``d`` about ``u`` (swing-twist decomposition,
  ``d = swing * twist``);
- hinge: ``d`` is a rotation about ``axis`` by an angle within ``[min, max]``.

Angle ranges are read on the circle: an angle outside goes to the nearer end (the end that
brings the tail closer), so ``[150, 210]`` is the range through 180 degrees.

:func:`limited_rotation` turns a bone towards a desired direction as far as its limit lets
it; :func:`violation_deg` measures by how much a pose leaves its limit. Both work on stacks
``(N, ...)``.
"""

from __future__ import annotations

import numpy as np

from app.scene.math import quat
from app.scene.math.aim import aim_delta, signed_angle, unit
from app.scene.rig.model import ConeLimit, HingeLimit, Limit

#: Violations smaller than this are rounding, reported as 0 (a pose that keeps its limits).
VIOLATION_FLOOR_DEG = 1e-9

TWO_PI = 2.0 * np.pi


def perpendicular(u) -> np.ndarray:
    """A unit vector perpendicular to each unit ``u`` (..., 3), chosen deterministically.

    Built from the coordinate axis least aligned with ``u``, as the shortest arc does.
    """
    u = np.asarray(u, dtype=float)
    e = np.zeros_like(u)
    np.put_along_axis(e, np.argmin(np.abs(u), axis=-1)[..., None], 1.0, axis=-1)
    p, _ = unit(np.cross(u, e))
    return p


def twist_angle(q, axis) -> np.ndarray:
    """Twist of rotations ``q`` (..., 4) about unit ``axis`` (..., 3), radians in (-pi, pi].

    The angle of the factor about ``axis`` in the swing-twist decomposition
    ``q = swing * twist``; 0 where it is undefined (a half-turn swing).
    """
    q = np.asarray(q, dtype=float)
    along = np.einsum("...i,...i->...", q[..., 1:], axis)
    return wrap(2.0 * np.arctan2(along, q[..., 0]))


def wrap(angle) -> np.ndarray:
    """Angles in radians wrapped into ``(-pi, pi]``."""
    angle = np.asarray(angle, dtype=float)
    return np.pi - np.mod(np.pi - angle, TWO_PI)


def clamp_circular(angle, lo, hi) -> np.ndarray:
    """Angles (radians) moved into ``[lo, hi]`` on the circle, to the nearer end if outside.

    Inside the range an angle comes back unchanged (modulo a whole turn, as ``lo + offset``).
    """
    angle = np.asarray(angle, dtype=float)
    width = hi - lo
    if width >= TWO_PI:
        return angle
    offset = np.mod(angle - lo, TWO_PI)
    inside = offset <= width
    past_hi = offset - width  # how far beyond hi, going forwards
    before_lo = TWO_PI - offset  # how far before lo, going backwards
    return np.where(inside, lo + offset, np.where(past_hi < before_lo, hi, lo))


def circular_excess(angle, lo, hi) -> np.ndarray:
    """Radians by which angles lie outside ``[lo, hi]`` on the circle (0 inside)."""
    angle = np.asarray(angle, dtype=float)
    width = hi - lo
    if width >= TWO_PI:
        return np.zeros_like(angle)
    offset = np.mod(angle - lo, TWO_PI)
    return np.where(offset <= width, 0.0, np.minimum(offset - width, TWO_PI - offset))


def cone_direction(rest_dir, desired, current, degrees: float) -> np.ndarray:
    """The direction within ``degrees`` of ``rest_dir`` closest to ``desired``.

    Inside the cone it is ``desired`` itself; outside, ``rest_dir`` turned towards
    ``desired`` by the cone's angle. Where ``desired`` is zero the bone wants to stay where it
    is (``current``); where it is exactly opposite ``rest_dir`` every side is as near, and the
    bone turns towards the side where it ``current``-ly leans (a fixed side if it leans none).

    Parameters
    ----------
    rest_dir : array_like, shape (..., 3)
        Unit rest tail direction.
    desired, current : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)
        Unit directions.
    """
    rest_dir = np.asarray(rest_dir, dtype=float)
    desired = np.asarray(desired, dtype=float)
    current = np.asarray(current, dtype=float)
    rest_dir, desired, current = np.broadcast_arrays(rest_dir, desired, current)
    v, v_zero = unit(desired)
    c, _ = unit(current)
    v = np.where(v_zero[..., None], c, v)
    alpha = np.radians(degrees)
    along = np.einsum("...i,...i->...", v, rest_dir)
    side, side_zero = unit(v - along[..., None] * rest_dir)
    lean, lean_zero = unit(c - np.einsum("...i,...i->...", c, rest_dir)[..., None] * rest_dir)
    fallback = np.where(lean_zero[..., None], perpendicular(rest_dir), lean)
    side = np.where(side_zero[..., None], fallback, side)
    angle = np.arctan2(np.einsum("...i,...i->...", v, side), along)
    on_cone = np.cos(alpha) * rest_dir + np.sin(alpha) * side
    return np.where((angle <= alpha)[..., None], v, on_cone)


def _clamp_twist(d, u, twist):
    """``d`` with its twist about ``u`` moved into the ``twist`` range (degrees)."""
    lo, hi = np.radians(twist[0]), np.radians(twist[1])
    tau = twist_angle(d, u)
    clamped = clamp_circular(tau, lo, hi)
    swing = quat.mul(d, quat.quat_from_axis_angle(u, -tau))
    return quat.mul(swing, quat.quat_from_axis_angle(u, clamped))


def hinge_axis(limit: HingeLimit) -> np.ndarray:
    """The hinge's unit axis in the rest frame, shape (3,)."""
    axis = np.asarray(limit.axis, dtype=float)
    return axis / np.linalg.norm(axis)


def limited_rotation(limit: Limit | None, d0, u, desired, up_axis=None, toward=None):
    """Turn a bone towards ``desired`` as far as its limit lets it.

    Parameters
    ----------
    limit : ConeLimit, HingeLimit or None
    d0 : array_like, shape (N, 4)
        The bone's current rotation relative to its rest frame (its animation).
    u : array_like, shape (N, 3) or (3,)
        Unit tail direction in the bone's own frame (before its scale); also its rest
        direction in the rest frame.
    desired : array_like, shape (N, 3)
        Where the tail should point, in rest-frame coordinates; zero: where it points now.
    up_axis : array_like, shape (N, 3) or (3,), optional
        An axis of the bone (its own frame) to roll towards ``toward`` (rest-frame
        coordinates), as Maya's aim does. A hinge ignores it: it fixes the roll itself.

    Returns
    -------
    ndarray, shape (N, 4)
        The new rotation ``d1`` relative to the rest frame: the shortest arc from the
        current pose (so the roll follows the animation) onto the allowed direction nearest
        ``desired``; for a hinge, the hinge rotation whose angle brings the tail closest.
    """
    d0 = np.asarray(d0, dtype=float)
    u = np.broadcast_to(np.asarray(u, dtype=float), d0.shape[:-1] + (3,))
    desired = np.asarray(desired, dtype=float)
    if isinstance(limit, HingeLimit):
        a = hinge_axis(limit)
        u_p, u_zero = unit(u - (u @ a)[..., None] * a)
        v_p, v_zero = unit(desired - (desired @ a)[..., None] * a)
        # Tail along the axis, or target along it: no angle is better; keep the current one.
        theta = np.where(u_zero | v_zero, twist_angle(d0, a), signed_angle(u_p, v_p, a))
        theta = clamp_circular(theta, np.radians(limit.min), np.radians(limit.max))
        return quat.quat_from_axis_angle(a, theta)
    current = quat.rotate(d0, u)
    if isinstance(limit, ConeLimit):
        desired = cone_direction(u, desired, current, limit.degrees)
    up_dir = None if up_axis is None else quat.rotate(d0, up_axis)
    d1 = quat.mul(aim_delta(current, desired, up_dir, toward), d0)
    if isinstance(limit, ConeLimit) and limit.twist is not None:
        d1 = _clamp_twist(d1, u, limit.twist)
    return d1


def violation_deg(limit: Limit | None, d, u) -> np.ndarray:
    """Degrees by which rotations ``d`` (relative to the rest frame) leave ``limit``.

    - cone: how far the tail lies beyond the cone, or the twist beyond its range, whichever
      is larger;
    - hinge: the angle of the smallest rotation taking ``d`` to an allowed hinge rotation
      (the geodesic distance to the allowed set).

    Parameters
    ----------
    d : array_like, shape (N, 4)
    u : array_like, shape (N, 3) or (3,)
        Unit tail direction in the bone's own frame.

    Returns
    -------
    ndarray, shape (N,)
        ``0`` where the limit is kept (to :data:`VIOLATION_FLOOR_DEG`) or there is none.
    """
    d = np.asarray(d, dtype=float)
    if limit is None:
        return np.zeros(d.shape[:-1])
    if isinstance(limit, HingeLimit):
        a = hinge_axis(limit)
        allowed = clamp_circular(twist_angle(d, a), np.radians(limit.min), np.radians(limit.max))
        rest = quat.mul(quat.quat_from_axis_angle(a, -allowed), d)
        out = 2.0 * np.arctan2(np.linalg.norm(rest[..., 1:], axis=-1), np.abs(rest[..., 0]))
    else:
        u = np.broadcast_to(np.asarray(u, dtype=float), d.shape[:-1] + (3,))
        tail = quat.rotate(d, u)
        swing = np.arctan2(np.linalg.norm(np.cross(u, tail), axis=-1), np.sum(u * tail, -1))
        out = np.maximum(swing - np.radians(limit.degrees), 0.0)
        if limit.twist is not None:
            lo, hi = np.radians(limit.twist[0]), np.radians(limit.twist[1])
            out = np.maximum(out, circular_excess(twist_angle(d, u), lo, hi))
    out = np.degrees(out)
    return np.where(out < VIOLATION_FLOOR_DEG, 0.0, out)
