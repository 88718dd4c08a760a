"""A body for a bare skeleton: tubes around its bones, weighted by distance (envelopes).

What the worked example, the tests and the benchmarks skin when no imported mesh is at hand:
:func:`tube_mesh` wraps each bone in a closed tube at the pose given, and
:func:`envelope_weights` binds every vertex to its nearest bones (Blender's "envelope"
weights: inverse distance to the bone segment, the nearest ``influences`` bones kept).
"""

from __future__ import annotations

import numpy as np

from app.scene.rig.mesh import MAX_INFLUENCES, SkinnedMesh


def segment_distances(points, heads, tails) -> np.ndarray:
    """Distance from each point to each segment.

    Parameters
    ----------
    points : ndarray, shape (V, 3)
    heads, tails : ndarray, shape (B, 3)

    Returns
    -------
    ndarray, shape (V, B)
    """
    points = np.asarray(points, dtype=float)
    heads = np.asarray(heads, dtype=float)
    axis = np.asarray(tails, dtype=float) - heads
    length2 = np.maximum(np.sum(axis * axis, axis=1), 1e-24)
    rel = points[:, None, :] - heads[None]  # (V, B, 3)
    s = np.clip(np.einsum("vbi,bi->vb", rel, axis) / length2, 0.0, 1.0)
    return np.linalg.norm(rel - s[..., None] * axis[None], axis=-1)


def envelope_weights(points, heads, tails, influences: int = 4, power: float = 4.0):
    """The nearest ``influences`` bones of each point, weighted by ``1 / distance**power``.

    Parameters
    ----------
    points : ndarray, shape (V, 3)
    heads, tails : ndarray, shape (B, 3)
        The bones as segments, in the same space as ``points``.
    influences : int
        Influences per vertex (1 to :data:`~app.scene.rig.mesh.MAX_INFLUENCES`, 8); fewer
        bones than that pad with weight 0.
    power : float
        How fast a bone's influence falls off with distance.

    Returns
    -------
    joint_indices : ndarray, shape (V, K), int
        Indices into the bones, nearest first; ``K = max(4, influences)`` (glTF's
        ``JOINTS_0`` holds four, a second set four more).
    weights : ndarray, shape (V, K)
        Rows summing to 1.
    """
    if not 1 <= influences <= MAX_INFLUENCES:
        raise ValueError(f"influences must be 1 to {MAX_INFLUENCES}, not {influences}")
    d = segment_distances(points, heads, tails)
    k = min(influences, d.shape[1])
    nearest = np.argsort(d, axis=1)[:, :k]
    near_d = np.take_along_axis(d, nearest, axis=1)
    w = 1.0 / np.maximum(near_d, 1e-6) ** power
    w /= w.sum(axis=1, keepdims=True)
    width = max(4, influences)
    joints = np.zeros((len(d), width), dtype=np.int64)
    weights = np.zeros((len(d), width))
    joints[:, :k], weights[:, :k] = nearest, w
    return joints, weights


def tube_mesh(
    bone_to_world,
    heads,
    tails,
    bone_names,
    radius,
    sides: int = 12,
    rings: int = 6,
    influences: int = 4,
    name: str = "body",
) -> SkinnedMesh:
    """Closed tubes around bones posed as given, bound to all of them by envelopes.

    Parameters
    ----------
    bone_to_world : ndarray, shape (B, 4, 4)
        The bind pose (what ``inverse_bind`` inverts).
    heads, tails : ndarray, shape (B, 3)
        The bones in the bind pose, world space.
    bone_names : sequence of str, length B
        The mesh's joints (every bone, in this order).
    radius : float or sequence of float (B,)
        Each tube's radius; a bone with radius 0 (or no length) gets no tube but still
        takes part in the weights.
    sides, rings : int
        Vertices around a tube and rings along it (its ends closed by a pole each).
    influences : int
        Influences per vertex.
    name : str

    Returns
    -------
    SkinnedMesh
        ``(B·(sides·rings + 2))`` vertices at most; counter-clockwise triangles facing out.
    """
    heads = np.asarray(heads, dtype=float).reshape(-1, 3)
    tails = np.asarray(tails, dtype=float).reshape(-1, 3)
    radii = np.broadcast_to(np.asarray(radius, dtype=float), (len(heads),))
    positions, triangles = [], []
    around = 2 * np.pi * np.arange(sides) / sides
    for head, tail, r in zip(heads, tails, radii):
        axis = tail - head
        length = float(np.linalg.norm(axis))
        if r <= 0 or length <= 1e-9:
            continue
        u = axis / length
        helper = np.eye(3)[np.argmin(np.abs(u))]
        e1 = np.cross(u, helper)
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(u, e1)
        # rings from a little before the head to a little past the tail, rounded ends
        t = np.linspace(0.0, 1.0, rings)
        along = head + np.outer(t, axis)
        taper = 1.0 - 0.35 * (2 * t - 1) ** 4
        ring = np.cos(around)[:, None] * e1 + np.sin(around)[:, None] * e2  # (S, 3)
        verts = along[:, None, :] + r * taper[:, None, None] * ring[None]  # (R, S, 3)
        base = sum(len(p) for p in positions)
        poles = np.array([head - 0.6 * r * u, tail + 0.6 * r * u])
        positions.append(np.concatenate([verts.reshape(-1, 3), poles]))
        ids = base + np.arange(rings * sides).reshape(rings, sides)
        nxt = np.roll(ids, -1, axis=1)
        a, b, c, d = ids[:-1], nxt[:-1], nxt[1:], ids[1:]
        # around e1 -> e2 is counter-clockwise seen from the tail: (a, b, c) faces out
        triangles.append(np.stack([a, b, c], -1).reshape(-1, 3))
        triangles.append(np.stack([a, c, d], -1).reshape(-1, 3))
        start, end = base + rings * sides, base + rings * sides + 1
        first, last = ids[0], ids[-1]
        triangles.append(np.stack([np.full(sides, start), np.roll(first, -1), first], -1))
        triangles.append(np.stack([np.full(sides, end), last, np.roll(last, -1)], -1))
    points = np.concatenate(positions)
    joints, weights = envelope_weights(points, heads, tails, influences)
    return SkinnedMesh(
        name=name,
        positions=points,
        indices=np.concatenate(triangles),
        joints=tuple(str(n) for n in bone_names),
        joint_indices=joints,
        weights=weights,
        inverse_bind=np.linalg.inv(np.asarray(bone_to_world, dtype=float)),
    )
