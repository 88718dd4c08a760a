"""Where the viewport's camera looks: the whole animation, everything at this frame, the
selection, and a centre that follows the root or the selection as the animation plays.

Every framing fits a bounding sphere in both the horizontal and the vertical field of view
(:mod:`app.scene.analysis.camera_framing`). Framing the animation reads the document's
timeline in the current space (every frame when it is cached, else an even sample), never a
second evaluator. Following moves only the camera's centre, by how far the smoothed path of
the followed point moved between two frames: the distance, the angle and any pan the user
made stay, and nothing of it is an edit.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

from app.scene.analysis import camera_framing
from app.scene.analysis.gizmo import broadside_direction
from app.scene.rig.refs import BONE, CONSTRAINT, exists
from app.widgets.viewport.scene_drawing import WORLD_TO_VIEW

#: Frames at most that framing reads from a timeline too long to cache (spread evenly).
SAMPLED_FRAMES = 300
#: Frames at most at which the skinned meshes shown are deformed for framing.
MESH_FRAMES = 12


def _stage(viewport, reach, radius: float, turn: bool = True) -> None:
    """Size the handles for a skeleton of ``radius``, lay the ground grid under ``reach``
    (world points, (N, 3)) and (``turn``) turn the camera broadside to the motion."""
    reach = np.asarray(reach, dtype=float).reshape(-1, 3)
    reach = reach[np.all(np.isfinite(reach), axis=1)]
    if len(reach) == 0:  # no bones (yet)
        reach = np.zeros((1, 3))
    viewport.drawing.scale = radius
    spacing = float(10 ** np.floor(np.log10(radius / 2)))
    r_lo, r_hi = reach.min(axis=0), reach.max(axis=0)
    extent = max(0.6 * float(np.linalg.norm(r_hi - r_lo)) + radius, 8 * spacing)
    extent = spacing * min(np.ceil(extent / spacing), 200)
    viewport.drawing.lay_ground((r_lo + r_hi) / 2, extent, spacing)
    if not turn:
        return
    toward = WORLD_TO_VIEW[:3, :3] @ broadside_direction(reach)
    viewport.opts["elevation"] = 15
    viewport.opts["azimuth"] = float(np.degrees(np.arctan2(toward[1], toward[0])))


def _framed(doc) -> tuple[np.ndarray, np.ndarray]:
    """The bones whose heads and tails framing holds (not an unskinned leaf's,
    :func:`~app.scene.analysis.camera_framing.framed_ends`), kept while the scene's bones
    and meshes stay."""
    scene = doc.scene
    key = (
        id(scene),
        id(scene.meshes),
        tuple((b.name, b.parent, b.tail is None) for b in scene.bones),
    )
    if _FRAMED.get("key") != key:
        _FRAMED.update(key=key, ends=camera_framing.framed_ends(scene))
    return _FRAMED["ends"]


_FRAMED: dict = {}


def _joints(doc, result) -> np.ndarray:
    """The framed heads and tails of ``result`` (a bake), (F, N, 3)."""
    heads, tails = _framed(doc)
    if len(heads) != result.heads.shape[1]:  # an edit halfway
        heads = tails = np.ones(result.heads.shape[1], bool)
    return np.concatenate([result.heads[:, heads], result.tails[:, tails]], axis=1)


def _reach(doc) -> np.ndarray:
    """Every framed joint over the timeline (or an even sample of it), (N, 3)."""
    return _joints(doc, doc.evaluations.timeline_sample(SAMPLED_FRAMES)).reshape(-1, 3)


def shown_points(viewport) -> np.ndarray:
    """What is drawn at the current frame: skeleton, handles, trails, ghosts, meshes and
    Compare's ghost, (N, 3)."""
    doc = viewport.document
    shown = [_joints(doc, doc.pose())[0]] + [p[None] for _, p in viewport.handles()]
    shown.append(viewport.drawing.layers.drawn_points())  # trails and ghosts, when on
    shown.append(viewport.drawing.meshes.drawn_points())  # the skinned meshes, when shown
    if doc.compare:  # the ghost is part of the picture
        shown.append(_joints(doc, doc.ghost_pose())[0])
    reference = doc.reference.at(doc.frame)
    if reference is not None:  # so is a clip shown beside the scene
        shown += list(reference)
    return np.concatenate(shown).reshape(-1, 3)


def frame_all(viewport) -> None:
    """Frame the skeleton, its handles, trails and meshes at the current frame, lay the ground
    grid under everything the timeline reaches, and turn the camera broadside to the motion."""
    points = shown_points(viewport)
    center, radius = camera_framing.bounding_sphere(points)
    _stage(viewport, _reach(viewport.document), radius)
    viewport.frame_sphere(center, radius)


def followed_bones(doc) -> np.ndarray:
    """Indices of the bones a following camera follows: the selection's (a constraint's or a
    handle's bones), else the skeleton's roots."""
    scene = doc.scene
    names = []
    for ref in doc.selection:
        if ref.kind == BONE:
            names.append(ref.name)
        elif exists(scene, ref):
            names += list(scene.constraint(ref.name).referenced_bones())
    known = set(scene.bone_names())
    indices = sorted({scene.bone_index(n) for n in names if n in known})
    if not indices:
        indices = [i for i, b in enumerate(scene.bones) if b.parent is None]
    return np.array(indices, dtype=int)


def _mesh_points(viewport, timeline):
    """The skinned meshes shown, deformed at up to :data:`MESH_FRAMES` frames of
    ``timeline``: (indices into its frames (K,), points (K, V, 3)), or ``None``."""
    items = [item for item in viewport.drawing.meshes.items if item.visible()]
    if not items or len(timeline.frames) == 0:
        return None
    picks = np.unique(np.linspace(0, len(timeline.frames) - 1, MESH_FRAMES).round().astype(int))
    b2w = timeline.bone_to_world[picks]
    deformed = [item.skinning.deform(b2w, normals=False) for item in items]
    return picks, np.concatenate([np.asarray(d, dtype=float) for d in deformed], axis=1)


def animation_plan(
    viewport, evaluate_ghost: bool = False
) -> tuple[camera_framing.FollowPlan, np.ndarray]:
    """The follow plan of the timeline (what a following camera frames) and every point of
    every frame a still camera must hold, (N, 3). Compare's ghost is held when its timeline
    is cached, or always with ``evaluate_ghost`` (it is then evaluated at the same frames)."""
    doc = viewport.document
    timeline = doc.evaluations.timeline_sample(SAMPLED_FRAMES)
    frames = np.asarray(timeline.frames, dtype=float)
    joints = _joints(doc, timeline)  # (F, N, 3)
    bones = followed_bones(doc)
    if len(bones) and joints.shape[1]:
        # the selection's bones' middles, or the roots' heads (the hips, the box's centre)
        ends = (timeline.heads, timeline.tails) if doc.selection else (timeline.heads,)
        followed = sum(end[:, bones] for end in ends).mean(axis=1) / len(ends)
        followed = np.where(np.isfinite(followed), followed, 0.0)
    else:
        followed = np.zeros((len(frames), 3))
    plan = camera_framing.follow_plan(frames, joints, followed, doc.scene.fps)
    still = [joints.reshape(-1, 3)]
    relative = []
    ghost = doc.evaluations.cached_timeline(doc.ghost_space()) if doc.compare else None
    if (
        doc.compare
        and evaluate_ghost
        and (ghost is None or not np.array_equal(ghost.frames, frames))
    ):
        evaluations = doc.evaluations
        ghost = (
            evaluations.timeline(doc.ghost_space())
            if evaluations.timeline_fits_cache()
            else evaluations.evaluate(frames, doc.ghost_space())
        )  # kept: Compare reads it too
    if ghost is not None and np.array_equal(ghost.frames, timeline.frames):  # Compare's
        ghost_joints = _joints(doc, ghost)
        still.append(ghost_joints.reshape(-1, 3))
        relative.append(ghost_joints - plan.path[:, None, :])
    meshes = _mesh_points(viewport, timeline)
    if meshes is not None:
        picks, points = meshes
        still.append(points.reshape(-1, 3))
        relative.append(points - plan.path[picks][:, None, :])
    here = np.array([p for _, p in viewport.handles()]).reshape(-1, 3)  # pivots, targets
    here = np.concatenate([here, viewport.drawing.layers.drawn_points().reshape(-1, 3)])
    if len(here):
        still.append(here)
        relative.append(here - plan.at(doc.frame))
    for points in relative:
        plan = plan.holding(points)
    return plan, np.concatenate(still)


def frame_animation(viewport, planned=None, turn: bool = True) -> None:
    """Frame every joint and mesh over every frame: all of them at once, or, while following,
    the sphere that holds them around the followed point at each frame. ``planned``: what
    :func:`animation_plan` just returned; ``turn``: turn the camera broadside to the motion
    (else the view angle stays)."""
    doc = viewport.document
    plan, still = animation_plan(viewport) if planned is None else planned
    viewport.follow.adopt(plan)
    center, radius = camera_framing.bounding_sphere(still)
    body = camera_framing.bounding_sphere(shown_points(viewport))[1]
    _stage(viewport, still, body, turn)
    if viewport.follow.enabled:
        center, radius = plan.at(doc.frame) + plan.offset, plan.radius
    viewport.frame_sphere(center, radius)


def frame_opened(viewport) -> None:
    """A scene was opened: Follow on where the root travels further than the framed size,
    then frame the whole animation."""
    planned = animation_plan(viewport)
    viewport.set_follow(planned[0].worth_following)
    frame_animation(viewport, planned)


def keep_action(viewport) -> bool:
    """The space or Compare changed: when the animation in view now (every joint of every
    frame, Compare's ghost too, the meshes) would leave the view, frame it as opening a scene
    does (Follow as its motion asks, the whole animation held), keeping the view angle;
    otherwise the camera stays. Returns whether the view was framed again."""
    doc = viewport.document
    planned = animation_plan(viewport, evaluate_ghost=True)
    plan, still = planned
    if viewport.follow.enabled:  # every frame's box around the followed point, seen from now
        corners = np.array(
            [
                [x, y, z]
                for x in (plan.lo[0], plan.hi[0])
                for y in (plan.lo[1], plan.hi[1])
                for z in (plan.lo[2], plan.hi[2])
            ]
        )
        held = plan.at(doc.frame) + corners
    else:
        held = still
    held = held[np.all(np.isfinite(held), axis=1)]
    if len(held) == 0 or in_view(viewport, held).all():
        viewport.follow.adopt(plan)
        return False
    viewport.set_follow(plan.worth_following)
    frame_animation(viewport, planned, turn=False)
    return True


class Follow:
    """The viewport's centre following the selection (else the root) from frame to frame.

    The plan (:func:`animation_plan`) is made on the first frame change after an edit, a
    change of selection or of space, from the document's cached timeline.
    """

    def __init__(self, viewport, document):
        self._viewport = viewport
        self._document = document
        self.enabled = False
        self._plan: camera_framing.FollowPlan | None = None
        self._frame = document.frame
        document.frame_changed.connect(self._on_frame)
        for signal in (document.scene_changed, document.selection_changed, document.space_changed):
            signal.connect(self.invalidate)

    def invalidate(self, *_) -> None:
        self._plan = None

    def adopt(self, plan: camera_framing.FollowPlan) -> None:
        """Use ``plan`` (just made) from the current frame on."""
        self._plan = plan
        self._frame = self._document.frame

    def set_enabled(self, on: bool) -> None:
        self.enabled = bool(on)
        self._frame = self._document.frame  # from here on: no jump when it turns on

    def plan(self) -> camera_framing.FollowPlan:
        if self._plan is None:
            self._plan = animation_plan(self._viewport)[0]
        return self._plan

    def path(self, frames) -> np.ndarray:
        """The followed point's smoothed world position at ``frames``, shape ``S + (3,)``."""
        return self.plan().at(frames)

    def _on_frame(self, frame: float) -> None:
        last, self._frame = self._frame, frame
        if not self.enabled or last == frame:
            return
        move = self.path([frame, last])
        by = WORLD_TO_VIEW[:3, :3] @ (move[0] - move[1])
        if np.all(np.isfinite(by)) and np.any(by):  # the distance and the angle stay
            vp = self._viewport
            vp.opts["center"] = vp.opts["center"] + QtGui.QVector3D(*by)
            vp.update()


def center_in_world(viewport) -> np.ndarray:
    """The point the camera looks at and orbits, world coordinates (3,)."""
    c = viewport.opts["center"]
    return WORLD_TO_VIEW[:3, :3].T @ np.array([c.x(), c.y(), c.z()])


def in_view(viewport, points) -> np.ndarray:
    """Which world points (N, 3) project inside the view, a few pixels from its edges, (N,)."""
    xy = viewport.project(points)
    margin = 4.0
    w, h = viewport.width(), viewport.height()
    with np.errstate(invalid="ignore"):
        return (
            (xy[:, 0] >= margin)
            & (xy[:, 0] <= w - margin)
            & (xy[:, 1] >= margin)
            & (xy[:, 1] <= h - margin)
        )


def keep_in_view(viewport, points) -> None:
    """If any of world ``points`` (N, 3) lies outside the view, frame them together with the
    joints now in view (the view angle stays)."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) == 0 or in_view(viewport, points).all():
        return
    pose = viewport.document.pose()
    joints = np.concatenate([pose.heads[0], pose.tails[0]])
    viewport.frame_points(np.concatenate([joints[in_view(viewport, joints)], points]))


def made(viewport) -> tuple:
    """What :func:`show_new` compares with: the scene, its bones' names and its handles."""
    doc = viewport.document
    return doc.scene, set(doc.scene.bone_names()), {ref for ref, _ in viewport.handles()}


def show_new(viewport, known) -> tuple:
    """Bring the bones, pivots and targets made since ``known`` (what :func:`made` returned)
    into view; returns what :func:`made` returns now. Another scene is framed when it is
    opened, not here."""
    doc = viewport.document
    now = made(viewport)
    if known[0] is not doc.scene:
        return now
    # only what was added (a rename makes a new name, not a new thing to look at)
    bones = now[1] - known[1] if len(now[1]) > len(known[1]) else set()
    handles = now[2] - known[2] if len(now[2]) > len(known[2]) else set()
    pose = doc.pose()
    index = [i for i, n in enumerate(pose.bone_names) if str(n) in bones]
    points = [pose.heads[0, index], pose.tails[0, index]]
    points += [p[None] for ref, p in viewport.handles() if ref in handles]
    keep_in_view(viewport, np.concatenate(points))
    return now


def selection_points(viewport) -> np.ndarray:
    """World points of the selection (bones' heads and tails, constraints' bones and handles),
    shape (N, 3)."""
    doc = viewport.document
    pose = doc.pose()
    points = []
    for ref in doc.selection:
        if ref.kind == BONE:
            i = doc.scene.bone_index(ref.name)
            points += [pose.heads[0, i], pose.tails[0, i]]
        elif ref.kind == CONSTRAINT:
            c = doc.scene.constraint(ref.name)
            for name in c.referenced_bones():
                i = doc.scene.bone_index(name)
                points += [pose.heads[0, i], pose.tails[0, i]]
            points += [p for r, p in viewport.handles() if r.name == ref.name]
        else:
            points += [p for r, p in viewport.handles() if r == ref]
    return np.array(points).reshape(-1, 3)
