"""Constant and eased key segments in the multi-parent integrators (format §A, §B).

Linear (slerp) segments turn a pivot at a constant rate, which is what the pieces of the
plan and their closed forms rely on. The other two kinds do not:

- ``"constant"`` holds the key's value and changes at the next key's frame all at once. The
  seed's and twist's equations see this as one step whose ``R_i`` is the whole change; the
  exact integrator takes the limit of an ever faster turn: an instant turn about the pivot
  (:func:`jumps`), several pivots jumping together as the exponential of their summed twist,
  which is one :func:`~app.scene.constraints.multi_parent.exact.exact_step` with their change
  as ``phi_i``.
- ``"ease"`` follows the linear path with ``u`` replaced by ``s(u) = 3u² − 2u³``: the pivot
  turns about the same axis at the varying rate ``s'(u) = 6u(1 − u)`` times the linear rate.
  The seed and twist take every step there literally from the keys (:func:`nonlinear_steps`
  marks those steps *general*); the exact integrator integrates the limit with a fourth-order
  Gauss–Legendre Magnus method (:func:`ease_flow`), subdivided so that no substep turns more
  than :data:`MAGNUS_STEP_ANGLE`, which keeps its error near 1e-13 of the piece's extent.

Arrays are component-major as in :mod:`app.scene.constraints.multi_parent.increments`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.constraints.multi_parent.increments import sum_pivots
from app.scene.math.quat import mul_components, rotate_components
from app.scene.math.vectors import cross_components, dot_components
from app.scene.rig.keys import CONSTANT, EASE, sample

#: Largest summed turn (radians) of one Magnus substep in an eased piece.
MAGNUS_STEP_ANGLE = 0.005
#: Gauss–Legendre nodes on [0, 1]: two for the Magnus step, three for the position's quadrature.
_MAGNUS_NODES = (0.5 - np.sqrt(3.0) / 6.0, 0.5 + np.sqrt(3.0) / 6.0)
_QUAD_NODES = (0.5 - np.sqrt(15.0) / 10.0, 0.5, 0.5 + np.sqrt(15.0) / 10.0)
_QUAD_WEIGHTS = (5.0 / 18.0, 8.0 / 18.0, 5.0 / 18.0)


def _steps_over(lo, hi):
    """All integers ``lo[j] <= n < hi[j]`` for every ``j``, concatenated."""
    count = np.maximum(hi - lo, 0)
    first = np.repeat(lo, count)
    return first + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)


def nonlinear_steps(
    pivot, frame_start: float, substeps: int, n_steps: int, jumps: bool = True
) -> np.ndarray:
    """Grid steps that must be taken literally from the keys: every step touching an eased
    segment (rotation or position) and, with ``jumps``, the step in which a constant rotation
    segment's change lands (``t_n < key <= t_(n+1)``)."""
    out = [np.empty(0, np.intp)]
    for keys, rotation in ((pivot.rotation_keys, True), (pivot.position_keys, False)):
        if keys is None or keys.codes is None or len(keys) < 2:
            continue
        codes, frames = keys.codes[:-1], keys.frames
        j = np.flatnonzero(codes == EASE)
        lo = np.floor((frames[j] - frame_start) * substeps).astype(np.intp)
        hi = np.ceil((frames[j + 1] - frame_start) * substeps).astype(np.intp)
        out.append(_steps_over(np.clip(lo, 0, n_steps), np.clip(hi, 0, n_steps)))
        if rotation and jumps:
            j = np.flatnonzero(codes == CONSTANT)
            n = np.ceil((frames[j + 1] - frame_start) * substeps).astype(np.intp) - 1
            out.append(n[(n >= 0) & (n < n_steps)])
    return np.concatenate(out)


def rate_factor(codes, j, frames, times):
    """How fast each time's segment is followed relative to linear: 1, 0 or ``6u(1 - u)``."""
    c = codes[j]
    u = np.clip((times - frames[j]) / (frames[j + 1] - frames[j]), 0.0, 1.0)
    return np.where(c == CONSTANT, 0.0, np.where(c == EASE, 6.0 * u * (1.0 - u), 1.0))


def jumps(tracks, frame_start: float, t_end: float):
    """Instant turns of constant rotation segments in ``(frame_start, t_end]``.

    Returns
    -------
    times : ndarray, shape (J,)
        Sorted, each once.
    phi : ndarray, shape (3, P, J)
        Each pivot's change (rotation vector, world or body axes as its keys are read) at
        each time; zero for pivots that do not jump then.
    """
    found = []
    for i, track in enumerate(tracks):
        if track.rot_codes is None:
            continue
        j = np.flatnonzero(track.rot_codes == CONSTANT)
        t = track.rot_frames[j + 1]
        keep = (t > frame_start) & (t <= t_end)
        found.append((i, t[keep], (track.angle[j] * track.axis[j].T)[:, keep]))
    times = np.unique(np.concatenate([t for _, t, _ in found])) if found else np.empty(0)
    phi = np.zeros((3, len(tracks), len(times)))
    for i, t, p in found:
        phi[:, i, np.searchsorted(times, t)] = p
    return times, phi


def rates_at(tracks, times):
    """Each pivot's angular velocity and sliding velocity ``(3, P, X)`` (per frame) at
    ``times (X,)``, honouring every segment's interpolation."""
    times = np.asarray(times, dtype=float)
    omega = np.zeros((3, len(tracks)) + times.shape)
    slide = np.zeros((3, len(tracks)) + times.shape)
    for i, track in enumerate(tracks):
        for frames, codes, rate, out in (
            (track.rot_frames, track.rot_codes, None, omega),
            (track.pos_frames, track.pos_codes, 1, slide),
        ):
            if len(frames) < 2:
                continue
            j = np.clip(np.searchsorted(frames, times, side="right") - 1, 0, len(frames) - 2)
            inside = (times >= frames[0]) & (times < frames[-1])
            factor = np.where(inside, 1.0, 0.0)
            if codes is not None:
                factor = factor * rate_factor(codes, j, frames, times)
            if rate is None:  # the linear rate of the slerp: its angle over the interval
                out[:, i] = factor * (track.angle[j] / np.diff(frames)[j]) * track.axis[j].T
            else:
                out[:, i] = factor * track.velocity[j].T
    return omega, slide


def _offsets(tracks, scale, times):
    return np.stack(
        [(sample(t.pivot.position, t.pivot.position_keys, times) * scale).T for t in tracks], axis=1
    )


def _exp_half(v):
    t = np.sqrt(dot_components(v, v))
    ratio = np.where(t > 1e-8, np.sin(0.5 * t) / np.where(t > 1e-8, t, 1.0), 0.5 - t * t / 48.0)
    return np.concatenate([np.cos(0.5 * t)[None], ratio * v])


def _magnus(tracks, a, h, world: bool):
    """Fourth-order Magnus vector over ``[a, a + h]`` (left form in world space, right form
    in object space: ``R(a + h) = exp(Omega) R(a)`` or ``R(a) exp(Omega)``)."""
    w1 = sum_pivots(rates_at(tracks, a + _MAGNUS_NODES[0] * h)[0])
    w2 = sum_pivots(rates_at(tracks, a + _MAGNUS_NODES[1] * h)[0])
    correction = (np.sqrt(3.0) / 12.0) * h * h * cross_components(w2, w1)
    return 0.5 * h * (w1 + w2) + (correction if world else -correction)


_BASIS = np.eye(3)[:, :, None]


def magnus_substeps(tracks, t0, t1) -> np.ndarray:
    """Magnus substeps of pieces ``[t0, t1]`` (``(X,)`` each): at most
    :data:`MAGNUS_STEP_ANGLE` of summed turn per substep, at least 4."""
    # A bound on the summed turn within each piece: eased rates peak at 1.5 times the linear
    # one, and a piece lies within one key interval of every pivot (the plan cuts at keys),
    # so the turn is at most 1.5 x the interval's angle per pivot: M stays bounded.
    mid = 0.5 * (t0 + t1)
    bound = np.zeros(t0.shape)
    for t in tracks:
        if len(t.rot_frames) >= 2:
            j = np.clip(
                np.searchsorted(t.rot_frames, mid, side="right") - 1, 0, len(t.rot_frames) - 2
            )
            inside = (mid >= t.rot_frames[0]) & (mid < t.rot_frames[-1])
            bound += np.where(inside, 1.5 * t.angle[j] / np.diff(t.rot_frames)[j], 0.0)
    return np.maximum(4, np.ceil(bound * (t1 - t0) / MAGNUS_STEP_ANGLE)).astype(np.intp)


def ease_flow(world: bool, tracks, scale, t0, t1, per_pivot: bool = False):
    """The limit's flow over ``[t0, t1]`` (``(X,)`` each) with eased rates inside.

    Returns
    -------
    rotation : ndarray, shape (4, X)
        The relative turn ``A``: ``q0(t1) = A q0(t0)`` (world) or ``q0(t0) A`` (object).
    displacement : ndarray
        World space ``(3, 3, 3, X)``: ``N[c][:, d]`` with
        ``p0(t1) - p0(t0) = sum_c N[c] R(q0(t0)) e_c``. Object space ``(3, X)``: ``d`` with
        ``p0(t1) - p0(t0) = R(q0(t0)) d``. With ``per_pivot``, each pivot's share (the
        displacement is a sum over pivots) on an axis before the last: ``(..., P, X)``.
    """
    t0 = np.asarray(t0, dtype=float)
    t1 = np.asarray(t1, dtype=float)
    scale = np.asarray(scale, dtype=float)
    M = magnus_substeps(tracks, t0, t1)
    h_all = (t1 - t0) / M
    A = np.zeros((4,) + t0.shape)
    A[0] = 1.0
    P = len(tracks)
    disp = np.zeros((3, 3, 3, P) + t0.shape) if world else np.zeros((3, P) + t0.shape)
    for k in range(int(M.max(initial=0))):
        active = k < M
        h = np.where(active, h_all, 0.0)
        a = t0 + k * h_all
        for g, weight in zip(_QUAD_NODES, _QUAD_WEIGHTS):
            tg = a + g * h
            partial = _exp_half(_magnus(tracks, a, g * h, world))
            Ag = mul_components(partial, A) if world else mul_components(A, partial)
            omega, _ = rates_at(tracks, tg)
            u = _offsets(tracks, scale, tg)  # (3, P, X)
            if world:  # -sum_i u_ic omega_i x (R_rel e_d)
                for d in range(3):
                    turned = rotate_components(Ag, np.broadcast_to(_BASIS[:, d], Ag[1:].shape))
                    for c in range(3):
                        disp[c, :, d] -= (weight * h) * (
                            u[c][None] * cross_components(omega, turned[:, None])
                        )
            else:  # R_rel sum_i u_i x w_i
                disp += (weight * h) * rotate_components(Ag[:, None], cross_components(u, omega))
        step = _exp_half(_magnus(tracks, a, h, world))
        A = mul_components(step, A) if world else mul_components(A, step)
        A /= np.sqrt(A[0] * A[0] + dot_components(A[1:], A[1:]))
    return A, (disp if per_pivot else disp.sum(axis=-2))


def jump_flow(world: bool, phi, u, per_pivot: bool = False):
    """Simultaneous instant turns ``phi (3, P, J)`` of pivots at offsets ``u (3, P, J)``:
    the exponential of their summed twist, in :func:`ease_flow`'s format.

    In object space this is the exact step with ``phi`` as the turns; in world space the
    pivots stay where they are during the jump (the twist is the spatial one at the jump).
    """
    from app.scene.math.jacobians import jacobians_apply

    Phi = sum_pivots(phi)
    Pb = np.broadcast_to(Phi[:, None], phi.shape)  # J is linear: each pivot's share apart
    if not world:
        disp = jacobians_apply(Pb, cross_components(u, phi))
    else:
        disp = np.zeros((3, 3, 3) + phi.shape[1:])
        for d in range(3):
            across = cross_components(
                phi, np.broadcast_to(_BASIS[:, d][:, None], phi.shape)
            )  # phi_i x e_d
            for c in range(3):
                disp[c, :, d] = -jacobians_apply(Pb, u[c][None] * across)
    return _exp_half(Phi), (disp if per_pivot else disp.sum(axis=-2))


@dataclass(frozen=True, eq=False)
class EaseFlows:
    """The plan's pieces that are flows rather than constant-rate steps, integrated lazily in
    the space the scan runs in: eased pieces and the constant segments' jumps.

    ``index (E,)`` are positions in the plan's piece arrays; ``t0, t1 (E,)`` their times;
    ``jump (3, P, E)`` each jump's turns (zero for an eased piece), ``is_jump (E,)``.
    """

    index: np.ndarray
    t0: np.ndarray
    t1: np.ndarray
    tracks: tuple
    scale: np.ndarray
    jump: np.ndarray
    is_jump: np.ndarray

    def from_piece(self, i: int) -> EaseFlows:
        keep = self.index >= i
        return EaseFlows(
            self.index[keep] - i,
            self.t0[keep],
            self.t1[keep],
            self.tracks,
            self.scale,
            self.jump[..., keep],
            self.is_jump[keep],
        )

    def flow(self, world: bool, per_pivot: bool = False):
        """Every flow's relative turn ``(4, E)`` and displacement (see :func:`ease_flow`)."""
        E = len(self.index)
        A = np.zeros((4, E))
        P = (len(self.tracks),) if per_pivot else ()
        disp = np.zeros(((3, 3, 3) if world else (3,)) + P + (E,))
        eased = ~self.is_jump
        if np.any(eased):
            A[:, eased], disp[..., eased] = ease_flow(
                world, self.tracks, self.scale, self.t0[eased], self.t1[eased], per_pivot
            )
        if np.any(self.is_jump):
            u = _offsets(self.tracks, self.scale, self.t0[self.is_jump])
            A[:, self.is_jump], disp[..., self.is_jump] = jump_flow(
                world, self.jump[..., self.is_jump], u, per_pivot
            )
        return A, disp


def apply_flow(world: bool, rotation, displacement, q):
    """The displacement of flows ``(rotation, displacement)`` from orientations ``q (4, X)``."""
    if displacement.ndim == (3 if not world else 5):  # per pivot: (..., P, X)
        q = q[:, None]
    if not world:
        return rotate_components(q, displacement)
    out = np.zeros((3,) + displacement.shape[3:])
    for c in range(3):
        e = np.eye(3)[:, c].reshape((3,) + (1,) * (q.ndim - 1))
        r = rotate_components(q, np.broadcast_to(e, (3,) + q.shape[1:]))  # R(q) e_c
        out += (
            displacement[c, :, 0] * r[0]
            + displacement[c, :, 1] * r[1]
            + displacement[c, :, 2] * r[2]
        )
    return out
