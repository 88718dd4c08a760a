"""FBX files with edited numbers, for the fuzzer and the tests of issue 27: a vertex, a skin
cluster's ``Transform``/``TransformLink``, a node's ``Lcl Translation``/``Lcl Rotation``/
``Lcl Scaling`` set to NaN, an infinity, ``1e308``, 0 or almost nothing.

Binary FBX (``Kaydara FBX Binary``) is read into its node tree and written back
(:func:`read_binary`, :func:`write_binary`: offsets recomputed, an edited zlib array
recompressed); ASCII FBX is edited as text. :func:`places` lists what an edit can reach in a
file, :func:`edit` sets one number there.

The binary layout (FBX 7.x): a 27-byte header (``Kaydara FBX Binary  \\0\\x1a\\0`` and the
version as ``uint32``), then node records: the end offset, the property count and the
property list's length (``uint32`` each, ``uint64`` from version 7500), the name's length
(``uint8``) and name, the properties, the nested records and, when there are nested records,
a null record; the top-level list ends with a null record and a footer (kept as it is).
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

MAGIC = b"Kaydara FBX Binary  \x00\x1a\x00"
_SCALARS = {b"Y": "<h", b"C": "<B", b"I": "<i", b"F": "<f", b"D": "<d", b"L": "<q"}
_ARRAYS = {b"f": "<f4", b"d": "<f8", b"l": "<i8", b"i": "<i4", b"b": "<u1", b"c": "<u1"}


@dataclass
class Node:
    name: str
    props: list  # (type code, value): numbers, arrays (ndarray), bytes for S and R
    children: list = field(default_factory=list)
    null_record: bool = False  # whether a null record ends its nested list
    encodings: dict = field(default_factory=dict)  # property index -> the array's encoding
    stored: dict = field(default_factory=dict)  # property index -> the bytes as read


def is_binary(data: bytes) -> bool:
    return data.startswith(MAGIC)


def read_binary(data: bytes):
    """The version, the top-level nodes and the footer of a binary FBX file."""
    version = struct.unpack_from("<I", data, 23)[0]
    wide = version >= 7500
    nodes, at = [], 27
    while True:
        node, at = _read_node(data, at, wide)
        if node is None:
            break
        nodes.append(node)
    return version, nodes, data[at:]


def _read_node(data, at, wide):
    fmt, size = ("<QQQ", 24) if wide else ("<III", 12)
    end, count, _ = struct.unpack_from(fmt, data, at)
    if end == 0:
        return None, at + size + 1
    at += size
    name_length = data[at]
    name = data[at + 1 : at + 1 + name_length].decode("latin-1")
    at += 1 + name_length
    node = Node(name, [])
    for k in range(count):
        code = data[at : at + 1]
        at += 1
        if code in _SCALARS:
            fmt1 = _SCALARS[code]
            node.props.append((code, struct.unpack_from(fmt1, data, at)[0]))
            at += struct.calcsize(fmt1)
        elif code in _ARRAYS:
            length, encoding, stored = struct.unpack_from("<III", data, at)
            at += 12
            raw = data[at : at + stored]
            at += stored
            node.stored[k] = raw
            if encoding == 1:
                raw = zlib.decompress(raw)
            node.props.append((code, np.frombuffer(raw, _ARRAYS[code], length).copy()))
            node.encodings[k] = encoding
        elif code in (b"S", b"R"):
            length = struct.unpack_from("<I", data, at)[0]
            node.props.append((code, data[at + 4 : at + 4 + length]))
            at += 4 + length
        else:
            raise ValueError(f"unknown FBX property type {code!r} at byte {at - 1}")
    null = 25 if wide else 13
    while at < end:
        if end - at == null and not any(data[at:end]):
            node.null_record = True
            at = end
            break
        child, at = _read_node(data, at, wide)
        node.children.append(child)
    return node, end


def write_binary(version: int, nodes, footer: bytes) -> bytes:
    """The bytes of a binary FBX file (the inverse of :func:`read_binary`)."""
    wide = version >= 7500
    out = bytearray(MAGIC + struct.pack("<I", version))
    for node in nodes:
        _write_node(out, node, wide)
    out += bytes(25 if wide else 13)
    out += footer
    return bytes(out)


def _write_node(out: bytearray, node: Node, wide: bool) -> None:
    fmt, size = ("<QQQ", 24) if wide else ("<III", 12)
    start = len(out)
    out += bytes(size)
    name = node.name.encode("latin-1")
    out += bytes([len(name)]) + name
    props_start = len(out)
    for k, (code, value) in enumerate(node.props):
        out += code
        if code in _SCALARS:
            out += struct.pack(_SCALARS[code], value)
        elif code in _ARRAYS:
            raw = np.asarray(value, _ARRAYS[code]).tobytes()
            encoding = node.encodings.get(k, 0)
            stored = node.stored.get(k)  # unedited: the bytes as they were
            if stored is None:
                stored = zlib.compress(raw) if encoding == 1 else raw
            out += struct.pack("<III", len(value), encoding, len(stored)) + stored
        else:
            out += struct.pack("<I", len(value)) + value
    props_length = len(out) - props_start
    for child in node.children:
        _write_node(out, child, wide)
    if node.children or node.null_record:
        out += bytes(25 if wide else 13)
    struct.pack_into(fmt, out, start, len(out), len(node.props), props_length)


# --- what can be edited ------------------------------------------------------------------

#: Numbers written into a file: non-finite, huge, zero and almost nothing.
VALUES = (float("nan"), float("inf"), -float("inf"), 1e308, -1e308, 0.0, 5e-324, 1e-300)
#: The places an edit reaches: a mesh's vertices, a skin cluster's transforms, a node's
#: local transform, a node's geometric transform (its meshes alone).
WHAT = ("vertices", "cluster", "translation", "rotation", "scaling", "geometric")


def _objects(nodes):
    return next((n for n in nodes if n.name == "Objects"), None)


def _model_name(obj) -> str:
    """A binary ``Model`` object's name (``name\\x00\\x01Model``)."""
    raw = obj.props[1][1] if len(obj.props) > 1 and obj.props[1][0] == b"S" else b""
    return raw.split(b"\x00\x01")[0].decode("utf-8", "replace")


def _binary_places(nodes):
    """``(what, node, property index, element count, model name)`` of every editable
    number (the model name "" for vertices and clusters)."""
    objects = _objects(nodes)
    out = []
    for obj in objects.children if objects is not None else []:
        if obj.name == "Geometry":
            for child in obj.children:
                if child.name == "Vertices" and child.props and child.props[0][0] == b"d":
                    out.append(("vertices", child, 0, len(child.props[0][1]), ""))
        elif obj.name == "Deformer":
            for child in obj.children:
                if child.name in ("Transform", "TransformLink") and child.props:
                    out.append(("cluster", child, 0, len(child.props[0][1]), ""))
        elif obj.name == "Model":
            for p70 in (c for c in obj.children if c.name == "Properties70"):
                for p in p70.children:
                    kind = p.props[0][1] if p.props and p.props[0][0] == b"S" else b""
                    for word, what in (
                        (b"Lcl Translation", "translation"),
                        (b"Lcl Rotation", "rotation"),
                        (b"Lcl Scaling", "scaling"),
                        (b"GeometricTranslation", "geometric"),
                        (b"GeometricRotation", "geometric"),
                        (b"GeometricScaling", "geometric"),
                    ):
                        if kind == word and len(p.props) >= 7:
                            out.append((what, p, 4, 3, _model_name(obj)))
    return out


_ASCII_ARRAY = re.compile(
    r"^(\s*)(Vertices|Transform|TransformLink): \*(\d+) \{\s*\n\s*a: ", re.MULTILINE
)
_ASCII_LCL = re.compile(
    r'^\s*P: "(Lcl |Geometric)(Translation|Rotation|Scaling)", "[^"]*", '
    r'"[^"]*", "[^"]*", ?',
    re.MULTILINE,
)
_NUMBER = re.compile(r"-?[\d.]+(?:[eE][-+]?\d+)?|nan|-?inf", re.IGNORECASE)


_ASCII_MODEL = re.compile(r'^\s*Model: [^,]*, "Model::([^"]*)"', re.MULTILINE)


def _ascii_places(text: str):
    """``(what, start of the numbers, element count, model name)`` in an ASCII FBX file."""
    out = []
    for m in _ASCII_ARRAY.finditer(text):
        what = "vertices" if m.group(2) == "Vertices" else "cluster"
        out.append((what, m.end(), int(m.group(3)), ""))
    models = [(m.start(), m.group(1)) for m in _ASCII_MODEL.finditer(text)]
    for m in _ASCII_LCL.finditer(text):
        what = "geometric" if m.group(1) == "Geometric" else m.group(2).lower()
        model = next((name for at, name in reversed(models) if at < m.start()), "")
        out.append((what, m.end(), 3, model))
    return out


def places(data: bytes, what: str | None = None) -> int:
    """How many editable places of kind ``what`` (any when None) ``data`` holds."""
    if is_binary(data):
        found = _binary_places(read_binary(data)[1])
    else:
        found = _ascii_places(data.decode("latin-1"))
    return sum(1 for p in found if what is None or p[0] == what)


def edit(
    data: bytes,
    what: str,
    place: int,
    element: int,
    value: float,
    whole: bool = False,
    model: str | None = None,
) -> bytes:
    """``data`` with element ``element`` (modulo the count) of the ``place``-th (modulo) place of
    kind ``what`` set to ``value`` (every element of it with ``whole``); with ``model``, only
    the places of the node of that name count. Unchanged when the file has no such place."""
    if is_binary(data):
        version, nodes, footer = read_binary(data)
        found = [
            p for p in _binary_places(nodes) if p[0] == what and (model is None or p[4] == model)
        ]
        if not found:
            return data
        _, node, index, count, _ = found[place % len(found)]
        if what in ("translation", "rotation", "scaling", "geometric"):
            for e in range(count) if whole else [element % count]:
                node.props[index + e] = (b"D", float(value))
        else:
            code, array = node.props[index]
            array = np.array(array, dtype=float)
            if whole:
                array[:] = value
            else:
                array[element % count] = value
            node.props[index] = (b"d", array)
            node.stored.pop(index, None)
        return write_binary(version, nodes, footer)
    text = data.decode("latin-1")
    found = [p for p in _ascii_places(text) if p[0] == what and (model is None or p[3] == model)]
    if not found:
        return data
    _, start, count, _ = found[place % len(found)]
    numbers = []
    at = start
    for _ in range(count):
        m = _NUMBER.search(text, at)
        if m is None:
            return data
        numbers.append(m)
        at = m.end()
    chosen = numbers if whole else [numbers[element % count]]
    word = repr(float(value))
    for m in reversed(chosen):
        text = text[: m.start()] + word + text[m.end() :]
    return text.encode("latin-1")
