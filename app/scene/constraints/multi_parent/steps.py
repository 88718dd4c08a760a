"""The multi-parent integration one step at a time: what the step-through shows.

The solver integrates the whole timeline as two scans
(:mod:`app.scene.constraints.multi_parent.scan`)
and never forms a step's pieces one by one. To show a step, :func:`steps` takes the same
plan (the pivots' increments ``R_i`` and positions per substep), the same step update
(:func:`~app.scene.constraints.multi_parent.increments.increment`: the anticommutator and each
pivot's
``M_i v_i``) and the integral's own states at each substep, and lays them out per substep
in world coordinates. Nothing here integrates: the states are the solver's, so the state
after the last step is the evaluated pose bit for bit.

A constraint ``relative_to`` its parent integrates in the parent's frame (contract §F3): its
steps are laid out there and placed in the world where the parent is at the frame shown, so
the last state is the evaluated pose and the earlier ones are the integration as the parent
sees it (the parent's own motion between the two frames is not drawn into them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.constraints.multi_parent.cache import BLOCK_STEPS, Integral, update
from app.scene.constraints.multi_parent.exact import moment_contributions, plan_exact
from app.scene.constraints.multi_parent.increments import increment
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.multi_parent.nonlinear import apply_flow
from app.scene.constraints.multi_parent.plan import grid_time, piece_timing, plan_steps
from app.scene.constraints.multi_parent.solver import cached_integral, inputs_of, relative_parent
from app.scene.math.quat import mul_components, rotate_components
from app.scene.math.transforms import rotation_from_matrix
from app.scene.rig.model import Scene
from app.scene.rig.prepared import prepare


@dataclass(frozen=True, eq=False)
class Steps:
    """The substeps that take the body from one frame to the next.

    ``S`` substeps, ``P`` pivots (in the integrator's order: by name). Everything is in world
    coordinates, whatever the constraint's space.

    Attributes
    ----------
    constraint, space, integrator : str
    pivot_names : tuple of str
    times : ndarray, shape (S + 1,)
        Frame times of the substeps' boundaries.
    rotation : ndarray, shape (S + 1, 4)
        The body's world rotation ``q0`` at each boundary.
    position : ndarray, shape (S + 1, 3)
        Its head ``p0``.
    pivot_positions : ndarray, shape (S, P, 3)
        Each pivot ``p_i`` at the start of each substep.
    offsets : ndarray, shape (S, P, 3)
        ``v_i = p_i - p0``.
    increments : ndarray, shape (S, P, 4)
        ``R_i`` as world rotations (in object space ``q0 R_i q0^-1``).
    contributions : ndarray, shape (S, P, 3)
        Each pivot's share of the step's displacement: ``v_i - R_i v_i R_i*`` for the seed.
    combined : ndarray, shape (S, 4)
        The body's turn in the substep as a world rotation: ``{R_i}``, the normalized
        anticommutator (for the twist integrator, ``exp(sum_i phi_i / 2)``).
    subdivided : ndarray of bool, shape (S,)
        The substep belongs to a grid step split for its large turn.
    parent : str or None
        The bone whose frame the integration runs in (``relative_to: "parent"``), placed
        where it is at the frame shown; ``None``: the world.
    """

    constraint: str
    space: str
    integrator: str
    pivot_names: tuple
    times: np.ndarray
    rotation: np.ndarray
    position: np.ndarray
    pivot_positions: np.ndarray
    offsets: np.ndarray
    increments: np.ndarray
    contributions: np.ndarray
    combined: np.ndarray
    subdivided: np.ndarray
    parent: str | None = None

    def __len__(self) -> int:
        return len(self.combined)

    def displacement(self) -> np.ndarray:
        """The sum of the contributions per substep, ``(S, 3)``."""
        return self.contributions.sum(axis=1)

    def combined_angle_deg(self) -> np.ndarray:
        """The angle of each substep's combined rotation, ``(S,)`` degrees."""
        w = np.clip(np.abs(self.combined[:, 0]), 0.0, 1.0)
        return np.degrees(2.0 * np.arccos(w))


def _conj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0]).reshape((4,) + (1,) * (q.ndim - 1))


def steps(
    constraint: MultiParent,
    scene: Scene,
    frame: int,
    space: str | None = None,
    integral: Integral | None = None,
    parent_to_world=None,
) -> Steps:
    """The integration substeps from whole frame ``frame - 1`` to ``frame``.

    Frames at or before ``frame_start``, and after the pivots' last key, have no steps (the
    body holds still): the result then has ``S = 0`` and the state at ``frame``.

    Parameters
    ----------
    constraint : MultiParent
    scene : Scene
    frame : int
        A whole frame (a fractional one is rounded down).
    space : {"world", "object"}, optional
        Overrides the constraint's space, as the editor's toggle does.
    integral : Integral, optional
        An evaluator's cached integral for this constraint (``cache[name][space]``): what is
        still valid of it is reused, with the same bits as integrating anew.
    parent_to_world : array_like, shape (4, 4), optional
        For a constraint relative to its parent: the parent's world transform at ``frame``
        as the constraints before this one leave it (default: forward kinematics there).

    Raises
    ------
    SceneError
        As the evaluation does (too many pivots, a grid too long).
    """
    space = space or constraint.space
    inputs = inputs_of(constraint, scene, space)
    integral = update(integral, inputs)  # reuses what is valid; the same bits either way
    fs, s, N = inputs.frame_start, inputs.substeps, integral.n_steps
    frame = int(np.floor(frame))
    g1 = int(np.clip((frame - fs) * s, 0, N))
    g0 = int(np.clip((frame - 1 - fs) * s, 0, g1))
    planner = plan_exact if inputs.integrator == "exact" else plan_steps
    plan = planner(inputs.pivots, fs, s, N, inputs.scale, BLOCK_STEPS)
    timing = piece_timing(plan)

    # Every substep in [g0, g1) as (piece, substep within the piece).
    general = timing.general
    inside = general & (timing.grid >= g0) & (timing.grid < g1)
    lo = np.where(general, 0, np.clip((g0 - plan.grid_start) * plan.per_grid, 0, plan.length))
    hi = np.where(
        general, inside.astype(int), np.clip((g1 - plan.grid_start) * plan.per_grid, 0, plan.length)
    )
    count = np.maximum(hi - lo, 0)
    piece = np.repeat(np.arange(len(count)), count)
    k = np.arange(len(piece)) - np.repeat(np.cumsum(count) - count, count) + lo[piece]
    m = timing.substeps[piece]
    times = np.where(
        general[piece],
        grid_time(fs, s, timing.grid[piece] + timing.rank[piece] / m),
        grid_time(fs, s, plan.grid_start[piece] + k / np.maximum(plan.per_grid[piece], 1)),
    )

    if plan.start_time is not None:  # pieces cut at keys: each has its own length
        ends = np.append(plan.start_time[1:], grid_time(fs, s, N))
        times = plan.start_time[piece] + k / plan.length[piece] * (ends - plan.start_time)[piece]
    if len(piece):
        q, p = integral.pieces.at(piece, k)  # (4, S), (3, S): the solver's own states
    else:
        q, p = np.empty((4, 0)), np.empty((3, 0))
    q_end, p_end = integral.grid_states([g1])
    R = plan.pivot_rotations(piece)  # (4, P, S)
    u = plan.position[:, :, piece]
    if plan.velocity is not None:
        u = u + k * plan.velocity[:, :, piece]
    inc = increment(
        R, inputs.integrator, space, None if plan.rotvec is None else plan.rotvec[:, :, piece]
    )
    q_p = q[:, None]  # (4, 1, S): broadcast over pivots
    v = rotate_components(q_p, u)
    if space == "world":
        contributions = inc.contributions(v)
        world_R, combined = R, inc.rotation
    else:
        contributions = rotate_components(q_p, inc.contributions(u))
        world_R = mul_components(mul_components(q_p, R), _conj(q_p))
        combined = mul_components(mul_components(q, inc.rotation), _conj(q))
    if inputs.integrator == "exact" and plan.velocity is not None:  # sliding pivots' moment
        contributions = contributions + moment_contributions(
            inc, plan.velocity[:, :, piece], q, space == "world"
        )
    if plan.ease is not None and len(piece):  # exact's eased pieces and jumps are flows
        is_flow = np.isin(piece, plan.ease.index)
        if np.any(is_flow):
            turn, shares = plan.ease.flow(space == "world", per_pivot=True)
            where = np.searchsorted(plan.ease.index, piece[is_flow])
            qf = q[:, is_flow]
            contributions[:, :, is_flow] = apply_flow(
                space == "world", None, shares[..., where], qf
            )
            turn = turn[:, where]
            combined[:, is_flow] = (
                turn if space == "world" else mul_components(mul_components(qf, turn), _conj(qf))
            )

    q, p = np.concatenate([q, q_end], axis=1), np.concatenate([p, p_end], axis=1)
    parent = relative_parent(constraint, scene)
    if parent is not None:  # from the parent's frame to the world, where the parent is now
        if parent_to_world is None:
            parent_to_world = prepare(scene).world_at(float(frame))[scene.bone_index(parent)]
        to_world = np.asarray(parent_to_world, dtype=float)
        linear = to_world[:3, :3]
        # As the solver composes it (entry by entry), so the last state is the pose's head.
        p = linear[:, :1] * p[0] + linear[:, 1:2] * p[1] + linear[:, 2:] * p[2] + to_world[:3, 3:]
        v = np.einsum("ij,j...->i...", linear, v)
        contributions = np.einsum("ij,j...->i...", linear, contributions)
        turn = rotation_from_matrix(linear)[:, None]  # (4, 1)
        q = mul_components(turn, q)
        world_R = mul_components(mul_components(turn[:, None], world_R), _conj(turn[:, None]))
        combined = mul_components(mul_components(turn, combined), _conj(turn))
    return Steps(
        constraint=constraint.name,
        space=space,
        integrator=inputs.integrator,
        pivot_names=tuple(pv.name for pv in inputs.pivots),
        times=np.append(times, grid_time(fs, s, g1)),
        rotation=q.T,
        position=p.T,
        pivot_positions=np.transpose(p[:, None, :-1] + v, (2, 1, 0)),
        offsets=np.transpose(v, (2, 1, 0)),
        increments=np.transpose(world_R, (2, 1, 0)),
        contributions=np.transpose(contributions, (2, 1, 0)),
        combined=combined.T,
        subdivided=m > 1,
        parent=parent,
    )


def step_through(constraint: MultiParent, ctx, frame) -> Steps:
    """The step-through's trace: the integration substeps into ``frame``, from the
    evaluator's integral if cached (``ctx``: the pose the constraint starts from)."""
    space = ctx.space_of(constraint)
    cached = cached_integral(ctx.cache, constraint.name, space)
    parent = ctx.scene.bone(constraint.body).parent  # where a relative body's steps are
    placed = None if parent is None else ctx.bone_to_world[0, ctx.skeleton.index(parent)]
    return steps(constraint, ctx.scene, frame, space, integral=cached, parent_to_world=placed)
