"""A viewport layer: what a teaching view or a tutorial adds to the viewport.

The viewport draws the scene (ground, skeleton, handles of the constraints' parts, limits,
meshes) and then every registered layer (:mod:`.registry`): motion trails and ghosts, the
step-through's passes and arrows, a basis-change tutorial's frames. A layer owns its
pyqtgraph items (under the viewport's Y-up root), says when it is active, draws itself from
the document, returns the labels it wants (shown with the scene's, ranked as what a
teaching view says), and may add draggable handles of its own. The general drawing never
asks which layer it holds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from app.scene.rig.refs import Ref
from app.widgets.viewport.gl_batches import PointSprites, SegmentLines
from app.widgets.viewport.overlays import OVERLAY

Labels = list  # of (position (3,), text, RGBA)


class LayerHandle(NamedTuple):
    """A draggable point a layer adds (a tutorial's point on a bone's head).

    Attributes
    ----------
    ref : Ref
        What the viewport picks and drags (``Ref(POINT, bone)`` moves the bone's head).
    world : ndarray, shape (3,)
        Its world position at the current frame.
    text : str
        Its label.
    color : ndarray, shape (4,)
        RGBA of its dot and label.
    """

    ref: Ref
    world: np.ndarray
    text: str
    color: np.ndarray


class Layer:
    """What a layer does; the defaults draw nothing and add no handle.

    A subclass sets :attr:`name` (its registry key), makes its items in ``__init__(root)``
    (with :meth:`lines` and :meth:`points`) and overrides what it needs.
    """

    #: The registry key (``viewport.drawing.layers[name]``).
    name = ""

    def active(self, document) -> bool:
        """Whether the layer shows anything for ``document`` now; an inactive layer is
        hidden (:meth:`hide`) and adds no handle."""
        return True

    def draw(self, document, pose, scale: float) -> Labels:
        """Rebuild the items from the document's ``pose`` at the current frame.

        Parameters
        ----------
        pose : Pose
            ``document.pose()``, whose bones are the scene's.
        scale : float
            The skeleton's size (world units), for the length of drawn axes.

        Returns
        -------
        Labels
            ``(position (3,), text, RGBA)`` of each label the layer wants.
        """
        return []

    def hide(self) -> None:
        """Hide every item (the layer is not active)."""

    def handles(self, document, pose) -> list[LayerHandle]:
        """The layer's draggable points at the current frame (asked while it is active)."""
        return []

    def drawn_points(self) -> np.ndarray:
        """World points drawn now that Frame All keeps in view, (N, 3)."""
        return np.zeros((0, 3))

    # --- items -------------------------------------------------------------------------

    @staticmethod
    def lines(root, depth: int, width: float, options=OVERLAY) -> SegmentLines:
        """A hidden batch of antialiased segments under ``root``, drawn at ``depth``."""
        item = SegmentLines(parentItem=root, width=width, antialias=True, glOptions=options)
        item.setDepthValue(depth)
        item.setVisible(False)
        return item

    @staticmethod
    def points(root, depth: int) -> PointSprites:
        """A hidden batch of round dots under ``root``, drawn at ``depth``."""
        item = PointSprites(parentItem=root, glOptions=OVERLAY)
        item.setDepthValue(depth)
        item.setVisible(False)
        return item
