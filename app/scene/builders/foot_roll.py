"""The reverse-foot rig of contract §F4, built from a leg chain: items only, no editing.

:func:`build_foot_roll` takes a scene and a :class:`~app.scene.builders.leg_names.Leg` and
returns the scene's new bone and constraint lists (a :class:`~app.scene.rig.bone_edits.Rig`,
what one undo command swaps in):

- a **control** bone at the ankle (the foot's head at ``frame_start``), **world-aligned**
  there (rotation the identity in the world, unit scale; in its parent's frame, the rotation
  that makes it so) and as long as the foot, a child of the rig's root bone when the
  character has one (:func:`rig_parent`), else at the top level: a plain bone the animator
  moves, turns and keys (it is keyed from the leg's motion, or once at ``frame_start``),
  world-aligned so that World and Object roll the foot differently (docs/scene-format.md);
- a **roll body** bone, the control's child with its head at the ankle (translation 0) and
  the foot's world rotation at ``frame_start`` as its rest rotation relative to the control:
  the ``multi_parent`` (object space, exact integrator, relative to its parent) rolls it on
  the pivots ``heel``, ``ball`` and ``toe`` on the sole (:func:`~.foot_sole.sole_points`,
  in the body's frame, the foot's), all at rest: key them to roll the foot, and the roll
  composes with the control's own motion. Object space turns them about the foot's own
  axes; world space (the editor's toggle) about the control's, which are the world's at
  rest, so the toggle shows the difference the rig is there to teach;
- a **knee pole** bone beside the control (same parent), in front of the knee by the thigh's
  length (keyed from the motion with the control);
- a ``fabrik`` on thigh → calf reaching for the roll body's head, the pole setting the plane
  the knee bends in;
- a ``copy_rotation`` (world space, ``frame_start`` offset) on the foot from the roll body.

In file order they run as they must (roll, leg, foot), so the rig needs no dependency sort.
Keyed from the motion (:mod:`~.foot_motion`), every frame of the leg is where it was; at rest,
``frame_start`` is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from app.scene.builders.foot_motion import leg_keys
from app.scene.builders.foot_roll_parts import FootRollParts
from app.scene.builders.foot_sole import foot_forward, knee_forward, sole_points
from app.scene.builders.leg_names import Leg
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.follows.model import CopyRotation
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.evaluate import bake, default_frames
from app.scene.math import quat
from app.scene.math.transforms import inverse, rotation_from_matrix
from app.scene.rig.bone_edits import Rig
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene, Target

#: How the control and the pole are keyed: from the leg's motion (every frame from
#: ``frame_start`` to ``frame_end``, one key when the leg does not move), or once, at rest.
MOTION, REST = "motion", "rest"
#: A root bone whose world scale differs from 1 by more than this (an FBX or glTF unit
#: conversion such as Mixamo's ``Armature`` at 0.01) does not parent the controls: under it
#: they would show a scale of 100 and numbers in centimetres.
UNIT_SCALE = 1e-4


class FootRollError(ValueError):
    """The leg cannot carry a foot-roll rig; the message says which bone and why.

    ``fix`` names what the dialog can do about it (``"foot_length"``: give the foot a tail,
    :func:`app.scene.builders.foot_sole.foot_tail`), ``None`` when nothing is offered.
    """

    def __init__(self, message: str, fix: str | None = None):
        super().__init__(message)
        self.fix = fix


@dataclass(frozen=True)
class FootRoll:
    """What :func:`build_foot_roll` makes: the scene's new lists and the new items' names.

    ``body`` is the bone the multi-parent rolls (the control's child); ``keyed`` is
    :data:`MOTION` when the control and pole carry the leg's motion (more than one key),
    else :data:`REST`.
    """

    rig: Rig
    control: str
    pole: str
    roll: str
    leg_ik: str
    follow: str
    #: ``"mesh"`` or ``"bones"``: what the pivots were placed from.
    pivots_from: str
    body: str
    leg: Leg
    keyed: str

    def parts(self) -> FootRollParts:
        """The new items' names, as :func:`~.foot_roll_parts.foot_rolls` reads them back."""
        return FootRollParts(
            self.leg, self.control, self.body, self.pole, self.roll, self.leg_ik, self.follow
        )


def derived_name(name: str, word: str) -> str:
    """``foot.L`` → ``foot_ctrl.L``: the word goes before a side suffix (``.L``, ``_R``...),
    else after the name (``mixamorig:LeftFoot`` → ``mixamorig:LeftFoot_ctrl``)."""
    m = re.match(r"^(.+?)([._\-][LlRr])$", name)
    return f"{m.group(1)}_{word}{m.group(2)}" if m else f"{name}_{word}"


def new_names(leg: Leg) -> dict[str, str]:
    """The names the rig's new items get (control, roll body, pole, three constraints)."""
    words = {
        "control": "ctrl",
        "body": "rolled",
        "pole": "pole",
        "roll": "roll",
        "leg_ik": "leg_ik",
        "follow": "follows_ctrl",
    }
    names = {key: derived_name(leg.foot, word) for key, word in words.items()}
    names["pole"] = derived_name(leg.calf, "pole")  # the knee's
    return names


def _children(scene: Scene) -> dict[str, list[str]]:
    children: dict[str, list[str]] = {}
    for b in scene.bones:
        children.setdefault(b.parent, []).append(b.name)
    return children


def root_bone(scene: Scene, leg: Leg) -> str | None:
    """The character's root bone: the leg's top-level ancestor when it lies above the hips
    (``root``, ``Armature``); ``None`` when the hips are the top (Mixamo's, the humanoid's,
    a BVH's). The hips are the thigh's nearest ancestor that branches (to the other leg,
    the spine); where none does, the thigh's parent. A control under the hips would bob
    with them."""
    parents = {b.name: b.parent for b in scene.bones}
    children = _children(scene)
    chain = []
    bone = parents[leg.thigh]
    while bone is not None:
        chain.append(bone)
        bone = parents[bone]
    if not chain:
        return None
    hips = next((b for b in chain if len(children.get(b, ())) > 1), chain[0])
    return chain[-1] if chain[-1] != hips else None


def rig_parent(scene: Scene, leg: Leg, pose=None) -> str | None:
    """The control's and pole's parent: the root bone (:func:`root_bone`) when its world
    scale at ``frame_start`` is 1 (within :data:`UNIT_SCALE`), else the top level, so the
    controls read in the world's units at scale 1.

    ``pose`` is a bake holding ``frame_start`` first (baked here when not given).
    """
    root = root_bone(scene, leg)
    if root is None:
        return None
    if pose is None:
        pose = bake(scene, np.array([float(scene.frame_start)]))
    i = [str(n) for n in pose.bone_names].index(root)
    scale = np.linalg.norm(pose.bone_to_world[0, i, :3, :3], axis=0)
    return root if np.all(np.abs(scale - 1.0) <= UNIT_SCALE) else None


def check_leg(scene: Scene, leg: Leg, pose=None) -> None:
    """Refuse (:class:`FootRollError`) a leg that is not thigh → calf → foot (→ toes), parent
    to child, of bones with length at ``frame_start``, free of other constraints, whose new
    names are free.

    ``pose`` is a bake holding ``frame_start`` first (baked here when not given).
    """
    _check_structure(scene, leg)
    _check_lengths(scene, leg, pose)


def _check_structure(scene: Scene, leg: Leg) -> None:
    names = {b.name for b in scene.bones}
    for part, bone in (
        ("thigh", leg.thigh),
        ("calf", leg.calf),
        ("foot", leg.foot),
        ("toes", leg.toes),
    ):
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


def _check_lengths(scene: Scene, leg: Leg, pose=None) -> None:
    if pose is None:
        pose = bake(scene, np.array([float(scene.frame_start)]))
    index = {str(n): i for i, n in enumerate(pose.bone_names)}
    heads, tails = pose.heads[0], pose.tails[0]
    hip, knee, ankle = (heads[index[b]] for b in (leg.thigh, leg.calf, leg.foot))
    size = max(float(np.ptp(heads, axis=0).max()), 1e-300)
    for bone, a, b in (
        (leg.thigh, hip, knee),
        (leg.calf, knee, ankle),
        (leg.foot, ankle, tails[index[leg.foot]]),
    ):
        if np.linalg.norm(b - a) <= 1e-9 * size:
            if bone == leg.foot and leg.toes is None:
                raise FootRollError(
                    f"{bone} has no length (its head and tail coincide): the rig turns the "
                    "foot from the ankle to its toe, so the foot needs a length",
                    "foot_length",
                )
            raise FootRollError(f"{bone} has no length (its head and tail coincide)")


def build_foot_roll(
    scene: Scene, leg: Leg, keyed: str = MOTION, pose=None, straight_side: float = 0.0
) -> FootRoll:
    """The scene's bones and constraints with the reverse foot on ``leg`` (module docstring).

    Parameters
    ----------
    scene : Scene
    leg : Leg
    keyed : {"motion", "rest"}
        ``"motion"``: the control and pole are keyed on every frame from ``frame_start`` to
        ``frame_end`` so that the rigged leg does what its motion did (one key when it does
        not move); ``"rest"``: one key at ``frame_start``, for keying by hand.
    pose : BakeResult, optional
        The scene baked at the frames to key, ``frame_start`` first (with ``"motion"``,
        :func:`~app.scene.evaluate.default_frames` when not given): a caller that has baked
        the clip already passes it.
    straight_side : float
        Where the leg is nearly straight, how firmly the pole takes the knee's side from the
        thigh (:func:`~app.scene.builders.foot_motion.leg_keys`; 0, exact to the motion, but
        for planting).

    Raises
    ------
    FootRollError
        For a leg :func:`check_leg` refuses.
    """
    if keyed not in (MOTION, REST):
        raise ValueError(f"keyed must be {MOTION!r} or {REST!r}, not {keyed!r}")
    _check_structure(scene, leg)
    if pose is None:
        frames = default_frames(scene) if keyed == MOTION else [float(scene.frame_start)]
        pose = bake(scene, np.asarray(frames, dtype=float))
    if not len(pose.frames) or pose.frames[0] != scene.frame_start:
        raise ValueError("the pose must start at the scene's frame_start")
    _check_lengths(scene, leg, pose)
    names = new_names(leg)
    index = {str(n): i for i, n in enumerate(pose.bone_names)}
    heads, tails = pose.heads[0], pose.tails[0]
    to_world = pose.bone_to_world[0]
    hip, knee, ankle = (heads[index[b]] for b in (leg.thigh, leg.calf, leg.foot))
    size = max(float(np.ptp(heads, axis=0).max()), 1e-300)
    parent = rig_parent(scene, leg, pose)

    # the roll body: at the ankle, turned as the foot is (its frame holds the pivots)
    body_to_world = np.eye(4)
    body_to_world[:3, :3] = quat.matrix_from_quat(rotation_from_matrix(to_world[index[leg.foot]]))
    body_to_world[:3, 3] = ankle
    world_to_body = inverse(body_to_world)
    body_tail = world_to_body[:3, :3] @ (tails[index[leg.foot]] - ankle)
    forward = knee_forward(hip, knee, ankle, foot_forward(leg, index, heads, tails))
    thigh_length = float(np.linalg.norm(knee - hip))

    # the control: at the ankle, with the world's axes at frame_start (so that world space
    # rolls about them), as long as the foot; keyed so that the body is the foot
    frames = pose.frames if keyed == MOTION else pose.frames[:1]
    keys = leg_keys(
        pose.bone_to_world[: len(frames)],
        frames,
        *(index[b] for b in (leg.thigh, leg.calf, leg.foot)),
        None if parent is None else index[parent],
        forward,
        size,
        straight_side,
    )
    t0, r0, p0 = keys.control_translation[0], keys.control_rotation[0], keys.pole_translation[0]
    control = Bone(
        name=names["control"],
        parent=parent,
        translation=_vec(t0),
        rotation=_vec(r0),
        scale=_vec(keys.control_scale),
        tail=_vec(tails[index[leg.foot]] - ankle),
        translation_keys=Keys(keys.frames, keys.control_translation),
        rotation_keys=Keys(keys.frames, keys.control_rotation),
    )
    body = Bone(
        name=names["body"],
        parent=control.name,
        rotation=_vec(keys.body_rotation),
        tail=_vec(body_tail),
    )
    # the pole: axes as the world's at frame_start (its tail points where the knee bends)
    world_to_parent = np.eye(4) if parent is None else inverse(to_world[index[parent]])
    pole = Bone(
        name=names["pole"],
        parent=parent,
        translation=_vec(p0),
        rotation=_vec(rotation_from_matrix(world_to_parent)),
        scale=_vec(np.linalg.norm(world_to_parent[:3, :3], axis=0)),
        tail=_vec(0.2 * thigh_length * forward),
        translation_keys=Keys(keys.frames, keys.pole_translation),
    )

    points, pivots_from = sole_points(scene, leg, pose)
    pivots = tuple(
        Pivot(name=n, position=_vec(world_to_body[:3, :3] @ p + world_to_body[:3, 3]))
        for n, p in zip(("heel", "ball", "toe"), points)
    )
    roll = MultiParent(
        name=names["roll"],
        space="object",
        body=body.name,
        pivots=pivots,
        integrator="exact",
        relative_to="parent",
    )
    leg_ik = Fabrik(
        name=names["leg_ik"],
        chain=(leg.thigh, leg.calf),
        target=Target(bone=body.name, at="head"),
        pole=Target(bone=pole.name, at="head"),
    )
    follow = CopyRotation(
        name=names["follow"],
        space="world",
        bone=leg.foot,
        target=Target(bone=body.name),
        offset="frame_start",
    )
    rig = Rig(
        tuple(scene.bones) + (control, body, pole),
        tuple(scene.constraints) + (roll, leg_ik, follow),
    )
    return FootRoll(
        rig,
        control.name,
        pole.name,
        roll.name,
        leg_ik.name,
        follow.name,
        pivots_from,
        body.name,
        leg,
        MOTION if len(keys.frames) > 1 else REST,
    )


def _vec(v) -> tuple:
    return tuple(float(x) for x in np.asarray(v, dtype=float).reshape(-1))


def build_foot_rolls(scene: Scene, legs, keyed: str = MOTION, pose=None) -> list[FootRoll]:
    """:func:`build_foot_roll` on each of ``legs`` in turn, the scene baked once (a rigged
    leg keyed from its motion moves as it did, so one bake serves them all).

    Returns
    -------
    list of FootRoll
        One per leg; the last one's ``rig`` holds every leg's items.
    """
    if pose is None:
        frames = default_frames(scene) if keyed == MOTION else [float(scene.frame_start)]
        pose = bake(scene, np.asarray(frames, dtype=float))
    work = scene.copy()
    built = []
    for leg in legs:
        built.append(build_foot_roll(work, leg, keyed, pose))
        work.bones[:], work.constraints[:] = built[-1].rig.bones, built[-1].rig.constraints
    return built
