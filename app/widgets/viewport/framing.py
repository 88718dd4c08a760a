"""Where the viewport's camera looks: everything (View All) or the selection, in world terms."""

from __future__ import annotations

import numpy as np

from app.scene.analysis.gizmo import broadside_direction
from app.scene.rig import editing
from app.widgets.viewport.scene_drawing import WORLD_TO_VIEW


def frame_all(viewport) -> None:
    """Frame the skeleton, its handles, trails and meshes at the current frame, lay the ground
    grid under everything the timeline reaches, and turn the camera broadside to the motion."""
    doc = viewport._document
    frames = np.linspace(doc.scene.frame_start, doc.scene.frame_end, 9)
    path = doc.evaluate(frames, None)  # as authored: the angle stays when the space flips
    reach = np.concatenate([path.heads.reshape(-1, 3), path.tails.reshape(-1, 3)])
    pose = doc.pose()
    shown = [pose.heads[0], pose.tails[0]] + [p[None] for _, p in viewport.handles()]
    shown.append(viewport._drawing.teaching.drawn_points())  # trails and ghosts, when on
    shown.append(viewport._drawing.meshes.drawn_points())  # the skinned meshes, when shown
    if doc.compare:  # the ghost is part of the picture
        ghost = doc.ghost_pose()
        shown += [ghost.heads[0], ghost.tails[0]]
    points = np.concatenate(shown)
    lo, hi = points.min(axis=0), points.max(axis=0)
    radius = max(float(np.linalg.norm(hi - lo)) / 2, 0.05)
    viewport._drawing.scale = radius
    spacing = float(10 ** np.floor(np.log10(radius / 2)))
    r_lo, r_hi = reach.min(axis=0), reach.max(axis=0)
    extent = max(0.6 * float(np.linalg.norm(r_hi - r_lo)) + radius, 8 * spacing)
    extent = spacing * min(np.ceil(extent / spacing), 200)
    viewport._drawing.lay_ground((r_lo + r_hi) / 2, extent, spacing)
    toward = WORLD_TO_VIEW[:3, :3] @ broadside_direction(reach)
    viewport.opts["elevation"] = 15
    viewport.opts["azimuth"] = float(np.degrees(np.arctan2(toward[1], toward[0])))
    viewport.frame_points(points)


def selection_points(viewport) -> np.ndarray:
    """World points of the selection (bones' heads and tails, constraints' bones and handles),
    shape (N, 3)."""
    doc = viewport._document
    pose = doc.pose()
    points = []
    for ref in doc.selection:
        if ref.kind == editing.BONE:
            i = doc.scene.bone_index(ref.name)
            points += [pose.heads[0, i], pose.tails[0, i]]
        elif ref.kind == editing.CONSTRAINT:
            c = doc.scene.constraint(ref.name)
            for name in c.referenced_bones():
                i = doc.scene.bone_index(name)
                points += [pose.heads[0, i], pose.tails[0, i]]
            points += [p for r, p in viewport.handles() if r.name == ref.name]
        else:
            points += [p for r, p in viewport.handles() if r == ref]
    return np.array(points).reshape(-1, 3)
