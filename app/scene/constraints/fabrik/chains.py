"""FABRIK on many chains of equal length at once: every frame of a shot, or a crowd.

Forward And Backward Reaching Inverse Kinematics (Aristidou & Lasenby 2011, Algorithm 1):
joints ``p_0 .. p_n`` with fixed segment lengths, the root ``p_0`` fixed. A target farther
than the chain's reach leaves the chain straight, pointing at it. Otherwise each iteration
is a stage from the tip (the tail onto the target, each joint back onto the line towards
its old place; the paper's "forward reaching") and a stage from the root (the root back in
place, each joint onwards; "backward reaching"), until the tail is within ``tolerance`` of
the target or ``max_iterations`` iterations are done.

Chains are solved together: each pass is a short loop over the chain's joints whose every
step is one vectorized operation over all the chains still iterating; chains leave the
working set as they converge. Beyond the paper:

- a *pole* swings the starting chain about the root-target line into the half-plane of the
  pole, so the solution bends in the plane of root, target and pole, on the pole's side;
- a chain lying straight with the target on its own line (where the passes only fold it
  along the line) starts instead from a circular bow from root to target, as long as the
  chain, bulging towards the pole, else a given bend direction (the rest pose's), else a
  fixed perpendicular: deterministic, and bent the way the rig bends;
- with :class:`ChainPose` (object space), each stage from the root turns bone after bone
  within its rotation limit relative to its rest frame (:mod:`app.scene.rig.limits`), so the
  solution, which a stage from the root always ends, keeps every limit. The stages from the
  tip are the paper's, unconstrained.

Shapes: ``N`` chains, ``J = n + 1`` joints, ``n`` bones.

One idea: the batch FABRIK solver (its passes, limits and pole share the compaction state).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.constraints.fabrik.one_chain import STRAIGHT, solve_one
from app.scene.constraints.fabrik.one_limited import iterate_one, reach_from_root_limited_one
from app.scene.math import quat
from app.scene.math.aim import DEGENERATE, unit
from app.scene.rig.limits import limited_rotation, perpendicular


@dataclass(frozen=True)
class ChainPose:
    """What the object-space stages from the root need to turn each bone within its limit.

    Attributes
    ----------
    parent_rotation : ndarray, shape (N, 4)
        World rotation of the frame the chain's root hangs from.
    rest_rotation : ndarray, shape (n, 4)
        Each bone's rest (static) rotation in its parent's frame.
    d0 : ndarray, shape (N, n, 4)
        Each bone's current rotation relative to its rest frame (its animation).
    segment : ndarray, shape (N, n, 3)
        Unit direction of each segment in its bone's rotation frame.
    limits : tuple of Limit or None, length n
    """

    parent_rotation: np.ndarray
    rest_rotation: np.ndarray
    d0: np.ndarray
    segment: np.ndarray
    limits: tuple

    def take(self, index) -> ChainPose:
        """The same for the chains ``index`` only."""
        return ChainPose(
            self.parent_rotation[index],
            self.rest_rotation,
            self.d0[index],
            self.segment[index],
            self.limits,
        )

    def last_limited(self) -> int:
        """Index of the last bone with a limit (-1 if none)."""
        return max((k for k, lim in enumerate(self.limits) if lim is not None), default=-1)


@dataclass
class Solution:
    """Solved joints and how the solve went, per chain.

    Attributes
    ----------
    joints : ndarray, shape (N, J, 3)
    iterations : ndarray of int, shape (N,)
        Iterations done (one stage from the tip and one from the root each); 1 for the
        single straightening pass of an out-of-reach target, 0 for a chain already within
        tolerance.
    distance : ndarray, shape (N,)
        Final distance from the tail to the target.
    reachable : ndarray of bool, shape (N,)
        Whether the target lies within the chain's reach (its total length).
    """

    joints: np.ndarray
    iterations: np.ndarray
    distance: np.ndarray
    reachable: np.ndarray


class ChainError(ValueError):
    """A chain that cannot be solved; ``chain`` and ``segment`` say where (or ``None``)."""

    def __init__(self, reason: str, chain: int, segment: int | None = None):
        self.reason, self.chain, self.segment = reason, chain, segment
        where = f"chain {chain}" + ("" if segment is None else f", segment {segment}")
        super().__init__(f"{where}: {reason}")


# --- the passes, on component-major working arrays: joints (J, 3, m), points (3, m) ---------


def _norm(d):
    return np.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])


def _replace_zero(d, r, fallback):
    """Where two joints coincide the line between them has no direction: use ``fallback``."""
    zero = r == 0
    fb = fallback[:, zero]
    fr = _norm(fb)
    bad = fr == 0
    fb[:, bad] = np.array([[1.0], [0.0], [0.0]])
    fr[bad] = 1.0
    d = d.copy()
    d[:, zero] = fb
    r = r.copy()
    r[zero] = fr
    return d, r


def _reach(P, order, start, lengths, fallback) -> None:
    """Place ``P[order[0]]`` at ``start``, then each next joint on the line to where it was.

    The one step of both stages: joint ``j`` goes to ``cur + L (P[j] - cur) / |P[j] - cur|``
    where ``cur`` is the joint just placed. Written with buffers so each step is a handful
    of whole-array operations over every chain.
    """
    m = P.shape[2]
    d, sq, r = np.empty((3, m)), np.empty((3, m)), np.empty(m)
    P[order[0]] = start
    cur = P[order[0]]
    for j, length in zip(order[1:], lengths):
        np.subtract(P[j], cur, out=d)
        np.multiply(d, d, out=sq)
        np.add(sq[0], sq[1], out=r)
        np.add(r, sq[2], out=r)
        np.sqrt(r, out=r)
        if not r.all():
            dd, rr = _replace_zero(d, r, fallback - cur)
            d[...], r[...] = dd, rr
        np.divide(length, r, out=r)
        np.multiply(d, r, out=d)
        np.add(cur, d, out=P[j])
        cur = P[j]


def reach_from_tip(P, target, lengths, root) -> None:
    """Tail onto the target, then each joint onto the line to its old place (in place).

    The paper's "forward reaching" stage (it starts at the end effector).
    ``P`` (J, 3, m), ``target`` and ``root`` (3, m), ``lengths`` (n, m).
    """
    J = P.shape[0]
    _reach(P, range(J - 1, -1, -1), target, lengths[::-1], root)


def reach_from_root(P, root, lengths, target) -> None:
    """Root back in place, then each joint onto the line to its place (in place).

    The paper's "backward reaching" stage.
    """
    _reach(P, range(P.shape[0]), root, lengths, target)


def reach_from_root_limited(P, root, lengths, pose: ChainPose, target=None) -> None:
    """:func:`reach_from_root`, each bone turned within its limit (object space), in place.

    Bone ``k`` aims at joint ``k + 1`` of the previous stage (or at ``target`` when given:
    the straightest the limits allow towards an out-of-reach target), from its rest frame
    carried by the bones already placed before it. One chain takes the scalar path
    (:mod:`app.scene.constraints.fabrik.one_limited`): numpy's cost per call, not the
    arithmetic, is what a one-row pass would spend its time on.
    """
    if P.shape[2] == 1:
        reach_from_root_limited_one(P, root, lengths, pose, target)
        return
    P[0] = root
    frame = pose.parent_rotation  # (m, 4): world rotation of the current bone's parent
    last = pose.last_limited()
    for k in range(P.shape[0] - 1):
        aim_at = P[k + 1] if target is None else target
        if k > last:  # no limit from here on: the plain pass, no frames needed
            d = aim_at - P[k]
            r = _norm(d)
            if not r.all():
                d, r = _replace_zero(d, r, P[k] - P[max(k - 1, 0)])
            P[k + 1] = P[k] + d * (lengths[k] / r)
            continue
        rest = quat.mul(frame, pose.rest_rotation[k])
        desired = quat.rotate(quat.conj(rest), (aim_at - P[k]).T)
        d1 = limited_rotation(pose.limits[k], pose.d0[:, k], pose.segment[:, k], desired)
        frame = quat.mul(rest, d1)
        P[k + 1] = P[k] + quat.rotate(frame, pose.segment[:, k]).T * lengths[k]


# --- preparing the start: pole and straight chains ----------------------------------------


def _swing_to_pole(joints, root, axis, pole):
    """Each joint swung about the root-target line into the pole's half-plane (N, J, 3)."""
    side, degenerate = unit(_across(pole - root, axis))
    rel = joints - root[:, None]
    along = np.einsum("njk,nk->nj", rel, axis)
    away = np.linalg.norm(rel - along[..., None] * axis[:, None], axis=-1)
    swung = root[:, None] + along[..., None] * axis[:, None] + away[..., None] * side[:, None]
    return np.where(degenerate[:, None, None], joints, swung), side, ~degenerate


def _two_bone_middle(root, target, lengths, axis, side):
    """The middle joint ``(N, 3)`` of a two-segment chain whose tip is on the (reachable)
    target, bent towards unit ``side`` (law of cosines in the plane of root, target, side)."""
    distance = np.linalg.norm(target - root, axis=-1)
    a, b = lengths[:, 0], lengths[:, 1]
    along = (a * a - b * b + distance * distance) / (2 * np.maximum(distance, 1e-300))
    away = np.sqrt(np.maximum(a * a - along * along, 0.0))
    return root + along[:, None] * axis + away[:, None] * side


def _across(v, axis):
    """The part of ``v`` (N, 3) across unit ``axis`` (N, 3)."""
    return v - np.einsum("nk,nk->n", v, axis)[:, None] * axis


def _bow(root, axis, distance, lengths, side):
    """Joints ``(N, J, 3)`` on a circular arc from the root to the target, bulging to ``side``.

    The arc is as long as the chain and its chord is the root-target segment, so the tail
    starts on the target and the chain starts smoothly bent: where a straight chain lies on
    the target's line, this is where FABRIK starts instead.
    """
    s = np.concatenate([np.zeros((len(root), 1)), np.cumsum(lengths, axis=1)], axis=1)
    reach = s[:, -1]
    ratio = np.clip(distance / reach, 0.0, 1.0)
    # The arc's angle theta: chord / length = sin(theta/2) / (theta/2), solved by bisection.
    lo, hi = np.zeros_like(ratio), np.full_like(ratio, 2 * np.pi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        longer = np.sinc(mid / (2 * np.pi)) > ratio  # sin(mid/2)/(mid/2) is np.sinc(mid/2pi)
        lo, hi = np.where(longer, mid, lo), np.where(longer, hi, mid)
    theta = np.maximum(0.5 * (lo + hi), 1e-9)
    radius = reach / theta
    psi = s / radius[:, None]  # angle travelled along the arc at each joint
    start = 0.5 * np.pi + 0.5 * theta[:, None]
    x = 0.5 * distance[:, None] + radius[:, None] * np.cos(start - psi)
    y = -radius[:, None] * np.cos(0.5 * theta)[:, None] + radius[:, None] * np.sin(start - psi)
    return root[:, None] + x[..., None] * axis[:, None] + y[..., None] * side[:, None]


def _shape_start(joints, target, lengths, reachable, pole, bend, two_bone=None):
    """The starting joints after the pole and the straight-chain rule, and which changed.

    ``two_bone``, a tolerance (two segments, a pole, no limits): a chain whose tip is further
    than it from the target starts on the chain's one solution in the pole's half-plane
    (:func:`_two_bone_middle`), so a nearly straight leg does not crawl towards a target
    near the end of its reach.

    Returns ``(joints, forced)``: chains whose start changed iterate at least once, since
    the changed start no longer has the chain's segment lengths.
    """
    N = len(joints)
    root = joints[:, 0]
    axis, at_root = unit(target - root)
    forced = np.zeros(N, dtype=bool)
    side, has_pole = np.zeros((N, 3)), np.zeros(N, dtype=bool)
    if pole is not None:
        swung, side, has_pole = _swing_to_pole(joints, root, axis, pole)
        has_pole &= reachable & ~at_root
        joints[has_pole] = swung[has_pole]
        forced |= has_pole
        if two_bone is not None:
            solve = has_pole & (np.linalg.norm(joints[:, -1] - target, axis=-1) > two_bone)
            if np.any(solve):  # only there: a target on the root would divide by 0
                joints[solve, 1] = _two_bone_middle(
                    root[solve], target[solve], lengths[solve], axis[solve], side[solve]
                )
                joints[solve, 2] = target[solve]
    rel = joints - root[:, None]
    off_line = (
        np.linalg.norm(_across(rel.reshape(-1, 3), np.repeat(axis, joints.shape[1], 0)), axis=-1)
        .reshape(N, -1)
        .max(axis=1)
    )
    reach = lengths.sum(axis=1)
    straight = reachable & ~at_root & (off_line <= STRAIGHT * reach)
    if np.any(straight):
        if bend is not None:
            hint, no_hint = unit(_across(np.broadcast_to(np.asarray(bend, float), (N, 3)), axis))
        else:
            hint, no_hint = np.zeros((N, 3)), np.ones(N, dtype=bool)
        hint = np.where(no_hint[:, None], perpendicular(axis), hint)
        side = np.where(has_pole[:, None], side, hint)
        distance = np.linalg.norm(target - root, axis=-1)
        joints[straight] = _bow(root, axis, distance, lengths, side)[straight]
        forced |= straight
    return joints, forced


# --- the solver ----------------------------------------------------------------------------


def segment_lengths(joints) -> np.ndarray:
    """Lengths ``(N, n)`` of the segments between consecutive joints ``(N, J, 3)``."""
    return np.linalg.norm(np.diff(joints, axis=1), axis=-1)


def solve(
    joints,
    target,
    *,
    tolerance: float = 1e-4,
    max_iterations: int = 20,
    pole=None,
    bend=None,
    pose: ChainPose | None = None,
    record=None,
) -> Solution:
    """Solve ``N`` chains of ``J`` joints for their targets.

    Parameters
    ----------
    joints : array_like, shape (N, J, 3)
        Starting joints (world): root, the heads of the next bones, the tail. Segment
        lengths are taken from them.
    target : array_like, shape (N, 3) or (3,)
    tolerance : float
        Stop when the tail is this close to the target.
    max_iterations : int
    pole : array_like, shape (N, 3) or (3,), optional
        Sets the bend plane (root, target, pole) and side.
    bend : array_like, shape (N, 3) or (3,), optional
        Direction to bend a straight chain whose target lies on its own line when there is
        no pole (the rest pose's bend); default: a fixed perpendicular.
    pose : ChainPose, optional
        Honour each bone's rotation limit in the stages from the root (object space).
    record : callable, optional
        For one chain (``N == 1``) only: ``record(stage, iteration, joints (J, 3))`` is
        called with the joints as they are after each stage, in order: ``"start"`` (the
        joints given), ``"shaped"`` (after the pole and the straight-chain rule changed
        them), ``"straight"`` (an out-of-reach target: the chain laid along the line to it),
        ``"limits"`` (the pass from the root that brings the start within the limits, or
        aims a limited chain at an out-of-reach target), then ``"from_tip"`` and
        ``"from_root"`` of each iteration. The last joints recorded are the solution's.
        :mod:`app.scene.constraints.fabrik.trace` builds the step-through on it.

    Returns
    -------
    Solution

    Raises
    ------
    ChainError
        A non-finite joint, target or pole, or a zero-length segment, naming the chain.
    ValueError
        ``record`` with more than one chain.
    """
    joints = np.array(joints, dtype=float)
    N, J = joints.shape[:2]
    if record is not None:
        if N != 1:
            raise ValueError(f"record follows one chain, got {N}")
        record("start", 0, joints[0].copy())
    target = np.broadcast_to(np.asarray(target, dtype=float), (N, 3)).copy()
    if N == 0:  # no frames to solve (``bake(frames=[])``)
        return Solution(joints, np.zeros(0, dtype=int), np.zeros(0), np.zeros(0, dtype=bool))
    _check_finite(joints.reshape(N, -1), "a joint")
    _check_finite(target, "the target")
    lengths = segment_lengths(joints)
    zero = lengths <= 1e-12 * (1.0 + np.abs(joints).max(axis=(1, 2)))[:, None]
    if np.any(zero):
        chain, segment = np.argwhere(zero)[0]
        raise ChainError(
            "segment has zero length: a bone with no length cannot be turned towards anything",
            int(chain),
            int(segment),
        )
    limited = pose is not None and pose.last_limited() >= 0
    if N == 1 and pole is None and not limited:
        one = solve_one(
            joints[0].tolist(),
            target[0].tolist(),
            tolerance,
            max_iterations,
            None if record is None else _recorder(record),
        )
        if one is not None:
            solved = np.array(one[0])[None]
            return Solution(
                solved,
                np.array([one[1]]),
                np.linalg.norm(solved[:, -1] - target, axis=-1),
                np.array([one[2]]),
            )
    root = joints[:, 0].copy()
    reach = lengths.sum(axis=1)
    distance = np.linalg.norm(target - root, axis=-1)
    reachable = distance <= reach
    if pole is not None:
        pole = np.broadcast_to(np.asarray(pole, dtype=float), (N, 3))
        _check_finite(pole, "the pole")
    joints, forced = _shape_start(
        joints,
        target,
        lengths,
        reachable,
        pole,
        bend,
        two_bone=tolerance if J == 3 and not limited else None,
    )
    if record is not None and forced[0]:
        record("shaped", 0, joints[0].copy())
    axis, _ = unit(target - root)

    iterations = np.zeros(N, dtype=np.intp)
    P = np.ascontiguousarray(joints.transpose(1, 2, 0))  # (J, 3, N)
    L = np.ascontiguousarray(lengths.T)  # (n, N)
    R, Tg = np.ascontiguousarray(root.T), np.ascontiguousarray(target.T)

    far = np.flatnonzero(~reachable)
    if len(far):
        if limited:
            sub = P[:, :, far]
            reach_from_root_limited(sub, R[:, far], L[:, far], pose.take(far), target=Tg[:, far])
            P[:, :, far] = sub
        else:  # straight along the root-target line
            cumulative = np.concatenate([np.zeros((1, len(far))), np.cumsum(L[:, far], 0)], 0)
            P[:, :, far] = R[None, :, far] + cumulative[:, None, :] * axis[far].T[None]
        iterations[far] = 1
        if record is not None:
            record("limits" if limited else "straight", 1, P[:, :, 0].copy())

    near = np.flatnonzero(reachable)
    if limited and len(near):  # start from the pose placed within its limits
        sub = P[:, :, near]
        reach_from_root_limited(sub, R[:, near], L[:, near], pose.take(near))
        P[:, :, near] = sub
        if record is not None:
            record("limits", 0, P[:, :, 0].copy())
    gap = _norm(P[-1] - Tg)
    # A target on the root (within DEGENERATE, as aim.unit has it) gives the passes no
    # direction: they would turn the chain along the rounding of root - target, so a frame
    # would depend on the frames evaluated with it. The chain keeps its start there.
    on_root = distance <= DEGENERATE
    moving = ((gap > tolerance) | forced) & ~on_root
    _iterate(
        P,
        R,
        Tg,
        L,
        near[moving[near]],
        iterations,
        tolerance,
        max_iterations,
        pose if limited else None,
        record,
    )
    solved = P.transpose(2, 0, 1).copy()
    return Solution(solved, iterations, np.linalg.norm(solved[:, -1] - target, axis=-1), reachable)


def _recorder(record):
    """``record`` for :func:`solve_one`, which keeps its joints as lists."""
    return lambda stage, iteration, joints: record(stage, iteration, np.array(joints, float))


def _iterate(P, R, Tg, L, ids, iterations, tolerance, max_iterations, pose, record=None) -> None:
    """Iterate the chains ``ids`` of ``P`` (J, 3, N) in place until each one converges.

    The chains work on a compact copy. A chain that converges is written back at once and
    then rides along unused; the copy is compacted when a quarter of it is such riders, so
    the cost follows the chains still iterating without a gather and scatter every time.
    """
    if not len(ids):
        return
    if len(ids) == 1:  # one chain (the editor's frame): plain floats, no per-call overhead
        work = P[:, :, ids]
        iterations[ids[0]] = iterate_one(
            work,
            R[:, ids],
            Tg[:, ids],
            L[:, ids],
            None if pose is None else pose.take(ids),
            tolerance,
            max_iterations,
            record,
        )
        P[:, :, ids] = work
        return
    work, root, target, lengths = P[:, :, ids], R[:, ids], Tg[:, ids], L[:, ids]
    sub_pose = None if pose is None else pose.take(ids)
    alive = np.ones(len(ids), dtype=bool)
    for it in range(1, max_iterations + 1):
        reach_from_tip(work, target, lengths, root)
        if record is not None:  # one chain (solve checks), so work[:, :, 0] is it
            record("from_tip", it, work[:, :, 0].copy())
        if sub_pose is None:
            reach_from_root(work, root, lengths, target)
        else:
            reach_from_root_limited(work, root, lengths, sub_pose)
        if record is not None:
            record("from_root", it, work[:, :, 0].copy())
        iterations[ids[alive]] = it
        done = alive & (_norm(work[-1] - target) <= tolerance)
        if done.any():
            P[:, :, ids[done]] = work[:, :, done]
            alive &= ~done
        count = np.count_nonzero(alive)
        if count == 0:
            return
        if count <= 0.75 * len(alive):
            keep = np.flatnonzero(alive)
            work, root, target, lengths = (
                work[:, :, keep],
                root[:, keep],
                target[:, keep],
                lengths[:, keep],
            )
            ids, alive = ids[keep], np.ones(len(keep), dtype=bool)
            sub_pose = None if sub_pose is None else sub_pose.take(keep)
    P[:, :, ids[alive]] = work[:, :, alive]


def _check_finite(values, what):
    bad = ~np.all(np.isfinite(values), axis=-1)
    if np.any(bad):
        raise ChainError(f"{what} is not finite", int(np.flatnonzero(bad)[0]))
