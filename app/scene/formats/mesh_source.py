"""How a saved scene keeps its skinned meshes: ``"meshes": {"source": "character.glb"}``.

A scene file does not copy mesh data. Its top-level ``meshes`` object names the glTF (or FBX)
file the meshes come from, relative to the scene file's folder (``/`` separators); loading the scene
reads that file's meshes again (``docs/scene-format.md``, "Meshes in a scene file"). In
memory the scene keeps the resolved absolute path in ``scene.extra["meshes"]["source"]``, so
saving anywhere else writes the path relative to the new place.

A scene whose meshes came from no file (built in code) gets them written beside it as
``<scene stem>.meshes.glb`` (the glTF exporter's rest pose and skin), and names that file.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np

from app.scene.errors import SceneError
from app.scene.formats.leaf_bones import weighted_bones, without_joints
from app.scene.math.transforms import trs
from app.scene.rig.model import Scene

KEY = "meshes"


def remember_source(scene: Scene, path) -> Scene:
    """Note in ``scene.extra`` that its meshes come from the glTF file ``path``."""
    if scene.meshes:
        scene.extra[KEY] = {"source": str(Path(path).resolve())}
    return scene


def source_for_save(scene: Scene, path) -> dict:
    """The ``meshes`` value to write when ``scene`` is saved to ``path``.

    Raises
    ------
    SceneError
        When the meshes cannot be kept (their source file is gone and writing a new one
        failed).
    """
    path = Path(path)
    spec = scene.extra.get(KEY)
    source = spec.get("source") if isinstance(spec, dict) else None
    if not isinstance(source, str) or not Path(source).is_file():
        from app.scene.formats.gltf.export import write_meshes_glb

        source = path.with_name(path.stem + ".meshes.glb")
        write_meshes_glb(scene, source)
    relative = os.path.relpath(Path(source).resolve(), path.resolve().parent)
    return {"source": Path(relative).as_posix()}


def load_meshes(scene: Scene, path) -> None:
    """Fill ``scene.meshes`` from the glTF file its ``meshes.source`` names.

    Raises
    ------
    SceneError
        A malformed ``meshes`` value, a missing or bad source file, or a mesh bound to a bone
        the scene does not have; naming ``meshes.source``.
    """
    from app.scene.formats.gltf.importer import load_gltf

    spec = scene.extra.get(KEY)
    if not isinstance(spec, dict) or not isinstance(spec.get("source"), str):
        raise SceneError('must be an object {"source": "file.glb"}', KEY, str(path))
    source = (Path(path).parent / spec["source"]).resolve()
    try:
        if source.suffix.lower() == ".fbx":  # a scene saved after an FBX import
            from app.scene.formats.fbx.importer import load_fbx

            found = load_fbx(source)
        else:
            found = load_gltf(source)
    except SceneError as e:
        raise SceneError(f"cannot read the meshes: {e}", f"{KEY}.source", str(path)) from None
    bones = set(scene.bone_names())
    meshes = []
    for mesh in found.meshes:
        mesh = _onto_bones_the_scene_has(mesh, found, bones)
        # joints the scene lacks that move nothing: leaf bones ignored at import
        idle = set(mesh.joints) - bones - weighted_bones(Scene(bones=[], meshes=(mesh,)))
        meshes.append(without_joints(mesh, idle))
    for mesh in meshes:
        for joint in mesh.joints:
            if joint not in bones:
                raise SceneError(
                    f"mesh {mesh.name!r} is bound to {joint!r}, which is not a bone of this scene",
                    f"{KEY}.source",
                    str(path),
                )
    scene.meshes = tuple(meshes)
    scene.extra[KEY] = {"source": str(source)}


def _onto_bones_the_scene_has(mesh, found: Scene, bones: set):
    """A rigid mesh (one joint) whose bone the scene lacks, bound to the nearest ancestor it
    has, where the static transforms between them put it: a scene saved before a glTF node
    carrying only a mesh became a bone keeps its meshes, riding on the parent as it did then.
    Anything else comes back as it is (and is refused if its bones are missing)."""
    if len(mesh.joints) != 1 or mesh.joints[0] in bones:
        return mesh
    by_name = {b.name: b for b in found.bones}
    chain, name = np.eye(4), mesh.joints[0]
    while name is not None and name not in bones:
        bone = by_name.get(name)
        if bone is None:
            return mesh
        chain = trs(bone.translation, bone.rotation, bone.scale) @ chain
        name = bone.parent
    if name is None:
        return mesh
    return dataclasses.replace(mesh, joints=(name,), inverse_bind=chain @ mesh.inverse_bind)
