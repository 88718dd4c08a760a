"""The solver registry: which solver evaluates each constraint kind, keyed by model class.

A solver is any object (usually a module) with ``apply(constraint, context)``; it reads the
current world transforms from the :class:`~app.scene.evaluate.Context` and writes the driven
bones back with ``context.set_world``. Optional parts, asked with ``getattr``:

- ``is_stale(constraint, cache_entry, scene) -> bool``: its cached work no longer matches;
- ``group_key(constraint, ctx)`` and ``apply_group(constraints, ctx)``: alike constraints
  solved as one batch (:mod:`app.scene.constraints.batches`);

What the editor's step-through shows of a solver is in :data:`TRACES` (``trace(constraint,
ctx, frame)`` from the pose the constraint starts from). Adding a kind is one line in
:data:`SOLVERS` (a test fixture uses :func:`register`).
"""

from __future__ import annotations

from typing import Protocol

from app.scene.constraints import child_of, copy_location, copy_rotation, points_at
from app.scene.constraints.fabrik import solver as fabrik
from app.scene.constraints.limit_distance import model as limit_distance
from app.scene.constraints.limit_distance import solver as limit_distance_solver
from app.scene.constraints.multi_parent import solver as multi_parent
from app.scene.constraints.multi_parent.steps import steps
from app.scene.errors import SceneError
from app.scene.rig.model import (
    ChildOf,
    Constraint,
    CopyLocation,
    CopyRotation,
    Fabrik,
    MultiParent,
    PointsAt,
)


class Solver(Protocol):
    """What evaluation asks of a solver (the optional parts: see the module)."""

    def apply(self, constraint: Constraint, context) -> None: ...


#: Model class -> its solver.
SOLVERS: dict[type, Solver] = {
    MultiParent: multi_parent,
    PointsAt: points_at,
    Fabrik: fabrik,
    ChildOf: child_of,
    CopyRotation: copy_rotation,
    CopyLocation: copy_location,
    limit_distance.LimitDistance: limit_distance_solver,
}


def register(cls: type, solver: Solver) -> None:
    """Let ``cls`` be evaluated by ``solver`` (a kind added at run time, e.g. a test's)."""
    SOLVERS[cls] = solver


def unregister(cls: type) -> None:
    SOLVERS.pop(cls, None)


def solver_for(constraint: Constraint, path: str = "constraints") -> Solver:
    """The solver of ``constraint``'s kind.

    Raises
    ------
    SceneError
        When no solver is registered for it (naming ``path``).
    """
    try:
        return SOLVERS[type(constraint)]
    except KeyError:
        raise SceneError(f"constraint type {constraint.type!r} cannot be evaluated by this "
                         "build", path) from None  # fmt: skip


def _multi_parent_steps(constraint: MultiParent, ctx, frame):
    """The integration substeps into ``frame``, from the evaluator's integral if cached."""
    space = ctx.space_of(constraint)
    cached = multi_parent.cached_integral(ctx.cache, constraint.name, space)
    parent = ctx.scene.bone(constraint.body).parent  # where a relative body's steps are
    placed = None if parent is None else ctx.bone_to_world[0, ctx.skeleton.index(parent)]
    return steps(constraint, ctx.scene, frame, space, integral=cached, parent_to_world=placed)


#: Model class -> ``trace(constraint, ctx, frame)`` for the step-through.
TRACES = {
    Fabrik: lambda constraint, ctx, frame: fabrik.trace(constraint, ctx),
    MultiParent: _multi_parent_steps,
}


def traceable(constraint: Constraint) -> bool:
    """Whether the step-through can trace ``constraint``'s solver."""
    return type(constraint) in TRACES


def trace(constraint: Constraint, ctx, frame):
    """The step-through's trace of ``constraint`` at ``frame`` (``ctx``: the pose it starts
    from). ``SceneError`` when its kind cannot be stepped through."""
    if not traceable(constraint):
        raise SceneError(f"{constraint.name} cannot be stepped through")
    return TRACES[type(constraint)](constraint, ctx, frame)
