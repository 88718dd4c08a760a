"""The view registry: how the editor shows each constraint kind, keyed by model class.

The outliner's words, the inspector's section, the add-menu entries (see
:class:`~app.widgets.kinds.base.ConstraintView`). Adding a kind is a view module and one
line in :data:`VIEWS` (a test fixture uses ``VIEWS.register`` and ``VIEWS.unregister``); a
kind without a view gets the plain one (its label, space and targets).
"""

from __future__ import annotations

import numpy as np

from app.scene.registry import Registry
from app.widgets.kinds import fabrik, follows, limit_distance, multi_parent, points_at
from app.widgets.kinds.base import ConstraintView, target_words

#: Model class -> its view; a kind's one line is its ``VIEWS.register(view)``.
VIEWS: Registry[type, ConstraintView] = Registry("view", key=lambda view: view.cls)
VIEWS.register(multi_parent.VIEW)
VIEWS.register(points_at.VIEW)
VIEWS.register(fabrik.VIEW)
VIEWS.register(follows.CHILD_OF)
VIEWS.register(follows.COPY_ROTATION)
VIEWS.register(follows.COPY_LOCATION)
VIEWS.register(limit_distance.VIEW)


def view_for(constraint) -> ConstraintView:
    """The view of ``constraint``'s kind (the plain one when none is registered)."""
    view = VIEWS.get(type(constraint))
    return view if view is not None else ConstraintView(type(constraint))


def words(constraint) -> str:
    """The kind in words for people: ``"points-at"``."""
    return view_for(constraint).words


def target_text(constraint, target) -> str:
    """Where ``target`` (one of ``constraint``'s) aims, in words: ``"→ foot_ctrl.L tail"``."""
    return target_words(view_for(constraint), target)


def add_on_bone(menu, document, bone: str, bones: list[str]) -> None:
    """Every kind's entries in a bone's Add menu, in registry order."""
    for view in VIEWS.values():
        if view.add_on_bone is not None:
            view.add_on_bone(menu, document, bone, bones)


def segments_of(document):
    """``(pos (2N, 3), colors (2N, 4))``: the line segments of the closed world polylines
    every kind's view draws at the current frame (:attr:`ConstraintView.shapes`)."""
    pos, colors = [np.empty((0, 3))], [np.empty((0, 4))]
    for c in document.scene.constraints:
        view = VIEWS.get(type(c))
        for ring, color in view.shapes(document, c) if view and view.shapes else ():
            pos.append(np.stack([ring, np.roll(ring, -1, axis=0)], axis=1).reshape(-1, 3))
            colors.append(np.tile(color, (len(pos[-1]), 1)))
    return np.concatenate(pos), np.concatenate(colors)
