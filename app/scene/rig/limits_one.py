"""Rotation limits for ONE bone at one frame, in plain Python floats.

:func:`limited_rotation_one` is :func:`app.scene.rig.limits.limited_rotation` (without the
up axis) for a single row: quaternions and vectors are tuples of floats and the arithmetic
is :mod:`app.scene.math.quat`'s in its one-rotation layout (``mul_one``, ``rotate_one``,
...). Numpy costs 1-10 µs per call whatever the array size, and a limited
rotation makes ~60 calls; on one row the same formulas in floats cost a few µs in all. The
editor evaluates one frame at a time, so the FABRIK passes of one chain take this path
(:mod:`app.scene.constraints.fabrik.one_limited`); the two agree to rounding
(``tests/scene/constraints/test_limits_one.py``). :func:`limit_turn` fixes a bone's limit and pose
once per solve (the same arithmetic, bit for bit); :func:`violation_deg_one` is
:func:`app.scene.rig.limits.violation_deg` of one rotation
(``tests/scene/rig/test_fabrik_one_frame.py``).

Conventions as in :mod:`app.scene.math.quat`: ``(w, x, y, z)`` Hamilton quaternions,
active rotations.
"""

from __future__ import annotations

from math import atan2, cos, pi, sin, sqrt

from app.scene.math.aim import DEGENERATE
from app.scene.math.quat import arc_of_units_one, mul_one, quat_from_axis_angle_one, rotate_one
from app.scene.math.vectors import cross_one, dot_one
from app.scene.rig.limits import VIOLATION_FLOOR_DEG
from app.scene.rig.model import ConeLimit, HingeLimit

TWO_PI = 2.0 * pi
_DEG = pi / 180.0


def unit(v):
    """``(v / |v|, False)``, or ``((0, 0, 0), True)`` within :data:`DEGENERATE` of zero."""
    n = sqrt(dot_one(v, v))
    if n <= DEGENERATE:
        return (0.0, 0.0, 0.0), True
    return (v[0] / n, v[1] / n, v[2] / n), False


def perpendicular(u):
    """:func:`app.scene.rig.limits.perpendicular` of one unit vector."""
    m = [abs(c) for c in u]
    e = [0.0, 0.0, 0.0]
    e[m.index(min(m))] = 1.0
    return unit(cross_one(u, e))[0]


def wrap(angle):
    return pi - (pi - angle) % TWO_PI


def twist_angle(q, axis):
    return wrap(2.0 * atan2(q[1] * axis[0] + q[2] * axis[1] + q[3] * axis[2], q[0]))


def clamp_circular(angle, lo, hi):
    """:func:`app.scene.rig.limits.clamp_circular` of one angle."""
    width = hi - lo
    if width >= TWO_PI:
        return angle
    offset = (angle - lo) % TWO_PI
    if offset <= width:
        return lo + offset
    return hi if offset - width < TWO_PI - offset else lo


def arc(u, v):
    """:func:`app.scene.math.aim.arc`: the shortest arc from ``u`` to ``v`` (identity where
    ``v`` has no length), through a half turn near opposite directions."""
    if unit(v)[1]:
        v = u
    nu, nv = sqrt(dot_one(u, u)), sqrt(dot_one(v, v))
    u = (u[0] / nu, u[1] / nu, u[2] / nu)
    v = (v[0] / nv, v[1] / nv, v[2] / nv)
    if 1.0 + dot_one(u, v) >= 2e-6:
        return arc_of_units_one(u, v)
    m = [abs(c) for c in u]
    e = [0.0, 0.0, 0.0]
    e[m.index(min(m))] = 1.0
    p = cross_one(u, e)
    n = sqrt(dot_one(p, p))
    half_turn = (0.0, p[0] / n, p[1] / n, p[2] / n)
    return mul_one(arc_of_units_one(rotate_one(half_turn, u), v), half_turn)


def cone_direction(rest_dir, desired, current, degrees):
    """:func:`app.scene.rig.limits.cone_direction` of one direction."""
    v, v_zero = unit(desired)
    c, _ = unit(current)
    if v_zero:
        v = c
    alpha = degrees * _DEG
    along = dot_one(v, rest_dir)
    side, side_zero = unit(tuple(v[i] - along * rest_dir[i] for i in range(3)))
    if side_zero:
        cr = dot_one(c, rest_dir)
        lean, lean_zero = unit(tuple(c[i] - cr * rest_dir[i] for i in range(3)))
        side = perpendicular(rest_dir) if lean_zero else lean
    if atan2(dot_one(v, side), along) <= alpha:
        return v
    ca, sa = cos(alpha), sin(alpha)
    return tuple(ca * rest_dir[i] + sa * side[i] for i in range(3))


def limited_rotation_one(limit, d0, u, desired):
    """:func:`app.scene.rig.limits.limited_rotation` (no up axis) for one bone.

    Parameters
    ----------
    limit : ConeLimit, HingeLimit or None
    d0 : tuple of 4 floats
        The bone's current rotation relative to its rest frame.
    u : tuple of 3 floats
        Unit tail direction in the bone's own frame (its rest direction in the rest frame).
    desired : tuple of 3 floats
        Where the tail should point, in rest-frame coordinates.

    Returns
    -------
    tuple of 4 floats
        The new rotation ``d1`` relative to the rest frame.
    """
    if isinstance(limit, HingeLimit):
        a, _ = unit(tuple(float(c) for c in limit.axis))
        ua, da = dot_one(u, a), dot_one(desired, a)
        u_p, u_zero = unit((u[0] - ua * a[0], u[1] - ua * a[1], u[2] - ua * a[2]))
        v_p, v_zero = unit((desired[0] - da * a[0], desired[1] - da * a[1], desired[2] - da * a[2]))
        if u_zero or v_zero:
            theta = twist_angle(d0, a)
        else:
            theta = atan2(dot_one(cross_one(u_p, v_p), a), dot_one(u_p, v_p))
        theta = clamp_circular(theta, limit.min * _DEG, limit.max * _DEG)
        return quat_from_axis_angle_one(a, theta)
    current = rotate_one(d0, u)
    if isinstance(limit, ConeLimit):
        desired = cone_direction(u, desired, current, limit.degrees)
    d1 = mul_one(arc(current, desired), d0)
    if isinstance(limit, ConeLimit) and limit.twist is not None:
        lo, hi = limit.twist[0] * _DEG, limit.twist[1] * _DEG
        tau = twist_angle(d1, u)
        swing = mul_one(d1, quat_from_axis_angle_one(u, -tau))
        d1 = mul_one(swing, quat_from_axis_angle_one(u, clamp_circular(tau, lo, hi)))
    return d1


def limit_turn(limit, d0, u):
    """:func:`limited_rotation_one` with ``limit``, ``d0`` and ``u`` fixed: a function
    ``desired -> d1``, the same arithmetic, with what does not depend on ``desired`` (the
    hinge's unit axis and range in radians, the tail's part across it, the current tail
    ``d0 u``) computed once. A FABRIK solve turns each bone this way once per iteration."""
    if isinstance(limit, HingeLimit):
        a, _ = unit(tuple(float(c) for c in limit.axis))
        ax, ay, az = a
        ua = dot_one(u, a)
        (upx, upy, upz), u_zero = unit((u[0] - ua * ax, u[1] - ua * ay, u[2] - ua * az))
        lo, hi = limit.min * _DEG, limit.max * _DEG
        n = sqrt(dot_one(a, a))  # quat_from_axis_angle_one's normalization, as it does it
        bx, by, bz = ax / n, ay / n, az / n
        twist = twist_angle(d0, a)

        def hinge(desired):
            dx, dy, dz = desired
            da = dx * ax + dy * ay + dz * az
            vx, vy, vz = dx - da * ax, dy - da * ay, dz - da * az
            nv = sqrt(vx * vx + vy * vy + vz * vz)
            if u_zero or nv <= DEGENERATE:
                theta = twist
            else:
                vx, vy, vz = vx / nv, vy / nv, vz / nv
                cx, cy, cz = upy * vz - upz * vy, upz * vx - upx * vz, upx * vy - upy * vx
                theta = atan2(cx * ax + cy * ay + cz * az, upx * vx + upy * vy + upz * vz)
            half = 0.5 * clamp_circular(theta, lo, hi)
            s = sin(half)
            return (cos(half), s * bx, s * by, s * bz)

        return hinge
    if limit is None:
        return _free_turn(d0, rotate_one(d0, u))
    return lambda desired: limited_rotation_one(limit, d0, u, desired)


def _free_turn(d0, current):
    """``desired -> mul(arc(current, desired), d0)``, the arc of unit directions written out
    (:func:`arc` itself where ``desired`` has no length or lies opposite ``current``)."""
    nu = sqrt(dot_one(current, current))
    ux, uy, uz = current[0] / nu, current[1] / nu, current[2] / nu
    bw, bx, by, bz = d0

    def free(desired):
        vx, vy, vz = desired
        nv = sqrt(vx * vx + vy * vy + vz * vz)
        if nv <= DEGENERATE:
            return mul_one(arc(current, desired), d0)
        vx, vy, vz = vx / nv, vy / nv, vz / nv
        w = 1.0 + (ux * vx + uy * vy + uz * vz)
        if w < 2e-6:  # near opposite: arc's half turn
            return mul_one(arc(current, desired), d0)
        x, y, z = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        n = sqrt(w * w + x * x + y * y + z * z)
        w, x, y, z = w / n, x / n, y / n, z / n
        return (
            w * bw - x * bx - y * by - z * bz,
            w * bx + x * bw + y * bz - z * by,
            w * by - x * bz + y * bw + z * bx,
            w * bz + x * by - y * bx + z * bw,
        )

    return free


def circular_excess(angle, lo, hi):
    """:func:`app.scene.rig.limits.circular_excess` of one angle."""
    width = hi - lo
    if width >= TWO_PI:
        return 0.0
    offset = (angle - lo) % TWO_PI
    return 0.0 if offset <= width else min(offset - width, TWO_PI - offset)


def violation_deg_one(limit, d, u):
    """:func:`app.scene.rig.limits.violation_deg` of one rotation ``d`` (relative to the
    rest frame) and unit tail direction ``u``: degrees, 0 below the rounding floor."""
    if limit is None:
        return 0.0
    if isinstance(limit, HingeLimit):
        a, _ = unit(tuple(float(c) for c in limit.axis))
        allowed = clamp_circular(twist_angle(d, a), limit.min * _DEG, limit.max * _DEG)
        rest = mul_one(quat_from_axis_angle_one(a, -allowed), d)
        out = 2.0 * atan2(
            sqrt(rest[1] * rest[1] + rest[2] * rest[2] + rest[3] * rest[3]), abs(rest[0])
        )
    else:
        tail = rotate_one(d, u)
        c = cross_one(u, tail)
        swing = atan2(sqrt(dot_one(c, c)), dot_one(u, tail))
        out = max(swing - limit.degrees * _DEG, 0.0)
        if limit.twist is not None:
            lo, hi = limit.twist[0] * _DEG, limit.twist[1] * _DEG
            out = max(out, circular_excess(twist_angle(d, u), lo, hi))
    out = out * (180.0 / pi)
    return 0.0 if out < VIOLATION_FLOOR_DEG else out
