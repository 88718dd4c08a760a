"""Where a foot meets the ground: the sole's heel, ball and toe, and a length for a foot
that has none (contract §F4, "The reverse-foot rig").

All positions are world positions at ``frame_start`` (a pose from
:func:`app.scene.evaluate.bake` at that one frame), the editor's up being +Y.
"""

from __future__ import annotations

import numpy as np

from app.scene.builders.leg_names import Leg
from app.scene.math.transforms import inverse
from app.scene.rig.model import Scene
from app.scene.rig.skinning import bind

UP = np.array([0.0, 1.0, 0.0])  # the editor's up (+Y, docs/scene-format.md)
#: A vertex belongs to the foot when the foot and toes together weigh at least this much.
FOOT_WEIGHT = 0.5
#: Heel and toe are the lowest vertices within this fraction of the foot's length from its
#: back and front ends; the ball the lowest within it on either side of the toes' joint.
SLAB = 0.15
#: A foot given a length (:func:`foot_tail`) reaches the ball of the foot: this share of the
#: way from the back of its skin to the front (a person's ball of the foot lies at about
#: 70 to 75 % of the foot's length from the heel) ...
BALL_ALONG = 0.75
#: ... at this share of the ankle's height above the sole (the ball joint of a Mixamo foot).
BALL_HEIGHT = 0.25
#: Without a skin, a foot given a length points level and forward, this share of the calf long.
BARE_FOOT_LENGTH = 0.3


def horizontal(v) -> np.ndarray:
    """``v`` (..., 3) without its component along :data:`UP`."""
    v = np.asarray(v, dtype=float)
    return v - (v @ UP)[..., None] * UP


def unit(v) -> np.ndarray | None:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-12 else None


def foot_forward(leg: Leg, index, heads, tails) -> np.ndarray:
    """The direction the foot points, level with the ground (+Z when it points up or down)."""
    ankle = heads[index[leg.foot]]
    tip = tails[index[leg.toes]] if leg.toes else tails[index[leg.foot]]
    forward = unit(horizontal(tip - ankle))
    return forward if forward is not None else np.array([0.0, 0.0, 1.0])


def knee_forward(hip, knee, ankle, foot_forward) -> np.ndarray:
    """Unit direction from the hip-ankle line to the knee (where the knee bends), or the
    foot's direction across that line when the leg is straight."""
    axis = unit(ankle - hip)
    if axis is None:
        return foot_forward
    bend = knee - hip
    bend = bend - np.dot(bend, axis) * axis
    leg_length = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
    if np.linalg.norm(bend) > 1e-3 * leg_length:
        return bend / np.linalg.norm(bend)
    across = unit(foot_forward - np.dot(foot_forward, axis) * axis)
    return across if across is not None else foot_forward


def foot_vertices(scene: Scene, leg: Leg, pose) -> np.ndarray:
    """World positions at ``frame_start`` of the skinned vertices the foot and toes carry
    (their weights sum to :data:`FOOT_WEIGHT` or more), shape ``(N, 3)``; ``(0, 3)`` when
    no skinned mesh is bound to the foot."""
    names = [str(n) for n in pose.bone_names]
    found = [np.zeros((0, 3))]
    for mesh in scene.meshes:
        joints = [j for j, name in enumerate(mesh.joints) if name in (leg.foot, leg.toes)]
        if not joints:
            continue
        on_foot = np.isin(mesh.joint_indices, joints)
        weight = np.where(on_foot, mesh.weights, 0.0).sum(axis=1)
        weight /= np.maximum(np.asarray(mesh.weights).sum(axis=1), 1e-300)
        keep = weight >= FOOT_WEIGHT
        if np.any(keep):
            world = bind(mesh, names).deform(pose.bone_to_world[0], normals=False)
            found.append(np.asarray(world, dtype=float)[keep])
    return np.concatenate(found)


def sole_points(scene: Scene, leg: Leg, pose) -> tuple[np.ndarray, str]:
    """World positions of heel, ball and toe at ``frame_start``, shape ``(3, 3)``, and what
    they came from (``"mesh"`` or ``"bones"``).

    All three lie on the foot's centre line (the vertical plane through the ankle along the
    foot's direction). From a mesh: the heel at the back end of the foot's vertices, the toe
    at their front end, the ball under the toes' joint (the foot's tail), each as low as the
    lowest vertex within :data:`SLAB` of the foot's length of it (the lowest of the whole
    foot where a coarse mesh has no vertex that near). From the bones: the heel
    under the ankle at the height of the lower of the foot's and toes' tails, the ball at the
    foot's tail, the toe at the toes' tail (a third of the foot further on without toes).
    """
    index = {str(n): i for i, n in enumerate(pose.bone_names)}
    heads, tails = pose.heads[0], pose.tails[0]
    ankle = heads[index[leg.foot]]
    ball_joint = tails[index[leg.foot]]
    forward = foot_forward(leg, index, heads, tails)
    vertices = foot_vertices(scene, leg, pose)

    def at(along, height):
        return horizontal(ankle) + along * forward + height * UP

    if len(vertices):
        along = (vertices - ankle) @ forward
        height = vertices @ UP
        back, front = float(along.min()), float(along.max())
        slab = SLAB * (front - back)
        ball = float((ball_joint - ankle) @ forward)
        slabs = ((back, back + slab), (ball - slab, ball + slab), (front - slab, front))
        lows = [
            float(height[(along >= lo) & (along <= hi)].min(initial=np.inf)) for lo, hi in slabs
        ]
        lows = [low if np.isfinite(low) else float(height.min()) for low in lows]
        return np.array([at(back, lows[0]), at(ball, lows[1]), at(front, lows[2])]), "mesh"
    tip = tails[index[leg.toes]] if leg.toes else ball_joint + (ball_joint - ankle) / 3
    floor = min(float(ball_joint @ UP), float(tip @ UP))
    return np.array([at(0.0, floor), ball_joint, tip]), "bones"


def foot_tail(scene: Scene, leg: Leg, pose) -> tuple[float, float, float]:
    """A tail for a foot that has no length, in the foot's own frame: the fix the rig's
    dialog offers (Blender's bones always have one; glTF and FBX leaf joints often do not).

    With a skin on the foot, the tail reaches the ball of the foot: on the foot's centre line
    (level, from the ankle towards the middle of the skin the foot carries),
    :data:`BALL_ALONG` of the way from its back end to its front end, :data:`BALL_HEIGHT` of
    the ankle's height above its lowest vertex. Without a skin it points level, the way the
    knee bends (the world's +Z where the leg is straight), :data:`BARE_FOOT_LENGTH` of the
    calf long.
    """
    index = {str(n): i for i, n in enumerate(pose.bone_names)}
    heads = pose.heads[0]
    hip, knee, ankle = (heads[index[b]] for b in (leg.thigh, leg.calf, leg.foot))
    vertices = foot_vertices(scene, leg, pose)
    forward = unit(horizontal(vertices.mean(axis=0) - ankle)) if len(vertices) else None
    if forward is None:
        forward = unit(horizontal(knee_forward(hip, knee, ankle, np.array([0.0, 0.0, 1.0]))))
    if forward is None:
        forward = np.array([0.0, 0.0, 1.0])
    if len(vertices):
        along = (vertices - ankle) @ forward
        back, front = float(along.min()), float(along.max())
        sole = float((vertices @ UP).min())
        height = sole + BALL_HEIGHT * max(float(ankle @ UP) - sole, 0.0)
        tip = horizontal(ankle) + (back + BALL_ALONG * (front - back)) * forward + height * UP
        if np.linalg.norm(tip - ankle) <= 1e-9 * max(float(np.ptp(heads, axis=0).max()), 1e-300):
            tip = ankle + BARE_FOOT_LENGTH * float(np.linalg.norm(ankle - knee)) * forward
    else:
        tip = ankle + BARE_FOOT_LENGTH * float(np.linalg.norm(ankle - knee)) * forward
    world_to_foot = inverse(pose.bone_to_world[0, index[leg.foot]])
    local = world_to_foot[:3, :3] @ tip + world_to_foot[:3, 3]
    return tuple(float(x) for x in local)
