"""What a skeleton's shape at rest says where its names say nothing (CesiumMan's ``node_12``).

- **Legs**: the two lowest leaves whose common ancestor is well above them are the feet'
  ends; that ancestor is the hips. Down each leg the first two bones that drop by more than
  an eighth of the height are the thigh and the shin (a short hip bone above them, as CMU's
  ``LHipJoint``, is passed over); the next is the foot and the one after it the toes.
- **Facing**: the way the toes point from the ankles, with the way the knees bend (forward
  of the hip-ankle line); the character's left is ``up × forward``.
- **Upper body**: from the hips the chain climbs through the child holding the highest
  point; the first bone from which two chains reach far out to either side is the upper
  chest, those chains are the arms (a short first bone is the shoulder), and the climb goes
  on to the neck and the head.
"""

from __future__ import annotations

import numpy as np

from app.scene.retarget.rest import UP, Rest

#: A leg bone drops by at least this share of the skeleton's height (the hip bone does not).
LEG_DROP = 0.12
#: The hips sit at least this share of the height above the feet's ends.
HIPS_ABOVE = 0.25
#: An arm reaches at least this share of the height out to its side.
ARM_REACH = 0.15


def horizontal(v) -> np.ndarray:
    """``v`` with its vertical part removed, shape ``(..., 3)``."""
    v = np.asarray(v, dtype=float)
    return v - (v @ UP)[..., None] * UP


def facing_from_sides(rest: Rest, left: list[int], right: list[int]) -> np.ndarray | None:
    """The unit horizontal direction a character faces, from bones known to be on its left
    and on its right (thighs, upper arms): ``(left − right) × up``; ``None`` without them."""
    if not left or not right:
        return None
    across = horizontal(rest.heads[left].mean(axis=0) - rest.heads[right].mean(axis=0))
    forward = np.cross(across, UP)
    n = np.linalg.norm(forward)
    return forward / n if n > 1e-9 * rest.height() else None


def facing_from_legs(rest: Rest, legs: list[list[int]]) -> np.ndarray:
    """The unit horizontal direction a character faces, from its leg chains (thigh, shin,
    foot, toes...): the toes' way from the ankle, and the knee's way off the hip-ankle
    line; +Z (glTF's front) when both are nil."""
    total = np.zeros(3)
    for leg in legs:
        if len(leg) < 3:
            continue
        hip, knee, ankle = (rest.heads[b] for b in leg[:3])
        tip = rest.heads[leg[3]] if len(leg) > 3 else rest.bone_to_world[leg[2], :3, 3]
        total += horizontal(tip - ankle)
        total += horizontal(knee - 0.5 * (hip + ankle))
    n = np.linalg.norm(total)
    return total / n if n > 1e-9 * rest.height() else np.array([0.0, 0.0, 1.0])


def _usable(rest: Rest, skip: set) -> list[int]:
    return [b for b in range(len(rest.names)) if b not in skip and b not in rest.rigid_leaves]


def find_legs(rest: Rest, skip: set) -> tuple[int, list[list[int]]] | None:
    """The hips and the two leg chains (each from the bone below the hips to a leaf), or
    ``None`` when the shape shows no pair of legs. Bones in ``skip`` are not considered."""
    usable = set(_usable(rest, skip))
    leaves = [b for b in usable if not any(c in usable for c in rest.children[b])]
    if len(leaves) < 2:
        return None
    height = rest.height()
    y = rest.heads[:, 1]
    leaves.sort(key=lambda b: (y[b], b))
    first = leaves[0]
    for other in leaves[1:]:
        hips = rest.common_ancestor([first, other])
        if hips is None or y[hips] < y[first] + HIPS_ABOVE * height:
            continue
        if other in rest.subtree(first) or first in rest.subtree(other):
            continue
        legs = [rest.path(hips, leaf)[1:] for leaf in (first, other)]
        if legs[0] and legs[1] and legs[0][0] != legs[1][0]:
            return hips, legs
    return None


def leg_parts(rest: Rest, chain: list[int]) -> dict[str, int]:
    """``{"thigh", "shin", "foot", "toes"}`` along a leg chain (hips' child to a leaf),
    as many as the chain shows."""
    height = rest.height()
    drops = []
    for k, b in enumerate(chain[:-1]):
        drop = rest.heads[b, 1] - rest.heads[chain[k + 1], 1]
        if drop > LEG_DROP * height:
            drops.append(k)
    if len(drops) < 2:
        return {}
    thigh, shin = drops[0], drops[1]
    out = {"thigh": chain[thigh], "shin": chain[shin]}
    if shin + 1 < len(chain):
        out["foot"] = chain[shin + 1]
    if shin + 2 < len(chain):
        out["toes"] = chain[shin + 2]
    return out


def climb(rest: Rest, start: int, skip: set) -> list[int]:
    """From ``start``, down through the child whose subtree reaches highest, to its end:
    the spine, neck and head chain."""
    usable = set(_usable(rest, skip))
    chain = [start]
    while True:
        kids = [c for c in rest.children[chain[-1]] if c in usable]
        if not kids:
            return chain
        top = {c: max(rest.heads[s, 1] for s in rest.subtree(c) if s in usable) for c in kids}
        best = max(kids, key=lambda c: (top[c], -c))
        if top[best] < rest.heads[chain[-1], 1] - 1e-9 * rest.height():
            return chain  # what hangs below is no spine
        chain.append(best)


def find_arms(rest: Rest, central: list[int], left: np.ndarray, skip: set):
    """The upper chest (a bone of ``central``) and the two arm chains from it, as
    ``(upper_chest, {"left": chain, "right": chain})``, or ``None``. ``left`` is the
    character's unit left direction."""
    usable = set(_usable(rest, skip))
    height = rest.height()
    for b in central:
        reach = {}
        for c in rest.children[b]:
            if c not in usable or c in central:
                continue
            members = [s for s in rest.subtree(c) if s in usable]
            side = (rest.heads[members] - rest.heads[b]) @ left
            far = members[int(np.argmax(np.abs(side)))]
            reach[c] = (float(side[members.index(far)]), far)
        lefts = [(r, c) for c, (r, _) in reach.items() if r > ARM_REACH * height]
        rights = [(-r, c) for c, (r, _) in reach.items() if -r > ARM_REACH * height]
        if lefts and rights:
            arms = {}
            for side, found in (("left", max(lefts)), ("right", max(rights))):
                child = found[1]
                arms[side] = _arm_chain(rest, child, usable)
            return b, arms
    return None


def _arm_chain(rest: Rest, first: int, usable: set) -> list[int]:
    """From the arm's first bone down the child reaching farthest, to the hand (the bone
    where the chain splits into fingers, or its end)."""
    chain = [first]
    while True:
        kids = [c for c in rest.children[chain[-1]] if c in usable]
        if not kids or len(kids) > 1 and len(chain) >= 3:
            return chain
        far = {
            c: max(
                np.linalg.norm(rest.heads[s] - rest.heads[first])
                for s in rest.subtree(c)
                if s in usable
            )
            for c in kids
        }
        chain.append(max(kids, key=lambda c: (far[c], -c)))


def arm_parts(rest: Rest, chain: list[int]) -> dict[str, int]:
    """``{"shoulder", "upper_arm", "forearm", "hand"}`` along an arm chain: a first bone
    much shorter than the next is the shoulder."""
    if len(chain) < 3:
        return {}

    def length(k):
        return float(np.linalg.norm(rest.heads[chain[k + 1]] - rest.heads[chain[k]]))

    start = 0
    if len(chain) >= 4 and length(0) < 0.7 * length(1):
        start = 1
    parts = dict(zip(("upper_arm", "forearm", "hand"), chain[start : start + 3]))
    if start:
        parts["shoulder"] = chain[0]
    return parts
