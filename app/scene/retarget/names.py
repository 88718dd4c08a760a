"""The one table of bone-naming conventions: a bone's name read as a side and a part.

A name is cut into words: a namespace (``mixamorig:``) and the prefixes of known rigs
(``mixamorig`` glued on, as three.js writes it; Rigify's ``DEF-``/``ORG-``; VRM's ``J_Bip_``;
3ds Max's ``Bip01``; Character Creator's ``CC_Base_``; Fox's ``b_``) are dropped, Blender's
duplicate suffix (``.001``) is noted, and the rest is split at separators (``.``, ``_``,
``-``, spaces) and at case changes (``UpperArmL`` -> ``Upper Arm L``). A side is a first
or last word ``Left``/``Right``/``L``/``R`` (any case); numbers are a finger's joint or a
chain's index; the other words, joined, are looked up in :data:`PARTS`.

Conventions read (tested in ``tests/scene/retarget/test_humanoid_map.py``): CMU's BVH
(``LeftUpLeg``, ``LHipJoint``, ``LThumb``), Mixamo with or without its namespace, Blender's
metarig and Rigify (``thigh.L``, ``upper_arm.L``, ``DEF-forearm.L``, ``f_index.01.L``), Unreal
(``upperarm_l``, ``calf_l``, ``ball_l``), Godot's humanoid profile (``LeftUpperLeg``,
``LeftIndexProximal``) and its Blender exports (``upperleg.l``), three.js's
RobotExpressive (``UpperLegL``), VRM, 3ds Max's Biped (``Bip01 L Thigh``), Biovision
(``LeftHip``, ``LeftKnee``), Unity-style (``LeftLowerArm``).

Some words mean two things: Mixamo's ``LeftShoulder`` is the clavicle, Biovision's the upper
arm; ``LeftLeg`` is Mixamo's shin. Such a word gives several readings, strongest first; the
map (:mod:`.humanoid`) keeps the one the hierarchy agrees with.
"""

from __future__ import annotations

import re
from typing import NamedTuple

#: Word(s) joined, lower case -> (part, strength); several readings strongest first. The
#: ``spine`` part is any bone of the spine chain (placed along it by the hierarchy).
CENTRE = {
    "hips": (("hips", 2),),
    "hip": (("hips", 1),),
    "pelvis": (("hips", 2),),
    "spine": (("spine", 2),),
    "chest": (("spine", 2),),
    "upperchest": (("spine", 2),),
    "torso": (("spine", 1),),
    "abdomen": (("spine", 1),),
    "lowerback": (("spine", 1),),
    "waist": (("spine", 1),),
    "back": (("spine", 1),),
    "ribs": (("spine", 1),),
    "neck": (("neck", 2),),
    "head": (("head", 2),),
}
SIDED = {
    "shoulder": (("shoulder", 2), ("upper_arm", 1)),
    "clavicle": (("shoulder", 2),),
    "collar": (("shoulder", 2),),
    "collarbone": (("shoulder", 2),),
    "clav": (("shoulder", 2),),
    "upperarm": (("upper_arm", 2),),
    "uparm": (("upper_arm", 2),),
    "arm": (("upper_arm", 2),),
    "armupper": (("upper_arm", 2),),
    "humerus": (("upper_arm", 2),),
    "forearm": (("forearm", 2),),
    "lowerarm": (("forearm", 2),),
    "loarm": (("forearm", 2),),
    "lowarm": (("forearm", 2),),
    "armlower": (("forearm", 2),),
    "elbow": (("forearm", 1),),
    "hand": (("hand", 2),),
    "wrist": (("hand", 1),),
    "fist": (("hand", 1),),
    "thigh": (("thigh", 2),),
    "upleg": (("thigh", 2),),
    "upperleg": (("thigh", 2),),
    "legupper": (("thigh", 2),),
    "femur": (("thigh", 2),),
    "hip": (("thigh", 1),),
    "calf": (("shin", 2),),
    "shin": (("shin", 2),),
    "lowerleg": (("shin", 2),),
    "leglower": (("shin", 2),),
    "loleg": (("shin", 2),),
    "lowleg": (("shin", 2),),
    "tibia": (("shin", 2),),
    "knee": (("shin", 1),),
    "leg": (("shin", 1),),
    "foot": (("foot", 2),),
    "ankle": (("foot", 1),),
    "toes": (("toes", 2),),
    "toe": (("toes", 2),),
    "toebase": (("toes", 2),),
    "ball": (("toes", 2),),
}
#: Finger words -> canonical finger; ``finger0`` .. ``finger4`` are 3ds Max's (``Finger0``
#: the thumb's first joint, ``Finger01`` its second).
FINGER_WORDS = {
    "thumb": "thumb",
    "index": "index",
    "indexfinger": "index",
    "middle": "middle",
    "ring": "ring",
    "pinky": "little",
    "pinkie": "little",
    "little": "little",
    "finger0": "thumb",
    "finger1": "index",
    "finger2": "middle",
    "finger3": "ring",
    "finger4": "little",
}
#: Godot's (and Unity's) words for a finger's joints: the thumb's three are its metacarpal,
#: proximal and distal; another finger's metacarpal is no canonical joint.
JOINT_WORDS = {"metacarpal": 0, "proximal": 1, "intermediate": 2, "distal": 3}
THUMB_JOINT_WORDS = {"metacarpal": 1, "proximal": 2, "distal": 3}
#: A name with one of these words is a helper, an end or a control, never a canonical bone.
EXCLUDED = {
    "end",
    "tip",
    "nub",
    "top",
    "twist",
    "roll",
    "ik",
    "fk",
    "ctrl",
    "control",
    "con",
    "pole",
    "target",
    "tgt",
    "mch",
    "helper",
    "socket",
    "parent",
    "orient",
    "tweak",
    "prop",
    "weapon",
    "attach",
    "corrective",
    "jiggle",
    "null",
    "pv",
    "aim",
    "offset",
    "mech",
    "master",
    "heel",
    "eye",
    "jaw",
    "breast",
    "fingers",
    "fingerbase",
    "joint",
    "pivot",
}

_SIDE_WORDS = {
    "left": "left",
    "l": "left",
    "right": "right",
    "r": "right",
    "lft": "left",
    "rgt": "right",
    "rt": "right",
    "lt": "left",
}
_CENTRE_WORDS = {"c", "m", "mid", "center", "centre"}
_PREFIX = re.compile(
    r"^(?:mixamorig\d*_?|def[-_]|org[-_]|j_bip_|bip0*1[ _]?|bip\d*[ _]|cc_base_|b_|"
    r"character\d*_)",
    re.IGNORECASE,
)
_DUPLICATE = re.compile(r"\.(\d{3})$")
_SPLIT = re.compile(
    r"[._\-\s]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])"
    r"|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])"
)


class Reading(NamedTuple):
    """One way of reading a name.

    Attributes
    ----------
    side : str or None
        ``"left"``, ``"right"``, or ``None`` for a bone of the body.
    part : str
        A canonical part without its side (``"upper_arm"``, ``"hips"``; ``"spine"`` for any
        bone of the spine chain; ``"thumb_1"`` .. for a finger joint).
    strength : int
        2 for the word's usual meaning, 1 for a weaker one (``Leg`` as the shin).
    segment : int
        0 for the bone itself, more for a second segment of it (``upper_arm.L.001``,
        ``LeftUpperArm2``): a twist bone that is not the limb.
    """

    side: str | None
    part: str
    strength: int
    segment: int

    def canonical(self) -> str:
        """The canonical bone (``left_upper_arm``; ``spine`` for a spine-chain bone)."""
        return self.part if self.side is None else f"{self.side}_{self.part}"


def words(name: str) -> tuple[list[str], int]:
    """The words of ``name`` (namespace and rig prefixes dropped) and Blender's duplicate
    number (``thigh.L.001`` -> 1; 0 without one)."""
    bare = name.rsplit(":", 1)[-1].strip()
    duplicate = 0
    found = _DUPLICATE.search(bare)
    if found:
        duplicate, bare = int(found.group(1)), bare[: found.start()]
    for _ in range(2):  # "DEF-" then nothing; "J_Bip_" then "L_"
        stripped = _PREFIX.sub("", bare, count=1)
        if stripped == bare or not stripped:
            break
        bare = stripped
    return [w for w in _SPLIT.split(bare) if w], duplicate


def is_helper(name: str) -> bool:
    """Whether ``name`` says the bone is a helper, an end or a control (:data:`EXCLUDED`)."""
    return any(w.lower() in EXCLUDED for w in words(name)[0])


def read(name: str) -> tuple[Reading, ...]:
    """Every reading of a bone's ``name``, strongest first (``()`` for none).

    >>> read("mixamorig:LeftForeArm")[0].canonical()
    'left_forearm'
    """
    parts, duplicate = words(name)
    lower = [w.lower() for w in parts]
    if not lower or any(w in EXCLUDED for w in lower):
        return ()
    side = None
    if len(lower) > 1 and lower[0] in _SIDE_WORDS:
        side, lower = _SIDE_WORDS[lower[0]], lower[1:]
    elif len(lower) > 1 and lower[-1] in _SIDE_WORDS:
        side, lower = _SIDE_WORDS[lower[-1]], lower[:-1]
    elif len(lower) > 1 and lower[0] in _CENTRE_WORDS:
        lower = lower[1:]
    digits = [w for w in lower if w.isdigit()]
    text = [w for w in lower if not w.isdigit()]
    if not text:
        return ()
    key = "".join(text)
    number = int(digits[0]) if digits else 0
    segment = number - 1 if number >= 2 else 0  # "UpperArm2", "Neck2": a second segment
    if side is None:
        return tuple(
            Reading(None, part, strength, segment) for part, strength in CENTRE.get(key, ())
        )
    finger = _finger(text, digits)
    if finger is not None:
        return (Reading(side, finger, 2, 0),) if finger else ()
    return tuple(
        Reading(side, part, strength, duplicate or segment) for part, strength in SIDED.get(key, ())
    )


def _finger(text: list[str], digits: list[str]) -> str | None:
    """``"index_2"`` for a finger joint's words, ``""`` for a finger word that is no
    canonical joint (a metacarpal, a fourth joint), ``None`` when the words name no finger."""
    if text == ["finger"] and digits:  # 3ds Max: Finger0 (thumb), Finger01 (its 2nd joint)
        finger = FINGER_WORDS[f"finger{digits[0][0]}"]
        joint = int(digits[0][1:]) + 1 if len(digits[0]) > 1 else 1
        return f"{finger}_{joint}" if 1 <= joint <= 3 else ""
    text = [w for w in text if w not in ("hand", "f", "finger")] or text
    joint_words = [w for w in text if w in JOINT_WORDS]
    finger = FINGER_WORDS.get("".join(w for w in text if w not in JOINT_WORDS))
    if finger is None:
        return None
    if joint_words:
        words_of = THUMB_JOINT_WORDS if finger == "thumb" else JOINT_WORDS
        joint = words_of.get(joint_words[0], 0)
    else:
        joint = int(digits[0]) if digits else 1
    return f"{finger}_{joint}" if 1 <= joint <= 3 else ""
