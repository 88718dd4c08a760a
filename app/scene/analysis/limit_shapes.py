"""Where a bone's rotation limit lies in the world, for drawing and dragging it.

A limit is relative to the bone's *rest frame*: the frame it would have with its static
``rotation`` in its parent's current frame (``docs/scene-format.md``, "Limits, precisely").
A cone is drawn from the bone's head around its rest tail direction, as long as the bone;
a hinge as the arc the tail sweeps about its axis from ``min`` to ``max``. The inverse
functions turn a point the user drags to back into a cone angle or a hinge angle.

No Qt here: the viewport draws and picks with these (on the CPU).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.math import quat
from app.scene.math.transforms import trs
from app.scene.rig import key_edits
from app.scene.rig.limits import perpendicular
from app.scene.rig.model import HingeLimit, Scene


@dataclass(frozen=True)
class LimitShape:
    """One limit placed in the world at the current frame.

    Attributes
    ----------
    constraint, bone : str
        Whose limit it is (a FABRIK's per-bone limit, or a points-at's).
    limit : ConeLimit or HingeLimit
    head : ndarray, (3,)
        The bone's head (world): the cone's apex, the arc's centre.
    rest_tail : ndarray, (3,)
        Head to rest tail (world): the cone's axis, the arc's zero angle.
    hinge_axis : ndarray, (3,)
        A hinge's unit axis in the world (for a cone: a unit vector across ``rest_tail``).
    """

    constraint: str
    bone: str
    limit: object
    head: np.ndarray
    rest_tail: np.ndarray
    hinge_axis: np.ndarray


def limited_bones(scene: Scene) -> list[tuple[str, str, object]]:
    """``(constraint, bone, limit)`` for every limit in the scene, in file order."""
    out = []
    for c in scene.constraints:
        out += [(c.name, bone, limit) for bone, limit in c.limits_by_bone()]
    return out


def shapes(scene: Scene, bone_to_world, frame: float, which=None) -> list[LimitShape]:
    """The limits of ``scene`` in the world.

    Parameters
    ----------
    bone_to_world : ndarray, shape (B, 4, 4)
        The evaluated pose at ``frame`` (parents' current frames).
    which : set of (constraint, bone), optional
        Only these (default: every limit).
    """
    out = []
    for name, bone_name, limit in limited_bones(scene):
        if which is not None and (name, bone_name) not in which:
            continue
        i = scene.bone_index(bone_name)
        bone = scene.bones[i]
        parent_to_world = (
            np.eye(4) if bone.parent is None else bone_to_world[scene.bone_index(bone.parent)]
        )
        translation = key_edits.translation_at(bone, frame)
        rest_to_world = parent_to_world @ trs(translation, bone.rotation, bone.scale)
        head = rest_to_world[:3, 3]
        rest_tail = rest_to_world[:3, :3] @ np.asarray(scene.tail_of(i), float)
        if isinstance(limit, HingeLimit):
            axis = rest_to_world[:3, :3] @ np.asarray(limit.axis, float)
        else:
            axis = perpendicular(rest_tail)
        axis = axis / max(np.linalg.norm(axis), 1e-12)
        out.append(LimitShape(name, bone_name, limit, head, rest_tail, axis))
    return out


def _turned(shape: LimitShape, degrees) -> np.ndarray:
    """``rest_tail`` turned about the hinge axis by each of ``degrees`` (N,): (N, 3)."""
    angles = np.radians(np.asarray(degrees, float))
    q = quat.quat_from_axis_angle(np.broadcast_to(shape.hinge_axis, angles.shape + (3,)), angles)
    return quat.rotate(q, np.broadcast_to(shape.rest_tail, angles.shape + (3,)))


def hinge_arc(shape: LimitShape, segments: int = 48) -> np.ndarray:
    """Points of the hinge's arc from ``min`` to ``max`` (world), (segments + 1, 3)."""
    angles = np.linspace(shape.limit.min, shape.limit.max, segments + 1)
    return shape.head + _turned(shape, angles)


def hinge_ends(shape: LimitShape) -> np.ndarray:
    """The arc's ``min`` and ``max`` ends (world), (2, 3)."""
    return shape.head + _turned(shape, [shape.limit.min, shape.limit.max])


def cone_rim(shape: LimitShape, segments: int = 48) -> np.ndarray:
    """The cone's rim (world), (segments, 3): tails at the cone angle all around."""
    length = np.linalg.norm(shape.rest_tail)
    axis = shape.rest_tail / max(length, 1e-12)
    u = shape.hinge_axis
    v = np.cross(axis, u)
    phi = np.linspace(0, 2 * np.pi, segments, endpoint=False)[:, None]
    theta = np.radians(shape.limit.degrees)
    across = np.cos(phi) * u + np.sin(phi) * v
    return shape.head + length * (np.cos(theta) * axis + np.sin(theta) * across)


def cone_mesh(shape: LimitShape, segments: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (segments + 1, 3), apex first, and triangle faces (segments, 3) of the cone."""
    rim = cone_rim(shape, segments)
    verts = np.concatenate([shape.head[None], rim])
    k = np.arange(segments)
    faces = np.stack([np.zeros(segments, int), 1 + k, 1 + (k + 1) % segments], axis=1)
    return verts, faces


def cone_angle_at(shape: LimitShape, point) -> float:
    """The cone angle (degrees, 0..180) whose rim passes through the direction of ``point``."""
    d = np.asarray(point, float) - shape.head
    n = np.linalg.norm(d) * np.linalg.norm(shape.rest_tail)
    if n == 0:
        return float(shape.limit.degrees)
    return float(np.degrees(np.arccos(np.clip(d @ shape.rest_tail / n, -1.0, 1.0))))


def hinge_angle_at(shape: LimitShape, point) -> float:
    """The signed hinge angle (degrees, -180..180) of ``point`` about the axis, from the
    rest tail (both projected across the axis)."""
    a = shape.hinge_axis
    d = np.asarray(point, float) - shape.head
    d = d - (d @ a) * a
    r = shape.rest_tail - (shape.rest_tail @ a) * a
    return float(np.degrees(np.arctan2(np.cross(r, d) @ a, r @ d)))
