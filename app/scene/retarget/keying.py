"""The character keyed from the retarget's world rotations: forward kinematics bone by
bone (vectorized over frames), each mapped bone's local rotation from its parent's world
rotation, the hips' (and detached bones') local translation from where they must be.

A mapped bone whose canonical parent's bone is not above it (the feet of an IK rig, under a
control) is *detached*: it is placed where that parent's rest offset puts it, so it is
keyed after that bone whatever the hierarchy's order.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.errors import SceneError
from app.scene.math import quat
from app.scene.math.aim import unit
from app.scene.math.transforms import inverse, trs
from app.scene.retarget.canonical import PARENT
from app.scene.rig.keys import Keys
from app.scene.rig.model import Scene


def _order(tgt, detached: dict) -> list[int]:
    """The character's bones, each after its parent and after the bone a detached bone is
    placed from (a detached bone whose anchor hangs below it is placed by its parent)."""
    rest = tgt.rest
    for b, anchor in list(detached.items()):
        if rest.is_ancestor(b, anchor):
            del detached[b]
    needs = [[int(rest.parents[b])] if rest.parents[b] >= 0 else [] for b in range(len(rest.names))]
    for b, anchor in detached.items():
        needs[b].append(anchor)
    order, state = [], [0] * len(needs)  # 0 new, 1 on the stack, 2 placed
    for start in range(len(needs)):
        stack = [start]
        while stack:
            b = stack[-1]
            if state[b] == 2:
                stack.pop()
                continue
            state[b] = 1
            waiting = [n for n in needs[b] if state[n] == 0]
            if waiting:
                stack.extend(waiting)
                continue
            if any(state[n] == 1 for n in needs[b]):  # a loop of anchors: by its parent
                detached.pop(b, None)
                needs[b] = needs[b][:1] if rest.parents[b] >= 0 else []
            state[b] = 2
            order.append(b)
            stack.pop()
    return order


def _detached(tgt, pairs) -> dict[int, int]:
    """Mapped bones whose canonical parent's bone is not above them: bone -> that bone."""
    out = {}
    by_bone = {tgt.bone[c]: c for c in pairs}
    for b, c in by_bone.items():
        parent = PARENT[c]
        while parent is not None and parent not in pairs:
            parent = PARENT[parent]
        if parent is None or c == "hips":
            continue
        anchor = tgt.bone[parent]
        if not tgt.rest.is_ancestor(anchor, b):
            out[b] = anchor
    return out


def keyed(target: Scene, tgt, pairs, world_rotation, hips_path, frames) -> Scene:
    """The character with every mapped bone keyed at every frame (rotations; the hips' and
    detached bones' translations too) and every other bone at rest.

    Parameters
    ----------
    target : Scene
    tgt : transfer._Side
        The character's rest and its map as bone indices.
    pairs : tuple of str
        The canonical bones mapped on both skeletons.
    world_rotation : dict
        Canonical bone -> its world rotation at each frame, ``(F, 4)``.
    hips_path : ndarray, (F, 3)
        Where the hips' head goes in the world.
    frames : ndarray, (F,)

    Raises
    ------
    SceneError
        When a transform comes out non-finite.
    """
    rest = tgt.rest
    count = len(frames)
    canonical_of = {tgt.bone[c]: c for c in pairs}
    detached = _detached(tgt, pairs)
    hips = tgt.bone["hips"]
    world = np.empty((len(rest.names), count, 4, 4))
    keys: dict[int, dict] = {}
    shared = frames.copy()
    shared.setflags(write=False)
    needed = set(detached.values())  # what a moved bone hangs from or is placed from
    for b in canonical_of:
        needed.update(rest.chain_to_root(b))
    for b in _order(tgt, detached):
        if b not in needed:
            continue  # nothing moved hangs below it: it keeps its rest and its place
        bone = target.bones[b]
        local = trs(bone.translation, bone.rotation, bone.scale)
        parent = int(rest.parents[b])
        parent_world = world[parent] if parent >= 0 else None
        if b not in canonical_of:
            world[b] = local if parent_world is None else parent_world @ local
            continue
        wanted = world_rotation[canonical_of[b]]
        if parent_world is None:
            parent_rotation = np.broadcast_to(quat.identity(), (count, 4))
        elif parent in canonical_of:  # the parent was just turned to this
            parent_rotation = world_rotation[canonical_of[parent]]
        else:
            parent_rotation = rotations(parent_world)
        rotation = _continuous(quat.mul(quat.conj(parent_rotation), wanted))
        translation = None
        place = None
        if b == hips:
            place = hips_path
        elif b in detached:
            anchor = detached[b]
            offset = np.linalg.inv(rest.bone_to_world[anchor]) @ np.append(rest.heads[b], 1.0)
            place = (world[anchor] @ offset)[:, :3]
        if place is not None:
            if parent_world is None:
                translation = place
            else:
                homogeneous = np.concatenate([place, np.ones((count, 1))], axis=1)
                translation = np.einsum("fij,fj->fi", inverse(parent_world), homogeneous)[:, :3]
        t = np.broadcast_to(bone.translation, (count, 3)) if translation is None else translation
        local_now = _compose(t, rotation, bone.scale)
        world[b] = local_now if parent_world is None else parent_world @ local_now
        keys[b] = {"rotation_keys": Keys(shared, rotation)}
        if translation is not None:
            keys[b]["translation_keys"] = Keys(shared, translation)
    bones = []
    for b, bone in enumerate(target.bones):
        kw = keys.get(b, {})
        bones.append(
            dataclasses.replace(
                bone,
                translation_keys=kw.get("translation_keys"),
                rotation_keys=kw.get("rotation_keys"),
                scale_keys=None,
            )
        )
    if not all(np.all(np.isfinite(world[b])) for b in needed):
        raise SceneError(
            "the retarget gave non-finite transforms (a bone scaled to nothing?)", "bones"
        )
    scene = target.copy()
    scene.bones = bones
    return scene


def rotations(m) -> np.ndarray:
    """The rotations of world transforms ``(..., 4, 4)`` that are a rotation times a scale
    along the bone's axes (as every bone's is without shear), ``(..., 4)``: the first column's
    direction, the second's made square to it. (The polar decomposition gives the same and
    costs an SVD where rounding leaves the columns a hair off square.)"""
    x, _ = unit(m[..., :3, 0])
    z, _ = unit(np.cross(x, m[..., :3, 1]))
    y = np.cross(z, x)
    return quat.quat_from_matrix(np.stack([x, y, z], axis=-1))


def _continuous(q) -> np.ndarray:
    """``q`` (F, 4) with each quaternion on the hemisphere of the one before (slerp between
    keys then takes the short way), the first with ``w >= 0``."""
    q = quat.canonical(q) if len(q) else q
    if len(q) > 1:
        flips = np.cumsum(np.sum(q[1:] * q[:-1], axis=-1) < 0) % 2
        q = q.copy()
        q[1:][flips == 1] *= -1.0
    return q


def _compose(translation, rotation, scale) -> np.ndarray:
    """``T R S`` per frame, ``(F, 4, 4)``."""
    out = np.zeros((len(rotation), 4, 4))
    out[:, :3, :3] = quat.matrix_from_quat(rotation) * np.asarray(scale, float)
    out[:, :3, 3] = translation
    out[:, 3, 3] = 1.0
    return out
