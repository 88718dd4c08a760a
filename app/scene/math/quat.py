"""Quaternions, vectorized over leading axes.

Conventions (the same everywhere in :mod:`app.scene`):

- A quaternion is an array ``[w, x, y, z]`` (scalar first), shape ``(..., 4)``;
  vectors are shape ``(..., 3)``. Every function broadcasts over leading axes.
- Hamilton's product: ``i*j = k``, ``j*k = i``, ``k*i = j``, ``i*i = -1``.
- Rotations are active and act on column vectors: ``rotate(q, v) = q v q*``, and
  ``matrix_from_quat(q) @ v`` is the same vector. ``mul(a, b)`` applies ``b`` first.
- A rotation by ``angle`` radians about the unit ``axis`` is
  ``[cos(angle/2), sin(angle/2) * axis]``. ``q`` and ``-q`` are the same rotation.

The symmetrized product used by the multi-parent constraint lives in
:mod:`app.scene.math.anticommutator`, which builds on this module (never the other way).

The same formulas come in two more layouts, for the two places where the layout is the
speed: *component-major* stacks ``(4, ...)`` and ``(3, ...)`` (``*_components``: the
multi-parent integrator, which runs elementwise over all pivots and steps and must not
depend on how many steps are computed together, so these use no BLAS), and ONE rotation
as a tuple of floats (``*_one``: the one-frame FABRIK path and its limits, where numpy's
fixed cost per call would dominate). ``tests/scene/math/test_quat.py`` checks that the three agree.
The plain vector products those layouts need (cross, dot) are not quaternion operations and live in
:mod:`app.scene.math.vectors`.

Conversions are named ``<output>_from_<input>`` (as pytransform3d does):
``quat_from_axis_angle``/``axis_angle_from_quat``, ``quat_from_rotvec``/``rotvec_from_quat``,
``matrix_from_quat``/``quat_from_matrix``.

One idea: the quaternion vocabulary of the whole core, in its three layouts.
"""

from __future__ import annotations

from math import cos, sin, sqrt

import numpy as np

from app.scene.math.vectors import cross_components, cross_one, dot_one

__all__ = [
    "identity",
    "mul",
    "conj",
    "inverse",
    "norm",
    "normalize",
    "canonical",
    "rotate",
    "quat_from_axis_angle",
    "axis_angle_from_quat",
    "quat_from_rotvec",
    "rotvec_from_quat",
    "matrix_from_quat",
    "quat_from_matrix",
    "slerp",
    "exp",
    "log",
    "angle_between",
    "shortest_arc",
    "arc_of_units",
]


def identity(shape=()) -> np.ndarray:
    """The identity rotation ``[1, 0, 0, 0]`` broadcast to ``shape + (4,)``."""
    q = np.zeros(tuple(np.atleast_1d(shape)) + (4,) if shape != () else (4,))
    q[..., 0] = 1.0
    return q


def mul(a, b) -> np.ndarray:
    """Hamilton product ``a * b`` (rotation ``b`` first, then ``a``).

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
        Quaternions; leading axes broadcast.

    Returns
    -------
    ndarray, shape (..., 4)
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    aw, ax, ay, az = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bw, bx, by, bz = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def conj(q) -> np.ndarray:
    """Conjugate ``[w, -x, -y, -z]``; the inverse rotation of a unit quaternion."""
    q = np.asarray(q, dtype=float)
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def norm(q) -> np.ndarray:
    """Euclidean length, shape ``(...)``."""
    return np.linalg.norm(np.asarray(q, dtype=float), axis=-1)


def inverse(q) -> np.ndarray:
    """Multiplicative inverse ``q* / |q|^2`` (any non-zero quaternion)."""
    q = np.asarray(q, dtype=float)
    n2 = np.sum(q * q, axis=-1, keepdims=True)
    if np.any(n2 == 0):
        raise ZeroDivisionError("the zero quaternion has no inverse")
    return conj(q) / n2


def normalize(q) -> np.ndarray:
    """Scale to unit length.

    Raises
    ------
    ValueError
        If a quaternion has zero (or non-finite) length: it names no rotation.
    """
    q = np.asarray(q, dtype=float)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    if not np.all(np.isfinite(n)) or np.any(n == 0):
        raise ValueError("cannot normalize a zero or non-finite quaternion")
    return q / n


def canonical(q) -> np.ndarray:
    """The same rotation with ``w >= 0`` (the shorter arc from the identity)."""
    q = np.asarray(q, dtype=float)
    return np.where(q[..., :1] < 0, -q, q)


def rotate(q, v) -> np.ndarray:
    """Rotate vectors ``v`` by unit quaternions ``q``: ``q v q*``.

    Parameters
    ----------
    q : array_like, shape (..., 4)
    v : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    vx, vy, vz = v[..., 0], v[..., 1], v[..., 2]
    # v + 2w (u x v) + 2 u x (u x v), with the cross products written out: np.cross costs
    # more than the arithmetic on the small stacks of single-frame solves.
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return np.stack(
        [
            vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx),
        ],
        axis=-1,
    )


def quat_from_axis_angle(axis, angle) -> np.ndarray:
    """Rotation by ``angle`` radians about ``axis`` (normalized here).

    Parameters
    ----------
    axis : array_like, shape (..., 3)
    angle : array_like, shape (...)

    Raises
    ------
    ValueError
        If an axis has zero length while its angle is not zero.
    """
    axis = np.asarray(axis, dtype=float)
    angle = np.asarray(angle, dtype=float)
    lead = np.broadcast_shapes(axis.shape[:-1], angle.shape)
    axis = np.broadcast_to(axis, lead + (3,))
    angle = np.broadcast_to(angle, lead)
    n = np.linalg.norm(axis, axis=-1)
    if np.any((n == 0) & (angle != 0)):
        raise ValueError("a rotation axis has zero length")
    unit = axis / np.where(n == 0, 1.0, n)[..., None]
    half = 0.5 * angle
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * unit], axis=-1)


def axis_angle_from_quat(q):
    """Axis and angle of unit quaternions, angle in ``[0, pi]``.

    Returns
    -------
    axis : ndarray, shape (..., 3)
        Unit axis; ``[1, 0, 0]`` for the identity, where any axis would do.
    angle : ndarray, shape (...)
    """
    q = canonical(q)
    s = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(s, q[..., 0])
    safe = np.where(s == 0, 1.0, s)[..., None]
    axis = np.where((s == 0)[..., None], np.array([1.0, 0.0, 0.0]), q[..., 1:] / safe)
    return axis, angle


def _sinc(x):
    """``sin(x)/x`` with the removable singularity filled in."""
    return np.sinc(np.asarray(x) / np.pi)


def exp(q) -> np.ndarray:
    """Quaternion exponential ``e^w (cos|v| + v/|v| sin|v|)``.

    For a pure quaternion ``[0, angle/2 * axis]`` it is the rotation by ``angle``.
    """
    q = np.asarray(q, dtype=float)
    v = q[..., 1:]
    theta = np.linalg.norm(v, axis=-1)
    scale = np.exp(q[..., 0])
    return np.concatenate(
        [(scale * np.cos(theta))[..., None], (scale * _sinc(theta))[..., None] * v], axis=-1
    )


def log(q) -> np.ndarray:
    """Quaternion logarithm ``[log|q|, v/|v| atan2(|v|, w)]`` (principal branch).

    For a unit quaternion with ``w >= 0`` the vector part is ``angle/2 * axis`` with
    angle in ``[0, pi]``; pass :func:`canonical` first to get the shorter arc.
    """
    q = np.asarray(q, dtype=float)
    v = q[..., 1:]
    s = np.linalg.norm(v, axis=-1)
    n = np.linalg.norm(q, axis=-1)
    if np.any(n == 0):
        raise ValueError("the zero quaternion has no logarithm")
    theta = np.arctan2(s, q[..., 0])
    # theta / s, stable near s = 0 (there theta/s -> 1/w).
    ratio = np.where(s > 1e-300, theta / np.where(s == 0, 1.0, s), 1.0 / q[..., 0])
    return np.concatenate([np.log(n)[..., None], ratio[..., None] * v], axis=-1)


def quat_from_rotvec(rotvec) -> np.ndarray:
    """Rotation from a rotation vector ``angle * axis``, shape ``(..., 3)``."""
    rotvec = np.asarray(rotvec, dtype=float)
    return exp(np.concatenate([np.zeros(rotvec.shape[:-1] + (1,)), 0.5 * rotvec], axis=-1))


def rotvec_from_quat(q) -> np.ndarray:
    """Rotation vector ``angle * axis`` of the shorter arc, shape ``(..., 3)``."""
    return 2.0 * log(normalize(canonical(q)))[..., 1:]


def matrix_from_quat(q) -> np.ndarray:
    """3x3 rotation matrices of unit quaternions, shape ``(..., 3, 3)``."""
    q = np.asarray(q, dtype=float)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (yy + zz)
    m[..., 0, 1] = 2 * (xy - wz)
    m[..., 0, 2] = 2 * (xz + wy)
    m[..., 1, 0] = 2 * (xy + wz)
    m[..., 1, 1] = 1 - 2 * (xx + zz)
    m[..., 1, 2] = 2 * (yz - wx)
    m[..., 2, 0] = 2 * (xz - wy)
    m[..., 2, 1] = 2 * (yz + wx)
    m[..., 2, 2] = 1 - 2 * (xx + yy)
    return m


def quat_from_matrix(m) -> np.ndarray:
    """Unit quaternions (``w >= 0``) of rotation matrices, shape ``(..., 3, 3)``.

    Shepperd's method: of the four candidate formulas, each quaternion uses the one whose
    pivot (``w``, ``x``, ``y`` or ``z``) is largest, so half turns are as exact as the rest.
    Every candidate is computed for every matrix (a few whole-array operations, cheaper than
    gathering each formula's matrices) and the chosen one kept.
    """
    m = np.asarray(m, dtype=float)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    choice = np.argmax(np.stack([m00, m11, m22, trace], axis=-1), axis=-1)
    # The pivot x, y or z (entry i the largest diagonal one) is 1 - trace + 2 m_ii; the other
    # components are sums and differences of the off-diagonal pairs.
    one_minus = 1 - trace
    x, y, z = one_minus + 2 * m00, one_minus + 2 * m11, one_minus + 2 * m22
    m01, m02, m10 = m[..., 0, 1], m[..., 0, 2], m[..., 1, 0]
    m12, m20, m21 = m[..., 1, 2], m[..., 2, 0], m[..., 2, 1]
    s01, s02, s12 = m10 + m01, m20 + m02, m21 + m12
    d21, d02, d10 = m21 - m12, m02 - m20, m10 - m01
    candidates = (
        (d21, x, s01, s02),
        (d02, s01, y, s12),
        (d10, s02, s12, z),
        (1 + trace, d21, d02, d10),
    )
    q = np.empty(m.shape[:-2] + (4,))
    for c in range(4):
        q[..., c] = np.choose(choice, [candidate[c] for candidate in candidates])
    return canonical(q / np.linalg.norm(q, axis=-1, keepdims=True))


def slerp(a, b, t) -> np.ndarray:
    """Spherical linear interpolation along the shorter arc.

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
        Unit quaternions at ``t = 0`` and ``t = 1``.
    t : array_like, shape (...)
        Interpolation parameter; broadcasts with the leading axes of ``a`` and ``b``.

    Returns
    -------
    ndarray, shape (..., 4)
        Exactly ``a`` at ``t = 0`` and exactly ``b`` (or ``-b``, the same rotation, when
        ``b`` lies on the far hemisphere) at ``t = 1``; stable for nearly equal inputs.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    t = np.asarray(t, dtype=float)[..., None]
    dot = np.einsum("...i,...i->...", a, b)[..., None]
    b = np.where(dot < 0, -b, b)  # the shorter arc
    # The angle between a and b as 4-vectors, accurate for small and large angles alike.
    d, s = a - b, a + b
    theta = (
        2.0
        * np.arctan2(
            np.sqrt(np.einsum("...i,...i->...", d, d)), np.sqrt(np.einsum("...i,...i->...", s, s))
        )[..., None]
    )
    # sin keeps its relative precision for tiny angles, so the ratios are accurate down to
    # theta = 0, where a = b and any weights summing to one will do. At t = 0 and t = 1 the
    # ratios are exactly 1 and 0: the ends come back as they went in.
    sin_theta = np.sin(theta)
    degenerate = sin_theta == 0
    denominator = np.where(degenerate, 1.0, sin_theta)
    ca = np.where(degenerate, 1.0 - t, np.sin((1.0 - t) * theta) / denominator)
    cb = np.where(degenerate, t, np.sin(t * theta) / denominator)
    return ca * a + cb * b


def angle_between(a, b) -> np.ndarray:
    """Rotation angle in ``[0, pi]`` of ``a^-1 b`` for unit quaternions, shape ``(...)``."""
    d = mul(conj(a), b)
    # 2*acos(|w|), through atan2 so that small angles keep their precision.
    return 2.0 * np.arctan2(np.linalg.norm(d[..., 1:], axis=-1), np.abs(d[..., 0]))


def shortest_arc(u, v) -> np.ndarray:
    """Smallest rotation taking the direction of ``u`` to the direction of ``v``.

    Parameters
    ----------
    u, v : array_like, shape (..., 3)
        Non-zero vectors (any length).

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions. For nearly opposite directions ``[1 + u.v, u x v]`` loses its
        precision, so ``u`` is first given a half turn about the perpendicular axis built
        from the coordinate axis least aligned with it, then the small remaining arc.

    Raises
    ------
    ValueError
        If a vector has zero length.
    """
    u = np.asarray(u, dtype=float)
    v = np.asarray(v, dtype=float)
    nu = np.linalg.norm(u, axis=-1, keepdims=True)
    nv = np.linalg.norm(v, axis=-1, keepdims=True)
    if (
        np.any(nu == 0)
        or np.any(nv == 0)
        or not (np.all(np.isfinite(nu)) and np.all(np.isfinite(nv)))
    ):
        raise ValueError("shortest arc of a zero-length or non-finite direction")
    u, v = np.broadcast_arrays(u / nu, v / nv)
    q = arc_of_units(u, v)
    # 1 + u.v < 2e-6: within 0.002 rad of a half turn, where its rounding error dominates.
    opposite = 1.0 + np.sum(u * v, axis=-1) < 2e-6
    if np.any(opposite):
        uo, vo = u[opposite], v[opposite]
        e = np.zeros_like(uo)
        e[np.arange(len(uo)), np.argmin(np.abs(uo), axis=-1)] = 1.0
        perp = np.cross(uo, e)
        perp /= np.linalg.norm(perp, axis=-1, keepdims=True)
        half_turn = np.concatenate([np.zeros((len(uo), 1)), perp], axis=-1)
        q = q.copy()
        q[opposite] = mul(arc_of_units(rotate(half_turn, uo), vo), half_turn)
    return q


def arc_of_units(u, v):
    """``[1 + u.v, u x v]`` normalized, for unit ``u`` and ``v`` not opposite."""
    q = np.concatenate([1.0 + np.sum(u * v, axis=-1, keepdims=True), np.cross(u, v)], axis=-1)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    return q / np.where(n == 0, 1.0, n)


# --- component-major stacks: quaternions (4, ...), vectors (3, ...), elementwise only -----


def mul_components(a, b) -> np.ndarray:
    """:func:`mul` of component-major quaternions ``(4, ...)``, as a ``(4, ...)`` array."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    out = np.empty((4,) + np.broadcast_shapes(aw.shape, bw.shape))
    out[0] = aw * bw - ax * bx - ay * by - az * bz
    out[1] = aw * bx + ax * bw + ay * bz - az * by
    out[2] = aw * by - ax * bz + ay * bw + az * bx
    out[3] = aw * bz + ax * by - ay * bx + az * bw
    return out


def rotate_components(q, v) -> np.ndarray:
    """:func:`rotate` of component-major vectors ``v (3, ...)`` by unit ``q (4, ...)``."""
    u = q[1:]
    t = 2.0 * cross_components(u, v)
    return v + q[0] * t + cross_components(u, t)


def normalize_components(q) -> np.ndarray:
    """Component-major quaternions ``(4, ...)`` scaled to unit length (no check: a zero
    quaternion gives NaN, which the callers' plans rule out)."""
    return q / np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])


# --- one rotation as tuples of floats ----------------------------------------------------


def mul_one(a, b) -> tuple:
    """:func:`mul` of two quaternions given as 4 floats."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def conj_one(q) -> tuple:
    """:func:`conj` of 4 floats."""
    return (q[0], -q[1], -q[2], -q[3])


def rotate_one(q, v) -> tuple:
    """:func:`rotate` of one vector (3 floats) by one unit quaternion (4 floats)."""
    w, x, y, z = q
    vx, vy, vz = v
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


def quat_from_axis_angle_one(axis, angle) -> tuple:
    """:func:`quat_from_axis_angle` of one non-zero axis (3 floats, normalized here)."""
    n = sqrt(dot_one(axis, axis))
    s = sin(0.5 * angle)
    return (cos(0.5 * angle), s * (axis[0] / n), s * (axis[1] / n), s * (axis[2] / n))


def arc_of_units_one(u, v) -> tuple:
    """:func:`arc_of_units` of one pair of unit vectors (3 floats each)."""
    c = cross_one(u, v)
    q = (1.0 + dot_one(u, v), c[0], c[1], c[2])
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if n == 0:
        return q
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)
