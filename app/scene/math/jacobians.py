"""The left Jacobian of SO(3) and its first moment: integrals of a steadily turning vector.

For a rotation vector ``phi`` (angle ``t = |phi|``) and ``E(s) = exp(s [phi]x)``:

- the left Jacobian ``J(phi) = integral_0^1 E(s) ds
  = I + a(t) [phi]x + b(t) [phi]x^2`` with ``a = (1 - cos t) / t^2``, ``b = (t - sin t) / t^3``;
- its first moment ``K(phi) = integral_0^1 s E(s) ds
  = I / 2 + c(t) [phi]x + d(t) [phi]x^2`` with ``c = (sin t - t cos t) / t^3``,
  ``d = (t^2 / 2 + 1 - cos t - t sin t) / t^4``.

So a vector turning at the constant rate ``omega`` for ``tau`` frames sweeps
``integral_0^tau exp(s [omega]x) x ds = tau J(omega tau) x`` and, moving linearly as
``x + s dx`` meanwhile, adds ``tau^2 K(omega tau) dx``. The closed forms cancel as ``t -> 0``
(``d`` loses ``eps / t^4``), so below ``t = 1`` the coefficients come from their power series
in ``t^2`` (twelve terms: the first omitted one is below ``1e-20`` there):

``a = sum_k (-1)^k t^2k / (2k + 2)!``, ``b = sum_k (-1)^k t^2k / (2k + 3)!``,
``c = sum_k (-1)^k t^2k / ((2k + 1)! (2k + 3))``, ``d = sum_k (-1)^k t^2k / ((2k + 2)! (2k + 4))``.

Vectors are component-major ``(3, ...)``, as in
:mod:`app.scene.constraints.multi_parent.increments`; only elementwise arithmetic is used.
"""

from __future__ import annotations

from math import factorial

import numpy as np

#: Below this angle the series are used.
SERIES_BELOW = 1.0
_TERMS = 12
_SERIES = {
    "a": [(-1) ** k / factorial(2 * k + 2) for k in range(_TERMS)],
    "b": [(-1) ** k / factorial(2 * k + 3) for k in range(_TERMS)],
    "c": [(-1) ** k / (factorial(2 * k + 1) * (2 * k + 3)) for k in range(_TERMS)],
    "d": [(-1) ** k / (factorial(2 * k + 2) * (2 * k + 4)) for k in range(_TERMS)],
}


def _series(name: str, t2, terms: int = _TERMS):
    coefficients = _SERIES[name][:terms]
    out = np.full(np.shape(t2), coefficients[-1])
    for coefficient in reversed(coefficients[:-1]):  # Horner in t^2, in place
        out *= t2
        out += coefficient
    return out


def _terms_needed(t2_max: float) -> int:
    """Series terms whose first omitted one is below 1e-18 at ``t^2 <= t2_max`` (<= 1)."""
    for n in range(1, _TERMS):
        if t2_max**n / factorial(2 * n + 2) < 1e-18:
            return n
    return _TERMS


def _cross(a, b):
    out = np.empty((3,) + np.broadcast_shapes(a[0].shape, b[0].shape))
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


def jacobian_coefficients(t, moments: bool = True):
    """``a, b, c, d`` of the module docstring at angles ``t >= 0`` (any shape); ``a, b``
    alone (``J``'s, not ``K``'s) when ``moments`` is false."""
    t = np.asarray(t, dtype=float)
    t2 = t * t
    small = t < SERIES_BELOW
    names = "abcd" if moments else "ab"
    out = [np.empty(t.shape) for _ in names]
    if np.all(small):  # the usual case (turns below a radian per step): no masks
        n = _terms_needed(float(t2.max(initial=0.0)))
        return tuple(_series(name, t2, n) for name in names)
    if np.any(small):  # the series where they are used, with as many terms as needed
        t2s = t2[small]
        n = _terms_needed(float(t2s.max()))
        for o, name in zip(out, names):
            o[small] = _series(name, t2s, n)
    if not np.all(small):  # the closed forms elsewhere
        s = t[~small]
        sin, cos, half = np.sin(s), np.cos(s), 2.0 * np.sin(0.5 * s) ** 2
        out[0][~small] = half / (s * s)
        out[1][~small] = (s - sin) / s**3
        if moments:
            out[2][~small] = (sin - s * cos) / s**3
            out[3][~small] = (0.5 * s * s + half - s * sin) / s**4
    return tuple(out)


def jacobian_apply_with(phi, a, b, x):
    """``J(phi) x`` from precomputed coefficients ``a, b`` (:func:`jacobian_coefficients`)."""
    px = _cross(phi, x)
    return x + a * px + b * _cross(phi, px)


def jacobians_apply(phi, x, dx=None):
    """``J(phi) x`` (and ``+ K(phi) dx`` when ``dx`` is given), component-major ``(3, ...)``.

    Parameters
    ----------
    phi : ndarray, shape (3, ...)
        Rotation vectors (radians).
    x : ndarray, shape (3, ...)
    dx : ndarray, shape (3, ...), optional

    Returns
    -------
    ndarray, shape (3, ...)
    """
    t = np.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
    a, b, c, d = jacobian_coefficients(t)
    px = _cross(phi, x)
    out = x + a * px + b * _cross(phi, px)
    if dx is not None:
        pd = _cross(phi, dx)
        out = out + 0.5 * dx + c * pd + d * _cross(phi, pd)
    return out


def jacobian_matrices(phi):
    """``J(phi)`` and ``K(phi)`` as matrices, ``phi (..., 3)`` -> two ``(..., 3, 3)``."""
    phi = np.asarray(phi, dtype=float)
    t = np.linalg.norm(phi, axis=-1)
    a, b, c, d = jacobian_coefficients(t)
    x, y, z = phi[..., 0], phi[..., 1], phi[..., 2]
    zero = np.zeros_like(x)
    hat = np.stack(
        [np.stack([zero, -z, y], -1), np.stack([z, zero, -x], -1), np.stack([-y, x, zero], -1)], -2
    )
    hat2 = hat @ hat
    eye = np.eye(3)
    J = eye + a[..., None, None] * hat + b[..., None, None] * hat2
    K = 0.5 * eye + c[..., None, None] * hat + d[..., None, None] * hat2
    return J, K


def moment_apply(phi, dx):
    """``K(phi) dx``, component-major ``(3, ...)`` (the first moment alone)."""
    t = np.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
    _, _, c, d = jacobian_coefficients(t)
    pd = _cross(phi, dx)
    return 0.5 * dx + c * pd + d * _cross(phi, pd)
