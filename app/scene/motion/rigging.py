"""The planted clip as the foot-roll rig: the hips and toes keyed with their corrections,
then each leg's rig built (:func:`app.scene.builders.foot_roll.build_foot_roll`, keyed from
the corrected motion) and its control and pivots keyed from the planted foot
(:mod:`app.scene.motion.roll_keys`). The foot takes the roll body's rotation as it is
(``offset: "none"``): the body's frame is the planted foot's, so nothing measured at
``frame_start`` can turn the whole clip.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.builders.foot_roll import MOTION, build_foot_roll
from app.scene.evaluate import BakeResult
from app.scene.math import quat
from app.scene.math.transforms import inverse
from app.scene.motion.feet import FootMotion
from app.scene.motion.foot_path import FootPath, continuous
from app.scene.motion.roll_keys import roll_keys
from app.scene.rig.keys import Keys, sample
from app.scene.rig.model import Scene

#: Where a leg is nearly straight, the pole takes the knee's side from the thigh this firmly
#: (:func:`app.scene.builders.foot_motion.leg_keys`): a planted leg bends where the
#: original's was straight, and the original knee's side there is noise.
STRAIGHT_SIDE = 0.05


def _moved(pose: BakeResult, scene: Scene, bone: str | None, offset) -> BakeResult:
    """``pose`` with ``bone`` and everything below it translated by ``offset`` ``(F, 3)``."""
    if bone is None or not np.any(offset):
        return pose
    parents = {b.name: b.parent for b in scene.bones}
    below = np.array([_under(str(n), bone, parents) for n in pose.bone_names])
    to_world = pose.bone_to_world.copy()
    to_world[..., :3, 3][:, below] += offset[:, None]  # a view: the translations
    heads, tails = pose.heads.copy(), pose.tails.copy()
    heads[:, below] += offset[:, None]
    tails[:, below] += offset[:, None]
    return dataclasses.replace(pose, bone_to_world=to_world, heads=heads, tails=tails)


def _under(name, bone, parents) -> bool:
    while name is not None:
        if name == bone:
            return True
        name = parents[name]
    return False


def rigged(source: Scene, clip, planted, down, hips, offset) -> Scene:
    """The planted scene: hips and toes keyed, then each leg's rig keyed from the plant."""
    scene = source.copy()
    frames = clip.pose.frames
    pose = _moved(clip.pose, source, hips, offset)
    if hips is not None and np.any(offset):
        i = scene.bone_index(hips)
        bone = scene.bones[i]
        parent = bone.parent
        local = (
            offset
            if parent is None
            else quat.rotate(quat.conj(_rotations(pose, clip.index[parent])), offset)
        )
        base = _sampled(bone.translation, bone.translation_keys, frames)
        scene.bones[i] = dataclasses.replace(bone, translation_keys=Keys(frames, base + local))
    for leg, motion, path in zip(clip.legs, clip.motions, planted):
        if motion.has_toes:
            i = scene.bone_index(leg.toes)
            scene.bones[i] = dataclasses.replace(
                scene.bones[i], rotation_keys=Keys(frames, path.toes_rotation)
            )
    for j, (leg, motion, path) in enumerate(zip(clip.legs, clip.motions, planted)):
        built = build_foot_roll(scene, leg, MOTION, pose, STRAIGHT_SIDE)
        scene.bones, scene.constraints = list(built.rig.bones), list(built.rig.constraints)
        if POLE_S > 0:
            _key_pole(scene, built.pole, leg, clip.index, pose, path.head, clip.fps)
        _key_roll(scene, built, motion, path, down[:, j], pose, frames)
    return scene


#: Seconds (each side) over which the knee's side is averaged for the pole of a planted leg.
POLE_S = 0.2
#: How much of the foot's forward direction (times the leg's length) the pole's side takes,
#: so that it is settled where the leg stays straight throughout the window.
POLE_FORWARD = 0.02
#: The share of the leg's length a planted ankle moves from the original's before the pole
#: is wholly :func:`pole_positions` (short of it, the built pole, exact to the motion).
POLE_FROM = 0.01


def _window_sum(values: np.ndarray, half: int) -> np.ndarray:
    """``values`` ``(F, 3)`` summed over a raised cosine ``2 half + 1`` frames wide (the ends
    held)."""
    kernel = np.hanning(2 * half + 3)[1:-1]
    return np.stack(
        [
            np.convolve(np.pad(values[:, i], half, mode="edge"), kernel, mode="valid")
            for i in range(values.shape[1])
        ],
        axis=1,
    )


def pole_positions(hip, knee, ankle, toe, fps: float) -> np.ndarray:
    """World positions ``(F, 3)`` of a planted leg's knee pole, from the original leg's hip,
    knee, ankle and toe joint (or foot tail) ``(F, 3)`` each.

    The pole sets the side of the hip-ankle line the knee bends to. The original knee's offset
    from that line says it well where the leg is bent and is noise where the leg is nearly
    straight (a few millimetres that turn freely about the line), and a planted leg, whose
    ankle has moved, bends there. So the side is the knee's offset *summed* over
    :data:`POLE_S` each side (a bent frame counts by how bent it is, a straight frame hardly
    at all), plus a little of the foot's forward direction where the leg stays straight
    throughout; the pole stands a leg's length out from the middle of the line that way.
    """
    hip, knee, ankle, toe = (np.asarray(v, dtype=float) for v in (hip, knee, ankle, toe))
    length = float(np.linalg.norm(knee[0] - hip[0]) + np.linalg.norm(ankle[0] - knee[0]))
    axis = ankle - hip
    axis /= np.maximum(np.linalg.norm(axis, axis=1, keepdims=True), 1e-300)

    def across(v):
        return v - np.einsum("fi,fi->f", v, axis)[:, None] * axis

    half = max(1, int(round(POLE_S * fps)))
    forward = across(toe - ankle)
    forward /= np.maximum(np.linalg.norm(forward, axis=1, keepdims=True), 1e-300)
    side = across(
        _window_sum(across(knee - hip), half) / (half + 1)
        + POLE_FORWARD * length * _window_sum(forward, half) / (half + 1)
    )
    size = np.linalg.norm(side, axis=1, keepdims=True)
    side = np.where(size > 1e-12 * length, side / np.maximum(size, 1e-300), forward)
    return 0.5 * (hip + ankle) + length * side


def _key_pole(scene: Scene, pole: str, leg, index, pose: BakeResult, ankle, fps) -> None:
    """Key the built rig's knee pole at :func:`pole_positions` (in its parent's frame) where
    the planted ankle ``ankle`` ``(F, 3)`` has moved from the original's; where it has not,
    the leg is the original's and keeps the built pole (exact to the motion), blended
    smoothly over :data:`POLE_FROM` of the leg's length."""
    at = {name: pose.heads[:, index[name]] for name in (leg.thigh, leg.calf, leg.foot)}
    toe = pose.heads[:, index[leg.toes]] if leg.toes else pose.tails[:, index[leg.foot]]
    world = pole_positions(at[leg.thigh], at[leg.calf], at[leg.foot], toe, fps)
    i = scene.bone_index(pole)
    bone = scene.bones[i]
    if bone.parent is not None:
        to_parent = inverse(pose.bone_to_world[:, index[bone.parent]])
        world = np.einsum("fij,fj->fi", to_parent[:, :3, :3], world) + to_parent[:, :3, 3]
    built = sample(bone.translation, bone.translation_keys, pose.frames)
    length = float(
        np.linalg.norm(at[leg.calf][0] - at[leg.thigh][0])
        + np.linalg.norm(at[leg.foot][0] - at[leg.calf][0])
    )
    moved = np.linalg.norm(np.asarray(ankle) - at[leg.foot], axis=1) / (POLE_FROM * length)
    x = np.clip(moved, 0.0, 1.0)
    weight = (x * x * (3.0 - 2.0 * x))[:, None]
    keyed = built + weight * (world - built)
    scene.bones[i] = dataclasses.replace(
        bone,
        translation=tuple(float(v) for v in keyed[0]),
        translation_keys=Keys(pose.frames, keyed),
    )


def _rotations(pose: BakeResult, bone: int) -> np.ndarray:
    return quat.quat_from_matrix(
        pose.bone_to_world[:, bone, :3, :3]
        / np.linalg.norm(pose.bone_to_world[:, bone, :3, :3], axis=1, keepdims=True)
    )


def _sampled(static, keys, frames) -> np.ndarray:
    return sample(static, keys, frames)


def _key_roll(scene: Scene, built, motion: FootMotion, path: FootPath, down, pose, frames):
    """Replace the built rig's control and pivot keys by the plant's; the foot takes the
    body's rotation as it is (``offset: "none"``: the body's frame is the planted foot's)."""
    toe = (
        motion.toe_in_foot(path.toes_rotation)
        if motion.has_toes
        else np.broadcast_to(motion.points[2], (len(frames), 3))
    )
    keys = roll_keys(path, down, motion.points[:2], toe)
    control = scene.bone(built.control)
    to_world = np.zeros((len(frames), 4, 4))
    # the body rests on the world-aligned control turned by its rest rotation O: C = B L^-1 O^-1
    rest = quat.conj(np.asarray(scene.bone(built.body).rotation, dtype=float))
    to_world[:, :3, :3] = quat.matrix_from_quat(quat.mul(keys.control_rotation, rest))
    to_world[:, :3, 3] = keys.control_translation
    to_world[:, 3, 3] = 1.0
    if control.parent is not None:
        to_world = inverse(pose.bone_to_world[:, scene.bone_index(control.parent)]) @ to_world
    rotation = quat.quat_from_matrix(to_world[:, :3, :3])
    rotation = quat.normalize(rotation)
    i = scene.bone_index(built.control)
    scene.bones[i] = dataclasses.replace(
        control,
        translation_keys=Keys(frames, to_world[:, :3, 3]),
        rotation_keys=Keys(frames, _continuous(rotation)),
    )
    for c, constraint in enumerate(scene.constraints):
        if constraint.name == built.roll:
            pivots = []
            for p, pivot in enumerate(constraint.pivots):
                position = motion.points[p] if p < 2 else keys.toe_position[0]
                changes = dict(
                    position=tuple(float(x) for x in position),
                    rotation_keys=_thinned(frames, keys.pivots[p]),
                )
                if p == 2:
                    changes["position_keys"] = _thinned(frames, keys.toe_position)
                pivots.append(dataclasses.replace(pivot, **changes))
            scene.constraints[c] = dataclasses.replace(constraint, pivots=tuple(pivots))
        elif constraint.name == built.follow:
            scene.constraints[c] = dataclasses.replace(constraint, offset="none")


def _thinned(frames, values) -> Keys:
    """Linear keys with the inside of every run of equal values left out (the same curve)."""
    same_before = np.zeros(len(values), dtype=bool)
    same_before[1:] = np.all(values[1:] == values[:-1], axis=1)
    same_after = np.zeros(len(values), dtype=bool)
    same_after[:-1] = same_before[1:]
    keep = ~(same_before & same_after)
    return Keys(frames[keep], values[keep])


def _continuous(q):
    return continuous(q)
