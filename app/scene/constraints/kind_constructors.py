"""A new constraint of each built-in kind, as the editor adds it, and the chain FABRIK takes.

Each constructor names the constraint as Blender does (its kind's words and the bone,
:func:`app.scene.rig.refs.new_constraint_name`) and returns it without adding it: the editor
refuses one the scene has already (:mod:`app.scene.rig.constraint_edits`) and pushes one undo
command.

Kept together while each kind moves into a package of its own (issue 29); each constructor
then goes with its kind.

One idea: new constraints of the built-in kinds.
"""

from __future__ import annotations

from app.scene.rig.constraint_edits import numbered_pivot_name
from app.scene.rig.keys import floats
from app.scene.rig.model import Fabrik, MultiParent, Pivot, PointsAt, Scene, Target
from app.scene.rig.refs import new_constraint_name


def new_multi_parent(scene: Scene, body: str, pivot_in_body=(0.0, 0.0, 0.0)) -> MultiParent:
    """A multi-parent constraint on ``body`` with one pivot (at its head by default).

    New constraints use the exact integrator (the equations' limit, no substeps to tune);
    files keep what they say, and one that says nothing keeps ``"seed"``.
    """
    scene.bone(body)
    return MultiParent(
        name=new_constraint_name(scene, MultiParent, body),
        body=body,
        pivots=(Pivot(name=numbered_pivot_name(()), position=floats(pivot_in_body)),),
        integrator="exact",
    )


def new_points_at(scene: Scene, bone: str, target: Target) -> PointsAt:
    """A points-at constraint turning ``bone`` towards ``target``."""
    scene.bone(bone)
    return PointsAt(
        name=new_constraint_name(scene, PointsAt, bone), bone=bone, target=target
    )


def chain_from(scene: Scene, names) -> tuple[str, ...]:
    """Bones ordered root to tip, each the parent of the next.

    One bone alone makes a chain with its parent (a two-bone chain, the usual limb), or
    alone if it is a root.

    Raises
    ------
    ValueError
        If the bones do not form one unbroken parent-to-child chain.
    """
    names = list(dict.fromkeys(names))
    if not names:
        raise ValueError("select the bones of the chain first")
    for n in names:
        scene.bone(n)
    if len(names) == 1:
        parent = scene.bone(names[0]).parent
        return (parent, names[0]) if parent is not None else (names[0],)
    members = set(names)
    tips = [n for n in names if not any(scene.bone(m).parent == n for m in members)]
    if len(tips) != 1:
        raise ValueError(
            "the selected bones do not form one unbroken chain (each bone the "
            "parent of the next); select a chain from root to tip"
        )
    chain = [tips[0]]
    while len(chain) < len(names):
        parent = scene.bone(chain[-1]).parent
        if parent not in members:
            raise ValueError(
                f"{chain[-1]!r}'s parent is not selected: the selected bones do "
                "not form one unbroken chain"
            )
        chain.append(parent)
    return tuple(reversed(chain))


def new_fabrik(scene: Scene, chain, target: Target) -> Fabrik:
    """A FABRIK constraint on ``chain`` (root to tip) reaching for ``target``."""
    chain = tuple(chain)
    return Fabrik(
        name=new_constraint_name(scene, Fabrik, chain[-1]), chain=chain, target=target
    )


def new_follow(scene, cls, bone: str, target: str):
    """A ``cls`` constraint (not added) on ``bone`` following the head of ``target``."""
    return cls(name=new_constraint_name(scene, cls, bone), bone=bone,
               target=Target(bone=target, at="head"))
