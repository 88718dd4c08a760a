"""Linear blend skinning: a :class:`~app.scene.rig.mesh.SkinnedMesh` deformed by posed bones.

A vertex ``v`` (bind space) is drawn at ``sum_k w_k · S[j_k] @ v`` with the skin matrix of
joint ``j``: ``S[j] = bone_to_world[bone of j] @ inverse_bind[j]`` (glTF 2.0's definition;
``inverse_bind[j]`` is ``world_to_joint`` at bind time, so ``S[j]`` is the identity when the
bone stands where it was bound).

Normals use the inverse transpose of each vertex's blended 3×3 part ``A``, computed as its
cofactor matrix ``cof(A) = det(A) · A⁻ᵀ`` (columns ``a1×a2, a2×a0, a0×a1``: three cross
products, no inverse) and renormalized; the sign of ``det(A)`` is kept so a mirrored bone
does not turn normals inside. This is exact for non-uniformly scaled bones too, where the
"rotation part" shortcut is not.

:class:`Skinning` precomputes everything that does not change from frame to frame (the joint →
bone map, the influences with zero weight dropped, the homogeneous bind positions); then
:meth:`Skinning.deform` is vectorized over vertices and frames: one gather of ``(V, 3, 4)``
matrices per influence slot (at most eight slots, never a loop per vertex).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from app.scene.rig.mesh import SkinnedMesh


@dataclass(frozen=True, eq=False)
class Skinning:
    """A mesh bound to a skeleton's bone order, ready to deform every frame.

    Build it with :func:`bind`. Attributes are precomputed, read-only arrays.

    Attributes
    ----------
    bone_of_joint : ndarray, shape (J,), int
        Index into the skeleton's bones for each of the mesh's joints; ``-1`` for a joint
        whose bone the skeleton does not have (it keeps its bind pose).
    inverse_bind : ndarray, shape (J, 4, 4)
    slots : ndarray, shape (V, K), int
        Per vertex, the palette entries of its ``K ≤ 8`` influences (zero-weight columns
        dropped); entry ``J`` is the identity (a vertex whose weights sum to 0 stays put).
    weights : ndarray, shape (V, K)
        Their weights, each row summing to 1.
    positions, normals : ndarray, shape (V, 3)
        Bind-space vertices and unit normals.
    dtype : numpy dtype
        What :meth:`deform` computes and returns in (float32 for the GPU, float64 for tests).
    missing_joints : tuple of str
        The mesh's joints that are not bones of the skeleton.
    """

    bone_of_joint: np.ndarray
    inverse_bind: np.ndarray
    slots: np.ndarray
    weights: np.ndarray
    positions: np.ndarray
    normals: np.ndarray
    dtype: np.dtype
    missing_joints: tuple

    @property
    def vertex_count(self) -> int:
        return len(self.positions)

    def skin_matrices(self, bone_to_world) -> np.ndarray:
        """The palette: ``S[j] = bone_to_world[bone of j] @ inverse_bind[j]``, top 3 rows.

        Parameters
        ----------
        bone_to_world : ndarray, shape (F, B, 4, 4) or (B, 4, 4)

        Returns
        -------
        ndarray, shape (F, J + 1, 3, 4)
            The last entry is the identity (vertices without weight, missing joints).
        """
        b2w = np.asarray(bone_to_world, dtype=float)
        b2w = b2w[None] if b2w.ndim == 3 else b2w
        frames, joints = len(b2w), len(self.bone_of_joint)
        palette = np.empty((frames, joints + 1, 3, 4))
        palette[:] = np.eye(4)[:3]
        found = np.flatnonzero(self.bone_of_joint >= 0)
        palette[:, found] = (b2w[:, self.bone_of_joint[found]] @ self.inverse_bind[found])[:, :, :3]
        return palette

    def blended_matrices(self, bone_to_world) -> np.ndarray:
        """Per vertex ``A = sum_k w_k S[j_k]``: shape (F, V, 3, 4) in :attr:`dtype`."""
        columns = self._blend(bone_to_world)  # (F, V, 12): the columns a0, a1, a2, t
        return columns.reshape(len(columns), self.vertex_count, 4, 3).swapaxes(-1, -2)

    def _blend(self, bone_to_world, work=None) -> np.ndarray:
        """``sum_k w_k S[j_k]`` per vertex, column after column: (F, V, 12) in :attr:`dtype`.

        ``work``: a dict of work arrays to reuse (filled on first use); the result is one of
        them, overwritten by the next call with the same ``work``.
        """
        palette = self.skin_matrices(bone_to_world).swapaxes(-1, -2)  # rows: the columns
        palette = np.ascontiguousarray(palette.reshape(len(palette), -1, 12), dtype=self.dtype)
        shape = (len(palette), self.vertex_count, 12)
        blended = _work(work, "blended", shape, self.dtype)
        gathered = _work(work, "gathered", shape, self.dtype)
        # One gather of (F, V, 12) per influence slot (at most eight), in place: row gathers
        # of 48 bytes are what numpy's take does fastest. The weights come spread over the
        # 12 entries of a row: multiplying by a (V, 1) column instead runs numpy's inner
        # loop 12 entries at a time, four times slower.
        for k, (slots, weights) in enumerate(zip(self._slot_rows, self._weight_rows)):
            into = blended if k == 0 else gathered
            # mode="clip": the slots are in range by construction (bind), and numpy's default
            # "raise" writes through a temporary copy of the whole output.
            np.take(palette, slots, axis=1, out=into, mode="clip")
            np.multiply(into, weights, out=into)
            if k:
                np.add(blended, gathered, out=blended)
        return blended

    # Derived arrays, made once (a cached_property writes the frozen instance's own dict).
    @cached_property
    def _slot_rows(self):
        return np.ascontiguousarray(self.slots.T)

    @cached_property
    def _weight_rows(self):
        """Per slot the weights repeated over a blended row: K arrays of (V, 12)."""
        return [np.ascontiguousarray(np.repeat(w[:, None], 12, axis=1)) for w in self.weights.T]

    @cached_property
    def _work_arrays(self) -> dict:
        """The work arrays of :meth:`deform` with ``out``, kept for the next call."""
        return {}

    def deform(self, bone_to_world, normals: bool = True, out=None):
        """Deformed positions (and normals) in world space.

        Parameters
        ----------
        bone_to_world : ndarray, shape (F, B, 4, 4) or (B, 4, 4)
            The evaluated pose, bones in the order :func:`bind` was given.
        normals : bool
            Also return the deformed unit normals.
        out : (positions, normals) arrays, optional
            Where to write them, each of the returned shape and :attr:`dtype` (they may be
            strided views, such as the two halves of an interleaved vertex array); ``normals``
            may be ``None`` when not asked for. The work arrays are then kept by the skinning
            and reused by the next such call: a redraw allocates nothing. One caller at a
            time (the viewport's).

        Returns
        -------
        positions : ndarray, shape (F, V, 3) (or (V, 3) for a (B, 4, 4) input), contiguous
            unless ``out`` was given (then ``out``'s arrays)
        normals : ndarray, same shape (only when ``normals``)
        """
        single = np.ndim(bone_to_world) == 3
        work = None if out is None else self._work_arrays
        blended = self._blend(bone_to_world, work)
        frames = blended.shape[0]
        # Component-major from here: every operation runs over contiguous (F, V) rows.
        a = _work(work, "columns", (12, frames, self.vertex_count), self.dtype)
        np.copyto(a, np.moveaxis(blended, -1, 0))
        a0, a1, a2, t = a[0:3], a[3:6], a[6:9], a[9:12]  # the columns of A, each (3, F, V)
        shape = (frames, self.vertex_count, 3)
        if out is None:
            world = np.empty(shape, dtype=self.dtype)
            turned = np.empty(shape, dtype=self.dtype) if normals else None
        else:
            world, turned = (None if o is None else o.reshape(shape) for o in out)
            if world is None or (normals and turned is None):
                raise ValueError("out needs a positions array (and a normals array)")
            _check_out(world, shape, self.dtype, out[0])
            if normals:
                _check_out(turned, shape, self.dtype, out[1])
        tmp = _work(work, "tmp", (frames, self.vertex_count), self.dtype)
        acc = _work(work, "acc", (frames, self.vertex_count), self.dtype)
        p = self._positions_by_axis
        for i in range(3):
            _combine(acc, tmp, (a0[i], a1[i], a2[i]), p)
            np.add(acc, t[i], out=world[..., i])
        if not normals:
            return _single(world, out, 0, single)
        n = self._normals_by_axis
        # cof(A) @ n with cof(A) = [a1×a2 | a2×a0 | a0×a1] = det(A) A^-T; det's sign kept.
        c = _work(work, "cofactor", (3, 3, frames, self.vertex_count), self.dtype)
        for col, (u, v) in enumerate(((a1, a2), (a2, a0), (a0, a1))):
            _cross_into(c[col], u, v, tmp)
        det = _work(work, "det", (frames, self.vertex_count), self.dtype)
        _combine(det, tmp, (a0[0], a0[1], a0[2]), (c[0][0], c[0][1], c[0][2]))
        rotated = _work(work, "rotated", (3, frames, self.vertex_count), self.dtype)
        for i in range(3):
            _combine(rotated[i], tmp, (c[0][i], c[1][i], c[2][i]), n)
        # scale = sign(det) / max(|rotated|, tiny)
        _combine(acc, tmp, tuple(rotated), tuple(rotated))
        np.sqrt(acc, out=acc)
        np.maximum(acc, np.finfo(self.dtype).tiny, out=acc)
        np.sign(det, out=det)
        np.divide(det, acc, out=acc)
        for i in range(3):
            np.multiply(rotated[i], acc, out=turned[..., i])
        if single:
            return _single(world, out, 0, True), _single(turned, out, 1, True)
        return (world, turned) if out is None else (out[0], out[1])

    @cached_property
    def _positions_by_axis(self):
        return np.ascontiguousarray(self.positions.T)

    @cached_property
    def _normals_by_axis(self):
        return np.ascontiguousarray(self.normals.T)


def _work(work, name, shape, dtype) -> np.ndarray:
    """A work array: new when ``work`` is ``None``, else ``work[name]``, made on first use
    (and again if ``shape`` changed)."""
    if work is None:
        return np.empty(shape, dtype=dtype)
    array = work.get(name)
    if array is None or array.shape != shape:
        array = work[name] = np.empty(shape, dtype=dtype)
    return array


def _check_out(array, shape, dtype, given) -> None:
    if array.shape != shape or array.dtype != dtype or not np.shares_memory(array, given):
        raise ValueError(f"out arrays must be {dtype} of shape {shape[1:]} (or {shape})")


def _single(array, out, i, single):
    """``array`` as the caller asked: ``out[i]`` itself when given, else one frame or all."""
    if out is not None:
        return out[i]
    return array[0] if single else array


def _combine(acc, tmp, a, b) -> None:
    """``acc = a[0]*b[0] + a[1]*b[1] + a[2]*b[2]`` in place (``tmp`` is scratch)."""
    np.multiply(a[0], b[0], out=acc)
    for x, y in zip(a[1:], b[1:]):
        np.multiply(x, y, out=tmp)
        np.add(acc, tmp, out=acc)


def _cross_into(into, a, b, tmp) -> None:
    """Cross products of component-major stacks ``a``, ``b`` (3, ...) into ``into`` (3, ...)."""
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        np.multiply(a[j], b[k], out=into[i])
        np.multiply(a[k], b[j], out=tmp)
        np.subtract(into[i], tmp, out=into[i])


def bind(mesh: SkinnedMesh, bone_names, dtype=np.float64) -> Skinning:
    """Precompute the skinning of ``mesh`` by a skeleton whose bones are ``bone_names``.

    Parameters
    ----------
    mesh : SkinnedMesh
    bone_names : sequence of str, length B
        The order of the ``bone_to_world`` stacks :meth:`Skinning.deform` will get.
    dtype : numpy float dtype
        float32 halves the memory traffic (the viewport); float64 for exact comparisons.

    Returns
    -------
    Skinning
    """
    dtype = np.dtype(dtype)
    index = {str(name): i for i, name in enumerate(bone_names)}
    bone_of_joint = np.array([index.get(j, -1) for j in mesh.joints], dtype=np.int64)
    joints = len(mesh.joints)
    weights = np.array(mesh.weights, dtype=float)
    slots = np.array(mesh.joint_indices, dtype=np.int64)
    weights[(slots < 0) | (slots >= joints)] = 0.0  # an influence on no joint counts for nothing
    total = weights.sum(axis=1)
    unweighted = total <= 0
    weights[~unweighted] /= total[~unweighted, None]
    weights[unweighted, 0] = 1.0
    slots = np.where(weights > 0, slots, joints)  # unused slots point at the identity
    slots[unweighted, 0] = joints
    used = np.any(weights > 0, axis=0)
    used[0] = True
    slots, weights = slots[:, used], weights[:, used]
    normals = (
        mesh.normals if mesh.normals is not None else vertex_normals(mesh.positions, mesh.indices)
    )
    normals = np.asarray(normals, dtype=float)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = normals / np.where(length > 0, length, 1.0)
    arrays = {
        "bone_of_joint": bone_of_joint,
        "inverse_bind": np.asarray(mesh.inverse_bind, dtype=float),
        "slots": np.ascontiguousarray(slots),
        "weights": np.ascontiguousarray(weights, dtype=dtype),
        "positions": np.ascontiguousarray(mesh.positions, dtype=dtype),
        "normals": np.ascontiguousarray(normals, dtype=dtype),
    }
    for array in arrays.values():
        array.setflags(write=False)
    missing = tuple(j for j, b in zip(mesh.joints, bone_of_joint) if b < 0)
    return Skinning(dtype=dtype, missing_joints=missing, **arrays)


def vertex_normals(positions, indices) -> np.ndarray:
    """Area-weighted vertex normals of a triangle mesh.

    Parameters
    ----------
    positions : ndarray, shape (V, 3)
    indices : ndarray, shape (T, 3), int

    Returns
    -------
    ndarray, shape (V, 3)
        Unit normals (counter-clockwise triangles face outward); zero for unused vertices.
    """
    positions = np.asarray(positions, dtype=float)
    indices = np.asarray(indices, dtype=np.int64).reshape(-1, 3)
    a, b, c = (positions[indices[:, i]] for i in range(3))
    face = np.cross(b - a, c - a)  # length = twice the area: the weight
    out = np.zeros_like(positions)
    for i in range(3):
        np.add.at(out, indices[:, i], face)
    length = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(length > 0, length, 1.0)
