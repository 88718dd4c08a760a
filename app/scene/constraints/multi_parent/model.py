"""The ``multi_parent`` constraint as data: a body turning about several pivots at once (the
multi-parent seed), and its part, the pivot (``docs/scene-format.md``, "multi_parent")."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from app.scene.rig.model import PARTS, Constraint, PartType, Pivot

#: ``relative_to`` values of a multi-parent (contract §F3).
RELATIVE_TO = ("world", "parent")

#: A multi-parent's pivot: a point on the body turning by its own keyed ``q_i(t)``.
PIVOT_PART = PARTS.register(
    PartType(
        "pivot",
        "Pivot",
        on_body=True,
        named=True,
        turns=True,
        at_least=1,
        color=(1.0, 0.58, 0.12, 1.0),
        guide_color=(1.0, 0.6, 0.15, 0.55),
        list_color=(255, 160, 60),
    )
)


@dataclass(frozen=True, kw_only=True)
class MultiParent(Constraint):
    """A body rotating about several pivots at once (the multi-parent seed)."""

    type = "multi_parent"
    label = "multi-parent"
    body: str
    pivots: tuple[Pivot, ...]
    substeps: int = 4
    integrator: str = "seed"
    #: ``"world"``: the state is the body's world head and rotation; ``"parent"``: it is
    #: integrated in the parent's frame, so the parent's later motion carries the body (§F3).
    relative_to: str = "world"

    has_pivots: ClassVar[bool] = True
    integrated: ClassVar[bool] = True
    has_relative_to: ClassVar[bool] = True

    def listed_names(self):
        return tuple(p.name for p in self.pivots)

    def driven_bones(self):
        return (self.body,)

    def own_bone_fields(self):
        return (("body", self.body),)

    def target_bones(self):
        return ()

    def parts(self):
        return tuple((PIVOT_PART.word, p.name) for p in self.pivots)

    def _pivot_named(self, name: str) -> Pivot:
        for p in self.pivots:
            if p.name == name:
                return p
        raise KeyError(f"{self.name!r} has no pivot named {name!r}")

    def part_item(self, word, name=None):
        if word != PIVOT_PART.word:
            raise KeyError(f"{self.name!r} has no {word}")
        return self._pivot_named(name)

    def with_part(self, word, name, item):
        self.part_item(word, name)  # KeyError when missing
        pivots = tuple(item if p.name == name else p for p in self.pivots)
        return dataclasses.replace(self, pivots=pivots)

    def without_part(self, word, name):
        self.part_item(word, name)  # KeyError when missing
        if len(self.pivots) <= PIVOT_PART.at_least:
            raise ValueError(
                f"{name!r} is the only pivot of {self.name!r}; a multi-parent "
                "constraint needs at least one, remove the constraint instead"
            )
        return dataclasses.replace(self, pivots=tuple(p for p in self.pivots if p.name != name))

    def guide_of(self, word):
        return self.body, "head"  # a pivot is a point on the body: from its head

    def trail_point(self):
        return self.body, "head"
