"""A bone renamed or deleted, carried into what names it outside the bones and constraints.

Skinned meshes name their joints (``SkinnedMesh.joints``), and a tutorial scene's
``tutorial`` data names the bones it shows (``docs/scene-format.md``, "Tutorial scenes"). A
rename that left them behind would unbind the mesh (its vertices fall back to their bind
pose) and switch the tutorial panel off, so :func:`~app.scene.rig.bone_edits.rename_bone`
renames them here too. Nothing is changed in place: new meshes and a new ``extra`` dict are
returned, sharing what did not change.

A mesh whose joint was renamed no longer matches the glTF file it was read from, so the
renamed ``extra`` forgets that file (``extra["meshes"]["source"]``): the next save writes the
meshes beside the scene as ``<scene stem>.meshes.glb`` with the new joint names, which is
what the format already does for meshes whose source is gone.

Deleting a bone a mesh is bound to would leave a joint that is no bone: the mesh could not
be drawn bound, and a saved scene would not load again. As Maya's *Remove Joint* does,
:func:`transferred_meshes` hands the vertices it moved to the nearest ancestor that
survives, so they follow that bone rigidly from now on:

- when the ancestor is already a joint of the mesh, the deleted joint's influences point at
  it (a vertex may then name it twice; linear blend skinning adds the two weights);
- otherwise the deleted joint's entry becomes the ancestor, with the inverse bind
  ``inverse(rest_to_world(ancestor)) @ rest_to_world(deleted) @ inverse_bind(deleted)``.

Either way the vertices stay put in the rest pose where the mesh was bound in it
(``rest_to_world(deleted) @ inverse_bind(deleted) = I``; the second case holds for any
bind). Joints no vertex names any more are dropped (a glTF skin lists each joint once).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from app.scene.math.transforms import inverse

#: ``scene.extra`` keys this module knows: the tutorial panel's data, the meshes' source and
#: the humanoid map (``{"bones": {canonical: bone}}``, :mod:`app.scene.retarget.map_file`).
TUTORIAL, MESHES, HUMANOID = "tutorial", "meshes", "humanoid"


def renamed_meshes(meshes, old: str, new: str) -> tuple:
    """``meshes`` with joint ``old`` called ``new`` (unbound meshes are the same objects).

    Parameters
    ----------
    meshes : sequence of SkinnedMesh
    old, new : str

    Returns
    -------
    tuple of SkinnedMesh
    """
    out = []
    for mesh in meshes:
        if old in mesh.joints:
            joints = tuple(new if j == old else j for j in mesh.joints)
            mesh = dataclasses.replace(mesh, joints=joints)
        out.append(mesh)
    return tuple(out)


def _bone_field(value, old: str, new: str):
    """A ``{"bone": ...}`` object with its bone renamed (anything else unchanged)."""
    if isinstance(value, Mapping) and value.get("bone") == old:
        return {**value, "bone": new}
    return value


def renamed_tutorial(data, old: str, new: str):
    """A scene's ``tutorial`` value with bone ``old`` called ``new``.

    For ``"kind": "basis_change"``: ``point.bone``, each ``frames[].bone``, the keys of
    ``point_in_frames`` and ``change_of_basis.from``/``to``. Values of other kinds, or of
    an unexpected shape, are returned unchanged (evaluation ignores the key).
    """
    if not isinstance(data, Mapping) or data.get("kind") != "basis_change":
        return data
    out = dict(data)
    if "point" in out:
        out["point"] = _bone_field(out["point"], old, new)
    if isinstance(out.get("frames"), list):
        out["frames"] = [_bone_field(f, old, new) for f in out["frames"]]
    quoted = out.get("point_in_frames")
    if isinstance(quoted, Mapping) and old in quoted:
        out["point_in_frames"] = {(new if k == old else k): v for k, v in quoted.items()}
    change = out.get("change_of_basis")
    if isinstance(change, Mapping):
        out["change_of_basis"] = {
            k: (new if k in ("from", "to") and v == old else v) for k, v in change.items()
        }
    return out


def renamed_extra(extra: Mapping, old: str, new: str, meshes_renamed: bool) -> dict:
    """A scene's ``extra`` after renaming bone ``old`` to ``new``.

    Parameters
    ----------
    extra : Mapping
        The scene's top-level unknown keys.
    meshes_renamed : bool
        Whether a skinned mesh was bound to ``old``: then its source file no longer matches
        and ``extra["meshes"]`` loses its ``source`` (saving writes the meshes anew).

    Returns
    -------
    dict
        A new dict; ``extra`` itself is not changed.
    """
    out = dict(extra)
    if TUTORIAL in out:
        out[TUTORIAL] = renamed_tutorial(out[TUTORIAL], old, new)
    if HUMANOID in out:
        out[HUMANOID] = _humanoid_bones(out[HUMANOID], lambda b: new if b == old else b)
    return without_mesh_source(out) if meshes_renamed else out


def without_humanoid_bones(extra: Mapping, gone) -> dict:
    """A scene's ``extra`` whose humanoid map lets go of the bones ``gone`` (deleted): they
    are unmapped, so the map still names only bones of the scene. A new dict."""
    out = dict(extra)
    if HUMANOID in out:
        gone = set(gone)
        out[HUMANOID] = _humanoid_bones(out[HUMANOID], lambda b: None if b in gone else b)
    return out


def _humanoid_bones(value, change):
    """The humanoid map's value with each bone ``b`` mapped to ``change(b)`` (``None``
    drops it); a value of an unexpected shape is returned as it is."""
    if not isinstance(value, Mapping) or not isinstance(value.get("bones"), Mapping):
        return value
    bones = {c: change(b) for c, b in value["bones"].items()}
    return {**value, "bones": {c: b for c, b in bones.items() if b is not None}}


def without_mesh_source(extra: Mapping) -> dict:
    """A scene's ``extra`` forgetting the file its meshes came from (``extra["meshes"]
    ["source"]``): after an edit of their joints they no longer match it, and the next save
    writes them anew. A new dict; ``extra`` itself is not changed."""
    out = dict(extra)
    if isinstance(out.get(MESHES), Mapping):
        out[MESHES] = {k: v for k, v in out[MESHES].items() if k != "source"}
    return out


def transferred_meshes(meshes, going: set, surviving_ancestor, rest_to_world) -> tuple:
    """``meshes`` with every joint in ``going`` handed to its nearest surviving ancestor.

    Parameters
    ----------
    meshes : sequence of SkinnedMesh
    going : set of str
        The bones being deleted.
    surviving_ancestor : callable
        ``surviving_ancestor(name) -> str | None``: the nearest ancestor of a deleted bone
        that is not deleted (``None``: none is left).
    rest_to_world : callable
        ``rest_to_world(name) -> (4, 4)``: a bone's rest transform to world.

    Returns
    -------
    tuple of SkinnedMesh
        Meshes bound to no deleted bone are the same objects.

    Raises
    ------
    ValueError
        When a deleted bone a mesh is bound to has no surviving ancestor to take its weights.
    """
    out = []
    for mesh in meshes:
        if going.isdisjoint(mesh.joints):
            out.append(mesh)
            continue
        joints = list(mesh.joints)
        inverse_bind = mesh.inverse_bind.copy()
        target = np.arange(len(joints))  # entry each influence ends on
        for j, name in enumerate(mesh.joints):
            if name not in going:
                continue
            heir = surviving_ancestor(name)
            if heir is None:
                raise ValueError(
                    f"mesh {mesh.name!r} is bound to bone {name!r}, and no ancestor of it is "
                    f"left to take its weights; keep a parent of {name!r}"
                )
            if heir in joints:
                target[j] = joints.index(heir)
            else:
                joints[j] = heir
                inverse_bind[j] = (
                    inverse(rest_to_world(heir)) @ rest_to_world(name) @ mesh.inverse_bind[j]
                )
        keep = np.unique(target[mesh.joint_indices])
        renumber = np.full(len(joints), -1)
        renumber[keep] = np.arange(len(keep))
        out.append(
            dataclasses.replace(
                mesh,
                joints=tuple(joints[k] for k in keep),
                inverse_bind=inverse_bind[keep],
                joint_indices=renumber[target[mesh.joint_indices]],
            )
        )
    return tuple(out)
