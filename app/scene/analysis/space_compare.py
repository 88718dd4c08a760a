"""World space against object space: how far apart the two evaluations put every bone.

The seed's options 1 and 2 agree without limits and without non-uniform scale; with them
they part, and the curve view plots by how much over the whole timeline. Both evaluations
are ordinary bakes with the ``space`` override (the editor's toggle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.evaluate import BakeResult, Evaluator
from app.scene.math import quat
from app.scene.math.transforms import rotation_from_matrix
from app.scene.rig.model import Scene


@dataclass(frozen=True, eq=False)
class SpaceDifference:
    """Per frame and bone, the world-space result against the object-space one.

    Attributes
    ----------
    world, object : BakeResult
        The two evaluations (same frames).
    head_distance, tail_distance : ndarray, shape (F, B)
        ``|p_world - p_object|`` in scene units.
    angle_deg : ndarray, shape (F, B)
        Angle of the rotation between the two world orientations (polar rotations of
        ``bone_to_world``), in ``[0, 180]`` degrees.
    """

    world: BakeResult
    object: BakeResult
    head_distance: np.ndarray
    tail_distance: np.ndarray
    angle_deg: np.ndarray

    @property
    def frames(self) -> np.ndarray:
        return self.world.frames


def space_difference(scene: Scene, frames=None) -> SpaceDifference:
    """Evaluate ``scene`` in both spaces at ``frames`` (default: its timeline) and compare.

    Raises
    ------
    SceneError
        As :func:`~app.scene.evaluate.bake` does.
    """
    world = Evaluator(scene).evaluate(frames, "world")
    obj = Evaluator(scene).evaluate(frames, "object")
    angle = quat.angle_between(rotation_from_matrix(world.bone_to_world),
                               rotation_from_matrix(obj.bone_to_world))  # fmt: skip
    return SpaceDifference(
        world=world,
        object=obj,
        head_distance=np.linalg.norm(world.heads - obj.heads, axis=-1),
        tail_distance=np.linalg.norm(world.tails - obj.tails, axis=-1),
        angle_deg=np.degrees(angle),
    )
