"""The bone meshes of every frame of a cached timeline, built once per timeline.

Playback reads each frame's pose from the document's timeline cache (evaluated once per
edit); the octahedra drawn for it (:func:`app.scene.analysis.bone_shapes.octahedra`, their
face corners and flat normals) depend on that pose alone. :class:`TimelineShapes` builds
them for every frame of a timeline in one vectorized pass and hands a frame's rows to
:meth:`BoneMeshItem.set_shapes` instead of rebuilding them per frame change (half of
``SceneDrawing.draw``'s time before). The rows are exactly what ``set_bones`` computes for
that frame's heads and tails (row-wise arithmetic does not depend on how many rows there are).
"""

from __future__ import annotations

import numpy as np

from app.scene.analysis.bone_shapes import octahedra

#: The most bone-frames kept (576 bytes each: 24 corners x position and normal x float32):
#: a longer timeline (the 100,000-frame clip) builds each frame's meshes when it is drawn.
MAX_BONE_FRAMES = 120_000


def face_corners(heads, tails):
    """The octahedra of ``octahedra(heads, tails)`` as drawn: face corners and their normals.

    Parameters
    ----------
    heads, tails : ndarray, shape (N, 3)
        World positions.

    Returns
    -------
    corners : ndarray, shape (24 M, 3)
        Each kept bone's 8 faces, 3 corners each, face by face.
    normals : ndarray, shape (24 M, 3)
        Each corner's face normal (not normalized: the shader does it).
    bones : ndarray of int, shape (M,)
        Which input bone each mesh is (bones of zero length have none).
    """
    verts, faces, bone_of_vertex = octahedra(heads, tails)
    corners = verts[faces]  # (8 M, 3 corners, 3)
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals = np.repeat(normals, 3, axis=0)
    return corners.reshape(-1, 3), normals, bone_of_vertex[::6]


class TimelineShapes:
    """Bone meshes of every frame of one cached timeline (the last one asked for)."""

    def __init__(self, max_bone_frames: int = MAX_BONE_FRAMES):
        self._max = max_bone_frames
        self._timeline = None
        self._corners = self._normals = self._bones = self._offsets = None
        self.builds = 0  # how many timelines were built (tests: once per edit)

    def of_pose(self, document, space, pose):
        """:meth:`frame` for ``pose`` (the document's pose in ``space`` at its frame) when
        the document read it from its cached timeline, else ``None``."""
        timeline = document.evaluations.cached_timeline(space)
        if timeline is None or not np.may_share_memory(pose.heads, timeline.heads):
            return None
        k = int(round(document.frame - document.scene.frame_start))
        return self.frame(timeline, k)

    def frame(self, timeline, k: int):
        """``(corners, normals, bones)`` of frame ``k`` of ``timeline`` as float32 rows for
        :meth:`BoneMeshItem.set_shapes`, or ``None`` when the timeline is too long to keep.
        """
        if timeline is not self._timeline:
            self._build(timeline)
        if self._corners is None:
            return None
        lo, hi = self._offsets[k], self._offsets[k + 1]
        bones = self._bones[lo:hi] - k * timeline.heads.shape[1]
        return self._corners[24 * lo : 24 * hi], self._normals[24 * lo : 24 * hi], bones

    def _build(self, timeline) -> None:
        self._timeline = timeline
        self._corners = None
        frames, bones = timeline.heads.shape[:2]
        if frames * bones > self._max:
            return
        corners, normals, kept = face_corners(
            timeline.heads.reshape(-1, 3), timeline.tails.reshape(-1, 3)
        )
        self._corners = corners.astype(np.float32)
        self._normals = normals.astype(np.float32)
        self._bones = kept
        # Kept bones are in frame order: frame k's meshes are one contiguous run.
        self._offsets = np.searchsorted(kept, bones * np.arange(frames + 1))
        self.builds += 1
