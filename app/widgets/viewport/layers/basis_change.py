"""The basis-change tutorial's layer: each basis's axes and forward arrow, the point seen
from each, the point's coordinates in each, and the point itself as a handle.

Active while the scene carries a ``tutorial`` key of kind ``basis_change`` whose bones exist
(:func:`app.editor.tutorials.basis_change_of`); the Tutorial dock shows the same
coordinates as a table.
"""

from __future__ import annotations

import numpy as np

from app.editor import tutorials
from app.scene.rig.refs import POINT, Ref
from app.widgets.viewport.layers.base import Labels, Layer, LayerHandle
from app.widgets.viewport.overlays import BLENDED, arrow_lines, axes_lines

FRAME_LABEL_COLOR = (0.95, 0.95, 0.98, 1.0)
POINT_COLOR = np.array([1.0, 0.95, 0.4, 1.0])


def _tutorial_of(document):
    """The scene's basis-change tutorial, or ``None``; a scene without a ``tutorial`` key
    (every scene but the tutorial's) is answered here, without reading one."""
    scene = document.scene
    if scene.extra.get("tutorial") is None:
        return None
    return tutorials.basis_change_of(scene)


class BasisChangeLayer(Layer):
    """The frames, arrows and labels of a basis-change tutorial, and its point's handle."""

    name = "basis_change"

    def __init__(self, root):
        self.tutorial_lines = self.lines(root, 7, 3.0, BLENDED)

    def active(self, document) -> bool:
        return _tutorial_of(document) is not None

    def hide(self) -> None:
        self.tutorial_lines.setVisible(False)

    def handles(self, document, pose) -> list[LayerHandle]:
        """The point (a bone's head, dragged as the bone), once the pose has every bone."""
        tutorial = _tutorial_of(document)
        scene = document.scene
        if tutorial is None or len(pose.bone_names) != len(scene.bones):
            return []
        world, _ = tutorials.point_in_frames(tutorial, scene, pose.bone_to_world[0])
        return [LayerHandle(Ref(POINT, tutorial.point), world, tutorial.point_label, POINT_COLOR)]

    def draw(self, document, pose, scale: float) -> Labels:
        tutorial = _tutorial_of(document)
        self.tutorial_lines.setVisible(True)
        scene = document.scene
        m = pose.bone_to_world[0]
        index = [scene.bone_index(b) for b, _ in tutorial.frames]
        length = 0.18 * max(scale, 1e-6)
        pos, col = axes_lines(m[index], np.full(len(index), length))
        world, coords = tutorials.point_in_frames(tutorial, scene, m)
        labels: Labels = []
        extra_pos, extra_col = [], []
        for (bone, _), i in zip(tutorial.frames, index):
            origin = m[i, :3, 3]
            forward = m[i, :3, :3] @ tutorial.forward
            forward /= max(np.linalg.norm(forward), 1e-12)
            extra_pos += list(arrow_lines(origin[None], (origin + 1.4 * length * forward)[None]))
            extra_col += [(1.0, 1.0, 1.0, 0.9)] * 6
            extra_pos += [origin, world]  # the point seen from this basis
            extra_col += [(0.9, 0.9, 0.5, 0.35)] * 2
            c = coords[bone]
            labels.append(
                (origin, f"in {bone}: ({c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f})", FRAME_LABEL_COLOR)
            )
        self.tutorial_lines.setData(
            pos=np.concatenate([pos, np.array(extra_pos)]),
            color=np.concatenate([col, np.array(extra_col)]),
        )
        return labels
