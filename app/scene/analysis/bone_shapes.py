"""Triangle meshes for drawing bones: the octahedral shape of Blender's armatures.

Each bone is an octahedron from its head to its tail, widest a tenth of the way along, so
its direction reads at a glance. Pure numpy: the viewport uploads the arrays.
"""

from __future__ import annotations

import numpy as np

#: Faces of one octahedron, counter-clockwise seen from outside (normals point out):
#: vertex 0 is the head, 5 the tail, 1..4 the ring.
_FACES = np.array(
    [[0, 2, 1], [0, 3, 2], [0, 4, 3], [0, 1, 4], [5, 1, 2], [5, 2, 3], [5, 3, 4], [5, 4, 1]]
)


def perpendicular_frames(directions):
    """Two unit vectors perpendicular to each direction and to each other.

    Parameters
    ----------
    directions : ndarray, shape (N, 3)
        Non-zero vectors.

    Returns
    -------
    e1, e2 : ndarray, shape (N, 3)
    """
    d = directions / np.linalg.norm(directions, axis=-1, keepdims=True)
    helper = np.zeros_like(d)
    helper[np.arange(len(d)), np.argmin(np.abs(d), axis=-1)] = 1.0
    e1 = np.cross(d, helper)
    e1 /= np.linalg.norm(e1, axis=-1, keepdims=True)
    return e1, np.cross(d, e1)


def octahedra(heads, tails, width: float = 0.1, ring_at: float = 0.1):
    """Octahedral bone meshes.

    Parameters
    ----------
    heads, tails : ndarray, shape (N, 3)
        World positions; bones with ``head == tail`` get no mesh.
    width : float
        Ring radius as a fraction of the bone's length.
    ring_at : float
        Where along the bone the ring sits, as a fraction.

    Returns
    -------
    vertices : ndarray, shape (6 M, 3)
    faces : ndarray of int, shape (8 M, 3)
    bone_of_vertex : ndarray of int, shape (6 M,)
        Which input bone each vertex belongs to (to colour per bone).
    """
    heads = np.asarray(heads, dtype=float)
    tails = np.asarray(tails, dtype=float)
    axis = tails - heads
    length = np.linalg.norm(axis, axis=-1)
    keep = np.flatnonzero(length > 1e-12)
    if len(keep) == 0:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64)
    h, a, n = heads[keep], axis[keep], length[keep][:, None]
    e1, e2 = perpendicular_frames(a)
    ring_center = h + ring_at * a
    r = width * n
    verts = np.stack(
        [
            h,
            ring_center + r * e1,
            ring_center + r * e2,
            ring_center - r * e1,
            ring_center - r * e2,
            h + a,
        ],
        axis=1,
    )
    faces = (_FACES[None] + 6 * np.arange(len(keep))[:, None, None]).reshape(-1, 3)
    return verts.reshape(-1, 3), faces, np.repeat(keep, 6)
