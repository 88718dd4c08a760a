"""Transforms of ONE frame in plain Python floats, for rigid chains.

A transform is its affine part, three rows of four floats (``m[i][j]`` is row ``i``, column
``j`` of the 4x4 matrix; the fourth row is ``[0, 0, 0, 1]``), as ``ndarray.tolist()`` of
``a_to_b[:3]`` gives it. The formulas are those of :mod:`app.scene.math.transforms` and
:mod:`app.scene.math.quat`; numpy's fixed cost per call, not the arithmetic, is what a
single frame would spend its time on. The one-frame FABRIK path
(:mod:`app.scene.constraints.fabrik.one_frame`) reads a chain's frames with them.

The rotation of a transform is read directly (:func:`quat_from_rotation`) only where
:func:`is_rotation` says it is one to rounding; callers take the general (numpy) path where
it is not, so scale and shear keep the general path's meaning (the polar decomposition).
"""

from __future__ import annotations

from math import sqrt

#: How far ``R^T R`` may lie from the identity (largest entry) for ``R`` to be read as a
#: rotation directly: rounding of a product of a few dozen rotations is ~1e-15, and at this
#: distance the polar factor and ``R`` itself differ by less than 1e-13.
ORTHONORMAL = 1e-13

IDENTITY = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]


def is_rotation(m, tolerance: float = ORTHONORMAL) -> bool:
    """Whether the 3x3 part of ``m`` is a rotation to ``tolerance`` (orthonormal columns,
    determinant positive; NaN: not)."""
    (a, b, c), (d, e, f), (g, h, i) = m[0][:3], m[1][:3], m[2][:3]
    if not (
        abs(a * a + d * d + g * g - 1.0) <= tolerance
        and abs(b * b + e * e + h * h - 1.0) <= tolerance
        and abs(c * c + f * f + i * i - 1.0) <= tolerance
        and abs(a * b + d * e + g * h) <= tolerance
        and abs(a * c + d * f + g * i) <= tolerance
        and abs(b * c + e * f + h * i) <= tolerance
    ):
        return False
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) > 0.0


def quat_from_rotation(m) -> tuple:
    """:func:`app.scene.math.quat.quat_from_matrix` of one rotation (the 3x3 part of ``m``):
    Shepperd's method, pivot on the largest of ``m00, m11, m22, trace``; ``w >= 0``."""
    m00, m11, m22 = m[0][0], m[1][1], m[2][2]
    trace = m00 + m11 + m22
    decision = (m00, m11, m22, trace)
    choice = decision.index(max(decision))
    if choice == 3:
        q = [1 + trace, m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1]]
    else:
        i = choice
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [0.0, 0.0, 0.0, 0.0]
        q[1 + i] = 1 - trace + 2 * m[i][i]
        q[1 + j] = m[j][i] + m[i][j]
        q[1 + k] = m[k][i] + m[i][k]
        q[0] = m[k][j] - m[j][k]
    n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if q[0] / n < 0:
        n = -n
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def rotation_rows(q) -> list:
    """:func:`app.scene.math.quat.matrix_from_quat` of one unit quaternion, 3 rows of 3."""
    w, x, y, z = q
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    return [
        [1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)],
        [2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)],
        [2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)],
    ]


def compose(a, b) -> list:
    """``a @ b`` of two affine transforms (3 rows of 4 each)."""
    (b0, b1, b2) = b
    out = []
    for r0, r1, r2, r3 in a:
        out.append(
            [
                r0 * b0[0] + r1 * b1[0] + r2 * b2[0],
                r0 * b0[1] + r1 * b1[1] + r2 * b2[1],
                r0 * b0[2] + r1 * b1[2] + r2 * b2[2],
                r0 * b0[3] + r1 * b1[3] + r2 * b2[3] + r3,
            ]
        )
    return out


def turned(a, rotation) -> list:
    """``a @ R(rotation)``: the transform turned on the right by a unit quaternion."""
    (c0, c1, c2) = rotation_rows(rotation)
    return [
        [
            r0 * c0[0] + r1 * c1[0] + r2 * c2[0],
            r0 * c0[1] + r1 * c1[1] + r2 * c2[1],
            r0 * c0[2] + r1 * c1[2] + r2 * c2[2],
            r3,
        ]
        for r0, r1, r2, r3 in a
    ]


def relative(parent, child) -> list:
    """``inv(parent) @ child`` (the child's frame in the parent's), by the inverse of the
    parent's 3x3 part from its cofactors, as :func:`app.scene.math.transforms.inverse`:
    frames read from a pose are rotations only to rounding (~1e-14 after sampled keys and a
    few levels of products), and the transposition would carry that error into the result.
    """
    (a, b, c, tx), (d, e, f, ty), (g, h, i, tz) = parent
    c00, c01, c02 = e * i - f * h, c * h - b * i, b * f - c * e  # rows of the adjugate
    c10, c11, c12 = f * g - d * i, a * i - c * g, c * d - a * f
    c20, c21, c22 = d * h - e * g, b * g - a * h, a * e - b * d
    s = 1.0 / (a * c00 + b * c10 + c * c20)
    out = []
    for p0, p1, p2 in (
        (c00 * s, c01 * s, c02 * s),
        (c10 * s, c11 * s, c12 * s),
        (c20 * s, c21 * s, c22 * s),
    ):
        out.append(
            [
                p0 * child[0][0] + p1 * child[1][0] + p2 * child[2][0],
                p0 * child[0][1] + p1 * child[1][1] + p2 * child[2][1],
                p0 * child[0][2] + p1 * child[1][2] + p2 * child[2][2],
                p0 * (child[0][3] - tx) + p1 * (child[1][3] - ty) + p2 * (child[2][3] - tz),
            ]
        )
    return out


def point_in(m, p) -> tuple:
    """A world point ``p`` in the frame of rigid ``m``: ``inv(m) @ p``."""
    x, y, z = p[0] - m[0][3], p[1] - m[1][3], p[2] - m[2][3]
    return (
        m[0][0] * x + m[1][0] * y + m[2][0] * z,
        m[0][1] * x + m[1][1] * y + m[2][1] * z,
        m[0][2] * x + m[1][2] * y + m[2][2] * z,
    )


def point_out(m, p) -> list:
    """``m @ p`` for a point ``p`` of ``m``'s frame."""
    return [r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + r[3] for r in m]
