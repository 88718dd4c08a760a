"""FABRIK one stage at a time: the joints after every reaching pass of one chain.

The editor's step-through draws these. They are not a second implementation: the trace is
the solver's own run (:func:`app.scene.constraints.fabrik.chains.solve` with its ``record`` hook),
so
its last joints are the solution, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.constraints.fabrik.chains import ChainPose, Solution, solve

#: Each recorded stage's short name (tables, labels).
STAGE_NAMES = {
    "start": "start",
    "shaped": "shaped",
    "straight": "straight",
    "limits": "within limits",
    "from_tip": "pass from the tip",
    "from_root": "pass from the root",
}
#: What each recorded stage is, in a teacher's words.
STAGE_WORDS = {
    "start": "the chain as the pose puts it",
    "shaped": "swung towards the pole / bowed off the target's line",
    "straight": "target out of reach: the chain laid straight towards it",
    "limits": "a pass from the root within the joint limits",
    "from_tip": "pass from the tip: tail on the target, each joint back towards the root",
    "from_root": "pass from the root: root back in place, each joint out to the tail",
}


@dataclass(frozen=True, eq=False)
class Stage:
    """The chain after one stage.

    Attributes
    ----------
    kind : str
        A key of :data:`STAGE_WORDS`.
    iteration : int
        The iteration the stage belongs to (0 before the first).
    joints : ndarray, shape (J, 3)
        World positions, root first.
    tail_distance : float
        Distance from the tail to the target.
    root_offset : float
        Distance of the root from its fixed place (non-zero only after a pass from the tip).
    """

    kind: str
    iteration: int
    joints: np.ndarray
    tail_distance: float
    root_offset: float

    def name(self) -> str:
        """``pass from the tip · it. 2``: the stage's short name and its iteration."""
        return STAGE_NAMES[self.kind] + (f" · it. {self.iteration}" if self.iteration else "")

    def describe(self) -> str:
        """One line: the stage, its iteration and the distances."""
        passes = self.kind in ("from_tip", "from_root")
        head = f"iteration {self.iteration}: " if passes else ""
        text = f"{head}{STAGE_WORDS[self.kind]} · tail → target {self.tail_distance:.4g}"
        if self.root_offset > 0:
            text += f" · root off by {self.root_offset:.4g}"
        return text


@dataclass(frozen=True, eq=False)
class ChainTrace:
    """Every stage of one chain's solve, and the solution.

    Attributes
    ----------
    stages : tuple of Stage
        In order; the last one's joints are ``solution.joints[0]``.
    target : ndarray, shape (3,)
    solution : Solution
        What :func:`~app.scene.constraints.fabrik.chains.solve` returned (one chain).
    """

    stages: tuple
    target: np.ndarray
    solution: Solution

    def __len__(self) -> int:
        return len(self.stages)

    def distances(self) -> np.ndarray:
        """Tail-to-target distance after each stage, ``(len(stages),)``."""
        return np.array([s.tail_distance for s in self.stages])


def trace(
    joints,
    target,
    *,
    tolerance: float = 1e-4,
    max_iterations: int = 20,
    pole=None,
    bend=None,
    pose: ChainPose | None = None,
) -> ChainTrace:
    """Solve one chain as :func:`~app.scene.constraints.fabrik.chains.solve` does, keeping every
    stage.

    Parameters
    ----------
    joints : array_like, shape (J, 3)
        The starting joints (world), root first.
    target : array_like, shape (3,)
    tolerance, max_iterations, pole, bend, pose
        As for :func:`~app.scene.constraints.fabrik.chains.solve`, for one chain (``pole``, ``bend``
        shaped ``(3,)``, ``pose`` for ``N = 1``).

    Returns
    -------
    ChainTrace
    """
    joints = np.asarray(joints, dtype=float)
    target = np.asarray(target, dtype=float).reshape(3)
    root = joints[0].copy()
    stages = []

    def record(kind, iteration, at):
        stages.append(
            Stage(
                kind,
                int(iteration),
                at,
                float(np.linalg.norm(at[-1] - target)),
                float(np.linalg.norm(at[0] - root)),
            )
        )

    solution = solve(
        joints[None],
        target[None],
        tolerance=tolerance,
        max_iterations=max_iterations,
        pole=None if pole is None else np.asarray(pole, float).reshape(1, 3),
        bend=None if bend is None else np.asarray(bend, float).reshape(1, 3),
        pose=pose,
        record=record,
    )
    return ChainTrace(tuple(stages), target, solution)
