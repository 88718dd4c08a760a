"""Sums over the powers of one rotation in closed form, for the multi-parent scan.

Within a run of equal integration steps the body turns by the same rotation
``A = (cos a, sin a n)`` each step, so after ``j`` steps it has turned by
``R(A^j) x = x + (cos 2ja - 1)(x - n n.x) + sin 2ja (n x x)``. Summing the steps'
displacements over ``j = 0 .. k-1`` needs

- ``C(k) = sum (cos 2ja - 1)`` and ``S(k) = sum sin 2ja``, and, when pivots slide along the
  body (their offsets grow by ``j`` times a velocity),
- ``TC(k) = sum j (cos 2ja - 1)`` and ``TS(k) = sum j sin 2ja``.

With the Dirichlet kernel ``sum_(j<k) e^(2ija) = e^(i(k-1)a) sin(ka) / sin(a)``:

- ``C = sin(ka) cos((k-1)a) / sin(a) - k``, ``S = sin(ka) sin((k-1)a) / sin(a)``; their
  absolute error is a few ulps of ``k`` (``C`` cancels, but it only ever multiplies a term
  that is itself of the order of the step's rotation).
- its derivative gives, with ``t = 2a``,
  ``TS = (k sin((k-1)t) - (k-1) sin(kt)) / (4 sin^2 a)`` and
  ``TC = (k cos((k-1)t) - (k-1) cos(kt) - 1) / (4 sin^2 a) - k(k-1)/2``. These cancel like
  ``1/(kt)^2``, so below ``kt = 1`` the Taylor series is used instead:
  ``TS = sum_m (-1)^m t^(2m+1) / (2m+1)! P_(2m+2)(k)`` and
  ``TC = sum_(m>=1) (-1)^m t^(2m) / (2m)! P_(2m+1)(k)`` with the power sums
  ``P_p(k) = sum_(j<k) j^p`` (Faulhaber's polynomials); nine terms reach rounding level.

Everything is elementwise over the arrays given.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb, factorial

import numpy as np

_SERIES_TERMS = 9


@cache
def _bernoulli(n: int) -> tuple[Fraction, ...]:
    """Bernoulli numbers ``B_0 .. B_n`` with ``B_1 = -1/2`` (Akiyama-Tanigawa)."""
    out, a = [], [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    if n >= 1:
        out[1] = -out[1]
    return tuple(out)


@cache
def _faulhaber(p: int) -> tuple[float, ...]:
    """Coefficients, highest power first, of ``P_p(k) = sum_(j<k) j^p`` (degree ``p + 1``)."""
    b = _bernoulli(p)
    coefficients = [Fraction(comb(p + 1, i)) * b[i] / (p + 1) for i in range(p + 1)]
    return tuple(float(c) for c in coefficients) + (0.0,)


def power_sum(p: int, k) -> np.ndarray:
    """``sum_(j=0)^(k-1) j^p`` for integer-valued ``k`` (any shape)."""
    k = np.asarray(k, dtype=float)
    out = np.zeros_like(k)
    for c in _faulhaber(p):
        out = out * k + c
    return out


def rotation_sums(k, a, cos_ka=None, sin_ka=None, cos_a=None, sin_a=None):
    """``C(k), S(k)`` of the module docstring.

    Parameters
    ----------
    k : array_like of integer values
    a : array_like
        Half angles ``a >= 0`` of the rotation; broadcasts with ``k``.
    cos_ka, sin_ka, cos_a, sin_a : array_like, optional
        ``cos(k a)``, ``sin(k a)``, ``cos(a)``, ``sin(a)``, when the caller has them already.
    """
    k = np.asarray(k, dtype=float)
    a = np.asarray(a, dtype=float)
    if cos_ka is None:
        cos_ka, sin_ka = np.cos(k * a), np.sin(k * a)
    sa = np.sin(a) if sin_a is None else sin_a
    ca = np.cos(a) if cos_a is None else cos_a
    ratio = np.where(sa == 0, k, sin_ka / np.where(sa == 0, 1.0, sa))
    # cos((k-1)a) and sin((k-1)a) by the angle difference formulas.
    return ratio * (cos_ka * ca + sin_ka * sa) - k, ratio * (sin_ka * ca - cos_ka * sa)


def weighted_rotation_sums(k, a):
    """``TC(k), TS(k)`` of the module docstring (shapes of ``k`` and ``a`` broadcast)."""
    k, a = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(a, dtype=float))
    t = 2.0 * a
    series = k * t < 1.0
    # Closed form, where it does not cancel.
    sa = np.sin(np.where(series, 1.0, a))
    den = 4.0 * sa * sa
    ts = (k * np.sin((k - 1) * t) - (k - 1) * np.sin(k * t)) / den
    tc = (k * np.cos((k - 1) * t) - (k - 1) * np.cos(k * t) - 1.0) / den - 0.5 * k * (k - 1)
    if np.any(series):
        ks, ts_ = k[series], t[series]
        s_sum = np.zeros_like(ks)
        c_sum = np.zeros_like(ks)
        for m in range(_SERIES_TERMS):
            sign = -1.0 if m % 2 else 1.0
            s_sum += sign * ts_ ** (2 * m + 1) / factorial(2 * m + 1) * power_sum(2 * m + 2, ks)
            if m:
                c_sum += sign * ts_ ** (2 * m) / factorial(2 * m) * power_sum(2 * m + 1, ks)
        ts = np.where(series, 0.0, ts)
        tc = np.where(series, 0.0, tc)
        ts[series] = s_sum
        tc[series] = c_sum
    return tc, ts
