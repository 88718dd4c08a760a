"""Blender as the FBX oracle: make the test FBX files, and record what Blender's FBX importer
shows for each (``tests/data/fbx/README.md``). Run once, by hand, with Blender as a Python
module (``pip install --target DIR bpy==5.0.1``; Python 3.11), not by the tests:

    PYTHONPATH=DIR python tools/fbx_oracle.py make tests/data/fbx
    PYTHONPATH=DIR python tools/fbx_oracle.py record tests/data/fbx/*.fbx

``make`` writes, with Blender's FBX exporter, ``wave_zup_cm.fbx`` (Z up, centimetres),
``wave_yup_m.fbx`` (Y up, metres) — a skinned, animated character whose vertices have 5 to 8
influences — and ``character65.fbx`` (65 joints, the benchmark's character).

``record`` imports each file into an empty Blender scene with Blender's FBX importer
(defaults) and writes ``<file>.blender.json`` beside it: per frame of the take, the world
head of every bone and object, and at three frames the deformed vertices of every mesh, all
in Pivotal's axes (Blender's ``(x, y, z)`` as ``(x, z, -y)``, metres).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import bpy  # noqa: I001 - Blender as a module (bpy 5.0.1)
from mathutils import Vector


def _y_up(v) -> list:
    return [float(v[0]), float(v[2]), float(-v[1])]


def _empty():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def _import(path):
    import io_scene_fbx.import_fbx as importer

    original = importer.blen_read_light

    def light(*args, **kwargs):  # bpy 5.0.1's importer sets a Cycles setting it lacks
        try:
            return original(*args, **kwargs)
        except AttributeError:
            return bpy.data.lights.new(name="light", type="POINT")

    importer.blen_read_light = light
    bpy.ops.import_scene.fbx(filepath=str(path))


def record(path: Path) -> None:
    _empty()
    _import(path)
    scene = bpy.context.scene
    start, end = 0, 0
    for action in bpy.data.actions:
        start, end = (int(round(x)) for x in action.frame_range)
        break
    out = {
        "file": path.name,
        "blender": bpy.app.version_string,
        "frame_start": start,
        "frame_end": end,
        "heads": {},
        "meshes": {},
    }
    frames = list(range(start, end + 1))
    depsgraph = bpy.context.evaluated_depsgraph_get()
    mesh_frames = sorted({start, (start + end) // 2, end})
    for f in frames:
        scene.frame_set(f)
        heads = {}
        for obj in scene.objects:
            if obj.type in ("LIGHT", "CAMERA"):
                continue
            heads[obj.name] = _y_up(obj.matrix_world.translation)
            if obj.type == "ARMATURE":
                for pb in obj.pose.bones:
                    heads[pb.name] = _y_up(obj.matrix_world @ pb.head)
        out["heads"][str(f)] = heads
        if f in mesh_frames:
            depsgraph = bpy.context.evaluated_depsgraph_get()
            for obj in scene.objects:
                if obj.type != "MESH":
                    continue
                evaluated = obj.evaluated_get(depsgraph)
                mesh = evaluated.to_mesh()
                points = [_y_up(obj.matrix_world @ v.co) for v in mesh.vertices]
                evaluated.to_mesh_clear()
                out["meshes"].setdefault(obj.name, {})[str(f)] = [
                    [round(x, 7) for x in p] for p in points
                ]
    target = path.with_name(path.name + ".blender.json")
    target.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"{target}: {len(frames)} frames, {len(out['heads'][str(start)])} heads")


# --- making the files ---------------------------------------------------------------------


def _character(chains: int, per_chain: int, ring: int, rows_per_bone: int, influences: int):
    """An armature of ``chains`` chains of ``per_chain`` bones fanning out of a root, a tube of
    vertices along each chain, each vertex weighted to its ``influences`` nearest bones, and a
    40-frame take that waves every bone."""
    _empty()
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 0, 40
    armature = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", armature)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    root = armature.edit_bones.new("root")
    root.head, root.tail = (0, 0, 0), (0, 0, 0.2)
    bones, length = [], 0.25
    for c in range(chains):
        angle = 2 * math.pi * c / chains
        direction = Vector((math.cos(angle) * 0.6, math.sin(angle) * 0.6, 0.8)).normalized()
        parent, head = root, Vector(root.tail)
        for k in range(per_chain):
            b = armature.edit_bones.new(f"chain{c}_{k}")
            b.head, b.tail = head, head + direction * length
            b.parent, b.use_connect = parent, k > 0
            bones.append((b.name, Vector(b.head), Vector(b.tail)))
            parent, head = b, Vector(b.tail)
    bpy.ops.object.mode_set(mode="OBJECT")
    verts, faces, weights = [], [], []
    for c in range(chains):
        chain = [b for b in bones if b[0].startswith(f"chain{c}_")]
        start, end = chain[0][1], chain[-1][2]
        axis = (end - start).normalized()
        side = axis.orthogonal().normalized()
        other = axis.cross(side)
        rows = rows_per_bone * per_chain + 1
        base = len(verts)
        for r in range(rows):
            at = start.lerp(end, r / (rows - 1))
            for s in range(ring):
                a = 2 * math.pi * s / ring
                verts.append(at + (side * math.cos(a) + other * math.sin(a)) * 0.06)
        for r in range(rows - 1):
            for s in range(ring):
                a, b = base + r * ring + s, base + r * ring + (s + 1) % ring
                faces.append((a, b, b + ring, a + ring))
    mesh = bpy.data.meshes.new("Body")
    mesh.from_pydata([tuple(v) for v in verts], [], faces)
    body = bpy.data.objects.new("Body", mesh)
    scene.collection.objects.link(body)
    body.parent = rig
    modifier = body.modifiers.new("Armature", "ARMATURE")
    modifier.object = rig
    groups = {name: body.vertex_groups.new(name=name) for name, _, _ in bones}
    mids = [(name, (h + t) / 2) for name, h, t in bones]
    for i, v in enumerate(verts):
        near = sorted(mids, key=lambda m: (m[1] - v).length)[:influences]
        for rank, (name, mid) in enumerate(near):
            groups[name].add([i], 1.0 / (1.0 + 4.0 * (mid - v).length + rank), "REPLACE")
    rig.animation_data_create()
    rig.animation_data.action = bpy.data.actions.new("Wave")
    for f in (0, 10, 20, 30, 40):
        for n, pb in enumerate(rig.pose.bones):
            pb.rotation_mode = "XYZ"
            phase = f / 40 * 2 * math.pi + n * 0.7
            pb.rotation_euler = (
                0.5 * math.sin(phase),
                0.3 * math.cos(phase),
                0.2 * math.sin(2 * phase),
            )
            pb.keyframe_insert("rotation_euler", frame=f)
        rig.location = (0.1 * math.sin(f / 40 * 2 * math.pi), 0.05 * f / 40, 0.0)
        rig.keyframe_insert("location", frame=f)
    weights.clear()
    return rig


def _export(path, **options):
    bpy.ops.export_scene.fbx(
        filepath=str(path),
        add_leaf_bones=False,
        bake_anim=True,
        bake_anim_use_all_actions=False,
        bake_anim_use_nla_strips=False,
        bake_anim_simplify_factor=0.0,
        **options,
    )
    print(f"{path}: {Path(path).stat().st_size} bytes")


def make(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    _character(chains=3, per_chain=3, ring=8, rows_per_bone=2, influences=8)
    # FBX_SCALE_NONE writes UnitScaleFactor 1 (centimetres, values x 100), FBX_SCALE_UNITS
    # writes UnitScaleFactor 100 (metres).
    _export(
        folder / "wave_zup_cm.fbx",
        axis_up="Z",
        axis_forward="Y",
        apply_scale_options="FBX_SCALE_NONE",
    )
    _export(
        folder / "wave_yup_m.fbx",
        axis_up="Y",
        axis_forward="-Z",
        apply_scale_options="FBX_SCALE_UNITS",
    )
    _character(chains=8, per_chain=8, ring=8, rows_per_bone=2, influences=4)  # 65 joints
    _export(
        folder / "character65.fbx",
        axis_up="Y",
        axis_forward="-Z",
        apply_scale_options="FBX_SCALE_NONE",
    )


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(Path(sys.argv[2]))
    else:
        for name in sys.argv[2:]:
            record(Path(name))
