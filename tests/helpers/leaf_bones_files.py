"""A Blender FBX export with leaf bones written far off, as Mixamo's Xbot exported from Blender
("Add Leaf Bones") has its ``_end`` bones 23 m above the head: assimp's test model
``huesitos.fbx`` (Blender 2.79, with ``Bone.006_end`` and ``Bone.008_end``) with the leaves'
``Lcl Translation`` multiplied in place, byte for byte the rest of the file."""

from __future__ import annotations

import struct
from pathlib import Path

HUESITOS = Path(__file__).resolve().parents[2] / "tests" / "data" / "fbx" / "huesitos.fbx"
LEAVES = ("Bone.006_end", "Bone.008_end")


def far_leaves_fbx(path: Path, factor: float = 100.0) -> Path:
    """Write huesitos.fbx with its two leaf bones ``factor`` times as far from their parents
    to ``path``."""
    data = bytearray(HUESITOS.read_bytes())
    for name in LEAVES:
        model = data.find(name.encode() + b"\x00\x01Model")
        assert model > 0, name
        at = data.find(b"Lcl Translation", model) - 5  # its property record: four strings...
        for _ in range(4):
            assert data[at : at + 1] == b"S"
            at += 5 + struct.unpack_from("<I", data, at + 1)[0]
        for _ in range(3):  # ... then x, y, z as doubles
            assert data[at : at + 1] == b"D"
            value = struct.unpack_from("<d", data, at + 1)[0]
            struct.pack_into("<d", data, at + 1, value * factor)
            at += 9
    path.write_bytes(bytes(data))
    return path
