"""Every handle's world position at every frame of a cached timeline, once per edit.

:func:`~app.widgets.viewport.scene_drawing.handles_of` places each pivot, target and pole
at the current frame one by one: a key sampling and a transform per handle, half of a frame
change's drawing on the 200-bone rig (30 constraints). While the document reads its pose
from the cached timeline, :class:`TimelineHandles` gives the same list from positions built
for the whole timeline in one pass per handle (its keys sampled at every frame at once, the
transforms applied as one stacked product), rebuilt when the timeline is (after each edit).
"""

from __future__ import annotations

import numpy as np

from app.scene.math.transforms import transform_points
from app.scene.rig.keys import sample
from app.scene.rig.prepared import prepare
from app.scene.rig.refs import part_refs, resolve


def timeline_handles(scene, timeline):
    """Each handle of ``scene`` (as ``handles_of`` lists them) at every frame of
    ``timeline``.

    Returns
    -------
    refs : list of Ref
    positions : ndarray, shape (F, H, 3)
        World positions per timeline frame.
    """
    index = prepare(scene).index
    frames = np.asarray(timeline.frames, dtype=float)
    refs, columns = [], []

    def target(t) -> np.ndarray:
        if t.bone is None:
            return sample(t.position, t.position_keys, frames)
        i = index[t.bone]
        if t.at == "head":
            return timeline.heads[:, i]
        return transform_points(timeline.bone_to_world[:, i], np.asarray(scene.tail_of(i)))

    for c in scene.constraints:
        for ref in part_refs(c):
            if ref.part.on_body:  # a point on the body, in its frame (a pivot)
                body = index.get(c.driven_bones()[0])
                if body is None:
                    continue
                p = resolve(scene, ref)
                pivot_in_body = sample(p.position, p.position_keys, frames)
                refs.append(ref)
                columns.append(transform_points(timeline.bone_to_world[:, body], pivot_in_body))
            else:
                refs.append(ref)
                columns.append(target(resolve(scene, ref)))
    positions = np.stack(columns, axis=1) if columns else np.zeros((len(frames), 0, 3))
    return refs, positions


class TimelineHandles:
    """The handles of the document's cached timeline (the last one asked for)."""

    def __init__(self):
        self._timeline = None
        self._built = None
        self.builds = 0  # how many timelines were built (tests: once per edit)

    def of_document(self, document):
        """``handles_of(document)`` read from the timeline built once, or ``None`` when
        the document's pose is not a frame of its cached timeline."""
        timeline = document.evaluations.cached_timeline()
        pose = document.pose()
        if timeline is None or not np.may_share_memory(pose.heads, timeline.heads):
            return None
        if timeline is not self._timeline:
            self._timeline = timeline
            self._built = timeline_handles(document.scene, timeline)
            self.builds += 1
        refs, positions = self._built
        row = positions[int(round(document.frame - document.scene.frame_start))]
        return list(zip(refs, row))
