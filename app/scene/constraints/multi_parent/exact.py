"""The exact integrator: the seed's Δt -> 0 limit solved in closed form, piece by piece.

``integrator: "exact"`` (``docs/scene-format.md``, ``docs/multi-parent.md`` §2). Between two
consecutive key times of any pivot (a *piece*) slerp keys turn every pivot at a constant
angular velocity ``omega_i`` (rad per frame; world axes in world space, body axes in object
space) and linearly keyed positions slide at a constant velocity. Over a step of ``h`` frames
inside a piece, with ``phi_i = omega_i h``, ``Phi = sum_i phi_i`` and the offsets ``u_i``
(body frame, scaled) moving by ``du_i`` over the step:

- world space: ``q0' = exp(Phi / 2) q0``,
  ``p0' = p0 - sum_i phi_i x (J(Phi) v_i + K(Phi) dv_i)`` with ``v_i = R(q0) u_i`` and
  ``dv_i = R(q0) du_i``;
- object space: ``q0' = q0 exp(Phi / 2)``,
  ``p0' = p0 + R(q0) (J(Phi) sum_i u_i x phi_i + K(Phi) sum_i du_i x phi_i)``;

``J`` and ``K`` from :mod:`app.scene.math.jacobians`. This is the limit's exact flow, not an
approximation, so a piece may be cut anywhere and the pieces composed: the whole-timeline
scans (:mod:`app.scene.constraints.multi_parent.scan`) run it on a grid of whole frames
(``substeps`` is ignored), a step with a key inside it is cut at the key into pieces of their
own lengths (:func:`plan_exact`), and a fractional frame is reached from the grid point before
it by the pieces up to it (:func:`partial_steps`). Steps whose pivots turn far are split into
equal parts like the other integrators' (the closed-form sums over a piece need its per-step
turn well below a half turn); each part is again exact.

The step in world space is the twist integrator's (:mod:`.increments`) with the offsets turned
by ``J`` before the cross product (the pivots ride on the body while it turns) and the
sliding term ``K``; in object space the twist integrator already is exact for fixed pivots.

One idea: the multi-parent's exact integrator, piece by piece.
"""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np

from app.scene.constraints.multi_parent.increments import sum_pivots
from app.scene.constraints.multi_parent.nonlinear import (
    EaseFlows,
    apply_flow,
    ease_flow,
    jump_flow,
    jumps,
    nonlinear_steps,
)
from app.scene.constraints.multi_parent.plan import (
    StepPlan,
    _interval,
    _sorted_unique,
    _track,
    plan_steps,
    subdivisions,
    track_of,
)
from app.scene.math.jacobians import jacobian_coefficients, moment_apply
from app.scene.math.quat import mul_components, rotate_components
from app.scene.math.vectors import cross_components, dot_components
from app.scene.rig.keys import EASE, Keys, sample


def moment_terms(inc, velocity, Q, world: bool):
    """The sliding pivots' first-moment terms of a scan piece (added to ``x0, x1, x2``).

    Parameters
    ----------
    inc : Increment
        The pieces' ``"exact"`` increments (``pivot_rotvec (3, P, X)``, ``total_rotvec``).
    velocity : ndarray, shape (3, P, X)
        How far each ``S pos_i`` slides per step (body frame).
    Q : ndarray, shape (4, X)
        The pieces' starting orientations.
    world : bool

    Returns
    -------
    list of three ndarrays, shape (3, X)
        What ``K`` adds to a step's displacement: its constant part and its ``cos 2ka - 1``
        and ``sin 2ka`` parts as the orientation turns through the piece.
    """
    n, phi, Phi = inc.axis, inc.pivot_rotvec, inc.total_rotvec
    if world:
        w = rotate_components(Q[:, None], velocity)
        nb = n[:, None]
        Pb = np.broadcast_to(Phi[:, None], w.shape)
        return [
            -sum_pivots(cross_components(phi, moment_apply(Pb, x)))
            for x in (w, w - nb * dot_components(nb, w), cross_components(nb, w))
        ]
    m = -moment_apply(Phi, sum_pivots(cross_components(phi, velocity)))
    return [
        rotate_components(Q, m),
        rotate_components(Q, m - n * dot_components(n, m)),
        rotate_components(Q, cross_components(n, m)),
    ]


def exp_half(Phi):
    """``exp(Phi / 2)``: unit quaternions ``(4, X)`` of rotation vectors ``Phi (3, X)``."""
    t = np.sqrt(dot_components(Phi, Phi))
    ratio = np.where(t > 1e-8, np.sin(0.5 * t) / np.where(t > 1e-8, t, 1.0), 0.5 - t * t / 48.0)
    return np.concatenate([np.cos(0.5 * t)[None], ratio * Phi])


def exact_step(world: bool, q, p, phi, u, du):
    """One exact step: pivots turn by ``phi (3, P, X)``, their offsets ``u`` slide by ``du``.

    ``q (4, X)``, ``p (3, X)`` the state before; returns the state after (module docstring).
    ``du`` is ``None`` when no pivot slides.
    """
    Phi = sum_pivots(phi)
    # J(Phi) and K(Phi)'s coefficients once per step (not once per pivot); where no pivot
    # slides (``du`` is None) the K term is left out: it would add zeros.
    t = np.sqrt(Phi[0] * Phi[0] + Phi[1] * Phi[1] + Phi[2] * Phi[2])
    a, b, c, d = (
        jacobian_coefficients(t)
        if du is not None
        else (*jacobian_coefficients(t, moments=False), None, None)
    )

    def apply(axis, x, dx):  # J(Phi) x + K(Phi) dx, as jacobians.jacobians_apply
        px = cross_components(axis, x)
        out = x + a * px + b * cross_components(axis, px)
        if dx is not None:
            pd = cross_components(axis, dx)
            out = out + 0.5 * dx + c * pd + d * cross_components(axis, pd)
        return out

    if world:
        swept = apply(
            Phi[:, None],
            rotate_components(q[:, None], u),
            None if du is None else rotate_components(q[:, None], du),
        )
        return mul_components(exp_half(Phi), q), p - sum_pivots(cross_components(phi, swept))
    body = apply(
        Phi,
        sum_pivots(cross_components(u, phi)),
        None if du is None else sum_pivots(cross_components(du, phi)),
    )
    return mul_components(q, exp_half(Phi)), p + rotate_components(q, body)


def _rates(tracks, times, speeds: bool = False):
    """Every pivot's angular velocity ``(3, P, X)`` and sliding velocity ``(3, P, X)``
    (per frame) in the key intervals containing ``times (X,)``; with ``speeds``, also each
    pivot's angular speed there ``(P, X)`` (``|omega_i|``, as the keys give it). The
    sliding velocity is ``None`` when no pivot has position keys (every slide is zero)."""
    P, X = len(tracks), len(times)
    omega = np.empty((3, P, X))
    sliding = any(len(t.pos_frames) >= 2 for t in tracks)
    slide = np.zeros((3, P, X)) if sliding else None
    speed = np.empty((P, X)) if speeds else None
    found = None  # (key frames, j, inside, all inside): keyed on the same frames, looked up once
    for i, track in enumerate(tracks):
        if len(track.rot_frames) >= 2:
            frames = track.rot_frames
            if found is None or not (found[0] is frames or np.array_equal(found[0], frames)):
                j, inside = _interval(frames, times)
                found = (frames, j, inside, bool(np.all(inside)))
            _, j, inside, everywhere = found
            if X < 64:  # a scrub's few times: one gather (numpy calls cost more than data)
                omega[:, i] = track.angular_velocity[:, j]
            else:
                for c in range(3):  # j is in range: "clip" gathers straight into the row
                    np.take(track.angular_velocity[c], j, out=omega[c, i], mode="clip")
            if not everywhere:
                omega[:, i] *= inside
            if speeds:
                np.take(track.speed, j, out=speed[i], mode="clip")
                if not everywhere:
                    speed[i] *= inside
        else:
            omega[:, i] = 0.0
            if speeds:
                speed[i] = 0.0
        if len(track.pos_frames) >= 2:
            j, inside = _interval(track.pos_frames, times)
            slide[:, i] = np.where(inside[:, None], track.velocity[j], 0.0).T
    return (omega, slide, speed) if speeds else (omega, slide)


def _in_eased_segment(tracks, times) -> np.ndarray:
    """Whether each time lies in an eased segment of some pivot (rotation or position)."""
    out = np.zeros(times.shape, bool)
    for track in tracks:
        for frames, codes in (
            (track.rot_frames, track.rot_codes),
            (track.pos_frames, track.pos_codes),
        ):
            if codes is None:
                continue
            j, inside = _interval(frames, times)
            out |= inside & (codes[j] == EASE)
    return out


def _merged(arrays) -> np.ndarray:
    """The sorted union of ``arrays``, each already sorted: a stable sort merges the runs in
    linear time (the keys of pivots keyed on the same frames, every frame, are common)."""
    values = np.sort(np.concatenate(arrays), kind="stable")
    return values[np.append(True, values[1:] != values[:-1])] if len(values) else values


def _key_times(tracks) -> np.ndarray:
    frames = [f for t in tracks for f in (t.rot_frames, t.pos_frames) if len(f)]
    if frames and all(f is frames[0] or np.array_equal(f, frames[0]) for f in frames[1:]):
        return _merged(frames[:1])  # pivots keyed on the same frames (the usual case)
    return _merged(frames) if frames else np.empty(0)


def _offsets(tracks, scale, times, view: bool = False):
    """Each pivot's offset ``S pos_i`` at ``times``: ``(3, P, X)``; with ``view``, a
    read-only broadcast view when no pivot has position keys (the same at every time)."""
    if view and all(t.pivot.position_keys is None for t in tracks):
        fixed = np.array([t.pivot.position for t in tracks], dtype=float).reshape(-1, 3) * scale
        return np.broadcast_to(fixed.T[:, :, None], (3, len(tracks), len(times)))
    out = np.empty((3, len(tracks), len(times)))
    for i, t in enumerate(tracks):
        if t.pivot.position_keys is None:  # a fixed position: the same at every time
            out[:, i] = (np.asarray(t.pivot.position, dtype=float) * scale)[:, None]
        else:
            out[:, i] = (sample(t.pivot.position, t.pivot.position_keys, times) * scale).T
    return out


def plan_exact(
    pivots, frame_start: float, substeps: int, n_steps: int, scale, block_steps: int
) -> StepPlan:
    """Cut the grid of whole frames ``0 .. n_steps`` into exact pieces (module docstring).

    The arguments are :func:`~app.scene.constraints.multi_parent.plan.plan_steps`'; the grid
    is whole frames, so ``substeps`` must be 1. A grid step with keys strictly inside it
    becomes pieces cut at those keys (the first on the grid, the others with
    ``grid_start == -1``), each of its own length.
    """
    if substeps != 1:
        raise ValueError("the exact integrator's grid is whole frames (substeps 1)")
    N = int(n_steps)
    if N == 0:
        return plan_steps(pivots, frame_start, 1, 0, scale, block_steps)
    scale = np.asarray(scale, dtype=float)
    tracks = [track_of(p, scale) for p in pivots]
    keys = _key_times(tracks)
    keys = keys[(keys > frame_start) & (keys < frame_start + N)]
    step_of = np.floor(keys - frame_start).astype(np.intp)
    on_grid = frame_start + step_of == keys
    general = _sorted_unique(step_of[~on_grid])
    eased = [nonlinear_steps(t.pivot, frame_start, 1, N, jumps=False) for t in tracks]
    eased = np.concatenate(eased) if eased else np.empty(0, np.intp)
    bounds = _merged(
        [
            [0],
            np.arange(0, N, block_steps),
            step_of[on_grid],
            general,
            general + 1,
            np.sort(eased),
            np.sort(eased) + 1,
            [N],
        ]
    )
    starts, ends = bounds[:-1], bounds[1:]
    runs = ~np.isin(starts, general)

    # Runs of whole steps between keys, and the pieces of the steps with keys inside.
    cut = _sorted_unique(np.concatenate([frame_start + general, keys[~on_grid]]))
    cut_step = np.floor(cut - frame_start).astype(np.intp)
    nxt = np.append(cut[1:], np.inf)
    same = np.append(cut_step[1:] == cut_step[:-1], False)
    cut_end = np.where(same, nxt, frame_start + cut_step + 1.0)
    t0 = np.concatenate([frame_start + starts[runs], cut])
    t1 = np.concatenate([frame_start + ends[runs], cut_end])
    count = np.concatenate([ends[runs] - starts[runs], np.ones(len(cut), np.intp)])
    on = cut == frame_start + cut_step
    grid_start = np.concatenate([starts[runs], np.where(on, cut_step, -1)])
    block = np.concatenate([starts[runs], cut_step]) // block_steps
    h = (t1 - t0) / count  # frames per step of the piece
    omega, slide, rate = _rates(tracks, 0.5 * (t0 + t1), speeds=True)
    ease = _in_eased_segment(tracks, 0.5 * (t0 + t1))
    # integrated by the scan (EaseFlows)
    omega[..., ease], rate[..., ease] = 0.0, 0.0
    if slide is not None:
        slide[..., ease] = 0.0
    # Constant segments' changes: pieces of no duration (the jumps), before the grid point
    # at their time, in the step that ends there.
    jump_t, jump_phi = jumps(tracks, frame_start, frame_start + N)
    J = len(jump_t)
    is_jump = np.zeros(len(t0), bool)
    jump = None
    if J:
        t0, t1 = np.concatenate([t0, jump_t]), np.concatenate([t1, jump_t])
        count = np.concatenate([count, np.ones(J, np.intp)])
        grid_start = np.concatenate([grid_start, np.full(J, -1, np.intp)])
        block = np.concatenate(
            [block, (np.ceil(jump_t - frame_start).astype(np.intp) - 1) // block_steps]
        )
        h = np.concatenate([h, np.ones(J)])
        omega = np.concatenate([omega, np.zeros((3, len(tracks), J))], axis=-1)
        rate = np.concatenate([rate, np.zeros((len(tracks), J))], axis=-1)
        if slide is not None:
            slide = np.concatenate([slide, np.zeros((3, len(tracks), J))], axis=-1)
        jump = np.concatenate([np.zeros(omega.shape[:2] + (len(t0) - J,)), jump_phi], axis=-1)
        is_jump = np.concatenate([is_jump, np.ones(J, bool)])
        ease = np.concatenate([ease, np.zeros(J, bool)])
    if J or len(cut):  # by time, a jump before a piece starting with it
        order = np.lexsort((~is_jump, t0))
        t0, t1, count, grid_start, block, h, ease, is_jump = (
            x[order] for x in (t0, t1, count, grid_start, block, h, ease, is_jump)
        )
        omega, rate = omega[..., order], rate[..., order]
        slide = None if slide is None else slide[..., order]
        jump = None if jump is None else jump[..., order]
    flow = ease | is_jump  # pieces the scan takes as flows (nonlinear.EaseFlows)
    if jump is None and np.any(flow):
        jump = np.zeros(omega.shape)

    m = subdivisions(rate * h)  # rate: each pivot's angular speed (P, X)
    step = h / m  # frames per substep; one where keys are every frame
    whole = bool(np.all(step == 1.0))
    phi = omega if whole else omega * step  # times one changes no bit
    has_velocity = any(len(t.pos_frames) >= 2 for t in tracks)
    grid_steps_subdivided = np.where(grid_start >= 0, np.maximum(count, 1), 0)
    return StepPlan(
        rotation=None,  # the scan works from the rotation vectors (pivot_rotations forms R_i)
        position=_offsets(tracks, scale, t0, view=True),
        velocity=(slide if whole else slide * step) if has_velocity else None,
        length=count * m,
        grid_start=grid_start,
        per_grid=np.where(count > 0, m, 1),
        block=block,
        first_grid=0,
        n_steps=N,
        block_steps=block_steps,
        subdivided=int(np.sum(grid_steps_subdivided[m > 1])),
        start_time=t0,
        rotvec=phi,
        ease=EaseFlows(
            np.flatnonzero(flow),
            t0[flow],
            t1[flow],
            tuple(tracks),
            scale,
            jump[..., flow],
            is_jump[flow],
        )
        if np.any(flow)
        else None,
    )


def _window_keys(keys, lo: float, hi: float):
    """``keys`` cut to the key intervals that ``[lo, hi]`` touches (the same values there)."""
    if keys is None or len(keys) < 3:
        return keys
    a = max(int(np.searchsorted(keys.frames, lo, side="right")) - 1, 0)
    b = min(int(np.searchsorted(keys.frames, hi, side="left")) + 1, len(keys))
    if a == 0 and b == len(keys):
        return keys
    b = max(b, a + 1)
    return Keys(keys.frames[a:b], keys.values[a:b], keys.interpolation[a:b])


def _window(pivot, lo: float, hi: float):
    """``pivot`` with its keys cut to ``[lo, hi]`` (a scrub reads one interval, not all)."""
    return dataclasses.replace(
        pivot,
        rotation_keys=_window_keys(pivot.rotation_keys, lo, hi),
        position_keys=_window_keys(pivot.position_keys, lo, hi),
    )


#: The tracks of the last few inputs scrubbed (keyed by identity; a scrub asks again and
#: again with the same inputs while the cache is warm).
_PREPARED: dict = {}


def _prepared(inputs, t0, t1):
    """Tracks, key times and jumps for partial steps: of all keys, kept for ``inputs`` when
    they are many queries' worth; else of the key intervals ``[t0, t1]`` touches."""
    hit = _PREPARED.get(id(inputs))
    if hit is not None and hit[0]() is inputs:
        return hit[1]
    scale = np.asarray(inputs.scale, dtype=float)
    if len(t0) > 1:  # a batch: cut the keys to what it reads, do not keep
        lo, hi = (float(t0.min()), float(t1.max())) if t0.size else (0.0, 0.0)
        tracks = [_track(_window(pv, lo, hi), scale) for pv in inputs.pivots]
        return tracks, _key_times(tracks), jumps(tracks, -np.inf, np.inf)
    tracks = [track_of(pv, scale) for pv in inputs.pivots]
    prepared = tracks, _key_times(tracks), jumps(tracks, -np.inf, np.inf)
    if len(_PREPARED) >= 4:
        _PREPARED.clear()
    _PREPARED[id(inputs)] = (weakref.ref(inputs), prepared)
    return prepared


def partial_steps(inputs, t0, t1, q, p):
    """Integrate exactly from grid times ``t0 (F,)`` to frames ``t1 (F,)``.

    ``q (4, F)`` and ``p (3, F)`` are the states at ``t0``; the interval is cut at every key
    inside it and each part is one :func:`exact_step` (an eased part: its Magnus flow), with
    the constant segments' jumps at their keys in ``(t0, t1]``. Returns the states at ``t1``.
    """
    world = inputs.space == "world"
    scale = np.asarray(inputs.scale, dtype=float)
    t0 = np.asarray(t0, dtype=float)
    t1 = np.asarray(t1, dtype=float)
    tracks, keys, (jump_t, jump_phi) = _prepared(inputs, t0, t1)
    lo = np.searchsorted(keys, t0, side="right")
    inside = np.searchsorted(keys, t1, side="left") - lo
    last = max(len(keys) - 1, 0)
    padded = keys if len(keys) else np.zeros(1)
    sliding = any(len(t.pos_frames) >= 2 for t in tracks)  # else every slide is zero
    q, p = q.copy(), p.copy()
    for j in range(int(inside.max(initial=0)) + 1):
        active = j <= inside
        a = np.where(j == 0, t0, padded[np.minimum(np.maximum(lo + j - 1, 0), last)])
        b = np.where(j < inside, padded[np.minimum(np.maximum(lo + j, 0), last)], t1)
        a, b = np.where(active, a, t1), np.where(active, b, t1)
        mid = 0.5 * (a + b)
        omega, slide = _rates(tracks, mid)
        h = b - a
        q_next, p_next = exact_step(
            world, q, p, omega * h, _offsets(tracks, scale, a), slide * h if sliding else None
        )
        eased = active & _in_eased_segment(tracks, mid)
        if np.any(eased):
            A, disp = ease_flow(world, tracks, scale, a[eased], b[eased])
            qe = q[:, eased]
            q_next[:, eased] = mul_components(A, qe) if world else mul_components(qe, A)
            p_next[:, eased] = p[:, eased] + apply_flow(world, A, disp, qe)
        q = np.where(active, q_next, q)
        p = np.where(active, p_next, p)
        # A constant segment's change at b (within the interval's end) turns the body now.
        k = np.minimum(np.searchsorted(jump_t, b), max(len(jump_t) - 1, 0))
        jumping = active & (len(jump_t) > 0) & (jump_t[k] == b if len(jump_t) else False)
        if np.any(jumping):
            A, disp = jump_flow(
                world, jump_phi[..., k[jumping]], _offsets(tracks, scale, b[jumping])
            )
            qj = q[:, jumping]
            q[:, jumping] = mul_components(A, qj) if world else mul_components(qj, A)
            p[:, jumping] = p[:, jumping] + apply_flow(world, A, disp, qj)
    return q, p


def moment_contributions(inc, du, q, world: bool):
    """Each pivot's sliding term of an exact step in world coordinates, ``(3, P, X)``.

    ``du (3, P, X)``: how far each ``S pos_i`` slides over the step; ``q (4, X)`` the body's
    orientation at the step's start. World space ``-phi_i x K(Phi) R(q0) du_i``; object
    space ``R(q0) K(Phi) (du_i x phi_i)``.
    """
    qp = q[:, None]
    Pb = np.broadcast_to(inc.total_rotvec[:, None], du.shape)
    if world:
        return -cross_components(inc.pivot_rotvec, moment_apply(Pb, rotate_components(qp, du)))
    return rotate_components(qp, moment_apply(Pb, cross_components(du, inc.pivot_rotvec)))
