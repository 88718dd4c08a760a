"""One integration step of the multi-parent constraint: the seed's update and its limit.

A step takes the pivots' increments ``R_i`` (one per pivot) and moves the body
``(p0, q0)``. Both integrators have the same shape, which is what lets
:mod:`app.scene.constraints.multi_parent.scan` run them as scans:

- the orientation is multiplied by one unit quaternion ``A`` per step, on the left in world
  space (``q0' = A q0``) and on the right in object space (``q0' = q0 A``);
- the position moves by ``sum_i M_i v_i``, a fixed linear map ``M_i`` per pivot applied to
  the pivot's offset from ``p0``: ``v_i = R(q0) S pos_i`` in world space, or the body-frame
  ``S pos_i`` with the sum then turned by ``R(q0)`` in object space.

``"seed"`` (the seed's update equations): ``A = {R_i}``, the normalized anticommutator, and
``M_i v = v - R_i v R_i*``.

``"twist"`` (their Δt -> 0 limit, integrated exactly over the step): pivot ``i`` turns with the
constant angular velocity ``omega_i = phi_i / dt``, ``phi_i = 2 log(R_i)``, about the line
through its position at the step's start. The body follows the rigid motion of the summed
twist; relative to ``p0`` its velocity field is ``Omega x (x - p0) + c`` with
``Omega = sum_i omega_i`` and ``c = -sum_i omega_i x v_i``, whose SE(3) exponential over the
step is ``A = exp(Phi / 2)``, ``Phi = sum_i phi_i``, and ``p0' = p0 + J(Phi) c dt`` with ``J``
the left Jacobian of SO(3); so ``M_i v = -J(Phi) (phi_i x v)``. See ``docs/multi-parent.md``.

Arrays are component-major: quaternions ``(4, X)``, vectors ``(3, X)``, per pivot
``(4, P, X)`` and ``(3, P, X)``, so every operation is a handful of elementwise expressions
over all pivots and steps at once; sums over pivots run in pivot order. The quaternion
arithmetic is :mod:`app.scene.math.quat`'s component-major layout (``mul_components``,
``rotate_components``), the vector products :mod:`app.scene.math.vectors`'
(``cross_components``, ``dot_components``) and the anticommutator
:mod:`app.scene.math.anticommutator`'s (``symmetrized_product_components``), each under its
one name.
Only elementwise arithmetic is used (no BLAS): a step's result does not depend on how many
other steps are computed with it, which the scan's bit-identical recomputation relies on.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from app.scene.errors import SceneError
from app.scene.math.anticommutator import symmetrized_product_components
from app.scene.math.jacobians import jacobian_apply_with, jacobian_coefficients
from app.scene.math.quat import rotate_components
from app.scene.math.vectors import cross_components, dot_components

#: The anticommutator of n pivots sums n! orders; beyond this many it is refused.
MAX_PIVOTS = 10

INTEGRATORS = ("seed", "twist", "exact")


def sum_pivots(x) -> np.ndarray:
    """``x[:, 0] + x[:, 1] + ...``: the sum over the pivot axis of ``(C, P, X)``, in order."""
    out = x[:, 0].copy()
    for i in range(1, x.shape[1]):
        out += x[:, i]
    return out


def _half_angle_axis(q):
    """Half angle ``atan2(|v|, w)`` and unit axis (``x`` where there is none) of ``q``."""
    s = np.sqrt(dot_components(q[1:], q[1:]))
    safe = np.where(s == 0, 1.0, s)
    axis = np.where(s == 0, np.array([1.0, 0.0, 0.0])[:, None], q[1:] / safe)
    return np.arctan2(s, q[0]), axis


def rotation_vectors(R) -> np.ndarray:
    """``2 log(R)``: rotation vectors ``(3, ...)`` of unit quaternions ``(4, ...)``, ``w >= 0``."""
    v = R[1:]
    s = np.sqrt(dot_components(v, v))
    # 2 atan2(s, w) / s, which tends to 2 / w as s -> 0.
    ratio = np.where(s > 1e-300, 2.0 * np.arctan2(s, R[0]) / np.where(s == 0, 1.0, s), 2.0 / R[0])
    return ratio * v


def left_jacobian_apply(phi, x):
    """``J(phi) x`` for the left Jacobian of SO(3), component-major ``(3, X)``.

    ``J = I + (1 - cos t)/t^2 [phi]x + (t - sin t)/t^3 [phi]x^2`` with ``t = |phi|``; its
    series is used below ``t = 1e-3``, where the closed form cancels.
    """
    t2 = dot_components(phi, phi)
    t = np.sqrt(t2)
    small = t < 1e-3
    safe = np.where(small, 1.0, t)
    a = np.where(small, 0.5 - t2 / 24.0 + t2 * t2 / 720.0, 2.0 * np.sin(0.5 * safe) ** 2 / safe**2)
    b = np.where(small, 1.0 / 6.0 - t2 / 120.0 + t2 * t2 / 5040.0, (safe - np.sin(safe)) / safe**3)
    px = cross_components(phi, x)
    return x + a * px + b * cross_components(phi, px)


@dataclass(frozen=True, eq=False)
class Increment:
    """The per-step update of one integrator, for ``X`` steps at once (module docstring).

    Attributes
    ----------
    rotation : ndarray, shape (4, X)
        ``A``: the body's rotation per step, unit with ``w >= 0``.
    half_angle : ndarray, shape (X,)
        ``atan2(|A_xyz|, A_w)``, so ``A^k = (cos(k half_angle), sin(k half_angle) axis)``.
    axis : ndarray, shape (3, X)
    """

    integrator: str
    #: ``A`` as given (the seed's); ``None`` where it follows from ``half_angle`` and
    #: ``axis`` (twist and exact: :attr:`rotation` forms it when asked, the scan never does).
    given_rotation: np.ndarray | None
    half_angle: np.ndarray
    axis: np.ndarray
    pivot_rotation: np.ndarray | None  # (4, P, X): R_i (None: exact from rotation vectors)
    pivot_rotvec: np.ndarray | None  # (3, P, X): phi_i (twist only)
    total_rotvec: np.ndarray | None  # (3, X): Phi (twist and exact)
    #: "exact" in world space turns each offset by J(Phi) before crossing it with phi_i
    #: (the pivots ride on the body); elsewhere the step's maps do not depend on the space.
    space: str = "world"

    @cached_property
    def rotation(self) -> np.ndarray:
        """``A (4, X)``: ``(cos half_angle, sin half_angle axis)`` unless given."""
        if self.given_rotation is not None:
            return self.given_rotation
        half = self.half_angle
        return np.concatenate([np.cos(half)[None], np.sin(half) * self.axis])

    @cached_property
    def jacobian_ab(self):
        """``a, b`` of ``J(Phi)`` (:mod:`app.scene.math.jacobians`), once per step."""
        a, b = jacobian_coefficients(2.0 * self.half_angle, moments=False)
        return a, b

    def take(self, index) -> Increment:
        """The increment of steps ``index`` (an index array over ``X``) alone."""

        def pick(x):
            return None if x is None else x[..., index]

        out = Increment(
            self.integrator,
            pick(self.given_rotation),
            self.half_angle[index],
            pick(self.axis),
            pick(self.pivot_rotation),
            pick(self.pivot_rotvec),
            pick(self.total_rotvec),
            self.space,
        )
        if "jacobian_ab" in self.__dict__:  # the same coefficients, not computed again
            out.__dict__["jacobian_ab"] = tuple(c[index] for c in self.jacobian_ab)
        return out

    @property
    def _exact_world(self) -> bool:
        return self.integrator == "exact" and self.space == "world"

    def pivot_sum(self, v) -> np.ndarray:
        """``sum_i M_i v_i`` for offsets ``v (3, P, X)``; the step's displacement ``(3, X)``."""
        if self.integrator == "seed" or self._exact_world:
            return sum_pivots(self.contributions(v))
        return left_jacobian_apply(
            self.total_rotvec, -sum_pivots(cross_components(self.pivot_rotvec, v))
        )

    def contributions(self, v) -> np.ndarray:
        """Each pivot's share ``M_i v_i`` of the displacement, ``(3, P, X)``.

        For the seed, ``v_i - R_i v_i R_i*``: :meth:`pivot_sum` is their sum, bit for bit.
        For the twist, ``-J(Phi) (phi_i x v_i)``, whose sum is :meth:`pivot_sum` up to
        rounding (the step applies ``J`` once, to the sum).
        """
        if self.integrator == "seed":
            return v - rotate_components(self.pivot_rotation, v)
        phi = self.total_rotvec[:, None]
        if self._exact_world:  # -phi_i x J(Phi) v_i (see app.scene.constraints.multi_parent.exact)
            a, b = self.jacobian_ab
            return -cross_components(self.pivot_rotvec, jacobian_apply_with(phi, a, b, v))
        return left_jacobian_apply(
            np.broadcast_to(phi, v.shape), -cross_components(self.pivot_rotvec, v)
        )


def increment(R, integrator: str, space: str = "world", rotvec=None) -> Increment:
    """The step update for pivot increments ``R (4, P, X)`` (unit, ``w >= 0``).

    For twist and exact, ``rotvec (3, P, X)``, when given, are the rotation vectors ``2 log
    R_i`` (the exact plan's); ``R`` may then be ``None``.

    ``"exact"`` is the twist's step with the pivots riding on the body (world space; in
    object space the two coincide); its sliding-pivot term is added by
    :mod:`app.scene.constraints.multi_parent.exact`.

    Raises
    ------
    SceneError
        For an unknown integrator (at ``integrator``), or where the seed's anticommutator
        vanishes (at ``pivots``; the plan's step bound rules it out, see
        :mod:`app.scene.constraints.multi_parent.plan`).
    """
    R = None if R is None else np.asarray(R, dtype=float)
    if integrator == "seed":
        total = symmetrized_product_components(R)
        norm = np.sqrt(total[0] * total[0] + dot_components(total[1:], total[1:]))
        if not np.all(norm > 0):
            raise SceneError(
                "the normalized anticommutator of the pivots' steps vanishes", "pivots"
            )
        A = total / norm
        A = np.where(A[0] < 0, -A, A)
        half, axis = _half_angle_axis(A)
        return Increment("seed", A, half, axis, R, None, None)
    if integrator in ("twist", "exact"):
        # 2 log R_i, unless the plan has the rotation vectors R_i came from
        phi = rotation_vectors(R) if rotvec is None else np.asarray(rotvec, dtype=float)
        Phi = sum_pivots(phi)
        t = np.sqrt(dot_components(Phi, Phi))
        axis = np.where(t == 0, np.array([1.0, 0.0, 0.0])[:, None], Phi / np.where(t == 0, 1, t))
        return Increment(integrator, None, 0.5 * t, axis, R, phi, Phi, space)
    raise SceneError(
        f"integrator must be one of {', '.join(INTEGRATORS)}, got {integrator!r}", "integrator"
    )
