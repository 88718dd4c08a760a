"""The exact integrator's displacement terms in world space, through one matrix per piece.

A piece of the world-space scan (:mod:`app.scene.constraints.multi_parent.scan`) starting at
orientation ``Q`` moves the body, in its substep ``k``, by ``x0 + (cos 2ka - 1) x1 +
sin 2ka x2`` with (:mod:`app.scene.constraints.multi_parent.exact`)

- ``x0 = -sum_i phi_i x J w_i``, ``w_i = R(Q) u_i`` (pivot ``i``'s offset in world axes),
- ``x1 = -sum_i phi_i x J (w_i - n (n.w_i))``, ``x2 = -sum_i phi_i x J (n x w_i)``,

``J = J(Phi)`` the left Jacobian of the summed turn ``Phi = t n``. Per pivot, turning ``u_i``
by ``R(Q)`` and then ``J`` costs two quaternion-style rotations; here ``M = J R(Q)`` is formed
once per piece (a 3x3 matrix of arrays) and ``x_i = J w_i = M u_i`` is nine products per
pivot, with a pivot's fixed offset entering as plain numbers. ``J`` fixes ``n`` and commutes
with ``n x``, so

- ``x1 = x0 + (sum_i s_i phi_i) x n`` with ``s_i = n.w_i = (R(Q)^T n).u_i``,
- ``x2 = sum_i (phi_i.n) x_i - n sum_i phi_i.x_i`` (``a x (b x c) = b (a.c) - c (a.b)``):

no further Jacobian or rotation per pivot. The results equal the per-pivot formulas up to
rounding (a few ulps); sums over pivots run in pivot order, and all arithmetic is elementwise
over pieces, so a piece's terms do not depend on which other pieces are computed with it.

Arrays are component-major: ``Q (4, X)``, vectors ``(3, X)``, per pivot ``(3, P, X)``.
"""

from __future__ import annotations

import numpy as np


def rotation_matrix(q) -> list[list[np.ndarray]]:
    """``R(q)`` of unit quaternions ``q (4, X)`` as rows of entries, each ``(X,)``."""
    w, x, y, z = q
    x2, y2, z2 = 2.0 * x, 2.0 * y, 2.0 * z
    xx, yy, zz = x * x2, y * y2, z * z2
    xy, xz, yz = x * y2, x * z2, y * z2
    wx, wy, wz = w * x2, w * y2, w * z2
    return [
        [1.0 - (yy + zz), xy - wz, xz + wy],
        [xy + wz, 1.0 - (xx + zz), yz - wx],
        [xz - wy, yz + wx, 1.0 - (xx + yy)],
    ]


def jacobian_matrix(Phi, a, b) -> list[list[np.ndarray]]:
    """``J(Phi) = I + a [Phi]x + b [Phi]x^2`` as rows of entries, each ``(X,)``.

    ``a, b (X,)`` from :func:`app.scene.math.jacobians.jacobian_coefficients`; ``[Phi]x^2 =
    Phi Phi^T - |Phi|^2 I``.
    """
    px, py, pz = Phi
    bx, by = b * px, b * py
    ax, ay, az = a * px, a * py, a * pz
    bxy, bxz, byz = bx * py, bx * pz, by * pz
    sx, sy, sz = px * px, py * py, pz * pz
    return [
        [1.0 - b * (sy + sz), bxy - az, bxz + ay],
        [bxy + az, 1.0 - b * (sx + sz), byz - ax],
        [bxz - ay, byz + ax, 1.0 - b * (sx + sy)],
    ]


def _matmul(A, B):
    """The product of two 3x3 matrices of arrays (rows of entries)."""
    return [
        [A[j][0] * B[0][k] + A[j][1] * B[1][k] + A[j][2] * B[2][k] for k in range(3)]
        for j in range(3)
    ]


def _entries(u):
    """Pivot offsets ``u (3, X)`` as three entries: plain numbers where the offset is the
    same for every piece (a broadcast view, the fixed pivots'), else arrays."""
    if u.shape[-1] and u.strides[-1] == 0:
        return [float(c) for c in u[:, 0]]
    return [u[0], u[1], u[2]]


def exact_world_terms(Q, Phi, axis, a, b, phi, u, full: bool = True) -> list[np.ndarray]:
    """``x0`` (and ``x1, x2`` when ``full``) of pieces starting at ``Q`` (module docstring).

    Parameters
    ----------
    Q : ndarray, shape (4, X)
        The pieces' starting orientations (unit).
    Phi, axis : ndarray, shape (3, X)
        The summed turn per substep and its unit axis ``n``.
    a, b : ndarray, shape (X,)
        ``J(Phi)``'s coefficients.
    phi : ndarray, shape (3, P, X)
        Each pivot's turn per substep (world axes).
    u : ndarray, shape (3, P, X)
        Each pivot's offset ``S pos_i`` in the body frame; may be a broadcast view.

    Returns
    -------
    list of ndarrays, shape (3, X)
        ``[x0]`` or ``[x0, x1, x2]``, in world coordinates.
    """
    R = rotation_matrix(Q)
    M = _matmul(jacobian_matrix(Phi, a, b), R)
    n = axis
    X = Q.shape[1]
    x0 = np.empty((3, X))
    tmp = np.empty(X)
    if full:
        r = [R[0][k] * n[0] + R[1][k] * n[1] + R[2][k] * n[2] for k in range(3)]  # R^T n
        sigma = np.zeros((3, X))  # sum_i s_i phi_i
        g = np.zeros((3, X))  # sum_i (phi_i . n) x_i
        e = np.zeros(X)  # sum_i phi_i . x_i
    for i in range(phi.shape[1]):
        p = phi[:, i]
        u0, u1, u2 = _entries(u[:, i])
        x = [M[j][0] * u0 + M[j][1] * u1 + M[j][2] * u2 for j in range(3)]  # J R(Q) u_i
        for c, (j, k) in enumerate(((1, 2), (2, 0), (0, 1))):  # x0 -= phi_i x x_i
            if i == 0:  # the same bits as 0 - a + b
                np.multiply(p[k], x[j], out=x0[c])
                x0[c] -= np.multiply(p[j], x[k], out=tmp)
                continue
            np.multiply(p[j], x[k], out=tmp)
            x0[c] -= tmp
            np.multiply(p[k], x[j], out=tmp)
            x0[c] += tmp
        if full:
            s = r[0] * u0 + r[1] * u1 + r[2] * u2  # n . w_i
            for c in range(3):
                np.multiply(s, p[c], out=tmp)
                sigma[c] += tmp
            f = p[0] * n[0] + p[1] * n[1] + p[2] * n[2]  # phi_i . n
            for c in range(3):
                np.multiply(f, x[c], out=tmp)
                g[c] += tmp
            e += p[0] * x[0] + p[1] * x[1] + p[2] * x[2]
    if not full:
        return [x0]
    x1 = x0.copy()
    x1[0] += sigma[1] * n[2] - sigma[2] * n[1]
    x1[1] += sigma[2] * n[0] - sigma[0] * n[2]
    x1[2] += sigma[0] * n[1] - sigma[1] * n[0]
    x2 = g - n * e
    return [x0, x1, x2]
