"""The solver registry: which solver evaluates each constraint kind, keyed by model class.

A solver is any object (usually a module) with ``apply(constraint, context)``; it reads the
current world transforms from the :class:`~app.scene.evaluate.Context` and writes the driven
bones back with ``context.set_world``. Optional parts, asked with ``getattr``:

- ``is_stale(constraint, cache_entry, scene) -> bool``: its cached work no longer matches;
- ``group_key(constraint, ctx)`` and ``apply_group(constraints, ctx)``: alike constraints
  solved as one batch (:mod:`app.scene.constraints.batches`);

What the editor's step-through shows of a solver is in :data:`TRACES` (``trace(constraint,
ctx, frame)`` from the pose the constraint starts from). Adding a kind is one line in
:data:`SOLVERS` (a test fixture uses ``SOLVERS.register`` and ``SOLVERS.unregister``).
"""

from __future__ import annotations

from typing import Protocol

from app.scene.constraints.fabrik import solver as fabrik
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.follows import child_of, copy_location, copy_rotation
from app.scene.constraints.follows.model import ChildOf, CopyLocation, CopyRotation
from app.scene.constraints.limit_distance import model as limit_distance
from app.scene.constraints.limit_distance import solver as limit_distance_solver
from app.scene.constraints.multi_parent import solver as multi_parent
from app.scene.constraints.multi_parent import steps as multi_parent_steps
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.points_at import solver as points_at
from app.scene.constraints.points_at.model import PointsAt
from app.scene.errors import SceneError
from app.scene.registry import Registry
from app.scene.rig.model import Constraint


class Solver(Protocol):
    """What evaluation asks of a solver (the optional parts: see the module)."""

    def apply(self, constraint: Constraint, context) -> None: ...


#: Model class -> its solver; a kind's one line is its ``SOLVERS.register(Model, solver)``.
SOLVERS: Registry[type, Solver] = Registry("solver")
SOLVERS.register(MultiParent, multi_parent)
SOLVERS.register(PointsAt, points_at)
SOLVERS.register(Fabrik, fabrik)
SOLVERS.register(ChildOf, child_of)
SOLVERS.register(CopyRotation, copy_rotation)
SOLVERS.register(CopyLocation, copy_location)
SOLVERS.register(limit_distance.LimitDistance, limit_distance_solver)


def solver_for(constraint: Constraint, path: str = "constraints") -> Solver:
    """The solver of ``constraint``'s kind.

    Raises
    ------
    SceneError
        When no solver is registered for it (naming ``path``).
    """
    solver = SOLVERS.get(type(constraint))
    if solver is None:
        message = f"constraint type {constraint.type!r} cannot be evaluated by this build"
        raise SceneError(message, path)
    return solver


#: Model class -> ``trace(constraint, ctx, frame)`` for the step-through.
TRACES: Registry[type, object] = Registry("step-through trace")
TRACES.register(Fabrik, fabrik.step_through)
TRACES.register(MultiParent, multi_parent_steps.step_through)


def traceable(constraint: Constraint) -> bool:
    """Whether the step-through can trace ``constraint``'s solver."""
    return type(constraint) in TRACES


def trace(constraint: Constraint, ctx, frame):
    """The step-through's trace of ``constraint`` at ``frame`` (``ctx``: the pose it starts
    from). ``SceneError`` when its kind cannot be stepped through."""
    if not traceable(constraint):
        raise SceneError(f"{constraint.name} cannot be stepped through")
    return TRACES.lookup(type(constraint))(constraint, ctx, frame)
