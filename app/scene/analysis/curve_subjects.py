"""What the curve view plots for a selection.

- A pivot, or a bone no constraint drives: its quaternion ``q(t)``
(:mod:`app.scene.analysis.curves`),
  keys and all.
- A bone a constraint drives (or the constraint itself): the evaluated motion, its head's
  world position over the timeline, with the keys that drive it (the pivots', the target's)
  marked at their frames, and how far world and object space part.
- A position target: its position keys.

Each key marker remembers whose key it is, so clicking it can select that item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.rig import key_edits
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene
from app.scene.rig.refs import (
    BONE,
    CONSTRAINT,
    Ref,
    exists,
    part_refs,
    resolve,
)

ROTATION, DRIVEN, POSITION = "rotation", "driven", "position"


@dataclass(frozen=True, eq=False)
class CurveSubject:
    """What to plot.

    Attributes
    ----------
    kind : {"rotation", "driven", "position"}
    title : str
    ref : Ref
        The item whose values are plotted (for ``"driven"``, the bone).
    static : tuple
        The static value (quaternion or position) for ``"rotation"`` and ``"position"``.
    keys : Keys or None
        Its keys.
    bone : int or None
        The driven bone's index (``"driven"``).
    drivers : tuple of str
        Names of the constraints that drive it.
    key_owners : tuple of (float, Ref)
        For ``"driven"``: each frame at which something driving the bone is keyed, and
        what (the first owner when several are keyed there).
    bone_item : Bone or None
        For a free bone's ``"rotation"``: the bone (its translation keys are plotted too).
    """

    kind: str
    title: str
    ref: Ref
    static: tuple = ()
    keys: Keys | None = None
    bone: int | None = None
    drivers: tuple = ()
    key_owners: tuple = ()
    bone_item: Bone | None = None

    def key_frames(self) -> np.ndarray:
        if self.kind == DRIVEN:
            return np.array([f for f, _ in self.key_owners], dtype=float)
        return np.zeros(0) if self.keys is None else np.asarray(self.keys.frames, float)


def _driving(scene: Scene, bone: str) -> list:
    return [c for c in scene.constraints if bone in c.driven_bones()]


def _owners(scene: Scene, bone: str, constraints) -> tuple:
    """Frames keyed in what drives ``bone``: its own keys, its constraints' inputs."""
    refs = [Ref.bone(bone)]
    for c in constraints:
        refs += part_refs(c)
    owners: dict[float, Ref] = {}
    for ref in refs:
        for f in key_edits.key_frames(scene, ref):
            owners.setdefault(float(f), ref)
    return tuple(sorted(owners.items(), key=lambda item: item[0]))


def _driven(scene: Scene, bone: str) -> CurveSubject:
    constraints = _driving(scene, bone)
    names = tuple(c.name for c in constraints)
    return CurveSubject(
        DRIVEN,
        f"bone {bone}: head in world, driven by {', '.join(names)}",
        Ref.bone(bone),
        bone=scene.bone_index(bone),
        drivers=names,
        key_owners=_owners(scene, bone, constraints),
    )


def subject_of(scene: Scene, ref: Ref | None) -> CurveSubject | None:
    """What the curve view shows for ``ref`` (``None``: nothing to plot, e.g. a target that
    follows a bone)."""
    if ref is None or not exists(scene, ref):
        return None
    item = resolve(scene, ref)
    part = ref.part
    if part is not None and part.turns:  # its own keyed rotation (a pivot's q_i(t))
        return CurveSubject(
            ROTATION,
            f"{ref.label()} of {ref.name}: qᵢ(t)",
            ref,
            tuple(item.rotation),
            item.rotation_keys,
        )
    if ref.kind == BONE:
        if _driving(scene, ref.name):
            return _driven(scene, ref.name)
        return CurveSubject(
            ROTATION,
            f"bone {ref.name}: local rotation",
            ref,
            tuple(item.rotation),
            item.rotation_keys,
            bone_item=item,
        )
    if ref.kind == CONSTRAINT:
        driven = item.driven_bones()
        return _driven(scene, driven[-1]) if driven else None
    if part is not None and not part.on_body and item.bone is None:  # a position target
        return CurveSubject(
            POSITION,
            f"{ref.label()}: position in world",
            ref,
            tuple(item.position),
            item.position_keys,
        )
    return None
