"""The retarget: a clip's motion put onto another character, bone by mapped bone.

For each canonical bone mapped on both skeletons (:mod:`.humanoid`):

1. **Rest alignment.** The character is first turned about the vertical so that it faces
   where the source faces at rest (``yaw``), then each bone by the shortest arc taking its
   rest direction onto the source's (``align``): a T-pose and an A-pose, or different bone
   rolls, meet there. A bone's direction runs from its head to the head of its nearest
   canonical descendant mapped on both (the hand towards the middle finger), else along its
   tail; a bone with neither keeps the yaw alone.
2. **Motion.** The source bone's world rotation away from its rest, ``delta(t) =
   source(t) source_rest⁻¹``, is applied to the aligned bone in the world:
   ``world(t) = delta(t) align yaw character_rest``. That carries the twist about the limb.
3. **Pointing.** Where the source's segment does not turn rigidly with its bone (a bone in
   between that moves, a segment that ends on a bone the character maps elsewhere), the
   shortest arc from where the bone points to where the source's segment points makes them
   agree exactly.
4. **Hips.** The hips go where the source's go, the height above the floor (each clip's
   lowest foot or toe joint) and the path scaled by the ratio of the leg lengths (thigh plus
   shin, both sides averaged; the hips' height at rest without legs).

A mapped bone whose canonical parent's bone is not above it in the hierarchy (the feet of
an IK rig, under a control) is placed where that parent's rest offset puts it. Unmapped bones
keep the character's rest values; the clip's frame rate, first and last frame are kept, one
key per frame. Everything is vectorized over frames; the loop is over bones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.scene import bounds
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.math import quat
from app.scene.math.aim import arc, unit
from app.scene.math.transforms import rotation_from_matrix
from app.scene.retarget.canonical import BONES, CHILDREN, LEG, SIDES
from app.scene.retarget.humanoid import HumanoidMap
from app.scene.retarget.keying import keyed, rotations
from app.scene.retarget.rest import UP, Rest
from app.scene.retarget.shape import facing_from_legs, facing_from_sides
from app.scene.rig.model import Scene
from app.scene.rig.skeleton import tails_in_bones

#: A segment shorter than this share of the skeleton's height gives no direction.
DEGENERATE = 1e-3
#: Where a canonical bone's direction runs to, when not to its canonical children in order.
END_CHILDREN = {
    "hips": ("spine",),
    "upper_chest": ("neck",),
    **{
        f"{s}_hand": tuple(f"{s}_{f}_1" for f in ("middle", "index", "ring", "little"))
        for s in SIDES
    },
}


@dataclass
class Retargeted:
    """What :func:`retarget` made.

    Attributes
    ----------
    scene : Scene
        The character with the motion: its bones keyed, the source's timeline.
    pairs : tuple of str
        The canonical bones moved (mapped on both skeletons), canonical order.
    scale : float
        The hips' translation factor (the character's leg length over the source's).
    yaw_deg : float
        How far the character's rest was turned about the vertical to face as the source.
    messages : list of str
    """

    scene: Scene
    pairs: tuple
    scale: float
    yaw_deg: float
    messages: list = field(default_factory=list)


def _end(canonical: str, pairs: set) -> str | None:
    """The nearest canonical descendant of ``canonical`` mapped on both skeletons along its
    main line (see :data:`END_CHILDREN`)."""
    for child in END_CHILDREN.get(canonical, CHILDREN[canonical]):
        if child in pairs:
            return child
        deeper = _end(child, pairs)
        if deeper is not None:
            return deeper
    return None


class _Side:
    """One skeleton of the retarget: its rest, its map as indices, its rest directions."""

    def __init__(self, scene: Scene, mapping: HumanoidMap):
        self.scene = scene
        self.rest = Rest.of(scene)
        index = {n: i for i, n in enumerate(self.rest.names)}
        self.bone = {c: index[b] for c, b in mapping.bones.items() if b in index}
        self.tails = tails_in_bones(scene)
        self.rest_rotation = rotation_from_matrix(self.rest.bone_to_world)

    def facing(self, pairs) -> np.ndarray:
        sides = [
            [self.bone[f"{s}_{p}"] for p in ("thigh", "upper_arm") if f"{s}_{p}" in pairs]
            for s in SIDES
        ]
        forward = facing_from_sides(self.rest, *sides)
        if forward is None:
            legs = [[self.bone[f"{s}_{p}"] for p in LEG if f"{s}_{p}" in pairs] for s in SIDES]
            forward = facing_from_legs(self.rest, legs)
        return forward

    def segment(self, canonical: str, end: str | None, bone_to_world) -> np.ndarray:
        """The bone's direction vector in the world, ``(..., 3)``, for world transforms
        ``bone_to_world`` of every bone ``(..., B, 4, 4)``: to its end's head, else along its
        tail."""
        b = self.bone[canonical]
        if end is not None:
            return bone_to_world[..., self.bone[end], :3, 3] - bone_to_world[..., b, :3, 3]
        return bone_to_world[..., b, :3, :3] @ self.tails[b]

    def leg_length(self, pairs) -> float | None:
        lengths = []
        for s in SIDES:
            chain = [f"{s}_{p}" for p in ("thigh", "shin", "foot")]
            if all(c in pairs for c in chain):
                heads = self.rest.heads[[self.bone[c] for c in chain]]
                lengths.append(np.linalg.norm(np.diff(heads, axis=0), axis=1).sum())
        return float(np.mean(lengths)) if lengths else None


def retarget(
    source: Scene, source_map: HumanoidMap, target: Scene, target_map: HumanoidMap
) -> Retargeted:
    """Put ``source``'s motion on ``target`` (see the module docstring).

    Parameters
    ----------
    source, target : Scene
        The clip (evaluated with its constraints) and the character.
    source_map, target_map : HumanoidMap
        Each skeleton's humanoid map.

    Returns
    -------
    Retargeted

    Raises
    ------
    SceneError
        When the maps have no hips in common, or the result would pass the bounds on frames.
    """
    src, tgt = _Side(source, source_map), _Side(target, target_map)
    pairs = tuple(c for c in BONES if c in src.bone and c in tgt.bone)
    if "hips" not in pairs:
        missing = "the clip's" if "hips" not in src.bone else "the character's"
        raise SceneError(
            f"{missing} humanoid map has no hips: nothing to carry the motion",
            "humanoid.bones.hips",
        )
    frames = np.arange(source.frame_start, source.frame_end + 1, dtype=float)
    bounds.check_poses(len(frames), len(target.bones), "frame_end")
    clip = bake(source, frames).bone_to_world  # (F, Bs, 4, 4)
    pair_set = set(pairs)
    yaw = _yaw(src.facing(pair_set), tgt.facing(pair_set))
    directions = _directions(pairs, src, tgt, clip, yaw)
    turned = _world_rotations(pairs, directions, src, tgt, clip, yaw)
    world_rotation = {c: turned[:, k] for k, c in enumerate(pairs)}
    scale, hips = _hips_path(src, tgt, pair_set, clip)
    scene = keyed(target, tgt, pairs, world_rotation, hips, frames)
    messages = []
    scene.fps, scene.frame_start, scene.frame_end = source.fps, source.frame_start, source.frame_end
    driven = sorted(
        {b for c in target.constraints for b in c.driven_bones()}
        & {target.bones[tgt.bone[p]].name for p in pairs}
    )
    if driven:
        messages.append(f"constraints drive {', '.join(driven)}: they override the motion there")
    yaw_deg = float(np.degrees(2 * np.arctan2(np.linalg.norm(yaw[1:]), abs(yaw[0]))))
    return Retargeted(scene, pairs, scale, yaw_deg, messages)


def _yaw(source_forward, target_forward) -> np.ndarray:
    """The turn about the vertical taking the character's facing onto the source's."""
    angle = np.arctan2(
        np.cross(target_forward, source_forward) @ UP, float(target_forward @ source_forward)
    )
    return quat.quat_from_axis_angle(UP, angle)


def _world_rotations(pairs, directions, src: _Side, tgt: _Side, clip, yaw) -> np.ndarray:
    """``(F, P, 4)``: the character's mapped bones in the world at every frame, from each
    pair's directions ``(source at rest (3,), source at each frame (F, 3), character at rest
    (3,))``; a bone whose direction has no length at rest on either side keeps the yaw."""
    sb = [src.bone[c] for c in pairs]
    tb = [tgt.bone[c] for c in pairs]
    source_rest = src.rest_rotation[sb]  # (P, 4)
    target_rest = tgt.rest_rotation[tb]
    delta = quat.mul(rotations(clip[:, sb]), quat.conj(source_rest))  # (F, P, 4)
    d_source = np.array([directions[c][0] for c in pairs], float).reshape(-1, 3)
    pointing = np.stack([directions[c][1] for c in pairs], axis=1)  # (F, P, 3)
    d_target = np.array([directions[c][2] for c in pairs], float).reshape(-1, 3)
    d_source, lost_s = _unit_or_lost(d_source, src.rest.height())
    d_target, lost_t = _unit_or_lost(d_target, tgt.rest.height())
    lost = lost_s | lost_t
    d_source[lost] = d_target[lost] = quat.rotate(yaw, np.array([0.0, 1.0, 0.0]))
    align = quat.mul(arc(quat.rotate(yaw, d_target), d_source), yaw)  # (P, 4)
    candidate = quat.mul(delta, quat.mul(align, target_rest))
    along = quat.rotate(quat.conj(target_rest), d_target)  # in each bone's rotation frame
    pointing, nowhere = unit(pointing)
    nowhere |= lost  # a bone with no direction keeps the candidate; so does a frame where
    now = quat.rotate(candidate, along)  # the source's segment has no length
    return quat.mul(arc(now, np.where(nowhere[..., None], now, pointing)), candidate)


def _unit_or_lost(v, height) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors ``(P, 3)`` and where they were shorter than :data:`DEGENERATE` of
    ``height``."""
    n = np.linalg.norm(v, axis=-1)
    lost = ~(n > DEGENERATE * height)
    return v / np.where(lost, 1.0, n)[:, None], lost


def _directions(pairs, src: _Side, tgt: _Side, clip, yaw) -> dict:
    """Canonical bone -> (source direction at rest, at each frame, character's at rest): each
    bone's segment (:func:`_end`), and along the body the chain (:func:`_body_chain`)."""
    pair_set = set(pairs)
    out = {}
    for c in pairs:
        end = _end(c, pair_set)
        out[c] = (
            src.segment(c, end, src.rest.bone_to_world),
            src.segment(c, end, clip),
            tgt.segment(c, end, tgt.rest.bone_to_world),
        )
    out.update(_body_chain(pair_set, src, tgt, clip, yaw))
    return out


def _body_chain(pairs: set, src: _Side, tgt: _Side, clip, yaw) -> dict:
    """The body's bones (hips to neck) pointing along the source's body as a curve.

    The source's joints from its hips to its head make a polyline; the character's body
    bones mapped on both, laid along their own chain by length, each take the share of the
    polyline that their share of the chain covers. A bone turns from its rest direction (the
    yaw applied) as the chord of its share turned from the source's rest, then all turn
    together by the one shortest arc that puts the character's hips-to-head line on the
    source's. Spines of different bone counts and proportions (CMU's joints that coincide,
    Mixamo's even spine, RobotExpressive's body above its hips) then bend alike, each keeping
    its own rest bends.
    """
    if "head" not in pairs or "hips" not in pairs:
        return {}
    body = [c for c in ("hips", "spine", "chest", "upper_chest", "neck") if c in pairs]
    t_path = [tgt.bone[c] for c in body] + [tgt.bone["head"]]
    s_top, s_head = src.bone["hips"], src.bone["head"]
    if not src.rest.is_ancestor(s_top, s_head) or not all(
        tgt.rest.is_ancestor(a, b) for a, b in zip(t_path[:-1], t_path[1:])
    ):
        return {}
    s_path = src.rest.path(s_top, s_head)
    s_rest = src.rest.heads[s_path]
    s_cum = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(s_rest, axis=0), axis=1))])
    t_rest = tgt.rest.heads[t_path]
    t_len = np.linalg.norm(np.diff(t_rest, axis=0), axis=1)
    if s_cum[-1] <= DEGENERATE * src.rest.height() or t_len.sum() <= DEGENERATE * tgt.rest.height():
        return {}
    s_share = s_cum / s_cum[-1]
    t_share = np.concatenate([[0.0], np.cumsum(t_len)]) / t_len.sum()
    s_clip = clip[:, s_path][..., :3, 3]

    def at(share, joints):  # the polyline's point at ``share`` of its length, (..., 3)
        k = int(np.clip(np.searchsorted(s_share, share, side="right") - 1, 0, len(s_share) - 2))
        span = s_share[k + 1] - s_share[k]
        u = 0.0 if span <= 0 else (share - s_share[k]) / span
        return joints[..., k, :] * (1 - u) + joints[..., k + 1, :] * u

    def chords(joints):  # the polyline's chords over the character's shares, (..., K, 3)
        return np.diff(np.stack([at(x, joints) for x in t_share], axis=-2), axis=-2)

    own, _ = unit(quat.rotate(yaw, np.diff(t_rest, axis=0)))  # the character's rest bends

    def pointing(joints):  # each bone turned as its chord turned since rest, then all turned
        bent = quat.rotate(arc(chords(s_rest), chords(joints)), own)  # to lie on the hips-head
        total = np.einsum("k,...ki->...i", t_len, bent)  # line: (..., K, 3)
        turn = arc(total, joints[..., -1, :] - joints[..., 0, :])
        return quat.rotate(turn[..., None, :], bent)

    rest_dirs, clip_dirs = pointing(s_rest), pointing(s_clip)
    return {
        c: (rest_dirs[k], clip_dirs[:, k], t_rest[k + 1] - t_rest[k]) for k, c in enumerate(body)
    }


def _floor(side: _Side, pairs, bone_to_world) -> float:
    """The lowest foot or toe joint (of ``bone_to_world``, ``(..., B, 4, 4)``), else the
    lowest joint."""
    feet = [side.bone[f"{s}_{p}"] for s in SIDES for p in ("foot", "toes") if f"{s}_{p}" in pairs]
    heads = bone_to_world[..., :3, 3]
    chosen = heads[..., feet, :] if feet else heads
    return float(np.min(chosen[..., 1]))


def _hips_path(src: _Side, tgt: _Side, pairs, clip) -> tuple[float, np.ndarray]:
    """The scale of the hips' translation and their world path ``(F, 3)``."""
    legs_s, legs_t = src.leg_length(pairs), tgt.leg_length(pairs)
    if legs_s and legs_t:
        scale = legs_t / legs_s
    else:  # the hips' height above the floor at rest
        above_s = src.rest.heads[src.bone["hips"], 1] - _floor(src, pairs, src.rest.bone_to_world)
        above_t = tgt.rest.heads[tgt.bone["hips"], 1] - _floor(tgt, pairs, tgt.rest.bone_to_world)
        scale = above_t / above_s if above_s > 1e-12 and above_t > 1e-12 else 1.0
    ground_s = _floor(src, pairs, clip)
    ground_t = _floor(tgt, pairs, tgt.rest.bone_to_world)
    path = clip[:, src.bone["hips"], :3, 3].copy()
    path[:, 1] -= ground_s
    path *= scale
    path[:, 1] += ground_t
    return float(scale), path
