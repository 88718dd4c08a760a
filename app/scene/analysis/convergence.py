"""The three multi-parent integrators side by side: their paths of the body's head and how far
the stepped ones are from the exact limit (what the convergence view shows).

One multi-parent constraint of a scene is evaluated three times, alone in its integrator:
``"exact"`` (the limit), and ``"seed"`` and ``"twist"`` at a chosen number of substeps. Each
is a full bake of the scene with that one field changed, so the paths are what the editor
would show with that setting.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.evaluate import bake
from app.scene.rig.model import Scene

INTEGRATORS = ("exact", "seed", "twist")


@dataclass(frozen=True, eq=False)
class Paths:
    """The body's head under each integrator.

    Attributes
    ----------
    constraint, body : str
    substeps : int
        Of the seed and twist paths.
    frames : ndarray, shape (F,)
    heads : dict of str -> ndarray, shape (F, 3)
        Per integrator, the body's head in world coordinates.
    distance : dict of str -> ndarray, shape (F,)
        For ``"seed"`` and ``"twist"``: distance of the head to the exact one per frame.
    """

    constraint: str
    body: str
    substeps: int
    frames: np.ndarray
    heads: dict
    distance: dict

    def max_distance(self, integrator: str) -> float:
        return float(self.distance[integrator].max(initial=0.0))


def multi_parent_constraints(scene: Scene) -> list[str]:
    """Names of the scene's multi-parent constraints, in order."""
    return [c.name for c in scene.constraints if _has_integrators(c)]


def _has_integrators(constraint) -> bool:
    """A kind whose ``integrator`` field picks among :data:`INTEGRATORS` (a multi-parent)."""
    return constraint.integrated


def integrator_paths(
    scene: Scene, constraint: str, substeps: int, frames=None, space: str | None = None
) -> Paths:
    """The body's head of ``constraint`` under the three integrators at ``frames``.

    Parameters
    ----------
    scene : Scene
    constraint : str
        A multi-parent constraint's name.
    substeps : int
        For the seed and twist integrators (``>= 1``).
    frames : array_like, optional
        Default: every frame of the scene.
    space : {"world", "object"}, optional
        Overrides the constraints' space, as the editor's toggle does.
    """
    c = scene.constraint(constraint)
    if not _has_integrators(c):
        raise ValueError(f"{constraint!r} is not a multi-parent constraint")
    if frames is None:
        frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=float)
    frames = np.asarray(frames, dtype=float)
    index = scene.bone_index(c.body)
    heads = {}
    for integrator in INTEGRATORS:
        changed = dataclasses.replace(c, integrator=integrator, substeps=int(substeps))
        variant = scene.copy()
        variant.constraints = [changed if x.name == constraint else x for x in scene.constraints]
        heads[integrator] = bake(variant, frames, space).heads[:, index]
    distance = {k: np.linalg.norm(heads[k] - heads["exact"], axis=1) for k in ("seed", "twist")}
    return Paths(constraint, c.body, int(substeps), frames, heads, distance)


def projection_axes(points) -> np.ndarray:
    """The two world axes along which ``points (N, 3)`` spread most (a readable 2D view).

    Returns indices ``(2,)``, in increasing order.
    """
    spread = np.ptp(np.asarray(points, dtype=float).reshape(-1, 3), axis=0)
    return np.sort(np.argsort(spread)[-2:])
