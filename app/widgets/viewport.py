"""The 3D viewport: a pyqtgraph ``GLViewWidget`` showing the document's posed skeleton.

Pivotal's world is Y-up (the BVH convention). pyqtgraph's camera orbits about +Z, so every
scene item hangs under one root item whose transform turns world Y-up into the view's Z-up.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph.opengl as gl
from PySide6 import QtGui

from app.widgets.skeleton_item import SkeletonItem

#: World (Y-up) to pyqtgraph's view coordinates (Z-up): (x, y, z) -> (x, -z, y).
WORLD_TO_VIEW = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=float)


class Viewport(gl.GLViewWidget):
    """Shows the document's pose; re-draws when the document says the pose changed."""

    def __init__(self, document, parent=None):
        super().__init__(parent=parent)
        self.setObjectName("viewport")
        self._document = document
        self.setBackgroundColor((38, 40, 46))
        self._root = gl.GLGraphicsItem.GLGraphicsItem()
        self._root.setTransform(QtGui.QMatrix4x4(*WORLD_TO_VIEW.reshape(-1)))
        self.addItem(self._root)
        self._grid = gl.GLGridItem(color=(120, 120, 130, 110))
        self._grid.setParentItem(self._root)
        self._grid.rotate(90, 1, 0, 0)  # the grid item lies in XY; the ground is XZ
        self._axes = gl.GLAxisItem(parentItem=self._root, glOptions="opaque")
        self._skeleton = SkeletonItem(parentItem=self._root)
        document.pose_changed.connect(self._on_pose_changed)
        document.scene_changed.connect(self.frame_all)
        self._on_pose_changed()
        self.frame_all()

    def _on_pose_changed(self) -> None:
        pose = self._document.pose()
        self._skeleton.set_pose(pose.heads[0], pose.tails[0])

    def frame_all(self) -> None:
        """Point the camera at the whole skeleton over its timeline's first frame."""
        pose = self._document.pose()
        points = np.concatenate([pose.heads[0], pose.tails[0]])
        lo, hi = points.min(axis=0), points.max(axis=0)
        center = WORLD_TO_VIEW[:3, :3] @ ((lo + hi) / 2)
        radius = max(float(np.linalg.norm(hi - lo)) / 2, 1e-3)
        self._grid.setSize(x=radius * 8, y=radius * 8)
        spacing = 10 ** np.floor(np.log10(radius / 2)) if radius > 0 else 1.0
        self._grid.setSpacing(x=spacing, y=spacing)
        self._axes.setSize(radius / 2, radius / 2, radius / 2)
        self.setCameraPosition(pos=QtGui.QVector3D(*center), distance=radius * 3.2,
                               elevation=18, azimuth=-60)  # fmt: skip
