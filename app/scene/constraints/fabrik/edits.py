"""A FABRIK's edits: a new one as the editor adds it, the chain it takes from a selection
(named as Blender names it; not added: the editor refuses one the scene has already and
pushes one undo command), and its pole set or cleared."""

from __future__ import annotations

from app.scene.constraints.fabrik.model import Fabrik
from app.scene.rig.model import Scene, Target
from app.scene.rig.refs import new_constraint_name


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
    return Fabrik(name=new_constraint_name(scene, Fabrik, chain[-1]), chain=chain, target=target)


def with_pole(constraint: Fabrik, pole: Target | None) -> Fabrik:
    """A FABRIK constraint with its pole set (``None``: no pole)."""
    return constraint.with_target("pole", pole)
