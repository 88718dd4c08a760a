"""The retarget's judge and a character to retarget onto, written apart from app/scene.

- :func:`joints`: every bone's world head at given frames by forward kinematics of the
  scene's own values and keys, interpolated with scipy (``Slerp``, ``Rotation`` with
  ``scalar_first=True``), not with Pivotal's evaluator.
- :func:`limb_angles`: the angle between each limb of the clip and of the result (upper arm,
  forearm, thigh, shin, hips to head) at every frame, after the one constant turn about the
  vertical that best lines the two up.
- :func:`mixamo_character`: a Mixamo-named character in an A-pose, in centimetres under a
  scaled and turned ``Armature`` (as Mixamo's files are), every bone with its own roll.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene

#: The limbs judged, as (from, to) canonical joints.
LIMBS = (
    ("left_upper_arm", "left_forearm"),
    ("left_forearm", "left_hand"),
    ("right_upper_arm", "right_forearm"),
    ("right_forearm", "right_hand"),
    ("left_thigh", "left_shin"),
    ("left_shin", "left_foot"),
    ("right_thigh", "right_shin"),
    ("right_shin", "right_foot"),
    ("hips", "head"),
)


def _sample_vectors(keys: Keys | None, static, frames) -> np.ndarray:
    if keys is None:
        return np.broadcast_to(np.asarray(static, float), (len(frames), 3))
    kf, kv = np.asarray(keys.frames), np.asarray(keys.values)
    return np.stack([np.interp(frames, kf, kv[:, d]) for d in range(3)], axis=1)


def _sample_rotations(keys: Keys | None, static, frames) -> Rotation:
    if keys is None:
        return Rotation.from_quat(np.broadcast_to(static, (len(frames), 4)), scalar_first=True)
    kf = np.asarray(keys.frames, float)
    values = np.asarray(keys.values)
    at = np.clip(np.searchsorted(kf, frames), 0, len(kf) - 1)
    if np.array_equal(kf[at], frames):  # every frame asked is a key's: its value
        return Rotation.from_quat(values[at], scalar_first=True)
    if len(kf) == 1:
        return Rotation.from_quat(np.repeat(values, len(frames), axis=0), scalar_first=True)
    lo, hi = max(int(at.min()) - 1, 0), min(int(at.max()) + 1, len(kf) - 1)  # the keys used
    lo, hi = (lo, hi) if hi > lo else (0, len(kf) - 1)
    slerp = Slerp(kf[lo : hi + 1], Rotation.from_quat(values[lo : hi + 1], scalar_first=True))
    return slerp(np.clip(frames, kf[lo], kf[hi]))


def joints(scene: Scene, frames) -> dict[str, np.ndarray]:
    """Bone name -> world heads ``(F, 3)`` at ``frames`` (linear keys: every key this judge
    meets is linear)."""
    frames = np.asarray(frames, float)
    count = len(frames)
    by_name = {b.name: b for b in scene.bones}
    world: dict[str, np.ndarray] = {}

    def place(name):
        if name in world:
            return world[name]
        bone = by_name[name]
        local = np.zeros((count, 4, 4))
        rotation = _sample_rotations(bone.rotation_keys, bone.rotation, frames).as_matrix()
        scale = _sample_vectors(bone.scale_keys, bone.scale, frames)
        local[:, :3, :3] = rotation * scale[:, None, :]
        local[:, :3, 3] = _sample_vectors(bone.translation_keys, bone.translation, frames)
        local[:, 3, 3] = 1.0
        world[name] = local if bone.parent is None else place(bone.parent) @ local
        return world[name]

    for bone in scene.bones:  # a chain at a time, parents first (no recursion limit met)
        chain, name = [], bone.name
        while name is not None and name not in world:
            chain.append(name)
            name = by_name[name].parent
        for name in reversed(chain):
            place(name)
    return {name: m[:, :3, 3] for name, m in world.items()}


def limb_vectors(positions: dict, mapping: dict) -> dict:
    """Canonical limb -> its vector ``(F, 3)`` where both of its ends are mapped."""
    out = {}
    for a, b in LIMBS:
        if a in mapping and b in mapping:
            out[(a, b)] = positions[mapping[b]] - positions[mapping[a]]
    return out


def best_yaw(source: dict, result: dict) -> float:
    """The turn about +Y (radians) that best takes the result's limbs onto the source's."""
    cross = dot = 0.0
    for limb, v in source.items():
        w = result[limb]
        vs = v / np.linalg.norm(v, axis=-1, keepdims=True)
        ws = w / np.linalg.norm(w, axis=-1, keepdims=True)
        cross += np.sum(ws[:, 2] * vs[:, 0] - ws[:, 0] * vs[:, 2])
        dot += np.sum(ws[:, 0] * vs[:, 0] + ws[:, 2] * vs[:, 2])
    return float(np.arctan2(cross, dot))


def limb_angles(source_positions, source_map, result_positions, result_map):
    """Limb -> degrees between the clip's and the result's limb at each frame, after the
    best constant turn about the vertical; and that turn in degrees."""
    source = limb_vectors(source_positions, source_map)
    result = limb_vectors(result_positions, result_map)
    source = {k: v for k, v in source.items() if k in result}
    yaw = best_yaw(source, result)
    turn = Rotation.from_rotvec([0.0, yaw, 0.0])
    out = {}
    for limb, v in source.items():
        w = turn.apply(result[limb])
        cos = np.sum(v * w, axis=-1) / np.linalg.norm(v, axis=-1) / np.linalg.norm(w, axis=-1)
        out[limb] = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    return out, float(np.degrees(yaw))


# --- a character to put motion on ---------------------------------------------------------


def _joints_in_metres(arms_deg: float) -> dict[str, tuple]:
    """Where each joint of the character is, facing +Z, its left at +X, its arms
    ``arms_deg`` below the horizontal."""
    c, s = np.cos(np.radians(arms_deg)), np.sin(np.radians(arms_deg))
    out = {
        "Hips": (None, (0.0, 0.98, 0.0)),
        "Spine": ("Hips", (0.0, 1.08, 0.01)),
        "Spine1": ("Spine", (0.0, 1.2, 0.015)),
        "Spine2": ("Spine1", (0.0, 1.33, 0.0)),
        "Neck": ("Spine2", (0.0, 1.5, -0.01)),
        "Head": ("Neck", (0.0, 1.6, 0.01)),
        "HeadTop_End": ("Head", (0.0, 1.8, 0.01)),
    }
    for side, x in (("Left", 1.0), ("Right", -1.0)):
        shoulder = np.array([0.06 * x, 1.45, 0.0])
        arm = np.array([0.17 * x, 1.44, 0.0])
        down = np.array([c * x, -s, 0.0])
        out |= {
            f"{side}Shoulder": ("Spine2", tuple(shoulder)),
            f"{side}Arm": (f"{side}Shoulder", tuple(arm)),
            f"{side}ForeArm": (f"{side}Arm", tuple(arm + 0.28 * down + [0, 0, -0.01])),
            f"{side}Hand": (f"{side}ForeArm", tuple(arm + 0.54 * down)),
            f"{side}HandMiddle1": (f"{side}Hand", tuple(arm + 0.63 * down)),
            f"{side}HandMiddle2": (f"{side}HandMiddle1", tuple(arm + 0.67 * down)),
            f"{side}UpLeg": ("Hips", (0.09 * x, 0.93, 0.0)),
            f"{side}Leg": (f"{side}UpLeg", (0.095 * x, 0.5, 0.02)),
            f"{side}Foot": (f"{side}Leg", (0.1 * x, 0.08, -0.02)),
            f"{side}ToeBase": (f"{side}Foot", (0.1 * x, 0.02, 0.1)),
            f"{side}Toe_End": (f"{side}ToeBase", (0.1 * x, 0.02, 0.18)),
        }
    out["Sword"] = ("RightHand", tuple(np.array(out["RightHand"][1]) + [0.0, -0.05, 0.1]))
    return out


#: The character's bones in other conventions: Blender's Rigify (its deform bones) and
#: Godot's humanoid profile; ``{s}`` is the side (``L``/``R``, ``Left``/``Right``).
CONVENTIONS = {
    "rigify": {
        "Hips": "DEF-spine",
        "Spine": "DEF-spine.001",
        "Spine1": "DEF-spine.002",
        "Spine2": "DEF-spine.003",
        "Neck": "DEF-spine.004",
        "Head": "DEF-spine.006",
        "HeadTop_End": "DEF-spine.006_end",
        "{S}Shoulder": "DEF-shoulder.{s}",
        "{S}Arm": "DEF-upper_arm.{s}",
        "{S}ForeArm": "DEF-forearm.{s}",
        "{S}Hand": "DEF-hand.{s}",
        "{S}HandMiddle1": "DEF-f_middle.01.{s}",
        "{S}HandMiddle2": "DEF-f_middle.02.{s}",
        "{S}UpLeg": "DEF-thigh.{s}",
        "{S}Leg": "DEF-shin.{s}",
        "{S}Foot": "DEF-foot.{s}",
        "{S}ToeBase": "DEF-toe.{s}",
        "{S}Toe_End": "DEF-toe_end.{s}",
    },
    "godot": {
        "Hips": "Hips",
        "Spine": "Spine",
        "Spine1": "Chest",
        "Spine2": "UpperChest",
        "Neck": "Neck",
        "Head": "Head",
        "HeadTop_End": "HeadTop",
        "{S}Shoulder": "{S}Shoulder",
        "{S}Arm": "{S}UpperArm",
        "{S}ForeArm": "{S}LowerArm",
        "{S}Hand": "{S}Hand",
        "{S}HandMiddle1": "{S}MiddleProximal",
        "{S}HandMiddle2": "{S}MiddleIntermediate",
        "{S}UpLeg": "{S}UpperLeg",
        "{S}Leg": "{S}LowerLeg",
        "{S}Foot": "{S}Foot",
        "{S}ToeBase": "{S}Toes",
        "{S}Toe_End": "{S}ToesEnd",
    },
}


def _named(name: str, convention: str | None, prefix: str) -> str:
    if name in ("Armature", "Sword"):
        return name
    if convention is None:
        return prefix + name
    for side, short in (("Left", "L"), ("Right", "R")):
        if name.startswith(side):
            pattern = CONVENTIONS[convention]["{S}" + name[len(side) :]]
            return pattern.replace("{S}", side).replace("{s}", short)
    return CONVENTIONS[convention][name]


def mixamo_character(
    seed: int = 7, prefix: str = "mixamorig:", arms_deg: float = 40.0, convention: str | None = None
) -> Scene:
    """The character, in an A-pose (arms 40 degrees down; 0 is a T-pose): an ``Armature``
    root turned a quarter about X and scaled 0.01 (Mixamo's), bones in centimetres below it,
    each with a random roll; ``Sword`` is a prop bone no humanoid map names. Its bones are
    named as Mixamo's (``prefix`` before each), or in ``convention`` (:data:`CONVENTIONS`)."""
    rng = np.random.default_rng(seed)
    armature = Rotation.from_rotvec([np.pi / 2, 0.0, 0.0])
    scale = 0.01
    positions = _joints_in_metres(arms_deg)
    world_rot = {"Armature": armature}
    bones = [
        Bone(
            name="Armature",
            rotation=tuple(armature.as_quat(scalar_first=True)),
            scale=(scale, scale, scale),
            tail=(0.0, 0.0, 0.0),
        )
    ]
    world_pos = {"Armature": np.zeros(3)}
    for name, (parent, at) in positions.items():
        parent = parent or "Armature"
        roll = Rotation.from_rotvec(rng.normal(size=3) * 1.2)  # any frame: rolls and all
        world_rot[name] = roll
        world_pos[name] = np.asarray(at, float)
        to_parent = world_rot[parent].inv()
        offset = to_parent.apply(world_pos[name] - world_pos[parent]) / scale  # centimetres
        bones.append(
            Bone(
                name=_named(name, convention, prefix),
                parent=_named(parent, convention, prefix),
                translation=tuple(offset),
                rotation=tuple((to_parent * roll).as_quat(scalar_first=True)),
            )
        )
    return Scene(bones=bones, fps=30.0, frame_end=0)


#: Tube radii (metres) of the character's body, by the end of a bone's name.
_RADII = {
    "Hips": 0.11,
    "Spine": 0.11,
    "Spine1": 0.12,
    "Spine2": 0.12,
    "Neck": 0.045,
    "Head": 0.085,
    "Shoulder": 0.045,
    "Arm": 0.048,
    "ForeArm": 0.04,
    "Hand": 0.035,
    "HandMiddle1": 0.015,
    "HandMiddle2": 0.012,
    "UpLeg": 0.075,
    "Leg": 0.055,
    "Foot": 0.042,
    "ToeBase": 0.032,
}


def mixamo_body(character: Scene, vertices: int = 9000):
    """A skinned body for :func:`mixamo_character`: a tube around each bone, thick on the
    trunk and thin on the fingers (4 influences a vertex), about ``vertices`` vertices."""
    from app.scene.evaluate import bake
    from app.scene.rig.envelope import tube_mesh

    pose = bake(character, np.array([float(character.frame_start)]))
    names = [str(n) for n in pose.bone_names]
    radius = []
    for name in names:
        word = name.split(":")[-1]
        for side in ("Left", "Right"):
            word = word.removeprefix(side)
        radius.append(_RADII.get(word, 0.0))
    tubes = sum(r > 0 for r in radius)
    sides = 24
    rings = max(2, int(np.ceil((vertices / tubes - 2) / sides)))
    return tube_mesh(
        pose.bone_to_world[0],
        pose.heads[0],
        pose.tails[0],
        names,
        radius=radius,
        sides=sides,
        rings=rings,
        influences=4,
    )
