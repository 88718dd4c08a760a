"""A planted foot as the foot-roll rig's keys: the control, and the pivots that roll it.

The rig (:mod:`app.scene.builders.foot_roll`): a control bone the animator keys, its child
the roll body which a ``multi_parent`` (object space, exact integrator, relative to its
parent) turns about the pivots heel, ball and toe, the leg's FABRIK reaching for the body's
head and the foot turning with the body. So the foot's frame is ``B = C L``: the control's
``C`` times the roll ``L`` that the pivots integrate (``L = I`` at ``frame_start``).

For each frame step ``f -> f + 1`` where a point is down on both frames (a *roll* step),
its pivot turns by the foot's turn over the step, ``dR = Q(f)^-1 Q(f+1)`` in the foot's own
frame, so the body turns about that point; the control only moves by what a turn about the
point leaves out (the point's rise or fall with the original's, a hair of rounding):
``dC = Q(f) (w - u + dR u)`` with ``w`` the step of the head in the foot's frame and ``u``
the point. On the other steps no pivot turns and the control carries the foot:
``C = B L^-1``. The result is what the pivots were keyed from, the original foot's turning,
about the points that are down: heel strike about the heel, heel off about the ball, toe off
about the toe tip (its position keyed, since the toes bend at the ball).

After a stance the roll is undone while the foot is in the air: the stance's turns, last
first, each about its own point, each over an equal share of the steps before the next
stance (when there are enough), so the control comes back onto the foot by the next contact
instead of drifting a stride further off it at every step. Undoing moves nothing the
animator sees: the control carries the foot meanwhile.

The pivots' quaternions are the running products of their turns, a Hillis-Steele scan over
the frames; the control's keys are in its parent's frame. Everything is vectorized over
frames; the only loop is over contacts (stances and their phases).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.math import quat
from app.scene.motion.contacts import intervals_of
from app.scene.motion.foot_path import FootPath


@dataclass(frozen=True)
class RollKeys:
    """One foot's rig keys on every frame (``F``).

    Attributes
    ----------
    control_rotation : ndarray, shape (F, 4)
    control_translation : ndarray, shape (F, 3)
        The control in world coordinates.
    pivots : ndarray, shape (3, F, 4)
        Heel, ball and toe quaternions.
    toe_position : ndarray, shape (F, 3)
        The toe pivot in the body's frame.
    """

    control_rotation: np.ndarray
    control_translation: np.ndarray
    pivots: np.ndarray
    toe_position: np.ndarray


def scan_left(steps: np.ndarray) -> np.ndarray:
    """Running products ``P[k] = steps[k-1] ... steps[0]`` (``P[0] = 1``) of ``(N, 4)``
    quaternions, newest on the left: a Hillis-Steele scan (log2 N vectorized products)."""
    out = np.concatenate([quat.identity((1,)), np.asarray(steps, dtype=float)])
    shift = 1
    while shift < len(out):
        out[shift:] = quat.normalize(quat.mul(out[shift:], out[:-shift]))
        shift *= 2
    return out


def _rigid_inverse(q, t):
    qi = quat.conj(q)
    return qi, -quat.rotate(qi, t)


def _compose(qa, ta, qb, tb):
    return quat.mul(qa, qb), ta + quat.rotate(qa, tb)


def _about(u, rotation):
    """The rigid motion turning by ``rotation`` about the point ``u``: ``(q, t)``."""
    return rotation, u - quat.rotate(rotation, u)


def roll_keys(path: FootPath, down, ball_heel, toe_in_foot) -> RollKeys:
    """The keys (module docstring) of a planted foot.

    Parameters
    ----------
    path : FootPath
        The planted foot (its rotations, heads, pivots).
    down : ndarray of bool, shape (F, 3)
        Its contacts.
    ball_heel : ndarray, shape (2, 3)
        Heel and ball in the foot's frame.
    toe_in_foot : ndarray, shape (F, 3)
        The toe tip in the foot's frame on each frame (the toes bend).
    """
    q = quat.normalize(path.rotation)
    t = np.asarray(path.head, dtype=float)
    count = len(q)
    pivot = path.pivot
    steps = np.arange(count - 1)
    first = pivot[:-1]
    keep = (first >= 0) & down[steps + 1, np.maximum(first, 0)]
    then = pivot[1:]
    taken = (then >= 0) & down[steps, np.maximum(then, 0)]
    rolling = np.where(keep, first, np.where(taken, then, -1))
    toe = np.array(toe_in_foot, dtype=float)
    # a toe turn uses one position throughout: its position at the turn's first frame
    for a, b in intervals_of(rolling == 2):
        toe[a + 1:b + 2] = toe[a]
    points = np.stack([np.broadcast_to(ball_heel[0], (count, 3)),
                       np.broadcast_to(ball_heel[1], (count, 3)), toe], axis=0)  # fmt: skip
    turn = quat.mul(quat.conj(q[:-1]), q[1:])  # (F-1, 4), in the foot's frame
    turn = quat.canonical(turn)
    turns = np.zeros((3, count - 1, 4))
    turns[..., 0] = 1.0
    control_q = np.empty_like(q)
    control_t = np.empty_like(t)
    roll_q = quat.identity((count,))
    roll_t = np.zeros((count, 3))
    runs = intervals_of(rolling >= 0)  # runs of roll steps: steps a..b move frames a..b+1
    state = (quat.identity(()), np.zeros(3))  # L, the roll so far
    done = 0  # frames before this are keyed
    history = []  # the last stance's turns: (pivot, point, net rotation)
    for a, b in runs:
        # the free frames done..a: the control carries the foot, the roll is undone
        state, undone = _free(q, t, done, a, state, history, turns, points, control_q,
                              control_t, roll_q, roll_t)  # fmt: skip
        if undone:
            history = []
        # the roll steps a..b: each about its pivot, the control only translates
        piv = rolling[a:b + 1]
        u = points[piv, np.arange(a, b + 1)]
        dq = turn[a:b + 1]
        turns[piv, np.arange(a, b + 1)] = dq
        w = quat.rotate(quat.conj(q[a:b + 1]), t[a + 1:b + 2] - t[a:b + 1])
        dc = quat.rotate(q[a:b + 1], w - u + quat.rotate(dq, u))
        lq, lt = state
        cq, ct = _compose(q[a], t[a], *_rigid_inverse(lq, lt))
        control_q[a:b + 2] = cq
        control_t[a:b + 2] = ct + np.concatenate([np.zeros((1, 3)), np.cumsum(dc, axis=0)])
        iq, it = _rigid_inverse(np.broadcast_to(cq, (b - a + 2, 4)), control_t[a:b + 2])
        roll_q[a:b + 2], roll_t[a:b + 2] = _compose(iq, it, q[a:b + 2], t[a:b + 2])
        state = (roll_q[b + 1], roll_t[b + 1])
        for c, d in _phases(piv):
            net = quat.mul(quat.conj(q[a + c]), q[a + d + 1])
            history.append((int(piv[c]), points[piv[c], a + c].copy(), net))
        done = b + 1
    _free(q, t, done, count - 1, state, history, turns, points, control_q, control_t, roll_q,
          roll_t, last=True)  # fmt: skip
    pivots = np.stack([scan_left(turns[i])[:count] for i in range(3)])
    return RollKeys(control_q, control_t, pivots, points[2])


def _phases(piv: np.ndarray):
    """``(first, last)`` of each run of one pivot in ``piv``."""
    cuts = np.flatnonzero(np.diff(piv)) + 1
    return zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(piv)]]) - 1)


def _free(q, t, start, end, state, history, turns, points, control_q, control_t, roll_q,
          roll_t, last=False):
    """Key the free frames ``start..end`` (``end`` is the next roll's first frame, keyed by
    it, unless ``last``): the roll is undone over them when there are steps enough, and the
    control carries the foot. Returns the roll at ``end`` and whether it was undone."""
    frames = np.arange(start, end + 1)
    lq = np.broadcast_to(state[0], (len(frames), 4)).copy()
    lt = np.broadcast_to(state[1], (len(frames), 3)).copy()
    available = end - start  # steps between the two rolls
    undone = bool(history) and available >= len(history)
    if undone:
        shares = np.diff(np.linspace(0, available, len(history) + 1).round().astype(int))
        cq, ct = state
        at = start
        for (i, u, net), n in zip(reversed(history), shares):
            back = quat.conj(net)
            step = quat.from_rotvec(quat.to_rotvec(back) / n)
            turns[i, at:at + n] = step
            points[i, at:at + n + 1] = u
            fraction = np.arange(1, n + 1) / n
            partial = quat.from_rotvec(quat.to_rotvec(back)[None] * fraction[:, None])
            mq, mt = _about(u, partial)
            pq, pt = _compose(np.broadcast_to(cq, (n, 4)), np.broadcast_to(ct, (n, 3)), mq, mt)
            rows = np.arange(at + 1, at + n + 1) - start
            keep = rows < len(frames)
            lq[rows[keep]], lt[rows[keep]] = pq[keep], pt[keep]
            cq, ct = pq[-1], pt[-1]
            lq[rows[-1]:] = cq
            lt[rows[-1]:] = ct
            at += n
    rows = frames[frames < (end + 1 if last else end)] - start
    keyed = frames[rows]
    iq, it = _rigid_inverse(lq[rows], lt[rows])
    control_q[keyed], control_t[keyed] = _compose(q[keyed], t[keyed], iq, it)
    roll_q[keyed], roll_t[keyed] = lq[rows], lt[rows]
    return (lq[-1], lt[-1]), undone
