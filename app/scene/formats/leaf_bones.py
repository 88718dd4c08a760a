"""Leaf bones at import: the bones an exporter adds at the end of each chain only to say how
long the last bone is (Blender's FBX exporter, "Add Leaf Bones": ``hand.L_end`` under
``hand.L``), as Blender's importer reads them with "Ignore Leaf Bones".

A leaf bone, as Blender's importer defines it, is a bone without children that is the only
child of a bone; here also one that weighs no vertex and carries no mesh (a bone that moves
skin is never a mere marker). Ignoring one removes it and gives its parent the length it
marked: the parent's tail goes where the leaf's head was, unless that lies implausibly far
(more than :data:`FAR` times the parent's own distance from its parent: an exporter that
wrote a centimetre rig's leaves 100 times too far), where the parent keeps the leaf's
direction and its parent's length, as Blender sizes a bone without children.

``leaf_bones``, the import's choice: ``"auto"`` ignores them when the file says Blender wrote
it and its leaves carry Blender's names (``<bone>_end``), as Blender's own files with leaf
bones do; ``"ignore"`` always; ``"keep"`` never.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from app.scene.rig.mesh import SkinnedMesh
from app.scene.rig.model import Scene
from app.scene.words import plural

CHOICES = ("auto", "ignore", "keep")
#: A leaf further from its parent than this many times the parent's own length (its distance
#: from its parent) does not give the parent its length.
FAR = 4.0
#: What Blender's FBX exporter names a leaf bone: its parent's name and this.
SUFFIX = "_end"


def weighted_bones(scene: Scene) -> set[str]:
    """The bones that move some vertex of a mesh (weight above zero) or carry a rigid one."""
    names = set()
    for mesh in scene.meshes:
        used = np.unique(np.asarray(mesh.joint_indices)[np.asarray(mesh.weights) > 0])
        names.update(mesh.joints[int(j)] for j in used if 0 <= j < len(mesh.joints))
        if len(mesh.joints) == 1:
            names.add(mesh.joints[0])
    return names


def leaves(scene: Scene) -> list[int]:
    """Indices of the leaf bones (the module docstring's definition), in file order."""
    children: dict = {}
    for i, b in enumerate(scene.bones):
        children.setdefault(b.parent, []).append(i)
    weighted = weighted_bones(scene)
    return [
        i
        for i, b in enumerate(scene.bones)
        if b.parent is not None
        and b.name not in children
        and len(children[b.parent]) == 1
        and b.name not in weighted
    ]


def blender_wrote_leaves(generator: str | None, scene: Scene, found: list[int]) -> bool:
    """Whether the file says Blender wrote it with leaf bones: its generator names Blender
    and a leaf carries Blender's name for one (``hand.L_end`` under ``hand.L``)."""
    if not isinstance(generator, str) or "blender" not in generator.lower():
        return False
    return any(scene.bones[i].name == f"{scene.bones[i].parent}{SUFFIX}" for i in found)


def apply(scene: Scene, generator: str | None, choice: str = "auto") -> Scene:
    """``scene`` as imported with the leaf-bone ``choice`` (``CHOICES``); a scene whose leaves
    are ignored says so in its messages."""
    if choice not in CHOICES:
        raise ValueError(f"leaf_bones must be one of {CHOICES}, not {choice!r}")
    if choice == "keep" or len(scene.bones) < 2:
        return scene
    found = leaves(scene)
    if not found or (choice == "auto" and not blender_wrote_leaves(generator, scene, found)):
        return scene
    out = without(scene, found)
    names = [scene.bones[i].name for i in found]
    shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
    out.messages.append(
        f"ignored {plural(len(names), 'leaf bone')} ({shown}): they only "
        "mark where the last bones end (File ▸ Leaf Bones ▸ Keep reads "
        "them)"
    )
    return out


def without(scene: Scene, found: list[int]) -> Scene:
    """``scene`` without the bones ``found`` (leaves), each parent's tail where its leaf's
    head was (or along it, where that is implausibly far), the meshes' joints without them."""
    by_name = {b.name: b for b in scene.bones}
    gone = {scene.bones[i].name for i in found}
    tails = {}
    for i in found:
        leaf = scene.bones[i]
        parent = by_name[leaf.parent]
        offset = np.asarray(leaf.translation, dtype=float)
        length = float(np.linalg.norm(offset))
        if length == 0 or parent.tail is not None:
            continue
        own = float(np.linalg.norm(parent.translation)) if parent.parent is not None else 0.0
        if own > 0 and length > FAR * own:  # written too far: its direction, a parent's length
            offset = offset / length * own
        tails[parent.name] = tuple(float(v) for v in offset)
    out = scene.copy()
    out.bones = [
        dataclasses.replace(b, tail=tails[b.name]) if b.name in tails else b
        for b in scene.bones
        if b.name not in gone
    ]
    out.meshes = tuple(without_joints(m, gone) for m in scene.meshes)
    out.messages = list(scene.messages)
    return out


def without_joints(mesh: SkinnedMesh, gone: set) -> SkinnedMesh:
    """``mesh`` without the joints named in ``gone`` (which weigh none of its vertices)."""
    keep = [j for j, name in enumerate(mesh.joints) if name not in gone]
    if len(keep) == len(mesh.joints):
        return mesh
    new_index = np.zeros(len(mesh.joints), dtype=np.int64)
    new_index[keep] = np.arange(len(keep))
    weights = np.asarray(mesh.weights, dtype=float)
    indices = np.where(weights > 0, new_index[np.asarray(mesh.joint_indices)], 0)
    return dataclasses.replace(
        mesh,
        joints=tuple(mesh.joints[j] for j in keep),
        joint_indices=indices,
        weights=weights,
        inverse_bind=np.asarray(mesh.inverse_bind)[keep],
    )
