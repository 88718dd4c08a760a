"""The canonical humanoid: the bones every character's map is written in.

Snake-case names, ``left_``/``right_`` on the sided ones (Unity's *HumanBodyBones* and
Godot's *SkeletonProfileHumanoid* hold the same set, spelt their way): the body
(``hips``, ``spine``, ``chest``, ``upper_chest``, ``neck``, ``head``), per side the arm
(``shoulder``, ``upper_arm``, ``forearm``, ``hand``), the leg (``thigh``, ``shin``,
``foot``, ``toes``) and three joints of each finger (``thumb_1`` .. ``little_3``).

:data:`PARENT` is the canonical hierarchy; a character need not map every bone, and its
mapped bones need not be each other's direct children (a twist bone may sit between).
"""

from __future__ import annotations

SIDES = ("left", "right")
BODY = ("hips", "spine", "chest", "upper_chest", "neck", "head")
ARM = ("shoulder", "upper_arm", "forearm", "hand")
LEG = ("thigh", "shin", "foot", "toes")
FINGERS = ("thumb", "index", "middle", "ring", "little")
FINGER_JOINTS = tuple(f"{f}_{k}" for f in FINGERS for k in (1, 2, 3))

#: Every canonical bone, body first, then per side the leg, the arm and the fingers.
BONES: tuple[str, ...] = BODY + tuple(
    f"{side}_{part}" for side in SIDES for part in LEG + ARM + FINGER_JOINTS
)

#: Canonical bone -> its canonical parent (``None`` for the hips).
PARENT: dict[str, str | None] = {"hips": None}
for _child, _parent in zip(BODY[1:], BODY[:-1]):
    PARENT[_child] = _parent
for _side in SIDES:
    PARENT[f"{_side}_thigh"] = "hips"
    PARENT[f"{_side}_shoulder"] = "upper_chest"
    for _chain in (LEG, ARM):
        for _child, _parent in zip(_chain[1:], _chain[:-1]):
            PARENT[f"{_side}_{_child}"] = f"{_side}_{_parent}"
    for _finger in FINGERS:
        PARENT[f"{_side}_{_finger}_1"] = f"{_side}_hand"
        PARENT[f"{_side}_{_finger}_2"] = f"{_side}_{_finger}_1"
        PARENT[f"{_side}_{_finger}_3"] = f"{_side}_{_finger}_2"

#: Canonical bone -> its canonical children, in :data:`BONES` order.
CHILDREN: dict[str, tuple[str, ...]] = {
    name: tuple(c for c in BONES if PARENT[c] == name) for name in BONES
}

#: The limbs whose pointing the retarget is judged by, as (from, to) canonical joints.
LIMBS = tuple(
    (f"{side}_{a}", f"{side}_{b}")
    for side in SIDES
    for a, b in (("upper_arm", "forearm"), ("forearm", "hand"), ("thigh", "shin"), ("shin", "foot"))
) + (("hips", "head"),)


def side_of(name: str) -> str | None:
    """``"left"``, ``"right"`` or ``None`` (a body bone)."""
    head = name.split("_", 1)[0]
    return head if head in SIDES else None


def part_of(name: str) -> str:
    """The canonical bone without its side: ``left_upper_arm`` -> ``upper_arm``."""
    return name.split("_", 1)[1] if side_of(name) else name


def mirrored(name: str) -> str:
    """The same bone on the other side (a body bone is itself)."""
    side = side_of(name)
    if side is None:
        return name
    other = SIDES[1 - SIDES.index(side)]
    return f"{other}_{part_of(name)}"


def label(name: str) -> str:
    """Words people read: ``left_upper_arm`` -> ``Left upper arm``."""
    words = name.replace("_", " ")
    return words[:1].upper() + words[1:]
