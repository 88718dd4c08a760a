"""A bone's new name carried into what names it outside the bones and constraints.

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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

#: ``scene.extra`` keys this module knows: the tutorial panel's data and the meshes' source.
TUTORIAL, MESHES = "tutorial", "meshes"


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
        out["change_of_basis"] = {k: (new if k in ("from", "to") and v == old else v)
                                  for k, v in change.items()}  # fmt: skip
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
    if meshes_renamed and isinstance(out.get(MESHES), Mapping):
        out[MESHES] = {k: v for k, v in out[MESHES].items() if k != "source"}
    return out
