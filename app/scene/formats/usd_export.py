"""The evaluated animation as USD (``.usda`` text or ``.usdc`` crate), with ``usd-core``'s UsdSkel.

``docs/scene-format.md``, "USD export":

- One ``SkelRoot`` (``/Pivotal``, the default prim) holding a ``Skeleton`` whose joints are the
  bones in hierarchy order (parents first), each joint's token its path of names
  (``thigh/calf/foot``). Names become USD identifiers (every character outside
  ``[A-Za-z0-9_]`` -> ``_``, a leading digit gets ``_`` before it, a clash gets ``_1``,
  ``_2``); the original names, in joint order, are the skeleton's ``customData``
  ``pivotal:boneNames``.
- A ``SkelAnimation`` bound through ``skel:animationSource`` with ``translations``,
  ``rotations`` and ``scales`` at every exported frame (time code = frame number).
  ``startTimeCode``/``endTimeCode`` are the first and last exported frame,
  ``timeCodesPerSecond`` = ``framesPerSecond`` = fps; ``upAxis`` Y, ``metersPerUnit`` 1.
- Rest and bind transforms come from the first exported frame (a joint scaled to 0 there is
  bound at its head, its rest from its own keys), except that a joint a mesh is
  bound to takes its bind transform from the mesh (the inverse of its inverse bind matrix),
  so the mesh deforms as it did in glTF.
- Each skinned mesh is a ``Mesh`` under the root with ``UsdSkelBindingAPI``: its own joint
  order (``skel:joints``), ``primvars:skel:jointIndices``/``jointWeights`` (4 per vertex)
  and an identity ``geomBindTransform`` (its points are in bind space already).

USD stores ``scales`` as half floats (``half3[]``): scales other than 1 keep ~3 digits.
The stage is written to a temporary file beside the target and renamed over it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from app.scene.errors import SceneError
from app.scene.formats.atomic import atomic_path
from app.scene.formats.baked_locals import bind_pose, checked_bake, keyed_trs, local_trs
from app.scene.math.transforms import inverse, trs
from app.scene.rig.model import Scene

ROOT_PATH = "/Pivotal"


def identifiers(names) -> list[str]:
    """USD identifiers for ``names``, unique among themselves (see the module docstring)."""
    out, used = [], set()
    for name in names:
        ident = re.sub(r"[^A-Za-z0-9_]", "_", name) or "_"
        if ident[0].isdigit():
            ident = "_" + ident
        candidate, k = ident, 0
        while candidate in used:
            k += 1
            candidate = f"{ident}_{k}"
        used.add(candidate)
        out.append(candidate)
    return out


def hierarchy_order(parents: np.ndarray) -> list[int]:
    """Bone indices depth first, parents before children, children in file order."""
    children = [[] for _ in parents]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    order, stack = [], [i for i in reversed(range(len(parents))) if parents[i] < 0]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b]))
    return order


def _matrices(m: np.ndarray):
    from pxr import Gf, Vt

    # USD multiplies row vectors: its matrix is the transpose of ours.
    return Vt.Matrix4dArray([Gf.Matrix4d(*np.asarray(x).T.reshape(-1).tolist()) for x in m])


def build_stage(stage, scene: Scene, result) -> bool:
    """Author the skeleton, its animation and the meshes of a bake of ``scene`` on ``stage``.

    Returns whether any joint's local scale differs from 1 (USD keeps it as a half float).
    """
    from pxr import UsdGeom, UsdSkel, Vt

    names, frames, world, parents = checked_bake(scene, result, "USD")
    index = {n: i for i, n in enumerate(names)}
    order = hierarchy_order(parents)
    idents = identifiers(names)
    tokens = {}
    for b in order:
        p = parents[b]
        tokens[b] = idents[b] if p < 0 else f"{tokens[p]}/{idents[b]}"
    joints = Vt.TokenArray([tokens[b] for b in order])

    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetStartTimeCode(float(frames[0]))
    stage.SetEndTimeCode(float(frames[-1]))
    stage.SetTimeCodesPerSecond(float(scene.fps))
    stage.SetFramesPerSecond(float(scene.fps))

    root = UsdSkel.Root.Define(stage, ROOT_PATH)
    stage.SetDefaultPrim(root.GetPrim())
    skel = UsdSkel.Skeleton.Define(stage, f"{ROOT_PATH}/Skeleton")
    skel.CreateJointsAttr(joints)
    skel.CreateJointNamesAttr(Vt.TokenArray([idents[b] for b in order]))
    original = Vt.StringArray([names[b] for b in order])
    skel.GetPrim().SetCustomDataByKey("pivotal:boneNames", original)

    t, q, s = local_trs(parents, world, lambda: keyed_trs(scene, frames))
    first_local = world[0].copy()
    child = np.flatnonzero(parents >= 0)
    parent_world = world[0, parents[child]]
    # Exact under a parent that can be inverted; under one scaled to 0, the child's own keys.
    exact = np.linalg.det(parent_world[:, :3, :3]) != 0
    first_local[child[exact]] = inverse(parent_world[exact]) @ world[0, child[exact]]
    first_local[child[~exact]] = trs(t[0, child[~exact]], q[0, child[~exact]], s[0, child[~exact]])
    bind = bind_pose(world[0])[0]
    for mesh in scene.meshes:
        for j, joint in enumerate(mesh.joints):
            bind[index[joint]] = inverse(mesh.inverse_bind[j])
    skel.CreateRestTransformsAttr(_matrices(first_local[order]))
    skel.CreateBindTransformsAttr(_matrices(bind[order]))

    anim = UsdSkel.Animation.Define(stage, f"{ROOT_PATH}/Skeleton/Animation")
    anim.CreateJointsAttr(joints)
    translations = anim.CreateTranslationsAttr()
    rotations = anim.CreateRotationsAttr()
    scales = anim.CreateScalesAttr()
    t32 = t[:, order].astype(np.float32)
    q32 = q[:, order].astype(np.float32)  # [w, x, y, z], as Gf.Quatf's (real, imaginary)
    s16 = s[:, order].astype(np.float16)
    scaled = bool(np.abs(s - 1.0).max() > 1e-6)
    for f, frame in enumerate(frames):
        code = float(frame)
        translations.Set(Vt.Vec3fArray.FromNumpy(t32[f]), code)
        rotations.Set(Vt.QuatfArray.FromNumpy(np.roll(q32[f], -1, axis=-1)), code)
        scales.Set(Vt.Vec3hArray.FromNumpy(s16[f]), code)
    UsdSkel.BindingAPI.Apply(skel.GetPrim()).CreateAnimationSourceRel().SetTargets([anim.GetPath()])
    UsdSkel.BindingAPI.Apply(root.GetPrim()).CreateSkeletonRel().SetTargets([skel.GetPath()])

    mesh_names = identifiers([m.name for m in scene.meshes])
    for mesh, ident in zip(scene.meshes, mesh_names):
        joint_tokens = [tokens[index[j]] for j in mesh.joints]
        _mesh(stage, f"{ROOT_PATH}/{ident}", mesh, joint_tokens, skel)
    return scaled


def _mesh(stage, path, mesh, joint_tokens, skel) -> None:
    from pxr import Gf, UsdGeom, UsdSkel, Vt

    geom = UsdGeom.Mesh.Define(stage, path)
    points = mesh.positions.astype(np.float32)
    geom.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(points))
    geom.CreateFaceVertexCountsAttr(Vt.IntArray([3] * len(mesh.indices)))
    geom.CreateFaceVertexIndicesAttr(Vt.IntArray(mesh.indices.reshape(-1).tolist()))
    geom.CreateExtentAttr(
        Vt.Vec3fArray(
            [Gf.Vec3f(*map(float, points.min(axis=0))), Gf.Vec3f(*map(float, points.max(axis=0)))]
        )
    )
    geom.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    if mesh.normals is not None:
        geom.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(mesh.normals.astype(np.float32)))
        geom.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    binding = UsdSkel.BindingAPI.Apply(geom.GetPrim())
    binding.CreateSkeletonRel().SetTargets([skel.GetPath()])
    binding.CreateJointsAttr(Vt.TokenArray(joint_tokens))
    width = mesh.joint_indices.shape[1]  # influences per vertex (up to 8)
    binding.CreateJointIndicesPrimvar(False, width).Set(
        Vt.IntArray(mesh.joint_indices.reshape(-1).tolist())
    )
    binding.CreateJointWeightsPrimvar(False, width).Set(
        Vt.FloatArray(mesh.weights.reshape(-1).astype(np.float32).tolist())
    )
    binding.CreateGeomBindTransformAttr(Gf.Matrix4d(1.0))


def write_usd(path, scene: Scene, result) -> list[str]:
    """Write the bake as ``.usda`` or ``.usdc`` (by suffix), atomically."""
    from pxr import Usd

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".usda", ".usdc", ".usd"):
        raise SceneError(f"USD files end in .usda or .usdc, not {suffix!r}", file=str(path))
    with atomic_path(path, suffix) as tmp:
        stage = Usd.Stage.CreateNew(str(tmp))
        scaled = build_stage(stage, scene, result)
        stage.GetRootLayer().Save()
        del stage
    notes = []
    if scaled:
        notes.append("USD stores joint scales as half floats (about 3 significant digits)")
    return notes
