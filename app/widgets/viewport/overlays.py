"""Viewport overlays drawn over the skeleton: handles and the geometry of guide lines.

Handles (pivots, targets) ignore depth, so a pivot inside the foot or behind the shin stays
visible and grabbable, as Blender draws its gizmos; labels are drawn last by
:mod:`~app.widgets.viewport.label_sprites`.
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL

from app.widgets.viewport.gl_batches import PointSprites

#: Drawn over everything, blended.
OVERLAY = {
    GL.GL_DEPTH_TEST: False,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: False,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}

#: Depth-tested but blended: guide lines that the bones may hide.
BLENDED = {
    GL.GL_DEPTH_TEST: True,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: False,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
}


class HandlesItem(PointSprites):
    """Round screen-space handles with a dark outline, drawn over everything: one sprite
    per handle (fill and outline) in one draw call."""

    def __init__(self, parentItem=None, size: float = 10.0):
        super().__init__(parentItem=parentItem, glOptions=OVERLAY, size=size, outline=2.0)
        self._handle_size = size

    def set_handles(self, positions, colors, selected=None) -> None:
        """Handles at world ``positions`` (N, 3) with RGBA ``colors`` (N, 4).

        ``selected`` (N,) bool draws those larger, with a white outline.
        """
        positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        n = len(positions)
        if n == 0 and self.count == 0:
            return  # none before, none now (a frame of a scene without constraints)
        selected = np.zeros(n, bool) if selected is None else np.asarray(selected, bool)
        size = np.where(selected, self._handle_size + 3, self._handle_size)
        outline = np.where(selected[:, None], [1.0, 1.0, 1.0, 1.0], [0.06, 0.06, 0.08, 0.95])
        self.setData(
            pos=positions, color=np.asarray(colors, float).reshape(-1, 4), size=size, edge=outline
        )


def axes_lines(bone_to_world, lengths) -> tuple[np.ndarray, np.ndarray]:
    """Line segments of each bone's frame axes (x red, y green, z blue).

    Parameters
    ----------
    bone_to_world : ndarray, shape (B, 4, 4)
    lengths : ndarray, shape (B,)
        Drawn length of the axes per bone.

    Returns
    -------
    positions : ndarray, shape (6 B, 3)
        Pairs of points for ``mode="lines"``.
    colors : ndarray, shape (6 B, 4)
    """
    m = np.asarray(bone_to_world, dtype=float)
    origin = m[:, :3, 3]
    axes = m[:, :3, :3]
    axes = axes / np.maximum(np.linalg.norm(axes, axis=1, keepdims=True), 1e-12)
    ends = origin[:, None, :] + np.moveaxis(axes, 2, 1) * np.asarray(lengths)[:, None, None]
    pos = np.empty((len(m), 3, 2, 3))
    pos[:, :, 0] = origin[:, None, :]
    pos[:, :, 1] = ends
    rgb = np.array([[0.95, 0.25, 0.25, 1], [0.35, 0.9, 0.3, 1], [0.3, 0.5, 1.0, 1]])
    colors = np.broadcast_to(rgb[None, :, None, :], (len(m), 3, 2, 4))
    return pos.reshape(-1, 3), colors.reshape(-1, 4).copy()


def circle_points(center, right, up, radius: float, segments: int = 64) -> np.ndarray:
    """A closed circle (segments + 1, 3) around ``center`` in the plane of ``right``, ``up``."""
    t = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    return np.asarray(center)[None] + radius * (
        np.cos(t)[:, None] * np.asarray(right)[None] + np.sin(t)[:, None] * np.asarray(up)[None]
    )


def arrow_lines(starts, ends, head: float = 0.22) -> np.ndarray:
    """Line segments ``(6 N, 3)`` (pairs, for ``mode="lines"``) of arrows from ``starts`` to
    ``ends`` ``(N, 3)``: the shaft and two barbs ``head`` of its length long, in a plane
    holding the shaft (arrows of no length are points)."""
    starts = np.asarray(starts, dtype=float).reshape(-1, 3)
    ends = np.asarray(ends, dtype=float).reshape(-1, 3)
    shaft = ends - starts
    length = np.linalg.norm(shaft, axis=1, keepdims=True)
    d = shaft / np.where(length > 0, length, 1.0)
    # A side direction: across the shaft, from the world axis least along it.
    least = np.eye(3)[np.argmin(np.abs(d), axis=1)]
    side = np.cross(d, least)
    side /= np.maximum(np.linalg.norm(side, axis=1, keepdims=True), 1e-12)
    back = ends - head * shaft
    spread = 0.45 * head * length * side
    pos = np.stack([starts, ends, ends, back + spread, ends, back - spread], axis=1)
    return pos.reshape(-1, 3)
