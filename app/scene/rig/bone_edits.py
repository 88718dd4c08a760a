"""Structural edits of the skeleton, as pure functions from a scene to new item lists.

Adding, extruding, deleting, renaming and reparenting bones change more than one item (a
rename touches every constraint, skinned mesh and tutorial that names the bone; a delete may
take constraints and children with it), so each function here returns a :class:`Rig`: the
new ``bones`` and ``constraints`` lists (and, for a rename or a delete that touches a skinned
mesh, the new ``meshes`` and ``extra``). The editor's undo command keeps the old and the new
lists. The input scene is never changed.

Rest values are the static ``translation``/``rotation``/``scale`` of the bones (the pose
with no keys), as Blender's edit mode shows them; :func:`with_bone_rest` edits them on one
bone. A bone's values at a frame (posing, keying) are key edits
(:mod:`app.scene.rig.key_edits`).

One idea: bone edits: the skeleton's structure (add, extrude, delete, rename, reparent) and
a bone's rest values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from app.scene.bounds import bad_name_character
from app.scene.math import quat
from app.scene.math.transforms import inverse, rotation_from_matrix, trs
from app.scene.rig.keys import floats
from app.scene.rig.model import Bone, Scene
from app.scene.rig.refs import unique_name
from app.scene.rig.renames import (
    HUMANOID,
    renamed_extra,
    renamed_meshes,
    transferred_meshes,
    without_humanoid_bones,
    without_mesh_source,
)

#: A new bone's length when nothing suggests one (a root bone, File ▸ New's).
DEFAULT_LENGTH = 1.0
#: What happens to the children of a deleted bone.
REPARENT, DELETE = "reparent", "delete"
#: How a reparented bone keeps its place: its world rest pose, or its local values.
KEEP_WORLD, KEEP_LOCAL = "world", "local"


@dataclass(frozen=True)
class Rig:
    """The new item lists of an edit (what a scene's ``bones``/``constraints`` become).

    ``meshes`` and ``extra`` are the scene's new skinned meshes and top-level unknown keys
    when the edit changes them (a rename), ``None`` when it leaves them alone; ``plant`` is
    ``(record,)``, the scene's new plant record (``None`` inside: no longer planted), when
    the edit changes it (a planted bone renamed or deleted), ``None`` when it does not.
    """

    bones: tuple[Bone, ...]
    constraints: tuple
    meshes: tuple | None = None
    extra: dict | None = None
    plant: tuple | None = None


def _children(scene: Scene, name: str) -> list[str]:
    return [b.name for b in scene.bones if b.parent == name]


def descendants(scene: Scene, name: str) -> list[str]:
    """Every bone below ``name`` (parents before children), not ``name`` itself."""
    out, frontier = [], [name]
    while frontier:
        kids = [c for n in frontier for c in _children(scene, n)]
        out += kids
        frontier = kids
    return out


def rest_to_world(scene: Scene, name: str | None) -> np.ndarray:
    """A bone's rest transform to world (static values, keys ignored), (4, 4);
    the identity for ``None`` (the world itself)."""
    m = np.eye(4)
    while name is not None:
        b = scene.bone(name)
        m = trs(b.translation, b.rotation, b.scale) @ m
        name = b.parent
    return m


def _pinned_tail(scene: Scene, name: str) -> Bone:
    """The bone with its tail written out, so a new child does not move its default tail."""
    bone = scene.bone(name)
    if bone.tail is not None:
        return bone
    return dataclasses.replace(bone, tail=floats(scene.tail_of(scene.bone_index(name))))


def _with_bone_replaced(bones, name: str, new: Bone) -> list[Bone]:
    return [new if b.name == name else b for b in bones]


# --- adding ------------------------------------------------------------------------------


def add_bone(
    scene: Scene, parent: str | None = None, head_in_parent=None, tail=None, name: str = "bone"
) -> tuple[Rig, str]:
    """One more bone: a child of ``parent`` with its head at ``head_in_parent`` (default: the
    parent's tail; the origin for a root), its tail ``tail`` in its own frame (default: up
    its own +Y, as long as the parent, else :data:`DEFAULT_LENGTH`).

    Returns
    -------
    (Rig, the new bone's name)
    """
    bones = list(scene.bones)
    length = DEFAULT_LENGTH
    if parent is not None:
        i = scene.bone_index(parent)
        parent_tail = np.asarray(scene.tail_of(i), dtype=float)
        if head_in_parent is None:
            head_in_parent = parent_tail
        length = float(np.linalg.norm(parent_tail)) or DEFAULT_LENGTH
        bones = _with_bone_replaced(bones, parent, _pinned_tail(scene, parent))
    if head_in_parent is None:
        head_in_parent = (0.0, 0.0, 0.0)
    if tail is None:
        tail = (0.0, length, 0.0)
    name = unique_name(name, scene.bone_names())
    bones.append(
        Bone(name=name, parent=parent, translation=floats(head_in_parent), tail=floats(tail))
    )
    return Rig(tuple(bones), tuple(scene.constraints)), name


def extrude(scene: Scene, name: str) -> tuple[Rig, str]:
    """Blender's E: a child of ``name`` from its tail, continuing its direction and length.

    The new bone's frame is its parent's moved to the tail (no rotation of its own), so its
    tail vector is the parent's.
    """
    tail = scene.tail_of(scene.bone_index(name))
    if np.linalg.norm(tail) == 0:
        tail = (0.0, DEFAULT_LENGTH, 0.0)
    return add_bone(scene, name, scene.tail_of(scene.bone_index(name)), tail, name=name)


# --- deleting ----------------------------------------------------------------------------


def _compose_into(bone: Bone, a_to_b: np.ndarray, new_parent: str | None) -> Bone:
    """``bone`` re-expressed under another parent: its frame was in frame ``a`` and is now
    in frame ``b`` (``a_to_b`` a similarity: rotation, uniform scale, translation). Its
    translation, rotation and scale keys are mapped the same way: the uniform factor ``s``
    multiplies every scale (static and keyed), since ``T(o)·s·R·T(t)·R(q)·S(k)`` is
    ``T(o + s·R·t)·R(turn·q)·S(s·k)``. Each map commutes with every key interpolation (lerp,
    slerp, step, ease), so the bone keeps its place between keys too.

    Raises
    ------
    ValueError
        When ``a_to_b`` scales unevenly (a bone's frame cannot absorb a shear).
    """
    linear = a_to_b[:3, :3]
    factors = np.linalg.norm(linear, axis=0)
    if not np.allclose(factors, factors[0], rtol=1e-6):
        raise ValueError(
            f"{bone.name!r} cannot keep its place: its old and new parents are scaled "
            "unevenly; reparent it keeping its local values instead"
        )
    s = float(factors[0])
    turn = rotation_from_matrix(linear / s)
    offset = a_to_b[:3, 3]

    def moved(points):
        return np.asarray(points, float) @ linear.T + offset

    def turned(q):
        return quat.normalize(quat.mul(turn, np.asarray(q, float)))

    changes = dict(
        parent=new_parent,
        translation=floats(moved(bone.translation)),
        rotation=floats(turned(bone.rotation)),
        scale=floats(np.asarray(bone.scale, float) * s),
    )
    if bone.translation_keys is not None:
        keys = bone.translation_keys
        changes["translation_keys"] = dataclasses.replace(keys, values=moved(keys.values))
    if bone.rotation_keys is not None:
        keys = bone.rotation_keys
        changes["rotation_keys"] = dataclasses.replace(keys, values=turned(keys.values))
    if bone.scale_keys is not None:
        keys = bone.scale_keys
        changes["scale_keys"] = dataclasses.replace(keys, values=np.asarray(keys.values) * s)
    return dataclasses.replace(bone, **changes)


def _references(constraint, names: set) -> bool:
    return bool(set(constraint.referenced_bones()) & names)


def delete_bones(scene: Scene, names, children: str = REPARENT) -> Rig:
    """The scene without the bones ``names``.

    ``children="reparent"`` hands each child of a deleted bone to the nearest surviving
    ancestor, keeping its rest place in the world (Blender's delete in edit mode);
    ``"delete"`` deletes the children and everything below them too. Constraints that name
    a deleted bone (drive it, aim at it, or have it in a chain) are deleted with it. A
    skinned mesh's weights on a deleted bone go to its nearest surviving ancestor
    (:func:`.renames.transferred_meshes`).

    Raises
    ------
    KeyError
        For a name that is not a bone.
    ValueError
        When every bone would go (a skeleton needs one), a child cannot keep its place, or a
        mesh bound to a deleted bone would have no ancestor left to take its weights.
    """
    names = list(dict.fromkeys(names))
    for n in names:
        scene.bone(n)
    going = set(names)
    if children == DELETE:
        for n in names:
            going.update(descendants(scene, n))
    elif children != REPARENT:
        raise ValueError(f'children must be "reparent" or "delete", got {children!r}')
    if going >= set(scene.bone_names()):
        raise ValueError("a skeleton needs at least one bone; this would delete them all")
    bones = []
    for b in scene.bones:
        if b.name in going:
            continue
        if b.tail is None and any(c in going for c in _children(scene, b.name)):
            b = _pinned_tail(scene, b.name)  # its default tail followed a deleted child
        parent = b.parent
        if parent in going:  # reparent: walk up to a surviving ancestor
            while parent in going:
                parent = scene.bone(parent).parent
            old_to_new = inverse(rest_to_world(scene, parent)) @ rest_to_world(scene, b.parent)
            b = _compose_into(b, old_to_new, parent)
        bones.append(b)
    constraints = tuple(c for c in scene.constraints if not _references(c, going))
    # a planted bone deleted: the clip is no longer planted (its keys stay; undo brings it back)
    plant = (
        (None,) if scene.plant is not None and not going.isdisjoint(scene.plant.bones()) else None
    )
    bound = any(not going.isdisjoint(m.joints) for m in scene.meshes)
    extra = without_humanoid_bones(scene.extra, going) if HUMANOID in scene.extra else None
    if not bound:
        return Rig(tuple(bones), constraints, None, extra, plant)

    def surviving_ancestor(name):
        parent = scene.bone(name).parent
        while parent in going:
            parent = scene.bone(parent).parent
        return parent

    meshes = transferred_meshes(
        scene.meshes, going, surviving_ancestor, lambda name: rest_to_world(scene, name)
    )
    extra = without_mesh_source(scene.extra if extra is None else extra)
    return Rig(tuple(bones), constraints, meshes, extra, plant)


# --- renaming ----------------------------------------------------------------------------


def renamed_in_constraint(constraint, old: str, new: str):
    """``constraint`` with every field naming bone ``old`` naming ``new`` instead (its
    own bones, a chain's per-bone limits, its targets: :meth:`Constraint.with_bone_renamed`)."""
    return constraint.with_bone_renamed(old, new)


def rename_bone(scene: Scene, old: str, new: str) -> Rig:
    """The scene with bone ``old`` called ``new``, and every reference to it updated:
    children's ``parent``, every constraint field that names it, the joints of skinned
    meshes bound to it and the scene's ``tutorial`` data (see :mod:`.renames`).

    Raises
    ------
    KeyError
        When there is no bone ``old``.
    ValueError
        When ``new`` is empty, has surrounding spaces or a control character, or is another
        bone's name.
    """
    scene.bone(old)
    if not new or new != new.strip():
        raise ValueError("a bone's name must be non-empty, without leading or trailing spaces")
    if bad_name_character(new):
        raise ValueError(bad_name_character(new))
    if new != old and new in scene.bone_names():
        raise ValueError(f"there is already a bone named {new!r}")
    bones = []
    for b in scene.bones:
        if b.name == old:
            b = dataclasses.replace(b, name=new)
        if b.parent == old:
            b = dataclasses.replace(b, parent=new)
        bones.append(b)
    constraints = tuple(renamed_in_constraint(c, old, new) for c in scene.constraints)
    meshes = renamed_meshes(scene.meshes, old, new)
    bound = any(old in m.joints for m in scene.meshes)
    extra = renamed_extra(scene.extra, old, new, meshes_renamed=bound)
    plant = None
    if scene.plant is not None and old in scene.plant.bones():
        plant = (scene.plant.with_bone_renamed(old, new),)
    return Rig(tuple(bones), constraints, meshes, extra, plant)


# --- reparenting -------------------------------------------------------------------------


def reparent(scene: Scene, name: str, parent: str | None, keep: str = KEEP_WORLD) -> Rig:
    """Bone ``name`` made a child of ``parent`` (``None``: a root).

    ``keep="world"`` keeps its rest place in the world (its values are re-expressed in the
    new parent's rest frame, keys included: Blender's "Keep Offset"); ``"local"`` keeps its
    values, so it moves with its new parent.

    Raises
    ------
    ValueError
        When ``parent`` is the bone itself or below it (a loop).
    """
    bone = scene.bone(name)
    if parent is not None:
        scene.bone(parent)
        if parent == name or parent in descendants(scene, name):
            raise ValueError(f"{parent!r} is {name!r} or below it: that would make a loop")
    if parent == bone.parent:
        return Rig(tuple(scene.bones), tuple(scene.constraints))
    if keep == KEEP_WORLD:
        old_to_new = inverse(rest_to_world(scene, parent)) @ rest_to_world(scene, bone.parent)
        new = _compose_into(bone, old_to_new, parent)
    elif keep == KEEP_LOCAL:
        new = dataclasses.replace(bone, parent=parent)
    else:
        raise ValueError(f'keep must be "world" or "local", got {keep!r}')
    bones = list(scene.bones)
    if bone.tail is None:  # its default tail followed its first child: keep it drawn so
        new = dataclasses.replace(new, tail=floats(scene.tail_of(scene.bone_index(name))))
    bones = _with_bone_replaced(bones, name, new)
    if bone.parent is not None and scene.bone(bone.parent).tail is None:
        bones = _with_bone_replaced(bones, bone.parent, _pinned_tail(scene, bone.parent))
    if parent is not None and scene.bone(parent).tail is None:
        bones = _with_bone_replaced(bones, parent, _pinned_tail(scene, parent))
    return Rig(tuple(bones), tuple(scene.constraints))


# --- rest values --------------------------------------------------------------------------


def with_bone_rest(bone: Bone, **values) -> Bone:
    """A bone with static values replaced (``translation``, ``rotation``, ``scale``, ``tail``).

    Raises
    ------
    ValueError
        For a rotation of zero length or a scale factor that is not > 0.
    """
    changes = {}
    for key, value in values.items():
        v = np.asarray(value, dtype=float).reshape(-1)
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{key} must be finite numbers")
        if key == "rotation":
            n = np.linalg.norm(v)
            if n == 0:
                raise ValueError("a rotation needs a non-zero quaternion")
            v = v / n
        if key == "scale" and np.any(v < 0):
            raise ValueError(
                "every scale factor must be >= 0 (0 hides the bone; bones cannot mirror)"
            )
        changes[key] = floats(v)
    return dataclasses.replace(bone, **changes)
