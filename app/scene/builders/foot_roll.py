"""The reverse-foot rig of contract §F4, built from a leg chain: items only, no editing.

:func:`build_foot_roll` takes a scene and a :class:`~app.scene.builders.leg_names.Leg` and
returns the scene's new bone and constraint lists (a :class:`~app.scene.rig.bone_edits.Rig`,
what one undo command swaps in):

- a **control** bone at the ankle (the foot's head at ``frame_start``) with the foot's world
  rotation and the foot's length, a child of the rig's root bone when the character has one
  (:func:`root_bone`), else at the top level;
- a **knee pole** bone beside it (same parent), in front of the knee by the thigh's length;
- a ``multi_parent`` on the control (object space, exact integrator; relative to its parent
  when it has one) with pivots ``heel``, ``ball`` and ``toe`` on the sole
  (:func:`sole_points`), all at rest: key them to roll the foot;
- a ``fabrik`` on thigh → calf reaching for the control's head, the pole setting the plane
  the knee bends in;
- a ``copy_rotation`` (world space, ``frame_start`` offset) on the foot from the control.

In file order they run as they must (control, leg, foot), so the rig needs no dependency
sort. At ``frame_start`` the control sits where the foot is and every pivot is at rest, so
building the rig moves nothing there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from app.scene.builders.leg_names import Leg
from app.scene.evaluate import bake
from app.scene.math import quat
from app.scene.math.transforms import inverse, rotation_from_matrix
from app.scene.rig.bone_edits import Rig
from app.scene.rig.model import (
    Bone,
    CopyRotation,
    Fabrik,
    MultiParent,
    Pivot,
    Scene,
    Target,
)
from app.scene.rig.skinning import bind

UP = np.array([0.0, 1.0, 0.0])  # the editor's up (+Y, docs/scene-format.md)
#: A vertex belongs to the foot when the foot and toes together weigh at least this much.
FOOT_WEIGHT = 0.5
#: Heel and toe are the lowest vertices within this fraction of the foot's length from its
#: back and front ends; the ball the lowest within it on either side of the toes' joint.
SLAB = 0.15


class FootRollError(ValueError):
    """The leg cannot carry a foot-roll rig; the message says which bone and why."""


@dataclass(frozen=True)
class FootRoll:
    """What :func:`build_foot_roll` makes: the scene's new lists and the new items' names."""

    rig: Rig
    control: str
    pole: str
    roll: str
    leg_ik: str
    follow: str
    #: ``"mesh"`` or ``"bones"``: what the pivots were placed from.
    pivots_from: str


def derived_name(name: str, word: str) -> str:
    """``foot.L`` → ``foot_ctrl.L``: the word goes before a side suffix (``.L``, ``_R``...),
    else after the name (``mixamorig:LeftFoot`` → ``mixamorig:LeftFoot_ctrl``)."""
    m = re.match(r"^(.+?)([._\-][LlRr])$", name)
    return f"{m.group(1)}_{word}{m.group(2)}" if m else f"{name}_{word}"


def new_names(leg: Leg) -> dict[str, str]:
    """The names the rig's new items get (control, pole and the three constraints)."""
    words = {"control": "ctrl", "pole": "pole", "roll": "roll", "leg_ik": "leg_ik",
             "follow": "follows_ctrl"}  # fmt: skip
    names = {key: derived_name(leg.foot, word) for key, word in words.items()}
    names["pole"] = derived_name(leg.calf, "pole")  # the knee's
    return names


def root_bone(scene: Scene, leg: Leg) -> str | None:
    """The rig's root bone, the control's parent: the leg's top-level ancestor when at least
    one bone (the hips, the pelvis) lies between it and the thigh, so the thigh's parent is
    not itself the top. A character whose hips are the top (Mixamo's, the humanoid's) has
    none: a foot control under the hips would bob with them."""
    parents = {b.name: b.parent for b in scene.bones}
    chain = []
    bone = parents[leg.thigh]
    while bone is not None:
        chain.append(bone)
        bone = parents[bone]
    return chain[-1] if len(chain) >= 2 else None


def check_leg(scene: Scene, leg: Leg) -> None:
    """Refuse (:class:`FootRollError`) a leg that is not thigh → calf → foot (→ toes), parent
    to child, of bones with length, free of other constraints, whose new names are free."""
    names = {b.name for b in scene.bones}
    for part, bone in (("thigh", leg.thigh), ("calf", leg.calf), ("foot", leg.foot),
                       ("toes", leg.toes)):  # fmt: skip
        if bone is None and part != "toes":
            raise FootRollError(f"Choose the leg's {part}")
        if bone is not None and bone not in names:
            raise FootRollError(f"There is no bone named {bone} (the leg's {part})")
    bones = leg.bones()
    if len(set(bones)) != len(bones):
        raise FootRollError("The leg names one bone twice: choose thigh, calf, foot and toes")
    for parent, child in zip(bones, bones[1:]):
        if scene.bone(child).parent != parent:
            raise FootRollError(
                f"{child} is not a child of {parent}: the leg must be a parent-to-child "
                "chain thigh → calf → foot (→ toes)"
            )
    taken = set(names) | {c.name for c in scene.constraints}
    for name in new_names(leg).values():
        if name in taken:
            raise FootRollError(f"The name {name} is taken: rename or remove what has it first")
    for c in scene.constraints:
        driven = set(c.driven_bones()) & {leg.thigh, leg.calf, leg.foot}
        if driven:
            raise FootRollError(
                f"{', '.join(sorted(driven))} already follows the constraint {c.name}: "
                "remove it first"
            )


def build_foot_roll(scene: Scene, leg: Leg) -> FootRoll:
    """The scene's bones and constraints with the reverse foot on ``leg`` (module docstring).

    Raises
    ------
    FootRollError
        For a leg :func:`check_leg` refuses, or a thigh, calf or foot without length.
    """
    check_leg(scene, leg)
    names = new_names(leg)
    pose = bake(scene, np.array([float(scene.frame_start)]))
    index = {n: i for i, n in enumerate(scene.bone_names())}
    heads, tails = pose.heads[0], pose.tails[0]
    to_world = pose.bone_to_world[0]
    hip, knee, ankle = (heads[index[b]] for b in (leg.thigh, leg.calf, leg.foot))
    scale = max(float(np.ptp(heads, axis=0).max()), 1e-300)
    for bone, a, b in ((leg.thigh, hip, knee), (leg.calf, knee, ankle),
                       (leg.foot, ankle, tails[index[leg.foot]])):  # fmt: skip
        if np.linalg.norm(b - a) <= 1e-9 * scale:
            raise FootRollError(f"{bone} has no length (its head and tail coincide)")

    parent = root_bone(scene, leg)
    parent_to_world = to_world[index[parent]] if parent else np.eye(4)
    world_to_parent = inverse(parent_to_world)

    # the control: at the ankle, turned as the foot is, as long as the foot
    foot_rotation = rotation_from_matrix(to_world[index[leg.foot]])
    control_to_world = np.eye(4)
    control_to_world[:3, :3] = quat.matrix_from_quat(foot_rotation)
    control_to_world[:3, 3] = ankle
    world_to_control = inverse(control_to_world)
    control = _bone(names["control"], parent, world_to_parent @ control_to_world,
                    world_to_control[:3, :3] @ (tails[index[leg.foot]] - ankle))  # fmt: skip

    # the pole: in front of the knee, by the thigh's length, in the leg's plane
    forward = _knee_forward(hip, knee, ankle, _foot_forward(leg, index, heads, tails))
    thigh_length = float(np.linalg.norm(knee - hip))
    pole_to_world = np.eye(4)
    pole_to_world[:3, 3] = knee + thigh_length * forward
    pole = _bone(names["pole"], parent, world_to_parent @ pole_to_world,
                 0.2 * thigh_length * forward)  # fmt: skip

    points, pivots_from = sole_points(scene, leg, pose)
    pivots = tuple(
        Pivot(name=n, position=_vec(world_to_control[:3, :3] @ p + world_to_control[:3, 3]))
        for n, p in zip(("heel", "ball", "toe"), points)
    )
    roll = MultiParent(name=names["roll"], space="object", body=control.name, pivots=pivots,
                       integrator="exact", relative_to="parent" if parent else "world")  # fmt: skip
    leg_ik = Fabrik(
        name=names["leg_ik"],
        chain=(leg.thigh, leg.calf),
        target=Target(bone=control.name, at="head"),
        pole=Target(bone=pole.name, at="head"),
    )
    follow = CopyRotation(name=names["follow"], space="world", bone=leg.foot,
                          target=Target(bone=control.name), offset="frame_start")  # fmt: skip
    rig = Rig(tuple(scene.bones) + (control, pole),
              tuple(scene.constraints) + (roll, leg_ik, follow))  # fmt: skip
    return FootRoll(rig, control.name, pole.name, roll.name, leg_ik.name, follow.name, pivots_from)


def _vec(v) -> tuple[float, float, float]:
    return tuple(float(x) for x in v)


def _bone(name: str, parent: str | None, bone_to_parent: np.ndarray, tail) -> Bone:
    """A bone whose transform in its parent is ``bone_to_parent`` (rotation and scale split
    by columns: the parents here carry no shear)."""
    linear = bone_to_parent[:3, :3]
    scale = np.linalg.norm(linear, axis=0)
    rotation = rotation_from_matrix(linear)
    return Bone(name=name, parent=parent, translation=_vec(bone_to_parent[:3, 3]),
                rotation=tuple(float(x) for x in rotation), scale=_vec(scale),
                tail=_vec(tail))  # fmt: skip


def _horizontal(v) -> np.ndarray:
    return np.asarray(v, dtype=float) - np.dot(v, UP) * UP


def _unit(v) -> np.ndarray | None:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-12 else None


def _foot_forward(leg: Leg, index, heads, tails) -> np.ndarray:
    """The direction the foot points, level with the ground (+Z when it points up or down)."""
    ankle = heads[index[leg.foot]]
    tip = tails[index[leg.toes]] if leg.toes else tails[index[leg.foot]]
    forward = _unit(_horizontal(tip - ankle))
    return forward if forward is not None else np.array([0.0, 0.0, 1.0])


def _knee_forward(hip, knee, ankle, foot_forward) -> np.ndarray:
    """Unit direction from the hip-ankle line to the knee (where the knee bends), or the
    foot's direction across that line when the leg is straight."""
    axis = _unit(ankle - hip)
    if axis is None:
        return foot_forward
    bend = knee - hip
    bend = bend - np.dot(bend, axis) * axis
    leg_length = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
    if np.linalg.norm(bend) > 1e-3 * leg_length:
        return bend / np.linalg.norm(bend)
    across = _unit(foot_forward - np.dot(foot_forward, axis) * axis)
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
    forward = _foot_forward(leg, index, heads, tails)
    vertices = foot_vertices(scene, leg, pose)

    def at(along, height):
        return _horizontal(ankle) + along * forward + height * UP

    if len(vertices):
        along = (vertices - ankle) @ forward
        height = vertices @ UP
        back, front = float(along.min()), float(along.max())
        slab = SLAB * (front - back)
        ball = float((ball_joint - ankle) @ forward)
        slabs = ((back, back + slab), (ball - slab, ball + slab), (front - slab, front))
        lows = [float(height[(along >= lo) & (along <= hi)].min(initial=np.inf))
                for lo, hi in slabs]  # fmt: skip
        lows = [low if np.isfinite(low) else float(height.min()) for low in lows]
        return np.array([at(back, lows[0]), at(ball, lows[1]), at(front, lows[2])]), "mesh"
    tip = tails[index[leg.toes]] if leg.toes else ball_joint + (ball_joint - ankle) / 3
    floor = min(float(ball_joint @ UP), float(tip @ UP))
    return np.array([at(0.0, floor), ball_joint, tip]), "bones"
