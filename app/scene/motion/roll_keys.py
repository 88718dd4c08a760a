"""A planted foot as the foot-roll rig's keys: the control, and the pivots that roll it.

The rig (:mod:`app.scene.builders.foot_roll`): a control bone the animator keys, its child
the roll body which a ``multi_parent`` (object space, exact integrator, relative to its
parent) turns about the pivots heel, ball and toe, the leg's FABRIK reaching for the body's
head and the foot turning with the body. So the foot's frame is ``B = C O L``: the
control's ``C``, the roll body's rest rotation ``O`` on it (the foot's at ``frame_start``,
where the control is world-aligned), and the roll ``L`` that the pivots integrate in the
body's own frame (``L = I`` at ``frame_start``). Here ``C`` stands for ``C O`` (the control
with the body's rest): :mod:`app.scene.motion.rigging` takes ``O`` off when it keys the
control.

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
stance but the last (when there are enough), so the control comes back onto the foot by the
next contact instead of drifting a stride further off it at every step. Undoing moves nothing the
animator sees: the control carries the foot meanwhile.

The pivots' quaternions are the running products of their turns and the roll ``L`` the
running product of its steps (each a turn about one point), both Hillis-Steele scans over
the frames; then ``C = B L^-1`` on every frame. Everything is vectorized over frames; the
only loop is over stances, to schedule the undoing.
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
        The control with the roll body's rest on it (``C O``, module docstring), in world
        coordinates: the control's own rotation is this times ``O^-1``.
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


def _compose(qa, ta, qb, tb):
    """``A B`` of rigid motions given as rotations and translations (broadcasting)."""
    return quat.mul(qa, qb), ta + quat.rotate(qa, tb)


def scan_right(q: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running products ``P[k] = M[0] ... M[k-1]`` (``P[0] = I``) of rigid motions
    ``(q, t)`` ``(N, 4)``, ``(N, 3)``, newest on the right: a Hillis-Steele scan."""
    pq = np.concatenate([quat.identity((1,)), np.asarray(q, dtype=float)])
    pt = np.concatenate([np.zeros((1, 3)), np.asarray(t, dtype=float)])
    shift = 1
    while shift < len(pq):
        nq, nt = _compose(pq[:-shift], pt[:-shift], pq[shift:], pt[shift:])
        pq[shift:], pt[shift:] = quat.normalize(nq), nt
        shift *= 2
    return pq, pt


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
    steps = np.arange(count - 1)
    pivot = path.pivot
    first, then = pivot[:-1], pivot[1:]
    keep = (first >= 0) & down[steps + 1, np.maximum(first, 0)]
    taken = (then >= 0) & down[steps, np.maximum(then, 0)]
    rolling = np.where(keep, first, np.where(taken, then, -1))
    toe = np.array(toe_in_foot, dtype=float)
    for a, b in intervals_of(rolling == 2):  # a toe turn keeps one position throughout
        toe[a + 1 : b + 2] = toe[a]
    points = np.stack(
        [np.broadcast_to(ball_heel[0], (count, 3)), np.broadcast_to(ball_heel[1], (count, 3)), toe]
    )
    turn = quat.canonical(quat.mul(quat.conj(q[:-1]), q[1:]))  # (F-1, 4), the foot's frame
    which = np.where(rolling >= 0, rolling, -1)  # the pivot turning on each step
    amount = np.where((rolling >= 0)[:, None], quat.rotvec_from_quat(turn), 0.0)
    _undo(rolling, q, points, which, amount)
    on = which >= 0
    u = np.zeros((count - 1, 3))
    u[on] = points[which[on], steps[on]]
    step = quat.quat_from_rotvec(amount[on])
    # the running products change only on the steps where a pivot turns: scan those alone
    roll_q, roll_t = _held(on, *scan_right(step, u[on] - quat.rotate(step, u[on])))
    iq = quat.conj(roll_q)
    control_q, control_t = _compose(q, t, iq, -quat.rotate(iq, roll_t))
    pivots = np.empty((3, count, 4))
    for i in range(3):
        mine = which[on] == i
        pivots[i] = _held(on & (which == i), scan_left(step[mine]))[0]
    return RollKeys(control_q, control_t, pivots, points[2])


def _held(changes: np.ndarray, *running: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per frame (``F = len(changes) + 1``), the running products of a scan over only the
    steps where ``changes`` ``(F - 1,)`` is true (each ``(K + 1, ...)``, ``running[k]`` the
    product of the first ``k`` of them): frame ``f`` has taken the steps before it."""
    taken = np.concatenate([[0], np.cumsum(changes)])
    return tuple(r[taken] for r in running)


def _undo(rolling, q, points, which, amount) -> None:
    """Schedule the undoing of each stance's roll on the free steps after it (module
    docstring): fills ``which`` (the pivot turning) and ``amount`` (its rotation vector) on
    those steps, and the toe pivot's position while it turns back."""
    runs = intervals_of(rolling >= 0)
    gaps = np.append(runs[1:, 0], len(rolling)) - (runs[:, 1] + 1)  # free steps after each
    history = []
    for (a, b), free in zip(runs, gaps):
        piv = rolling[a : b + 1]
        cuts = np.flatnonzero(np.diff(piv)) + 1
        for c, d in zip(np.concatenate([[0], cuts]), np.append(cuts, len(piv)) - 1):
            net = quat.rotvec_from_quat(quat.mul(quat.conj(q[a + c]), q[a + d + 1]))
            history.append((int(piv[c]), points[piv[c], a + c].copy(), net))
        # the last free step stays still: the toe pivot may move on the body there
        usable = free - 1 if b + 1 + free < len(rolling) else free
        if not history or usable < len(history):
            continue  # too few steps to undo it here: it waits for the next gap
        shares = np.diff(np.linspace(0, usable, len(history) + 1).round().astype(int))
        at = b + 1
        for (i, u, net), n in zip(reversed(history), shares):
            which[at : at + n] = i
            amount[at : at + n] = -net / n
            points[i, at : at + n + 1] = u
            at += n
        history = []
