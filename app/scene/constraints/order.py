"""The order constraints run in: after what they read (``docs/scene-format.md`` §F1).

A constraint *writes* the bones it drives (:meth:`~app.scene.rig.model.Constraint.driven_bones`)
and through them the world transforms of their descendants. It *reads* the world transforms
of its target and pole bones (:meth:`~app.scene.rig.model.Constraint.target_bones`) and of the
parents of the bones it drives, leaving out the bones it drives itself. So ``b`` runs after
``a`` when ``a`` drives a bone that ``b`` reads or an ancestor of one; constraints that drive
the same bone keep their file order (a per-bone stack); among the ones free to run, the
earliest in the file runs first (a stable topological order: a file already in dependency
order runs as written). A constraint reading what it writes itself is no cycle; a cycle
between different constraints is refused with a :class:`SceneError` naming them in order,
``constraints: a → b → a``.

:func:`run_order` is the pure computation; :func:`order_of` keeps its result with the scene
until a constraint or a bone is replaced, so evaluating a frame never recomputes it.
"""

from __future__ import annotations

import heapq
from collections import deque

from app.scene.errors import SceneError


def _reads(constraint, parent_of: dict) -> set:
    """Names of the bones whose world transforms ``constraint`` reads (see the module)."""
    driven = set(constraint.driven_bones())
    reads = set(constraint.target_bones())
    reads.update(parent_of.get(b) for b in driven)
    reads.discard(None)
    return reads - driven


def dependencies(constraints, parent_of: dict) -> list[set]:
    """``after[i]``: the indices of the constraints that must run before constraint ``i``.

    Parameters
    ----------
    constraints : sequence of Constraint
        In file order.
    parent_of : dict
        Bone name -> its parent's name (``None`` for a root). Bones it does not know are
        read and written as roots (a scene being loaded is checked for them elsewhere).
    """
    drivers: dict = {}  # bone name -> constraint indices driving it, in file order
    for i, c in enumerate(constraints):
        for bone in dict.fromkeys(c.driven_bones()):
            drivers.setdefault(bone, []).append(i)
    after = [set() for _ in constraints]
    for stack in drivers.values():  # the per-bone stack keeps file order
        for a, b in zip(stack, stack[1:]):
            after[b].add(a)
    for i, c in enumerate(constraints):
        for bone in _reads(c, parent_of):
            seen = set()
            while bone is not None and bone not in seen:  # the bone and its ancestors
                seen.add(bone)
                after[i].update(j for j in drivers.get(bone, ()) if j != i)
                bone = parent_of.get(bone)
    return after


def run_order(constraints, parent_of: dict) -> tuple[int, ...]:
    """Indices of ``constraints`` in the order they run (see the module).

    Raises
    ------
    SceneError
        At ``constraints``, naming the constraints of a cycle in order.
    """
    after = dependencies(constraints, parent_of)
    before = [[] for _ in constraints]  # before[a]: who waits for a
    waiting = [len(a) for a in after]
    for b, a_set in enumerate(after):
        for a in a_set:
            before[a].append(b)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        a = heapq.heappop(ready)
        order.append(a)
        for b in before[a]:
            waiting[b] -= 1
            if waiting[b] == 0:
                heapq.heappush(ready, b)
    if len(order) < len(constraints):
        left = sorted(set(range(len(constraints))) - set(order))
        raise cycle_error([constraints[i].name for i in _cycle(left, before)])
    return tuple(order)


def _cycle(left: list, before: list) -> list:
    """The shortest cycle through the earliest constraint of ``left`` that lies on one:
    indices, first one repeated at the end, each followed by one that runs after it."""
    members = set(left)
    for start in left:
        came_from = {start: None}
        queue = deque([start])
        while queue:
            a = queue.popleft()
            for b in sorted(before[a]):
                if b == start:
                    path = [a]
                    while came_from[path[-1]] is not None:
                        path.append(came_from[path[-1]])
                    return path[::-1] + [start]
                if b in members and b not in came_from:
                    came_from[b] = a
                    queue.append(b)
    raise AssertionError("no cycle among constraints that cannot run")  # pragma: no cover


#: Why a cycle cannot run, after its names (the loader's and the editor's words).
WHY = "each reads a bone that the one before it moves"


def cycle_error(names) -> SceneError:
    """The refusal of a cycle ``names`` (first name repeated at the end); its ``cycle``
    attribute is the names' ``a → b → a``."""
    error = SceneError(f"{' → '.join(names)} (a cycle: {WHY})", "constraints")
    error.cycle = " → ".join(names)
    return error


def order_of(scene) -> tuple[int, ...]:
    """:func:`run_order` of ``scene``'s constraints, kept with the scene
    (:attr:`~app.scene.rig.model.Scene.derived`) until a constraint or a bone is replaced,
    added or removed (the editor replaces items on every edit).

    Raises
    ------
    SceneError
        The constraints form a cycle.
    """
    bones, constraints = scene.bones, scene.constraints
    return scene.derived.get(
        "constraint order",
        (bones, constraints),
        lambda: run_order(constraints, {b.name: b.parent for b in bones}),
    )


def check(bones, constraints) -> None:
    """Raise the :class:`SceneError` of a cycle among ``constraints`` over ``bones``."""
    run_order(constraints, {b.name: b.parent for b in bones})
