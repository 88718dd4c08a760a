"""The ``fabrik`` constraint as data: a chain solved by FABRIK towards a target, bent towards
an optional pole, with rotation limits per bone (``docs/scene-format.md``, "fabrik")."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.scene.rig.model import PARTS, Constraint, Limit, PartType, Target

#: A FABRIK chain's pole: the chain bends towards it.
POLE_PART = PARTS.register(
    PartType(
        "pole",
        "Pole",
        hint="the chain bends towards it",
        color=(0.78, 0.55, 1.0, 1.0),
        guide_color=(0.78, 0.55, 1.0, 0.5),
        list_color=(200, 140, 255),
    )
)


@dataclass(frozen=True, kw_only=True)
class Fabrik(Constraint):
    """FABRIK inverse kinematics on a chain of bones, root to tip."""

    type = "fabrik"
    label = "FABRIK"
    target_fields = ("target", "pole")
    limits_per_bone = True
    is_chain = True
    chain: tuple[str, ...]
    target: Target
    tolerance: float = 1e-4
    max_iterations: int = 20
    limits: Mapping[str, Limit] = field(default_factory=dict)
    #: Sets the plane the chain bends in (root, target and pole), on the pole's side.
    pole: Target | None = None

    def driven_bones(self):
        return tuple(self.chain)

    def own_bone_fields(self):
        return tuple((f"chain[{k}]", name) for k, name in enumerate(self.chain))

    def target_bones(self):
        return tuple(t.bone for _, t in self.targets() if t.bone)

    def guide_of(self, word):
        if word == POLE_PART.word:  # the chain bends towards it at its middle joint
            return self.chain[len(self.chain) // 2], "head"
        return self.trail_point()

    def limits_by_bone(self):
        return tuple((b, self.limits[b]) for b in self.chain if b in self.limits)

    def limit_on(self, bone):
        return self.limits.get(bone)

    def with_limit_on(self, bone, limit):
        if bone not in self.chain:
            raise ValueError(f"{bone!r} is not in the chain of {self.name!r}")
        limits = {k: v for k, v in self.limits.items() if k != bone}
        if limit is not None:
            limits[bone] = limit
        # chain order: the file lists them as the chain does
        return dataclasses.replace(self, limits={b: limits[b] for b in self.chain if b in limits})

    def _renamed_own(self, old, new):
        if old not in self.chain and old not in self.limits:
            return {}
        return {
            "chain": tuple(new if n == old else n for n in self.chain),
            "limits": {(new if k == old else k): v for k, v in self.limits.items()},
        }
