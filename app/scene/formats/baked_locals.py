"""A bake as what skeletal file formats store: each bone's local translation, rotation and
scale per frame, and the checks every such exporter makes on the bake first (glTF, USD).

A bone scaled to 0 (glTF hides props that way) has a world transform that cannot be divided
by: its children's local transforms, and its own rotation, are then not in the bake. Nothing
here divides by such a transform; those entries come from the bones' own keys instead
(:func:`keyed_trs`), and a bind pose that cannot be inverted is replaced by the bone's head
(:func:`bind_pose`), so every exported number stays finite.
"""

from __future__ import annotations

import numpy as np

from app.scene.errors import SceneError
from app.scene.math.transforms import inverse
from app.scene.rig.keys import sample_many
from app.scene.rig.model import Scene


def checked_bake(scene: Scene, result, fmt: str):
    """The bake's bone names, frames (F,), ``bone_to_world`` (F, B, 4, 4) and parent indices
    (B,), after checking that it belongs to ``scene``, that its frames increase and that every
    transform is finite.

    Raises
    ------
    SceneError
        Naming what is wrong (the bone and frame of a non-finite transform); ``fmt`` names the
        format in the message.
    """
    names = [b.name for b in scene.bones]
    if list(np.asarray(result.bone_names)) != names:
        raise SceneError("the bake does not belong to this scene (bone names differ)")
    frames = np.asarray(result.frames, dtype=float)
    if len(frames) == 0 or np.any(np.diff(frames) <= 0):
        raise SceneError(f"{fmt} needs increasing frames", "frames")
    world = np.asarray(result.bone_to_world, dtype=float)
    finite = np.isfinite(world).all(axis=(-1, -2))
    if not finite.all():
        f, b = np.argwhere(~finite)[0]
        raise SceneError(
            f"bone {names[b]!r} has a non-finite transform at frame {frames[f]:g}", f"bones[{b}]"
        )
    index = {n: i for i, n in enumerate(names)}
    parents = np.array([-1 if b.parent is None else index[b.parent] for b in scene.bones])
    return names, frames, world, parents


def _cross(u, v) -> list:
    """Cross products of component-major vectors (three planes each)."""
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def _quat_of_planes(r: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(..., 4)`` (``w >= 0``) of rotation matrices stored as planes
    ``(3, 3, ...)``: Shepperd's method, each quaternion from its largest pivot (the ``w``
    formula for most, the others only where a diagonal entry beats the trace)."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    q = np.stack([1 + trace, r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    pivot = np.argmax(np.stack([trace, r[0, 0], r[1, 1], r[2, 2]]), axis=0)
    for k in (1, 2, 3):
        at = pivot == k
        if not np.any(at):
            continue
        m = r[:, :, at]
        i, j, l = k - 1, k % 3, (k + 1) % 3
        part = np.empty((4, m.shape[-1]))
        part[0] = m[l, j] - m[j, l]
        part[1 + i] = 1 + m[i, i] - m[j, j] - m[l, l]
        part[1 + j] = m[i, j] + m[j, i]
        part[1 + l] = m[i, l] + m[l, i]
        q[:, at] = part
    q /= np.sqrt(np.sum(q * q, axis=0))
    q *= np.where(q[0] < 0, -1.0, 1.0)
    return np.moveaxis(q, 0, -1)


def keyed_trs(scene: Scene, frames):
    """Every bone's own translation ``(F, B, 3)``, rotation ``[w, x, y, z]`` ``(F, B, 4)`` and
    scale ``(F, B, 3)`` from its keys (or static values) at ``frames`` (constraints not
    applied)."""
    bones = scene.bones
    frames = np.asarray(frames, dtype=float).reshape(-1)
    t = sample_many([b.translation for b in bones], [b.translation_keys for b in bones], frames)
    q = sample_many(
        [b.rotation for b in bones], [b.rotation_keys for b in bones], frames, rotation=True
    )
    s = sample_many([b.scale for b in bones], [b.scale_keys for b in bones], frames)
    return tuple(np.swapaxes(p, 0, 1) for p in (t, q, s))


def bind_pose(bone_to_world: np.ndarray):
    """A bind pose ``(..., 4, 4)`` and its inverse for skins: ``bone_to_world`` where it can
    be inverted, else (a bone scaled to 0, or nearly) a translation to the bone's head.

    Any invertible bind draws the same: a skin's vertex bound at ``B`` with inverse bind
    ``inv(B)`` is drawn at ``bone_to_world(f) @ inv(B) @ B @ v``.
    """
    bind = np.array(bone_to_world, dtype=float)
    linear = bind[..., :3, :3]
    singular = np.linalg.svd(linear, compute_uv=False)
    weak = ~(singular[..., -1] > 1e-12 * np.maximum(singular[..., 0], 1e-300))
    linear[weak] = np.eye(3)
    return bind, inverse(bind)


#: Local translations and scales past this (scene files hold numbers within ±10¹⁵) come
#: only from inverting a parent scaled to almost nothing; they are taken from the keys.
LOCAL_BOUND = 1e30


def local_trs(parents: np.ndarray, bone_to_world: np.ndarray, keyed):
    """Local translation ``(F, B, 3)``, rotation ``[w, x, y, z]`` ``(F, B, 4)`` and scale
    ``(F, B, 3)`` of world transforms ``(F, B, 4, 4)`` under ``parents`` ``(B,)``:
    ``bone_to_parent = inv(parent_to_world) @ bone_to_world``, split as T @ R @ S.

    Where that cannot be computed (the parent is scaled to 0 or almost, or the bone itself on
    some axis, so a rotation column is 0) the entries come from ``keyed()``, a function returning
    :func:`keyed_trs` of the same frames (called only then).

    Works on component-major planes ``(3, 4, F, B)`` (as forward kinematics does): each
    matrix entry is one vectorized expression over every frame and bone, where a batched
    ``matmul``/``inv`` of many 3x3 matrices would cost about a microsecond each.
    """
    parents = np.asarray(parents)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t, q, s, lost = _local_trs(parents, bone_to_world)
        # Under a parent scaled to almost nothing (1e-300) the inverse is finite but the
        # result meaningless and past what a format holds (glTF: 32-bit floats): lost too.
        huge = ~(np.abs(t) <= LOCAL_BOUND).all(axis=-1)  # NaN and Inf too
        lost = lost | huge | ~(np.abs(s) <= LOCAL_BOUND).all(axis=-1)
    if np.any(lost):
        kt, kq, ks = keyed()
        lost_t = lost & huge  # under a parent that cannot be inverted
        t[lost_t] = kt[lost_t]
        q[lost] = kq[lost]
        s[lost] = ks[lost]
    # One hemisphere along each bone's track, so LINEAR (slerp) takes the short way.
    flip = np.cumsum(np.sum(q[1:] * q[:-1], axis=-1) < 0, axis=0) % 2 == 1
    q[1:][flip] *= -1
    return t, q, s


def _local_trs(parents, bone_to_world):
    """:func:`local_trs` without the repair: ``t``, ``q``, ``s`` and where they were lost
    ``(F, B)`` (a parent that cannot be inverted, or a zero scale column)."""
    world = np.ascontiguousarray(np.moveaxis(bone_to_world[..., :3, :], (-2, -1), (0, 1)))
    local = world.copy()  # (3, 4, F, B): rows i, columns j
    child = np.flatnonzero(parents >= 0)
    if len(child):
        parent = world[:, :, :, parents[child]]
        own = world[:, :, :, child]
        # inv(A): its rows are cross products of A's columns, over the determinant.
        c0, c1, c2 = parent[:, 0], parent[:, 1], parent[:, 2]
        rows = [_cross(c1, c2), _cross(c2, c0), _cross(c0, c1)]
        det = c0[0] * rows[0][0] + c0[1] * rows[0][1] + c0[2] * rows[0][2]
        rows = [[x / det for x in r] for r in rows]
        offset = own[:, 3] - parent[:, 3]
        block = np.empty((3, 4) + own.shape[2:])
        for i in range(3):
            for j in range(3):
                r = rows[i]
                block[i, j] = r[0] * own[0, j] + r[1] * own[1, j] + r[2] * own[2, j]
            block[i, 3] = rows[i][0] * offset[0] + rows[i][1] * offset[1] + rows[i][2] * offset[2]
        local[:, :, :, child] = block
    scale = np.sqrt(np.sum(local[:, :3] ** 2, axis=0))  # (3, F, B): column norms
    rotation = local[:, :3] / scale[None]
    lost = ~(np.isfinite(rotation).all(axis=(0, 1)) & np.isfinite(local[:, 3]).all(axis=0))
    rotation[:, :, lost] = np.eye(3)[:, :, None]  # replaced by the caller
    c0, c1, c2 = rotation[:, 0], rotation[:, 1], rotation[:, 2]
    skew = np.maximum(np.abs(np.sum(c0 * c1, axis=0)), np.abs(np.sum(c0 * c2, axis=0)))
    sheared = np.maximum(skew, np.abs(np.sum(c1 * c2, axis=0))) > 1e-9
    if np.any(sheared):  # shear under a non-uniformly scaled parent: the nearest rotation
        stack = np.moveaxis(rotation, (0, 1), (-2, -1))[sheared]
        u, _, vt = np.linalg.svd(stack)
        fixed = np.moveaxis(rotation, (0, 1), (-2, -1)).copy()
        fixed[sheared] = u @ vt
        rotation = np.ascontiguousarray(np.moveaxis(fixed, (-2, -1), (0, 1)))
    q = _quat_of_planes(rotation)
    return np.moveaxis(local[:, 3], 0, -1), q, np.moveaxis(scale, 0, -1), lost
