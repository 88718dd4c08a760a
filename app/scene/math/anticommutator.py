"""The normalized anticommutator of the multi-parent seed.

For quaternions ``a_1 .. a_n`` the seed defines::

    {a_i}_i = sum over permutations s of a_s(1) ... a_s(n), divided by its length.

The sum over all ``n!`` orders (the *symmetrized product*) does not depend on the order
in which the ``a_i`` are given, which is why the multi-parent constraint uses it to combine
the pivots' rotations. Written as the definition reads it costs ``n! * n`` products; here a
dynamic program over subsets computes the same sum exactly: with ``P(S)`` the sum over the
orders of the set ``S``, grouping the orders by their last factor gives::

    P(S) = sum over i in S of P(S without i) * a_i,

``2^(n-1) * n`` products in all, done one layer of equal-size subsets at a time, every
product of a layer in one vectorized call.

For a few factors (``n <= 6``, the usual number of pivots) a cheaper identity serves long
stacks of steps: the sum over orders is the multilinear part of ``(t_1 a_1 + ... + t_n a_n)^n``,
which polarization extracts from ``2^(n-1)`` sign patterns ``e`` (with ``e_1 = +1``)::

    P = 2^-(n-1) * sum over e of (e_1 ... e_n) * (e_1 a_1 + ... + e_n a_n)^n,

and the power of one quaternion ``s + v`` stays on its axis, ``(s + v)^k = c_k + d_k v``,
so it costs a two-term recursion. Its terms are at most ``n^n`` against a sum near ``n!``,
so it keeps about ``log10(n^n / n!)`` fewer digits (two for ``n = 6``); beyond that the
subset program, which has no cancellation of its own, takes over.

The sum can vanish: two half turns about perpendicular axes anticommute (``i*j + j*i = 0``).
A direction cannot be normalized out of nothing, so :func:`normalized_anticommutator` raises
:class:`VanishingAnticommutatorError` there instead of returning NaN; callers that can
subdivide (the multi-parent integrator) use :func:`symmetrized_product` and test the norm.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from app.scene.math.quat import mul_components
from app.scene.math.vectors import dot_components

#: Largest supported n: the dynamic program holds every subset, 2^n of them.
MAX_FACTORS = 20
#: Up to this n the polarization identity is used (see the module docstring).
POLARIZATION_MAX = 6


class VanishingAnticommutatorError(ArithmeticError):
    """The symmetrized product of the rotations is (numerically) zero."""


@cache
def _signs(n: int) -> np.ndarray:
    """Sign patterns ``(2^(n-1), n)`` with a first column of ``+1``."""
    rows = [(1,) + bits for bits in itertools.product((1, -1), repeat=n - 1)]
    return np.array(rows, dtype=float)


def _polarized(R: np.ndarray) -> np.ndarray:
    """Symmetrized product by polarization, for small ``n`` (module docstring), of
    component-major ``R (4, n, ...)``: elementwise sums in factor order, no BLAS, so a step's
    bits do not depend on how many other steps are computed with it."""
    n = R.shape[1]
    total = np.zeros((4,) + R.shape[2:])
    for signs in _signs(n):
        x = R[:, 0].copy()
        for i in range(1, n):
            if signs[i] > 0:
                x += R[:, i]
            else:
                x -= R[:, i]
        s, v2 = x[0], dot_components(x[1:], x[1:])
        c, d = s, np.ones_like(s)  # x^1 = s + 1 v
        for _ in range(n - 1):
            c, d = c * s - d * v2, c + d * s
        weight = np.prod(signs) / 2.0 ** (n - 1)
        total[0] += weight * c
        total[1:] += (weight * d) * x[1:]
    return total


@cache
def _layers(n: int):
    """Index tables of the subset dynamic program for ``n`` factors.

    Returns a tuple over subset sizes ``k = 2..n`` of ``(sub, last)`` arrays, both shaped
    ``(C(n, k), k)``: row ``r`` lists, for the ``r``-th subset of size ``k``, the position in
    layer ``k - 1`` of the subset without its ``j``-th element, and that element.
    """
    masks_by_size = [[] for _ in range(n + 1)]
    for mask in range(1, 1 << n):
        masks_by_size[bin(mask).count("1")].append(mask)
    position = {}
    for masks in masks_by_size:
        for pos, mask in enumerate(masks):
            position[mask] = pos
    layers = []
    for k in range(2, n + 1):
        sub = np.empty((len(masks_by_size[k]), k), dtype=np.intp)
        last = np.empty_like(sub)
        for r, mask in enumerate(masks_by_size[k]):
            elements = [i for i in range(n) if mask >> i & 1]
            for j, i in enumerate(elements):
                sub[r, j] = position[mask ^ (1 << i)]
                last[r, j] = i
        layers.append((sub, last))
    return tuple(layers)


def symmetrized_product(qs) -> np.ndarray:
    """Sum of the products of ``qs`` in every order (not normalized).

    Parameters
    ----------
    qs : array_like, shape (..., n, 4)
        ``n >= 1`` quaternions per leading index.

    Returns
    -------
    ndarray, shape (..., 4)
    """
    qs = np.asarray(qs, dtype=float)
    if qs.ndim < 2 or qs.shape[-1] != 4:
        raise ValueError(f"expected quaternions shaped (..., n, 4), got {qs.shape}")
    components = np.moveaxis(qs, (-1, -2), (0, 1))
    return np.moveaxis(symmetrized_product_components(components), 0, -1)


def symmetrized_product_components(R) -> np.ndarray:
    """:func:`symmetrized_product` of component-major stacks ``R (4, n, ...)`` (factor ``i``
    is ``R[:, i]``), as ``(4, ...)``, with elementwise arithmetic only: each result's bits
    do not depend on the other entries of the stack (the multi-parent scan relies on it)."""
    R = np.asarray(R, dtype=float)
    n = R.shape[1] if R.ndim >= 2 else 0
    if R.ndim < 2 or R.shape[0] != 4:
        raise ValueError(f"expected quaternions shaped (4, n, ...), got {R.shape}")
    if n == 0:
        raise ValueError("the anticommutator of no quaternions is undefined")
    if n > MAX_FACTORS:
        raise ValueError(
            f"the symmetrized product of {n} factors needs 2^{n} subsets; "
            f"at most {MAX_FACTORS} are supported"
        )
    if n == 1:
        return R[:, 0].copy()
    if n == 2:
        # a b + b a: the cross products cancel, leaving 2 (wa wb - ua.ub, wa ub + wb ua).
        a, b = R[:, 0], R[:, 1]
        w = a[0] * b[0] - dot_components(a[1:], b[1:])
        return 2.0 * np.concatenate([w[None], a[0] * b[1:] + b[0] * a[1:]])
    if n <= POLARIZATION_MAX:
        return _polarized(R)
    layer = R  # layer 1: the singletons, in mask order (one bit each, ascending)
    for sub, last in _layers(n):
        products = mul_components(layer[:, sub], R[:, last])  # (4, C(n,k), k, ...)
        total = products[:, :, 0].copy()
        for j in range(1, products.shape[2]):  # in factor order, elementwise
            total += products[:, :, j]
        layer = total
    return layer[:, 0]


def normalized_anticommutator(qs, tolerance: float = 1e-12) -> np.ndarray:
    """The seed's normalized anticommutator ``{q_i}_i``.

    Parameters
    ----------
    qs : array_like, shape (..., n, 4)
        Unit quaternions, ``n >= 1`` per leading index.
    tolerance : float
        The sum is declared vanishing when its length is below ``tolerance * n!``
        (each of the ``n!`` products has unit length).

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions.

    Raises
    ------
    VanishingAnticommutatorError
        Where the symmetrized product vanishes (for example two half turns about
        perpendicular axes), since no rotation is defined there.
    """
    total = symmetrized_product(qs)
    n = np.asarray(qs).shape[-2]
    length = np.linalg.norm(total, axis=-1, keepdims=True)
    scale = float(np.prod(np.arange(1, n + 1, dtype=float)))
    small = length[..., 0] <= tolerance * scale
    if np.any(small) or not np.all(np.isfinite(length)):
        where = np.argwhere(np.atleast_1d(small)).tolist()[:3]
        raise VanishingAnticommutatorError(
            "the normalized anticommutator is undefined: the sum of the products in every "
            f"order vanishes (at index {where}); this happens for large rotations such as "
            "half turns about perpendicular axes, so use smaller steps"
        )
    return total / length
