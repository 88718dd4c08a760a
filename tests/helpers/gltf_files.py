"""Hand-built glTF files for the importer tests: a JSON document plus one binary buffer.

Written independently of the exporter: raw ``struct``/numpy bytes and plain dicts.
"""

from __future__ import annotations

import base64
import json
import struct

import numpy as np

FLOAT, UBYTE, USHORT, UINT, BYTE, SHORT = 5126, 5121, 5123, 5125, 5120, 5122


class Builder:
    """Appends arrays to one buffer and describes them as buffer views and accessors."""

    def __init__(self):
        self.bin = bytearray()
        self.doc = {"asset": {"version": "2.0"}, "buffers": [], "bufferViews": [], "accessors": []}

    def _align(self, n=4):
        while len(self.bin) % n:
            self.bin.append(0)

    def view(self, raw: bytes, stride=None) -> int:
        self._align()
        bv = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(raw)}
        if stride:
            bv["byteStride"] = stride
        self.bin += raw
        self.doc["bufferViews"].append(bv)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, values, ctype=FLOAT, kind=None, normalized=False, minmax=False) -> int:
        values = np.asarray(values)
        if values.ndim == 1:
            values = values[:, None]
        kind = kind or {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}[values.shape[1]]
        dtype = {FLOAT: "<f4", UBYTE: "<u1", USHORT: "<u2", UINT: "<u4", BYTE: "<i1", SHORT: "<i2"}[
            ctype
        ]
        v = self.view(values.astype(dtype).tobytes())
        acc = {"bufferView": v, "componentType": ctype, "count": len(values), "type": kind}
        if normalized:
            acc["normalized"] = True
        if minmax:
            acc["min"] = values.min(axis=0).tolist()
            acc["max"] = values.max(axis=0).tolist()
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def gltf_bytes(self, uri: str | None = "data") -> bytes:
        """The ``.gltf`` JSON with the buffer as a data URI (``uri="data"``) or a file name."""
        doc = json.loads(json.dumps(self.doc))
        self._align()
        if uri == "data":
            uri = "data:application/octet-stream;base64," + base64.b64encode(self.bin).decode()
        doc["buffers"] = [{"byteLength": len(self.bin), "uri": uri}]
        return json.dumps(doc).encode()

    def glb_bytes(self) -> bytes:
        doc = json.loads(json.dumps(self.doc))
        self._align()
        doc["buffers"] = [{"byteLength": len(self.bin)}]
        text = json.dumps(doc).encode()
        text += b" " * (-len(text) % 4)
        total = 12 + 8 + len(text) + 8 + len(self.bin)
        return (
            struct.pack("<4sII", b"glTF", 2, total)
            + struct.pack("<II", len(text), 0x4E4F534A)
            + text
            + struct.pack("<II", len(self.bin), 0x004E4942)
            + bytes(self.bin)
        )


def hide_and_show(builder: Builder, node: int) -> None:
    """Animate ``node``'s scale 1 → 0 → 1 over the seconds 0, 1, 2 (how glTF props are hidden),
    as ``builder``'s only animation."""
    t = builder.accessor(np.array([0.0, 1.0, 2.0]), minmax=True)
    scale = builder.accessor(np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1.0]]))
    channel = {"sampler": 0, "target": {"node": node, "path": "scale"}}
    builder.doc["animations"] = [
        {"samplers": [{"input": t, "output": scale}], "channels": [channel]}
    ]
