"""A pyqtgraph GL item that draws a posed skeleton: octahedral bones and joint points."""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl

from app.widgets.viewport.bone_buffers import BoneMeshItem
from app.widgets.viewport.gl_batches import PointSprites
from app.widgets.viewport.shading import LIT

BONE_COLOR = (0.80, 0.82, 0.86, 1.0)
JOINT_COLOR = (0.95, 0.75, 0.30, 1.0)
EDGE_COLOR = (0.12, 0.12, 0.15, 1.0)


class SkeletonItem(gl.GLGraphicsItem.GLGraphicsItem):
    """Bones as octahedra from head to tail, joints as points.

    Call :meth:`set_pose` with world heads and tails; colours may be given per bone.

    Parameters
    ----------
    ghost : bool
        Draw translucent, without joints or outlines (Compare mode's other space).
    """

    def __init__(self, parentItem=None, ghost: bool = False):
        super().__init__(parentItem=parentItem)
        self._ghost = ghost
        self._mesh = BoneMeshItem(  # every bone in one vertex buffer, updated in place
            parentItem=self,
            shader=LIT,
            glOptions="translucent" if ghost else "opaque",
            edge_color=None if ghost else EDGE_COLOR,
        )
        self._joints = PointSprites(
            parentItem=self, glOptions="opaque", size=7.0, color=JOINT_COLOR
        )  # one draw call for every joint
        self._joints.setVisible(not ghost)

    def set_pose(self, heads, tails, colors=None, joint_colors=None, shapes=None) -> None:
        """Show bones from ``heads`` to ``tails`` (world, shape (B, 3)).

        Parameters
        ----------
        colors : ndarray, shape (B, 4), optional
            RGBA per bone; default a light grey.
        joint_colors : ndarray, shape (B, 4), optional
            RGBA per joint (at each head); default amber.
        shapes : tuple, optional
            The bones' meshes for these heads and tails, built beforehand
            (:meth:`~app.widgets.viewport.bone_frames.TimelineShapes.frame`).
        """
        heads = np.asarray(heads, dtype=float)
        tails = np.asarray(tails, dtype=float)
        if colors is None:
            colors = np.tile(BONE_COLOR, (len(heads), 1))
        if shapes is None:
            self._mesh.set_bones(heads, tails, colors)
        else:
            self._mesh.set_shapes(*shapes, colors)
        self._mesh.setVisible(self._mesh.count > 0)
        if not self._ghost:
            color = JOINT_COLOR if joint_colors is None else joint_colors
            self._joints.setData(pos=heads, color=color)
