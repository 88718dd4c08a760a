"""The multi-parent integral over the whole timeline as a blocked scan, with no step loop.

One idea: the orientations as a product scan and the positions as a sum scan over pieces.

Every step multiplies the body's orientation by a unit quaternion ``A_n`` (on the left in
world space, on the right in object space) and moves its position by a displacement that
depends on the orientation before the step (:mod:`app.scene.constraints.multi_parent.increments`).
So
the orientations are a cumulative product and the positions a cumulative sum of
displacements computed from them: two scans.

The plan (:mod:`app.scene.constraints.multi_parent.plan`) hands over *pieces*, runs of ``L``
substeps
with the same ``A = (cos a, sin a n)`` and the same per-pivot maps. Within a piece both scans
have closed forms:

- orientation: ``A^k = (cos ka, sin ka n)``, so ``q0(k) = cos(ka) Q + sin(ka) Y`` with the
  piece's starting orientation ``Q`` and ``Y = n Q`` (world) or ``Q n`` (object);
- position: ``R(A^k) x = x + (cos 2ka - 1)(x - n n.x) + sin 2ka (n x x)`` makes substep
  ``k``'s displacement ``x0 + (cos 2ka - 1) x1 + sin 2ka x2`` (plus ``k`` times the same form
  when pivots slide along the body), with ``x0, x1, x2`` computed once per piece from ``Q``,
  and :mod:`app.scene.math.rotation_sums` sums that over ``k`` exactly.

Across pieces: the pieces' totals ``A^L`` are combined within each block by a grouped scan
(:func:`_piece_orientations`: running products within groups of :data:`PREFIX_GROUP`, a
logarithmic Hillis-Steele scan of the groups' totals), the blocks' totals are chained in
order, and the pieces' displacement totals are summed the same way (a ``cumsum`` within
blocks, the blocks chained). Every orientation is thus a product of O(log) unit factors,
normalized once: ``| |q0| - 1 |`` stays at rounding level however many steps there are, and
the work is proportional to the number of pieces, not of steps.

A piece of one substep (every piece where keys are every frame) is only read at its start
and summed whole, where ``Y``, ``x1`` and ``x2`` have zero weight: they are left zero there.

Blocks have fixed boundaries on the step grid (``block_steps`` grid steps each, from
``frame_start``), pieces never straddle them, and all arithmetic is elementwise or
sequential along the grid. Recomputing from the start of any block, given the state the
earlier computation had there, therefore gives the same bits as recomputing everything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from app.scene.constraints.multi_parent.exact import moment_terms
from app.scene.constraints.multi_parent.exact_terms import exact_world_terms
from app.scene.constraints.multi_parent.increments import _half_angle_axis, increment
from app.scene.constraints.multi_parent.nonlinear import apply_flow
from app.scene.constraints.multi_parent.plan import StepPlan
from app.scene.math.quat import mul_components, mul_one, rotate_components
from app.scene.math.rotation_sums import rotation_sums, weighted_rotation_sums
from app.scene.math.vectors import cross_components, dot_components


@dataclass(frozen=True, eq=False)
class PieceStates:
    """The body's state at the start of each piece, and what continues it within the piece.

    Attributes
    ----------
    grid_start, per_grid, block : ndarray of int, shape (Np,)
        As in :class:`~app.scene.constraints.multi_parent.plan.StepPlan`.
    half_angle : ndarray, shape (Np,)
        ``a`` of the piece's step rotation ``A``.
    rotation, turned : ndarray, shape (4, Np)
        ``Q`` and ``Y``: the orientation after ``k`` substeps is ``cos(ka) Q + sin(ka) Y``
        (``Y`` is zero for a piece of one substep, read at ``k = 0`` only).
    position : ndarray, shape (3, Np)
        ``p0`` at the piece's start.
    terms : ndarray, shape (3, 3, Np) or (6, 3, Np)
        ``x0, x1, x2`` (and their velocity counterparts) of the module docstring; all but
        ``x0`` are zero for a piece of one substep.
    """

    grid_start: np.ndarray
    per_grid: np.ndarray
    block: np.ndarray
    half_angle: np.ndarray
    rotation: np.ndarray
    turned: np.ndarray
    position: np.ndarray
    terms: np.ndarray

    def __len__(self):
        return len(self.half_angle)

    def head(self, n: int) -> PieceStates:
        """The first ``n`` pieces."""
        return PieceStates(*(getattr(self, f)[..., :n] for f in self.__dataclass_fields__))

    def concatenate(self, other: PieceStates) -> PieceStates:
        """These pieces followed by ``other``'s."""
        if self.terms.shape[0] != other.terms.shape[0]:  # velocity terms on one side only
            width = max(self.terms.shape[0], other.terms.shape[0])
            a, b = (_pad_terms(x.terms, width) for x in (self, other))
        else:
            a, b = self.terms, other.terms
        fields = [f for f in self.__dataclass_fields__ if f != "terms"]
        joined = {f: np.concatenate([getattr(self, f), getattr(other, f)], axis=-1) for f in fields}
        return PieceStates(**joined, terms=np.concatenate([a, b], axis=-1))

    def at(self, index, k):
        """``q0 (4, G)`` and ``p0 (3, G)`` after ``k`` substeps of pieces ``index``."""
        index = np.asarray(index).reshape(-1)
        k = np.asarray(k, dtype=float).reshape(-1)
        return chunked(lambda s, e: self._at(index[s:e], k[s:e]), len(index))

    @cached_property
    def _packed(self) -> np.ndarray:
        """Everything :meth:`at` reads, one row per component: one gather per query chunk."""
        a = self.half_angle[None]
        return np.concatenate(
            [
                a,
                np.cos(a),
                np.sin(a),
                self.rotation,
                self.turned,
                self.position,
                self.terms.reshape(-1, len(self)),
            ]
        )

    def _at(self, index, k):
        data = self._packed[:, index]
        a, cos_a, sin_a = data[0], data[1], data[2]
        Q, Y, P, terms = data[3:7], data[7:11], data[11:14], data[14:].reshape(-1, 3, len(index))
        ka = k * a
        cos_ka, sin_ka = np.cos(ka), np.sin(ka)
        rotation = cos_ka * Q + sin_ka * Y
        c, s = rotation_sums(k, a, cos_ka, sin_ka, cos_a, sin_a)
        position = P + k * terms[0] + c * terms[1] + s * terms[2]
        if len(terms) == 6:
            tc, ts = weighted_rotation_sums(k, a)
            position += 0.5 * k * (k - 1) * terms[3] + tc * terms[4] + ts * terms[5]
        return rotation, position


def _pad_terms(terms, width):
    if terms.shape[0] == width:
        return terms
    return np.concatenate([terms, np.zeros((width - terms.shape[0],) + terms.shape[1:])])


@dataclass(frozen=True, eq=False)
class ScanResult:
    """Piece states from a block on, and the states the scan chains from block to block.

    ``block_rotation (4, nb + 1)`` and ``block_position (3, nb + 1)`` hold the state at the
    start of each block from the plan's first on, and last the state at the grid's end.
    """

    pieces: PieceStates
    block_rotation: np.ndarray
    block_position: np.ndarray


def _qmul_scalar(a, b):
    """``a b`` normalized, for one rotation as floats."""
    q = mul_one(a, b)
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


#: Elementwise work runs over chunks of about this many entries: a few thousand doubles per
#: array stay in the CPU caches, and temporaries stay below the allocator's threshold for
#: memory it returns to the system (and faults back in) on every allocation.
CHUNK = 2048
#: Pieces per chunk in the scan (their arrays are few and each pass is short).
PIECE_CHUNK = 8192


def chunked(fn, n: int, size: int = CHUNK):
    """``fn(start, stop)`` over ``[0, n)`` in chunks, the results joined on the last axis.

    ``fn`` returns an array or a tuple of arrays; results do not depend on the chunking
    since the work is elementwise.
    """
    parts = [fn(s, min(s + size, n)) for s in range(0, max(n, 1), size)]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(p, axis=-1) for p in zip(*parts))
    return np.concatenate(parts, axis=-1)


def _block_layout(block: np.ndarray, n_blocks: int):
    """First piece of each block, pieces per block, and each piece's rank in its block."""
    first = np.searchsorted(block, np.arange(n_blocks))
    count = np.diff(np.append(first, len(block)))
    rank = np.arange(len(block)) - np.repeat(first, count)
    return first, count, rank


#: Pieces per group in the orientation scan: a group is multiplied out in order, the groups'
#: totals by the logarithmic scan.
PREFIX_GROUP = 8


def _piece_orientations(totals, block, rank, count, world: bool, q_start):
    """Each piece's starting orientation, and the orientation at every block start.

    Parameters
    ----------
    totals : ndarray, shape (4, Np)
        Each piece's whole rotation ``A^L`` (unit).
    block, rank : ndarray of int, shape (Np,)
        The piece's block and its place in it.
    count : ndarray of int, shape (nb,)
        Pieces per block.
    world : bool
        World space multiplies later rotations on the left, object space on the right.
    q_start : tuple of 4 floats
        The orientation at the first block's start.

    Returns
    -------
    Q : ndarray, shape (4, Np)
        The orientation at each piece's start (unit).
    block_rotation : ndarray, shape (4, nb + 1)
        The orientation at each block's start, and last at the end.

    Each block is a row; within it the pieces are taken in groups of :data:`PREFIX_GROUP`
    at fixed places from the row's start. Each group's running product in order gives every
    piece the product of its group's earlier pieces; the groups' totals are scanned by
    Hillis-Steele (log2 levels), which gives the block's total (the blocks are then chained
    in order, one normalized product each) and, times the block's start, each group's
    start ``C``; a piece's orientation is its in-group product times ``C``. That is about
    two products per piece (a Hillis-Steele scan of the pieces themselves takes log2 of the
    block's width), and every orientation is a product of O(log) factors, normalized once.
    The pieces are stored group-position-major (piece ``r`` of block ``b`` at ``[r % G, b,
    r // G]``), so the ``e``-th pieces of all groups are one contiguous array. A row's
    arithmetic depends only on its own pieces and its start (the padding after them is
    identity and every step looks backwards), so restarting at a block gives the same bits.
    """
    nb, G = len(count), PREFIX_GROUP
    ng = max(1, -(-int(count.max()) // G))  # groups per row
    z = np.zeros((4, G, nb, ng))
    z[0] = 1.0
    flat = z.reshape(4, -1)  # a view: one index per piece
    at = (rank % G) * (nb * ng) + block * ng + rank // G
    for c in range(4):
        flat[c][at] = totals[c]

    def mul(later, earlier):  # world: later on the left; object: on the right
        return mul_components(later, earlier) if world else mul_components(earlier, later)

    # z[:, e] <- the product of its group's pieces before e (the identity for e = 0).
    run = z[:, 0].copy()
    z[:, 0] = np.array([1.0, 0.0, 0.0, 0.0])[:, None, None]
    for e in range(1, G):
        later = mul(z[:, e], run)
        z[:, e] = run
        run = later
    shift = 1  # run: the groups' totals (4, nb, ng), scanned in place (inclusive)
    while shift < ng:
        run[..., shift:] = mul(run[..., shift:], run[..., :-shift])
        shift *= 2
    # A block's total: the scan at its last piece's group. Not at the row's last column: the
    # rows are as wide as the longest block, and a later column would group the same factors
    # differently (restarting at a block would not give the same bits).
    last = run[:, np.arange(nb), np.maximum(count - 1, 0) // G]
    chain = [q_start]
    for t in last.T.tolist():  # the padding after a block's pieces is the identity
        chain.append(_qmul_scalar(t, chain[-1]) if world else _qmul_scalar(chain[-1], t))
    block_rotation = np.array(chain).T  # (4, nb + 1)
    start = np.empty(run.shape)  # C: each group's starting orientation
    start[:, :, 0] = block_rotation[:, :nb]
    start[:, :, 1:] = mul(run[:, :, :-1], block_rotation[:, :nb, None])
    Q = mul(z, start[:, None])
    Q /= np.sqrt(Q[0] * Q[0] + Q[1] * Q[1] + Q[2] * Q[2] + Q[3] * Q[3])  # normalize, in place
    return np.take(Q.reshape(4, -1), at, axis=1), block_rotation


def _within_block_sums(d, block, rank, count):
    """Exclusive prefix sums of piece displacements within each block, and block totals.

    ``d (3, Np)``; returns ``before (3, Np)`` and ``block_total (3, nb)``.
    """
    nb, width = len(count), int(count.max())
    x = np.zeros((3, nb, width + 1))
    flat = x.reshape(3, -1)  # a view: one index per piece
    at = block * (width + 1) + rank
    for c in range(3):  # one component at a time: a plain 1-d scatter
        flat[c][at + 1] = d[c]
    np.cumsum(x, axis=2, out=x)  # sequential along each block: deterministic
    return np.take(flat, at, axis=1), np.take(flat, np.arange(nb) * (width + 1) + count, axis=1)


def _take_last(x, index):
    """``x[..., index]``, kept a broadcast view where ``x`` is one along its last axis."""
    if x.shape[-1] and x.strides[-1] == 0:
        return np.broadcast_to(x[..., :1], x.shape[:-1] + (len(index),))
    return x[..., index]


def _displacement_terms(inc, position, velocity, Q, world: bool, longer, out) -> None:
    """``x0, x1, x2`` (and their velocity counterparts) of a run of pieces, into ``out``.

    Parameters
    ----------
    inc : Increment
        The pieces' increments.
    position, velocity : ndarray, shape (3, P, n)
        The plan's offsets and their slide per substep (``velocity`` ``None``: none slide);
        ``position`` may be a broadcast view.
    Q : ndarray, shape (4, n)
        The pieces' starting orientations.
    world : bool
    longer : ndarray of int
        The pieces (indices into ``n``) of more than one substep. A piece of one substep is
        only ever read at its start or summed whole (``k = 0, 1``), where every term but
        ``x0`` has a zero weight: those are left zero there, not computed.
    out : ndarray, shape (3, 3, n) or (6, 3, n)
        Zeros on entry; the terms on return.
    """
    n_pieces = Q.shape[1]
    if len(longer) == n_pieces:
        for row, term in zip(out, _terms(inc, position, velocity, Q, world, full=True)):
            row[:] = term
        return
    out[0] = _terms(inc, position, velocity, Q, world, full=False)[0]
    if len(longer):
        out[:, :, longer] = _terms(
            inc.take(longer),
            _take_last(position, longer),
            None if velocity is None else velocity[..., longer],
            Q[:, longer],
            world,
            full=True,
        )


def _terms(inc, position, velocity, Q, world: bool, full: bool):
    """:func:`_displacement_terms` of every piece given: all of them, or ``x0`` alone."""
    n = inc.axis

    def three(vectors):  # vectors (3, P, Np), body frame
        if not world:
            m = inc.pivot_sum(vectors)
            if not full:
                return [rotate_components(Q, m)]
            return [
                rotate_components(Q, m),
                rotate_components(Q, m - n * dot_components(n, m)),
                rotate_components(Q, cross_components(n, m)),
            ]
        if inc.integrator == "exact":  # M_i x = -phi_i x J(Phi) x, through J(Phi) R(Q)
            a, b = inc.jacobian_ab
            return exact_world_terms(Q, inc.total_rotvec, n, a, b, inc.pivot_rotvec, vectors, full)
        w = [rotate_components(Q, v) for v in np.moveaxis(vectors, 1, 0)]
        if inc.integrator == "twist":
            if not full:
                return [inc.pivot_sum(np.stack(w, axis=1))]
            y = [wi - n * dot_components(n, wi) for wi in w]
            z = [cross_components(n, wi) for wi in w]
            return [inc.pivot_sum(np.stack(x, axis=1)) for x in (w, y, z)]
        # The seed's M_i x = x - R_i x, applied to w, to y = w - n (n.w) and to n x w;
        # a rotation keeps cross products, so R_i (n x w) = (R_i n) x (R_i w).
        x0, x1, x2 = (np.zeros(n.shape) for _ in range(3))
        for i, wi in enumerate(w):
            r = inc.pivot_rotation[:, i]
            rw = rotate_components(r, wi)
            mw = wi - rw
            x0 += mw
            if full:
                rn = rotate_components(r, n)
                x1 += mw - dot_components(n, wi) * (n - rn)
                x2 += cross_components(n, wi) - cross_components(rn, rw)
        return [x0, x1, x2] if full else [x0]

    terms = three(position)
    if velocity is not None:
        if inc.integrator == "exact":  # sliding pivots: the first moment within each step
            moments = moment_terms(inc, velocity, Q, world)
            terms = [t + m for t, m in zip(terms, moments)]
        if full:
            terms += three(velocity)
    return terms


def integrate(plan: StepPlan, integrator: str, space: str, q_start, p_start) -> ScanResult:
    """Integrate the plan's pieces from its first block on.

    Parameters
    ----------
    plan : StepPlan
        From :func:`~app.scene.constraints.multi_parent.plan.plan_steps` (``.from_block(b)``).
    integrator : {"seed", "twist", "exact"}
    space : {"world", "object"}
    q_start : array_like, shape (4,)
        The body's orientation at the plan's first grid point (a block start).
    p_start : array_like, shape (3,)
        Its position there.

    Returns
    -------
    ScanResult
    """
    world = space == "world"
    q_start = tuple(float(v) for v in q_start)
    p_start = np.asarray(p_start, dtype=float)
    B = plan.block_steps
    first_block = plan.first_grid // B
    n_blocks = -(-(plan.n_steps - plan.first_grid) // B)
    L = plan.length
    n_terms = 3 if plan.velocity is None else 6
    if len(L) == 0:
        empty = PieceStates(
            plan.grid_start,
            plan.per_grid,
            plan.block,
            np.empty(0),
            np.empty((4, 0)),
            np.empty((4, 0)),
            np.empty((3, 0)),
            np.empty((n_terms, 3, 0)),
        )
        return ScanResult(empty, np.array(q_start)[:, None], p_start[:, None].copy())

    n_pieces = len(L)
    size = PIECE_CHUNK
    bounds = [(s, min(s + size, n_pieces)) for s in range(0, n_pieces, size)]
    incs = [
        increment(
            None if plan.rotation is None else plan.rotation[..., s:e],
            integrator,
            space,
            None if plan.rotvec is None else plan.rotvec[..., s:e],
        )
        for s, e in bounds
    ]
    half_angle = np.concatenate([inc.half_angle for inc in incs])
    axis = np.concatenate([inc.axis for inc in incs], axis=1)
    flows = None
    if plan.ease is not None and len(plan.ease.index):  # the exact integrator's eased pieces
        flows = plan.ease.index, *plan.ease.flow(world)
        A = flows[1] * np.where(flows[1][0] < 0, -1.0, 1.0)
        half_angle[flows[0]], axis[:, flows[0]] = _half_angle_axis(A)
    block = plan.block - first_block
    first_piece, count, rank = _block_layout(block, n_blocks)

    # Orientation: piece totals A^L, prefix within blocks, blocks chained in order.
    la = L * half_angle
    cos_la, sin_la = np.cos(la), np.sin(la)
    totals = np.concatenate([cos_la[None], sin_la * axis])
    # cos a and sin a for the closed-form sums: a piece of one substep has them already
    # (``1 * a`` is ``a``), and most pieces are one substep where keys are every frame.
    longer = np.flatnonzero(L != 1)
    cos_a, sin_a = cos_la.copy(), sin_la.copy()
    cos_a[longer], sin_a[longer] = np.cos(half_angle[longer]), np.sin(half_angle[longer])
    Q, block_rotation = _piece_orientations(totals, block, rank, count, world, q_start)

    # Each piece's starting Q, its Y and its x-terms, a chunk of pieces at a time.
    Y = np.zeros((4, n_pieces))  # read only at k > 0: a piece of one substep leaves it zero
    terms = np.zeros((n_terms, 3, n_pieces))
    for s, e in bounds:
        q = Q[:, s:e]
        many = longer[(longer >= s) & (longer < e)] - s
        pure_axis = np.concatenate([np.zeros((1, len(many))), axis[:, s + many]])
        Y[:, s + many] = (
            mul_components(pure_axis, q[:, many])
            if world
            else mul_components(q[:, many], pure_axis)
        )
        _displacement_terms(
            incs[s // size],
            plan.position[..., s:e],
            None if plan.velocity is None else plan.velocity[..., s:e],
            q,
            world,
            many,
            terms[..., s:e],
        )
        if flows is not None:  # one step each: the flow's displacement from Q is all of it
            sel = (flows[0] >= s) & (flows[0] < e)
            local = flows[0][sel] + 0
            terms[:, :, local] = 0.0
            terms[0][:, local] = apply_flow(world, None, flows[2][..., sel], Q[:, local])

    # Position: each piece's total displacement in closed form, summed like the rotations.
    # A piece of one substep moves by x0 (its other terms are zero and L = 1).
    d = terms[0].copy() if len(longer) else terms[0]  # only read below when not changed
    if len(longer):
        Ll, al = L[longer], half_angle[longer]
        c, s_ = rotation_sums(Ll, al, cos_la[longer], sin_la[longer], cos_a[longer], sin_a[longer])
        tl = terms[..., longer]
        dl = Ll * tl[0] + c * tl[1] + s_ * tl[2]
        if n_terms == 6:
            tc, ts = weighted_rotation_sums(Ll, al)
            dl += 0.5 * Ll * (Ll - 1.0) * tl[3] + tc * tl[4] + ts * tl[5]
        d[:, longer] = dl
    sums_before, block_sum = _within_block_sums(d, block, rank, count)
    block_position = np.cumsum(np.concatenate([p_start[:, None], block_sum], axis=1), axis=1)
    P = np.take(block_position, block, axis=1) + sums_before

    pieces = PieceStates(plan.grid_start, plan.per_grid, plan.block, half_angle, Q, Y, P, terms)
    return ScanResult(pieces, block_rotation, block_position)
