"""FBX's transform chain, from assimp's helper nodes back to one transform per node.

An FBX node's local transform is ``T · Roff · Rp · Rpre · R · Rpost⁻¹ · Rp⁻¹ · Soff · Sp · S ·
Sp⁻¹`` (translation, rotation offset and pivot, pre-rotation, rotation, post-rotation, scaling
offset and pivot, scaling), and its geometry alone is moved further by the geometric
transform. Assimp 5.2 read with ``IMPORT_FBX_PRESERVE_PIVOTS`` (its default) puts every part
that is not the identity on a helper node above the real one (``hip_$AssimpFbx$_PreRotation``,
...). Measured on a file with pre- and post-rotations, pivots and offsets against ufbx, this is
where assimp is right: with the option off it folds the parts of a node with pivots into a
wrong matrix, and keys such a node's animation on helpers it no longer has.

:func:`collapse` multiplies each chain back into its node: the static parts as they are, and
where a helper is keyed (the pivoted nodes' translation, rotation or scaling) the product at
every key time of any of the chain's channels (the keyed parts linear and slerped between their
keys). A channel on the real node itself already holds the whole local transform (assimp folds
pre- and post-rotations into it), so it is kept as it is. Geometric helpers leave the chain:
their product is the node's ``geometry``, which moves its meshes and not its children.
"""

from __future__ import annotations

import numpy as np

from app.scene.formats.fbx.assimp import Channel, File, Node
from app.scene.math import quat, transforms

MARK = "_$AssimpFbx$_"


def collapse(read: File) -> File:
    """``read`` with each helper chain multiplied into its node (see the module docstring)."""
    if not any(MARK in n.name for n in read.nodes):
        return read
    nodes, new_index = [], {}
    chains = {}
    for i, n in enumerate(read.nodes):
        if MARK in n.name:
            continue
        chain, p = [], n.parent
        while p > 0 and read.nodes[p].name.startswith(n.name + MARK):
            chain.append(read.nodes[p])
            p = read.nodes[p].parent
        chain.reverse()
        parts = [c for c in chain if MARK + "Geometric" not in c.name]
        geometric = [c for c in chain if MARK + "Geometric" in c.name]
        matrix = np.eye(4)
        for c in parts:
            matrix = matrix @ c.matrix
        matrix = matrix @ n.matrix
        geometry = None
        if geometric:
            geometry = np.eye(4)
            for c in geometric:
                geometry = geometry @ c.matrix
        new_index[i] = len(nodes)
        nodes.append(
            Node(n.name, matrix, new_index.get(p, -1) if p >= 0 else -1, n.meshes, geometry)
        )
        if parts:
            chains[n.name] = [(c.name, c.matrix) for c in parts] + [(n.name, n.matrix)]
    by_node = {c.node: c for c in read.channels}
    channels = [c for c in read.channels if MARK not in c.node]
    keyed_helpers = {c.node.split(MARK)[0] for c in read.channels if MARK in c.node}
    for name in sorted(keyed_helpers):
        chain = chains.get(name)
        if chain:
            channels = [c for c in channels if c.node != name]
            channels.append(_composed(name, chain, by_node))
    read.nodes, read.channels = nodes, channels
    return read


def _composed(name, chain, by_node) -> Channel:
    keyed = [by_node.get(n) for n, _ in chain]
    times = np.unique(
        np.concatenate(
            [k[0] for c in keyed if c is not None for k in (c.position, c.rotation, c.scale)]
        )
    )
    local = np.broadcast_to(np.eye(4), (len(times), 4, 4)).copy()
    for (_, matrix), channel in zip(chain, keyed):
        if channel is None:
            local = local @ matrix
            continue
        t0, q0, s0 = _static(matrix)
        t = _vector(channel.position, times, t0)
        q = _rotation(channel.rotation, times, q0)
        s = _vector(channel.scale, times, s0)
        local = local @ transforms.trs(t, q, s)
    scale = np.linalg.norm(local[:, :3, :3], axis=1)
    unit = np.where(scale == 0, 1.0, scale)[:, None, :]
    rotation = transforms.rotation_from_matrix(local[:, :3, :3] / unit)
    return Channel(name, (times, local[:, :3, 3]), (times, rotation), (times, scale))


def _static(matrix):
    s = np.linalg.norm(matrix[:3, :3], axis=0)
    q = transforms.rotation_from_matrix(matrix[:3, :3] / np.where(s == 0, 1.0, s))
    return matrix[:3, 3], q, s


def _vector(keys, times, rest):
    t, v = keys
    if not len(t):
        return np.broadcast_to(rest, (len(times), 3))
    return np.column_stack([np.interp(times, t, v[:, k]) for k in range(3)])


def _rotation(keys, times, rest):
    t, v = keys
    if not len(t):
        return np.broadcast_to(rest, (len(times), 4))
    v = v / np.linalg.norm(v, axis=1, keepdims=True)
    k = np.clip(np.searchsorted(t, times, side="right") - 1, 0, len(t) - 1)
    after = np.minimum(k + 1, len(t) - 1)
    span = np.where(after > k, t[after] - t[k], 1.0)
    u = np.clip((times - t[k]) / span, 0.0, 1.0)
    return quat.slerp(v[k], v[after], u)
