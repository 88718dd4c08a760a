"""The viewport's drawing of rotation limits: a translucent cone with its rim, a hinge's
arc with spokes to its ``min`` and ``max`` ends and a handle on each end.

Limits show for the selected constraints and the selected bones (Blender shows IK limits
of the selected bones in pose mode): the rest of the time they would hide the skeleton.
The rim and the ends are what :mod:`app.widgets.viewport.interaction.limit_drag` lets the user drag.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl

from app.scene.analysis import limit_shapes
from app.scene.rig.model import ConeLimit
from app.widgets.viewport.overlays import OVERLAY

CONE_FILL = (1.0, 0.82, 0.25, 0.16)
CONE_RIM = (1.0, 0.82, 0.25, 0.95)
HINGE_ARC = (1.0, 0.82, 0.25, 0.95)
HINGE_MIN = (0.35, 0.75, 1.0, 1.0)  # the min end blue, the max end red: which is which
HINGE_MAX = (1.0, 0.42, 0.35, 1.0)


def shown_shapes(document) -> list:
    """The limits to show (and drag) at the current frame: of the selected constraints and
    of the selected bones."""
    scene = document.scene
    pose = document.pose()
    if len(pose.bone_names) != len(scene.bones):
        return []
    names = {r.name for r in document.selection if r.kind == "constraint"}
    bones = set(document.selected_bones())
    which = {(c, b) for c, b, _ in limit_shapes.limited_bones(scene) if c in names or b in bones}
    if not which:
        return []
    return limit_shapes.shapes(scene, pose.bone_to_world[0], document.frame, which)


class LimitItems:
    """The cones, arcs and end handles, under the viewport's root item."""

    def __init__(self, root):
        self._mesh = gl.GLMeshItem(
            parentItem=root, smooth=False, drawEdges=False, glOptions=OVERLAY
        )
        self._mesh.setDepthValue(7)
        self._lines = gl.GLLinePlotItem(
            parentItem=root, mode="lines", width=2, antialias=True, glOptions=OVERLAY
        )
        self._lines.setDepthValue(8)
        self._ends = gl.GLScatterPlotItem(
            parentItem=root, pxMode=True, size=11.0, glOptions=OVERLAY
        )
        self._ends.setDepthValue(11)
        self.draw([])

    def draw(self, shapes) -> None:
        """Show ``shapes`` (:class:`~app.scene.analysis.limit_shapes.LimitShape`)."""
        verts, faces, lines, colors, ends, end_colors = [], [], [], [], [], []
        for s in shapes:
            if isinstance(s.limit, ConeLimit):
                v, f = limit_shapes.cone_mesh(s)
                faces.append(f + sum(len(x) for x in verts))
                verts.append(v)
                rim = limit_shapes.cone_rim(s)
                segs = np.stack([rim, np.roll(rim, -1, axis=0)], axis=1).reshape(-1, 3)
                lines.append(segs)
                colors += [CONE_RIM] * len(segs)
            else:
                arc = limit_shapes.hinge_arc(s)
                segs = np.stack([arc[:-1], arc[1:]], axis=1).reshape(-1, 3)
                e = limit_shapes.hinge_ends(s)
                spokes = np.array([s.head, e[0], s.head, e[1]])
                lines += [segs, spokes]
                colors += [HINGE_ARC] * len(segs) + [HINGE_MIN] * 2 + [HINGE_MAX] * 2
                ends.append(e)
                end_colors += [HINGE_MIN, HINGE_MAX]
        self._mesh.setVisible(bool(verts))
        if verts:
            v = np.concatenate(verts)
            self._mesh.setMeshData(
                vertexes=v,
                faces=np.concatenate(faces),
                vertexColors=np.tile(CONE_FILL, (len(v), 1)),
            )
        self._lines.setVisible(bool(lines))
        if lines:
            self._lines.setData(pos=np.concatenate(lines), color=np.array(colors))
        self._ends.setVisible(bool(ends))
        if ends:
            self._ends.setData(pos=np.concatenate(ends), color=np.array(end_colors))
