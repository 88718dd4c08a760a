"""Plant a clip's feet: the one entry point (the command line, the editor and the retarget
all call :func:`plant_feet`).

A scene in, a planted scene and its figures out. The planted scene is the foot-roll rig
(:mod:`app.scene.builders.foot_roll`) on each leg, keyed so that it does what the planted
motion does: the control and the pivots from :mod:`app.scene.motion.roll_keys`, the knee's
pole from the motion, the toes bent where the toe tip is down, the hips lowered where a leg
could not reach (:mod:`app.scene.motion.hips`); and a :class:`~app.scene.rig.model.Plant`
record of the contacts, the floor and the keys it changed, so that the plant can follow an
edited contact and Compare can show the original.

Planting a planted scene starts again from the original the record keeps: edit a contact,
plant again, and nothing the plant did before is planted twice.

One idea: planting a clip's feet, from contacts to the keyed rig and its figures.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.builders.foot_roll_parts import foot_rolls
from app.scene.builders.foot_sole import sole_points
from app.scene.builders.leg_names import SIDES, Leg, recognised_legs
from app.scene.evaluate import BakeResult, bake, default_frames
from app.scene.math import quat
from app.scene.motion import contacts as contact_rules
from app.scene.motion.feet import (
    UP,
    FootMotion,
    character_height,
    detect_floor,
    foot_motion,
    units_per_metre,
)
from app.scene.motion.figures import Figures, figures_of
from app.scene.motion.foot_path import SLACK, Blend, lift, plant_foot
from app.scene.motion.hips import correct_hips
from app.scene.motion.rigging import rigged
from app.scene.rig.model import FootContacts, Plant, Scene

#: Seconds over which a correction blends in and out.
BLEND_S = 0.25
#: Metres (for a 1.7 m person) the hips may move where a leg cannot reach (issue 24).
HIPS_CAP_M = 0.02


class PlantError(ValueError):
    """The clip cannot be planted; the message says why (no legs, a leg already rigged...)."""


@dataclass(frozen=True)
class PlantOptions:
    """What to plant and how.

    Attributes
    ----------
    frames : (int, int) or None
        The frames to plant, both included (default: the whole timeline); the others keep
        their motion.
    floor : float or None
        The floor's height (default: detected from the clip).
    speed : float or None
        The speed under which a point near the floor is in contact, in metres per second
        for a person 1.7 m tall (scaled to the character like every threshold; default 0.3).
    """

    frames: tuple[int, int] | None = None
    floor: float | None = None
    speed: float | None = None


@dataclass(frozen=True)
class Planted:
    """A planted clip.

    Attributes
    ----------
    scene : Scene
        The rig, keyed, with its :class:`~app.scene.rig.model.Plant` record.
    before, after : Figures
        The original's figures and the planted clip's (``after`` is ``None`` when the plant
        was not evaluated).
    notes : tuple of str
        What the user should know (frames where a leg could not reach).
    baked : BakeResult or None
        The planted scene evaluated over its timeline (what ``after`` was measured on; a
        caller writing the clip uses it instead of evaluating again).
    """

    scene: Scene
    before: Figures
    after: Figures | None
    notes: tuple[str, ...] = ()
    baked: BakeResult | None = None


def original_scene(scene: Scene) -> Scene:
    """The scene as it was before its feet were planted: without the planted legs' rigs,
    with the keys the plant changed as they were (the scene itself when it was not)."""
    plant = scene.plant
    if plant is None:
        return scene
    feet = {f.foot for f in plant.feet}
    rigs = [p for p in foot_rolls(scene) if p.leg.foot in feet]
    bones_out = {n for p in rigs for n in (p.control, p.body, p.pole) if n is not None}
    constraints_out = {n for p in rigs for n in (p.roll, p.leg_ik, p.follow)}
    kept = {b.name: b for b in plant.original}
    out = scene.copy()
    out.bones = [kept.get(b.name, b) for b in scene.bones if b.name not in bones_out]
    out.constraints = [c for c in scene.constraints if c.name not in constraints_out]
    out.plant = None
    return out


def _legs(scene: Scene, legs) -> list[Leg]:
    if legs is not None:
        return list(legs)
    if scene.plant is not None:
        parents = {b.name: b.parent for b in scene.bones}
        return [
            Leg(parents[parents[f.foot]], parents[f.foot], f.foot, f.toes) for f in scene.plant.feet
        ]
    found = recognised_legs(scene)
    if not found:
        raise PlantError(
            "No legs found by their bone names (thigh, calf, foot, toes): choose the legs' bones"
        )
    return [found[s] for s in SIDES if s in found]


def _hips(scene: Scene, legs) -> str | None:
    """The legs' nearest common ancestor (the bone the hips' correction moves)."""
    parents = {b.name: b.parent for b in scene.bones}

    def chain(bone):
        out = []
        while bone is not None:
            out.append(bone)
            bone = parents[bone]
        return out

    common = None
    for leg in legs:
        above = chain(parents[leg.thigh])
        common = above if common is None else [b for b in common if b in above]
    return common[0] if common else None


@dataclass(frozen=True)
class _Clip:
    """The original clip's pose and feet, as :func:`plant_feet` reads them."""

    pose: BakeResult
    index: dict
    legs: list
    motions: list
    height: float
    fps: float


def _read_clip(scene: Scene, legs) -> _Clip:
    pose = bake(scene, default_frames(scene))
    index = {str(n): i for i, n in enumerate(pose.bone_names)}
    height = character_height(pose.heads, index, legs)
    motions = []
    for leg in legs:
        toes = leg.toes
        foot_world = pose.bone_to_world[:, index[leg.foot]]
        toes_world = pose.bone_to_world[:, index[toes]] if toes else None
        tail = pose.tails[:, index[toes]] if toes else pose.tails[:, index[leg.foot]]
        points, where = sole_points(scene, leg, pose)
        motions.append(
            foot_motion(
                foot_world, toes_world, tail, height, sole=points if where == "mesh" else None
            )
        )
    return _Clip(pose, index, legs, motions, height, scene.fps)


def _range(scene: Scene, frames) -> tuple[int, int]:
    first, last = scene.frame_start, scene.frame_end
    if frames is None:
        return first, last
    a, b = (int(round(f)) for f in frames)
    if a > b or a < first or b > last:
        raise PlantError(f"frames {a}:{b} are not within the timeline {first}:{last}")
    return a, b


def plant_feet(
    scene: Scene,
    options: PlantOptions = PlantOptions(),
    legs=None,
    contacts=None,
    evaluate: bool = True,
) -> Planted:
    """Plant the feet of ``scene`` (module docstring).

    Parameters
    ----------
    scene : Scene
        A clip (BVH, glTF, FBX or scene file), or a scene planted before (it is planted
        again from the original its record keeps).
    options : PlantOptions
    legs : sequence of Leg, optional
        The legs to plant (default: a planted scene's own, else those the bone names show).
    contacts : dict, optional
        Foot bone name -> ``(heel, ball, toe)`` interval lists ``(first, last)`` in scene
        frames, replacing the detected contacts of that foot (an edited contact).
    evaluate : bool
        Evaluate the planted scene for the figures after (``Planted.after`` and ``baked``);
        without, ``after`` is ``None``.

    Raises
    ------
    PlantError
        No legs, a leg that carries a foot-roll rig of its own, bad frames.
    """
    legs = _legs(scene, legs)
    previous = scene.plant
    source = original_scene(scene)
    for parts in foot_rolls(source):
        if parts.leg.foot in {leg.foot for leg in legs}:
            raise PlantError(
                f"{parts.leg.foot} carries a foot-roll rig already "
                f"({parts.control}): remove it, or plant the other legs"
            )
    clip = _read_clip(source, legs)
    first, last = _range(
        source,
        options.frames
        if options.frames is not None
        else (previous.frames if previous is not None else None),
    )
    start = source.frame_start
    count = len(clip.pose.frames)
    inside = np.zeros(count, dtype=bool)
    inside[first - start : last - start + 1] = True
    per_metre = units_per_metre(clip.height)
    speed = (
        options.speed
        if options.speed is not None
        else (previous.speed if previous is not None and options.floor is None else None)
    )
    paths = np.stack([m.point_paths() for m in clip.motions], axis=1)  # (F, L, 3, 3)
    if speed is None:  # the clip's own: 0.3 m/s for motion capture, more for sliding motion
        speed = contact_rules.contact_speed(paths[inside], clip.fps, clip.height)
    rules = contact_rules.Thresholds.scaled(clip.height, clip.fps, speed)
    floor = options.floor
    if floor is None:
        floor = (
            previous.floor
            if previous is not None
            else detect_floor(paths[inside], clip.fps, rules.speed)
        )
    down = contact_rules.detect(paths, floor, clip.fps, rules) & inside[:, None, None]
    for j, leg in enumerate(legs):
        given = (contacts or {}).get(leg.foot)
        if (
            given is None
            and previous is not None
            and options.floor is None
            and options.speed is None
        ):
            kept = next((f for f in previous.feet if f.foot == leg.foot), None)
            given = None if kept is None else kept.contacts
        if given is not None:
            for i in range(3):
                iv = np.asarray(given[i], dtype=np.int64).reshape(-1, 2) - start
                down[:, j, i] = contact_rules.mask_of(iv, count) & inside
    window = BLEND_S * clip.fps
    still = ~inside
    blends = [_blend(paths[:, j], floor, rules.near, window, clip.fps) for j in range(len(legs))]
    planted = [
        plant_foot(m, down[:, j], floor, blends[j], still, _reach(clip, leg))
        for j, (m, leg) in enumerate(zip(clip.motions, legs))
    ]
    hips = _hips(source, legs)
    offset = _hips_offset(clip, planted, hips, window, HIPS_CAP_M * per_metre)
    notes = []
    offset[~inside] = 0.0  # the frames not planted keep their motion
    planted = [path.carried(_carried(offset, blend)) for path, blend in zip(planted, blends)]
    reached = [_within_reach(path, clip, leg, offset, window) for path, leg in zip(planted, legs)]
    planted = [path for path, _ in reached]
    raised = np.any([frames for _, frames in reached], axis=0) if reached else None
    if raised is not None and np.any(raised):
        notes = [
            f"a planted foot is raised off the floor on {np.count_nonzero(raised)} frames, "
            f"where its leg could not reach it (the hips may come down only 2 cm)"
        ]
    scene = rigged(source, clip, planted, down, hips, offset)
    record = Plant(
        floor=float(floor),
        speed=float(rules.speed / per_metre),
        frames=(first, last),
        hips=hips,
        feet=tuple(
            _foot_record(leg, m, down[:, j], start)
            for j, (leg, m) in enumerate(zip(legs, clip.motions))
        ),
        original=tuple(b for b in source.bones if b.name in _changed(hips, legs)),
    )
    scene.plant = record
    baked = bake(scene, clip.pose.frames) if evaluate else None
    before, after = _figures(clip, baked, paths, down, inside)
    return Planted(scene, before, after, tuple(notes), baked)


#: Seconds over which a contact's rate eases to zero as the foot is let go.
EASE_S = 0.05
#: The foot's clock near the floor (1 in the air): a correction changes this much slower
#: while the foot is down there.
GROUND_CLOCK = 0.05


def _blend(paths: np.ndarray, floor: float, near: float, window: float, fps: float) -> Blend:
    """A foot's :class:`~app.scene.motion.foot_path.Blend`: its clock (how fast a correction
    may change across) is :data:`GROUND_CLOCK` while the lowest of its points ``paths``
    ``(F, 3, 3)`` is within ``near`` of the floor, 1 from twice that up, smooth between; so a
    foot near the floor moves as the original does and is made up in the air."""
    x = np.clip(((paths @ UP).min(axis=1) - floor - near) / near, 0.0, 1.0)
    weight = GROUND_CLOCK + (1.0 - GROUND_CLOCK) * x * x * (3.0 - 2.0 * x)
    return Blend(window, weight, EASE_S * fps)


def _carried(offset: np.ndarray, blend: Blend) -> np.ndarray:
    """What of the hips' correction ``offset`` ``(F, 3)`` a foot in the air takes along: all
    of it across (so a leg that is not planted keeps its shape), and the lowering only while
    the foot is up (a foot skimming the floor is not pushed into it)."""
    down = np.minimum(offset @ UP, 0.0)
    return offset - ((1.0 - blend.weight) * down)[:, None] * UP


def _within_reach(path, clip: _Clip, leg: Leg, offset: np.ndarray, window: float):
    """The planted foot raised, smoothly, where its leg still could not reach it once the
    hips have come down as far as they may: a foot a little above the floor rather than a
    leg pulled straight, whose knee would snap, with a foot sliding after it. Returns the
    path and the frames raised by more than a thousandth of the leg."""
    hip, length = _reach(clip, leg)
    # as far as the leg reaches with a little in hand, or as the original reached
    original = np.linalg.norm(clip.pose.heads[:, clip.index[leg.foot]] - hip, axis=1)
    reach = np.maximum(length * (1.0 - SLACK), np.minimum(original, length))
    across = hip + offset - path.head
    up = across @ UP
    flat = np.linalg.norm(across - up[:, None] * UP, axis=1)
    need = np.where(
        np.linalg.norm(across, axis=1) > reach,
        up - np.sqrt(np.maximum(reach**2 - flat**2, 0.0)),
        0.0,
    )
    if not np.any(need > 1e-9 * length):
        return path, np.zeros(len(need), dtype=bool)
    raise_by = lift(np.maximum(need, 0.0), window)
    return (
        dataclasses.replace(path, head=path.head + raise_by[:, None] * UP),
        raise_by > 1e-3 * length,
    )


def _reach(clip: _Clip, leg: Leg):
    """The leg's hip joint path and its length (thigh plus calf)."""
    heads, i = clip.pose.heads, clip.index
    length = np.linalg.norm(heads[0, i[leg.calf]] - heads[0, i[leg.thigh]]) + np.linalg.norm(
        heads[0, i[leg.foot]] - heads[0, i[leg.calf]]
    )
    return heads[:, i[leg.thigh]], float(length)


def _changed(hips, legs) -> set:
    return ({hips} if hips else set()) | {leg.toes for leg in legs if leg.toes}


def _foot_record(leg: Leg, motion: FootMotion, down, start: int) -> FootContacts:
    vec = lambda v: tuple(float(x) for x in v)  # noqa: E731
    spans = tuple(
        tuple((int(a) + start, int(b) + start) for a, b in contact_rules.intervals_of(down[:, i]))
        for i in range(3)
    )
    return FootContacts(
        foot=leg.foot,
        toes=leg.toes if motion.has_toes else None,
        heel=vec(motion.points[0]),
        ball=vec(motion.points[1]),
        toe=vec(motion.points[2]),
        contacts=spans,
    )


def _hips_offset(clip: _Clip, planted, hips, window, cap):
    if hips is None:
        return np.zeros((len(clip.pose.frames), 3))
    heads = clip.pose.heads
    hip_joints = np.stack([heads[:, clip.index[leg.thigh]] for leg in clip.legs], axis=1)
    ankles = np.stack([p.head for p in planted], axis=1)
    reach = np.array(
        [
            np.linalg.norm(heads[0, clip.index[leg.calf]] - heads[0, clip.index[leg.thigh]])
            + np.linalg.norm(heads[0, clip.index[leg.foot]] - heads[0, clip.index[leg.calf]])
            for leg in clip.legs
        ]
    )
    original = np.stack([heads[:, clip.index[leg.foot]] for leg in clip.legs], axis=1)
    return correct_hips(hip_joints, ankles, reach, window, cap, original).offset


def _figures(clip: _Clip, after_pose, paths, down, inside):
    """Before and after: the original's figures (``paths`` ``(F, L, 3, 3)``, its contact
    points) and the planted scene's (``after_pose``, its bake; ``None``: no figures after)."""
    names = [str(n) for n in clip.pose.bone_names]
    metric_floor = float((clip.pose.heads[inside] @ UP).min())
    paths_before = paths[inside]
    mask = down[inside].reshape(np.count_nonzero(inside), -1)
    flat = lambda p: p.reshape(len(p), -1, 3)  # noqa: E731
    heads_before = clip.pose.heads[inside]

    def toes(pose, index):
        return np.stack(
            [
                pose.heads[:, index[leg.toes]] if leg.toes else pose.tails[:, index[leg.foot]]
                for leg in clip.legs
            ],
            axis=1,
        )[inside]

    before = figures_of(
        heads_before,
        _two(toes(clip.pose, clip.index)),
        flat(paths_before),
        mask,
        heads_before,
        metric_floor,
        clip.fps,
        clip.height,
    )
    if after_pose is None:
        return before, None
    after_index = {str(n): i for i, n in enumerate(after_pose.bone_names)}
    columns = [after_index[n] for n in names]
    heads_after = after_pose.heads[:, columns][inside]
    paths_after = np.stack(
        [
            _planted_paths(m, after_pose, after_index, leg)
            for m, leg in zip(clip.motions, clip.legs)
        ],
        axis=1,
    )[inside]
    after = figures_of(
        heads_after,
        _two(toes(after_pose, after_index)),
        flat(paths_after),
        mask,
        heads_before,
        metric_floor,
        clip.fps,
        clip.height,
    )
    return before, after


def _two(toes):
    return toes if toes.shape[1] >= 2 else np.concatenate([toes, toes], axis=1)


def _planted_paths(motion: FootMotion, pose, index, leg) -> np.ndarray:
    """The contact points' paths as the baked planted scene carries them."""
    from app.scene.motion.feet import rigid

    rotation, head = rigid(pose.bone_to_world[:, index[leg.foot]])
    toes = None
    if motion.has_toes:
        toes_rotation, _ = rigid(pose.bone_to_world[:, index[leg.toes]])
        toes = quat.mul(quat.conj(rotation), toes_rotation)
    baked = FootMotion(rotation, head, motion.points, motion.toes_head, toes)
    return baked.point_paths()
