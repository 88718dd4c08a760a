"""Homogeneous 4x4 transforms, vectorized over leading axes.

Column vectors: ``p_in_b = a_to_b @ p_in_a``. A bone's local transform is
``bone_to_parent = T(translation) @ R(rotation) @ S(scale)``. See :mod:`app.scene` for the
naming conventions.
"""

from __future__ import annotations

import numpy as np

from app.scene.math.quat import matrix_from_quat, quat_from_matrix, shortest_arc


def T(translation) -> np.ndarray:
    """Translations ``(..., 3)`` as transforms ``(..., 4, 4)``."""
    translation = np.asarray(translation, dtype=float)
    m = np.zeros(translation.shape[:-1] + (4, 4))
    m[..., 0, 0] = m[..., 1, 1] = m[..., 2, 2] = m[..., 3, 3] = 1.0
    m[..., :3, 3] = translation
    return m


def R(rotation) -> np.ndarray:
    """Rotations given as quaternions ``(..., 4)`` as transforms ``(..., 4, 4)``."""
    rotation = np.asarray(rotation, dtype=float)
    m = np.zeros(rotation.shape[:-1] + (4, 4))
    m[..., :3, :3] = matrix_from_quat(rotation)
    m[..., 3, 3] = 1.0
    return m


def S(scale) -> np.ndarray:
    """Axis scales ``(..., 3)`` as transforms ``(..., 4, 4)``."""
    scale = np.asarray(scale, dtype=float)
    m = np.zeros(scale.shape[:-1] + (4, 4))
    m[..., 0, 0] = scale[..., 0]
    m[..., 1, 1] = scale[..., 1]
    m[..., 2, 2] = scale[..., 2]
    m[..., 3, 3] = 1.0
    return m


def compose(*transforms) -> np.ndarray:
    """Product of transforms, left to right as written: ``compose(A, B) = A @ B``."""
    out = np.asarray(transforms[0], dtype=float)
    for m in transforms[1:]:
        out = out @ np.asarray(m, dtype=float)
    return out


def trs(translation, rotation, scale) -> np.ndarray:
    """``T(translation) @ R(rotation) @ S(scale)`` in one pass, shapes broadcasting.

    Parameters
    ----------
    translation : array_like, shape (..., 3)
    rotation : array_like, shape (..., 4)
        Unit quaternions.
    scale : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 4, 4)
    """
    translation = np.asarray(translation, dtype=float)
    rotation = np.asarray(rotation, dtype=float)
    scale = np.asarray(scale, dtype=float)
    lead = np.broadcast_shapes(translation.shape[:-1], rotation.shape[:-1], scale.shape[:-1])
    m = np.zeros(lead + (4, 4))
    m[..., :3, :3] = matrix_from_quat(rotation) * scale[..., None, :]
    m[..., :3, 3] = translation
    m[..., 3, 3] = 1.0
    return m


def rigid_inverse(a_to_b) -> np.ndarray:
    """Inverse of rigid transforms (rotation and translation only), as the seed spells it.

    ``(T R)^-1 = R^-1 T^-1``: the rotation is transposed and the translation negated and
    rotated back: ``b_to_a = [R^T, -R^T t]``. Wrong for transforms with scale; use
    :func:`inverse` there.
    """
    a_to_b = np.asarray(a_to_b, dtype=float)
    rot_t = np.swapaxes(a_to_b[..., :3, :3], -1, -2)
    out = np.zeros_like(a_to_b)
    out[..., :3, :3] = rot_t
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", rot_t, a_to_b[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


#: Largest entry an inverse's linear part may have; a transform scaled so far down that its
#: inverse would pass it (a scale of ``5e-324``, or of 0) is inverted as far as it can be:
#: the directions it squashes below ``1 / MAX_INVERSE`` are dropped (a pseudo-inverse), so
#: nothing downstream divides by them.
MAX_INVERSE = 1e100

#: Singular values below this fraction of a matrix's largest are taken as 0 by
#: :func:`inverse` (a pseudo-inverse). A transform scaled to 0 on one axis and then turned
#: (a squashed bone's child, a squashed parent aimed by a constraint) is singular only up to
#: rounding: its smallest singular value is rounding noise of about 1e-16 of the largest, and
#: its plain inverse (entries of 10¹⁶) multiplied that noise into every pose read through it,
#: so the pose depended on which frames were evaluated together. At 1e-12 a direction is
#: still known to about 1e-4 of itself; below, it is noise.
RCOND = 1e-12


def inverse(a_to_b) -> np.ndarray:
    """Inverse of affine transforms (scale and shear allowed), shape ``(..., 4, 4)``.

    Finite for any finite input. A degenerate linear part gets a pseudo-inverse instead,
    and only that one: the directions it squashes below :data:`RCOND` of its largest, or
    below ``1 / MAX_INVERSE`` (see :data:`MAX_INVERSE`), are dropped, so the inverse of a
    transform singular up to rounding does not depend on the rounding. Every other matrix
    gets its plain inverse (the same bits as before the pseudo-inverse existed).
    """
    a_to_b = np.asarray(a_to_b, dtype=float)
    linear = a_to_b[..., :3, :3]
    flat = linear.reshape(-1, 3, 3)
    linear_inv = _once_per_run(_linear_inverse, flat).reshape(linear.shape)
    out = np.zeros_like(a_to_b)
    out[..., :3, :3] = linear_inv
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", linear_inv, a_to_b[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


#: A matrix whose volume (``|det|``) is at least this share of the product of its columns'
#: lengths (no column nearly in the plane of the others), with lengths of 1e-50 to 1e50 and
#: within 10⁴ of each other, is inverted in closed form (the rows of the inverse are cross
#: products of the columns over the determinant; within a few ulps of LAPACK's result,
#: several times faster); the others by LAPACK. Such a matrix is far from :data:`RCOND`: its
#: smallest singular value is above 2e-11 of its largest.
CLOSED_FORM_VOLUME = 1e-2
#: The largest ratio of two columns' squared lengths the closed form takes.
_CLOSED_FORM_SPREAD = 1e8


def _linear_inverse(linear: np.ndarray) -> np.ndarray:
    """The inverses of a stack ``(N, 3, 3)`` for :func:`inverse`."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = (
        (linear[:, i, 0], linear[:, i, 1], linear[:, i, 2]) for i in range(3)
    )
    with np.errstate(all="ignore"):
        rows = np.empty(linear.shape)  # row i: the cross product of the other two columns
        rows[:, 0, 0], rows[:, 0, 1], rows[:, 0, 2] = (
            m11 * m22 - m21 * m12,
            m21 * m02 - m01 * m22,
            m01 * m12 - m11 * m02,
        )
        rows[:, 1, 0], rows[:, 1, 1], rows[:, 1, 2] = (
            m12 * m20 - m22 * m10,
            m22 * m00 - m02 * m20,
            m02 * m10 - m12 * m00,
        )
        rows[:, 2, 0], rows[:, 2, 1], rows[:, 2, 2] = (
            m10 * m21 - m20 * m11,
            m20 * m01 - m00 * m21,
            m00 * m11 - m10 * m01,
        )
        det = m00 * rows[:, 0, 0] + m10 * rows[:, 0, 1] + m20 * rows[:, 0, 2]
        squares = np.einsum("nij,nij->nj", linear, linear)
        easy = np.all((squares >= 1e-100) & (squares <= 1e100), axis=-1)
        easy &= squares.max(axis=-1) <= _CLOSED_FORM_SPREAD * squares.min(axis=-1)
        easy &= det * det >= CLOSED_FORM_VOLUME**2 * (squares[:, 0] * squares[:, 1] * squares[:, 2])
    if np.all(easy):
        return rows / det[:, None, None]
    out = np.empty(linear.shape)
    out[easy] = rows[easy] / det[easy, None, None]
    out[~easy] = _lapack_inverse(linear[~easy])
    return out


def _lapack_inverse(linear: np.ndarray) -> np.ndarray:
    """:func:`_linear_inverse` by LAPACK, a pseudo-inverse where that fails or the matrix
    may be degenerate (:data:`RCOND`, :data:`MAX_INVERSE`)."""
    try:
        linear_inv = np.linalg.inv(linear)
    except np.linalg.LinAlgError:  # exactly singular somewhere: which one, numpy does not say
        linear_inv = np.full(linear.shape, np.nan)
        with np.errstate(all="ignore"):
            for i, m in enumerate(linear):
                try:
                    linear_inv[i] = np.linalg.inv(m)
                except np.linalg.LinAlgError:
                    pass
    with np.errstate(all="ignore"):
        big_inv = np.abs(linear_inv).max(axis=(-1, -2), initial=0.0)
        big = np.abs(linear).max(axis=(-1, -2), initial=0.0)
        # The 2-norm condition number is at most 9 |A|max |A⁻¹|max: below 1 / RCOND by that
        # bound, no singular value can be cut and the plain inverse stands (NaN: not).
        fine = (big_inv <= MAX_INVERSE) & (9.0 * big * big_inv <= 1.0 / RCOND)
    if not np.all(fine):
        linear_inv[~fine] = _inverse_of_degenerate(linear[~fine])
    return linear_inv


def _power_of_two_scaled(m):
    """``m (..., 3, 3)`` scaled exactly (by a power of two per matrix) so that its largest
    entry lies in [0.5, 1), its entries below ``1e-290`` of that set to 0 (subnormal numbers
    stop LAPACK's SVD from converging); returns it and each matrix's exponent."""
    big = np.abs(m).max(axis=(-1, -2))
    exponent = np.frexp(np.where(big > 0, big, 1.0))[1]
    scaled = np.ldexp(m, -exponent[..., None, None])
    scaled[np.abs(scaled) < 1e-290] = 0.0
    return scaled, exponent


def _inverse_of_degenerate(linear):
    """:func:`inverse`'s linear part of matrices ``(N, 3, 3)`` that may be degenerate: a
    pseudo-inverse dropping the singular values below :data:`RCOND` of the largest and below
    ``1 / MAX_INVERSE`` (the inverse itself, to rounding, where it drops none)."""
    scaled, exponent = _power_of_two_scaled(linear)
    u, s, vt = np.linalg.svd(scaled)
    true_log2 = np.log2(np.where(s > 0, s, 1.0)) + exponent[:, None]
    keep = (s > RCOND * s[:, :1]) & (s > 0) & (true_log2 > -np.log2(MAX_INVERSE))
    inv_s = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    pinv = np.einsum("...ji,...j,...kj->...ik", vt, inv_s, u)
    return np.ldexp(pinv, -exponent[:, None, None])


def transform_points(a_to_b, points_in_a) -> np.ndarray:
    """Apply transforms ``(..., 4, 4)`` to points ``(..., 3)``; shapes broadcast."""
    a_to_b = np.asarray(a_to_b, dtype=float)
    points_in_a = np.asarray(points_in_a, dtype=float)
    return np.einsum("...ij,...j->...i", a_to_b[..., :3, :3], points_in_a) + a_to_b[..., :3, 3]


def transform_vectors(a_to_b, vectors_in_a) -> np.ndarray:
    """Apply the linear part of transforms to direction vectors ``(..., 3)``."""
    a_to_b = np.asarray(a_to_b, dtype=float)
    return np.einsum("...ij,...j->...i", a_to_b[..., :3, :3], np.asarray(vectors_in_a, float))


def _once_per_run(fn, m: np.ndarray) -> np.ndarray:
    """``fn`` of a stack of matrices ``(N, 3, 3)`` (a result per matrix), computed once per
    run of equal consecutive matrices when the runs are long: a pose held for many frames
    (keys that end, a bone that does not move) costs one LAPACK call, not one a frame. The
    same bits: equal matrices give equal results."""
    if len(m) < _RUNS_FROM:
        return fn(m)
    # Two entries first: where they alone change more than every other frame (nothing
    # holds), the whole matrices need not be compared to know it.
    a, b = m[:, 0, 0], m[:, 1, 1]
    if np.count_nonzero((a[1:] != a[:-1]) | (b[1:] != b[:-1])) + 1 > len(m) // 2:
        return fn(m)
    starts = np.flatnonzero(np.concatenate([[True], np.any(m[1:] != m[:-1], axis=(1, 2))]))
    if len(starts) > len(m) // 2:
        return fn(m)
    return np.repeat(fn(m[starts]), np.diff(np.append(starts, len(m))), axis=0)


#: Stacks of at least this many matrices are looked through for runs of equal ones.
_RUNS_FROM = 64


def rotation_from_matrix(m) -> np.ndarray:
    """Nearest rotation (polar decomposition) of the linear part of ``m``, as quaternions.

    Parameters
    ----------
    m : array_like, shape (..., 3, 3) or (..., 4, 4)

    Returns
    -------
    ndarray, shape (..., 4)
        ``w >= 0``. For ``R @ diag(s)`` with positive ``s`` (and any uniform factor) it is
        exactly ``R``'s quaternion; with shear it is the rotation nearest in Frobenius norm.
    """
    m = np.asarray(m, dtype=float)[..., :3, :3]
    flat = m.reshape(-1, 3, 3)
    return _once_per_run(_polar_quaternions, flat).reshape(m.shape[:-2] + (4,))


#: Largest cosine between two columns of a matrix whose rotation :func:`rotation_from_matrix`
#: takes by normalizing its columns: the polar rotation is then that matrix to within about
#: this much (``R diag(s)`` with positive ``s`` has cosines of a few ulps).
ORTHOGONAL_COLUMNS = 1e-13


def _polar_quaternions(m: np.ndarray) -> np.ndarray:
    """:func:`rotation_from_matrix` of a stack ``(N, 3, 3)``."""
    # A rotation times a positive axis scale (orthogonal columns, a right-handed frame: nearly
    # every matrix) is its normalized columns, without an SVD; its columns' squared lengths
    # must be normal numbers for those to be exact.
    with np.errstate(all="ignore"):
        squares = np.einsum("nij,nij->nj", m, m)
        columns = m / np.sqrt(squares)[:, None, :]
        a, b, c = columns[:, :, 0], columns[:, :, 1], columns[:, :, 2]
        easy = (
            (np.abs(np.einsum("ni,ni->n", a, b)) <= ORTHOGONAL_COLUMNS)
            & (np.abs(np.einsum("ni,ni->n", a, c)) <= ORTHOGONAL_COLUMNS)
            & (np.abs(np.einsum("ni,ni->n", b, c)) <= ORTHOGONAL_COLUMNS)
        )
        easy &= np.all((squares >= 1e-290) & (squares <= 1e290), axis=-1)
        easy &= np.einsum("ni,ni->n", np.cross(a, b), c) > 0
    if np.all(easy):
        return quat_from_matrix(columns)
    out = np.empty((len(m), 4))
    out[easy] = quat_from_matrix(columns[easy])
    out[~easy] = _svd_quaternions(m[~easy])
    return out


def _svd_quaternions(m: np.ndarray) -> np.ndarray:
    """:func:`rotation_from_matrix` of a stack ``(N, 3, 3)`` by an SVD.

    The rotation nearest a matrix of rank 2 (a frame squashed to 0 on one axis) is unique;
    of rank 1 (squashed on two axes: ``σ u vᵀ``) every rotation taking ``v`` to ``u`` is as
    near, and the SVD's choice among them follows the rounding, so such a matrix (its second
    singular value below :data:`RCOND` of the first) turns by the shortest arc from ``v`` to
    ``u``, the least turn among them."""
    # A matrix scaled nearly to nothing (a scale of 5e-324: subnormal entries, on which the
    # SVD does not converge) is first scaled back up, exactly; all zero, it turns by nothing.
    big = np.abs(m).max(axis=(-1, -2), initial=0.0)
    tiny = ~(big >= 1e-150) | np.any((m != 0) & (np.abs(m) < 1e-290), axis=(-1, -2))
    if np.any(tiny):
        m = m.copy()
        m[tiny] = _power_of_two_scaled(m[tiny])[0]
        m[tiny & ~(big > 0)] = np.eye(3)
    u, s, vt = np.linalg.svd(m)
    rot = u @ vt
    # A reflection (negative determinant) has no rotation; flip the weakest axis. (``rot`` is
    # orthogonal: the triple product of its rows is its determinant, +-1, and cheaper.)
    flip = np.einsum("...i,...i->...", np.cross(rot[..., 0, :], rot[..., 1, :]), rot[..., 2, :]) < 0
    if np.any(flip):
        u = u.copy()
        u[flip, :, -1] *= -1
        rot = u @ vt
    q = quat_from_matrix(rot)
    line = (s[:, 1] <= RCOND * s[:, 0]) & (s[:, 0] > 0)  # rank 1: see the docstring
    if np.any(line):
        q[line] = shortest_arc(vt[line, 0, :], u[line, :, 0])
    return q
