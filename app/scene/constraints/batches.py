"""The evaluation plan: which consecutive constraints can be solved as one batch.

Constraints run in their run order (:mod:`app.scene.constraints.order`: after what they
read), each on the pose the previous ones left. Consecutive constraints (in that order) of
one type whose solver offers ``group_key(constraint, ctx)`` and
``apply_group(constraints, ctx)`` form a batch when their keys are equal and no member reads
a bone another member moves: a member's *inputs* are the bones it references and all their
ancestors, its *outputs* the bones it drives and all their descendants, and a batch's
members have pairwise disjoint inputs and outputs. Solving them together then gives each
exactly what solving them one after another gives (twenty FABRIK arms of a crowd rig: one
solve and one pass turning their bones instead of twenty).

The plan depends only on the scene's items, the skeleton and the space override; the
evaluator keeps it until one of them changes.
"""

from __future__ import annotations

from app.scene.constraints.registry import solver_for


def _ancestors_or_self(skeleton, bone: int) -> set:
    return set(skeleton.chain_to_root(bone))


def _reach(skeleton, constraint, rig):
    """(inputs, outputs) of ``constraint`` as sets of bone indices (see the module)."""
    inputs, outputs = set(), set()
    for name in constraint.referenced_bones():
        inputs |= _ancestors_or_self(skeleton, rig.index[name])
    for name in constraint.driven_bones():
        b = rig.index[name]
        outputs.add(b)
        outputs.update(int(d) for d in skeleton.descendants(b))
    return inputs, outputs


def plan(constraints, ctx) -> list[list[int]]:
    """Runs of constraint indices, in order: each run is one batch (most are single).

    Parameters
    ----------
    constraints : list of Constraint
        In their run order.
    ctx : Context
        After forward kinematics (its skeleton, prepared rig and space override).
    """
    steps: list[list[int]] = []
    keys: list = []
    reach: list = []  # per step: (inputs, outputs) of its members together
    for i, c in enumerate(constraints):
        key = None
        try:
            module = solver_for(c)
            if hasattr(module, "apply_group") and hasattr(module, "group_key"):
                key = (c.type, module.group_key(c, ctx))
                if key[1] is None:
                    key = None
            mine = _reach(ctx.skeleton, c, ctx.rig) if key is not None else None
        except Exception:  # anything odd is solved alone, where it reports its error
            key, mine = None, None
        if key is not None and steps and keys[-1] == key:
            inputs, outputs = reach[-1]
            if not (mine[0] & outputs) and not (mine[1] & inputs) and not (mine[1] & outputs):
                steps[-1].append(i)
                reach[-1] = (inputs | mine[0], outputs | mine[1])
                continue
        steps.append([i])
        keys.append(key)
        reach.append(mine if mine is not None else (set(), set()))
    return steps
