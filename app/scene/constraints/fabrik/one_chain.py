"""FABRIK for a single chain in plain Python floats.

Numpy costs about a microsecond per call whatever the array size, and a FABRIK pass makes a
few calls per joint; for one chain (the editor's current frame) plain floats are several
times faster than the vectorized passes of :mod:`app.scene.constraints.fabrik.chains`, which calls
this
for one chain without pole or limits. The two agree to rounding
(``tests/scene/constraints/test_fabrik_chains.py``).
"""

from __future__ import annotations

from math import sqrt

from app.scene.math.aim import DEGENERATE

#: A chain whose joints all lie within this fraction of its reach from the root-target line
#: is straight on the target's line: FABRIK alone would never bend it.
STRAIGHT = 1e-6


def solve_one(joints, target, tolerance, max_iterations, record=None):
    """One chain, no pole, no limits: joints ``[[x, y, z], ...]`` and target ``[x, y, z]``.

    ``record(stage, iteration, joints)``, when given, is called with the joints after each
    stage (see :func:`app.scene.constraints.fabrik.chains.solve`); it is not called on the way to a
    ``None``, where the vectorized path starts over and records instead.

    Returns
    -------
    tuple or None
        ``(joints, iterations, reachable)``, or ``None`` where the vectorized path must take
        over: the chain lies straight on the target's line (it is bent first there), the
        target sits on the root, or two joints meet (their line has no direction).
    """
    P = [list(p) for p in joints]
    tx, ty, tz = target
    L = []
    for a, b in zip(P[:-1], P[1:]):
        L.append(sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2))
    reach = sum(L)
    rx, ry, rz = P[0]
    ax, ay, az = tx - rx, ty - ry, tz - rz
    dist = sqrt(ax * ax + ay * ay + az * az)
    if dist > reach:  # straight towards the target
        ax, ay, az = ax / dist, ay / dist, az / dist
        s = 0.0
        for i, length in enumerate(L):
            s += length
            P[i + 1] = [rx + s * ax, ry + s * ay, rz + s * az]
        if record is not None:
            record("straight", 1, P)
        return P, 1, False
    if dist <= DEGENERATE:  # a target on the root: the vectorized path keeps the start
        return None
    ax, ay, az = ax / dist, ay / dist, az / dist
    off = 0.0
    for x, y, z in P[1:]:
        px, py, pz = x - rx, y - ry, z - rz
        along = px * ax + py * ay + pz * az
        px, py, pz = px - along * ax, py - along * ay, pz - along * az
        off = max(off, px * px + py * py + pz * pz)
    if sqrt(off) <= STRAIGHT * reach:
        return None
    n = len(L)
    iterations = 0
    stages = []  # recorded only once the solve is known to finish here
    x, y, z = P[-1]
    gap = sqrt((x - tx) ** 2 + (y - ty) ** 2 + (z - tz) ** 2)
    while gap > tolerance and iterations < max_iterations:
        cx, cy, cz = tx, ty, tz
        P[n] = [cx, cy, cz]
        for i in range(n - 1, -1, -1):
            x, y, z = P[i]
            dx, dy, dz = x - cx, y - cy, z - cz
            r = sqrt(dx * dx + dy * dy + dz * dz)
            if r == 0.0:
                return None
            s = L[i] / r
            cx, cy, cz = cx + dx * s, cy + dy * s, cz + dz * s
            P[i] = [cx, cy, cz]
        if record is not None:
            stages.append(("from_tip", iterations + 1, [list(p) for p in P]))
        cx, cy, cz = rx, ry, rz
        P[0] = [cx, cy, cz]
        for i in range(n):
            x, y, z = P[i + 1]
            dx, dy, dz = x - cx, y - cy, z - cz
            r = sqrt(dx * dx + dy * dy + dz * dz)
            if r == 0.0:
                return None
            s = L[i] / r
            cx, cy, cz = cx + dx * s, cy + dy * s, cz + dz * s
            P[i + 1] = [cx, cy, cz]
        iterations += 1
        if record is not None:
            stages.append(("from_root", iterations, [list(p) for p in P]))
        gap = sqrt((cx - tx) ** 2 + (cy - ty) ** 2 + (cz - tz) ** 2)
    if record is not None:
        for stage in stages:
            record(*stage)
    return P, iterations, True
