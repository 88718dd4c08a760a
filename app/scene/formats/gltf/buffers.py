"""glTF 2.0 containers and accessors: a ``.gltf``/``.glb`` file as its JSON and typed arrays.

:func:`read_document` splits a file into its JSON object and its GLB binary chunk;
:class:`Accessors` resolves buffers (the GLB chunk, ``data:`` URIs in base64, external files
beside the ``.gltf``) and reads accessors as numpy arrays: strided views through a buffer
view's ``byteStride``, column padding of small matrices, normalized integer types and sparse
substitution, all without a Python loop over elements.

The JSON is read as plain values (not pygltflib's dataclasses) so that every refusal can name
its JSON pointer (``/accessors/3/bufferView``) and the reason; pygltflib builds the files the
exporter writes. Every problem is a :class:`~app.scene.errors.SceneError`.

One idea: a glTF file's containers and accessors as JSON and typed arrays.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
import urllib.parse
from pathlib import Path

import numpy as np

from app.scene.errors import SceneError
from app.scene.words import plural

#: componentType -> little-endian numpy dtype.
COMPONENT_DTYPES = {
    5120: np.dtype("<i1"),
    5121: np.dtype("<u1"),
    5122: np.dtype("<i2"),
    5123: np.dtype("<u2"),
    5125: np.dtype("<u4"),
    5126: np.dtype("<f4"),
}
#: type -> (columns, rows): a vector is one column.
TYPE_SHAPES = {
    "SCALAR": (1, 1),
    "VEC2": (1, 2),
    "VEC3": (1, 3),
    "VEC4": (1, 4),
    "MAT2": (2, 2),
    "MAT3": (3, 3),
    "MAT4": (4, 4),
}
#: An accessor without a buffer view is zeros; this many components at most (a hostile
#: ``count`` must not allocate gigabytes). Accessors with a buffer view are bounded by their
#: buffer's real size.
MAX_ZERO_COMPONENTS = 10**7

#: Required extensions that change nothing Pivotal reads (materials, textures) or that it
#: reads anyway (KHR_mesh_quantization: integer vertex attributes). Others (Draco, meshopt
#: compression) are refused rather than misread.
_HARMLESS_EXTENSIONS = (
    "KHR_materials_",
    "KHR_texture_",
    "EXT_texture_",
    "KHR_mesh_quantization",
    "KHR_lights_punctual",
    "KHR_xmp",
)
_GLB_MAGIC = b"glTF"
_CHUNK_JSON = 0x4E4F534A
_CHUNK_BIN = 0x004E4942


def pointer(*parts) -> str:
    """A JSON pointer (RFC 6901) from its parts: ``pointer("nodes", 4)`` -> ``/nodes/4``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def read_document(data: bytes) -> tuple[dict, bytes | None]:
    """The glTF JSON object and the GLB binary chunk (``None`` for a ``.gltf``).

    Raises
    ------
    SceneError
        Not glTF 2.0 (bad GLB header or chunks, malformed JSON, ``asset.version`` not 2.x).
    """
    blob = None
    if data[:4] == _GLB_MAGIC:
        text, blob = _split_glb(data)
    else:
        text = data
    try:
        value = json.loads(text.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as e:
        raise SceneError(
            "it is not glTF: a glTF file's JSON is text, and this is not text "
            f"from byte {e.start:,} on",
            f"byte {e.start:,}",
        ) from None
    except json.JSONDecodeError as e:
        raise SceneError(
            f"it is not glTF: its JSON text is broken ({e.msg.lower()})",
            f"line {e.lineno} column {e.colno}",
        ) from None
    except (ValueError, RecursionError) as e:
        raise SceneError(f"it is not glTF: its JSON text is broken ({e})", "/") from None
    if not isinstance(value, dict):
        raise SceneError("it is not glTF: its JSON is not an object ({...})", "/")
    asset = value.get("asset")
    if not isinstance(asset, dict) or not isinstance(asset.get("version"), str):
        raise SceneError("it is not glTF 2.0: it says no asset.version", "/asset/version")
    if asset["version"].split(".")[0] != "2":
        raise SceneError(
            f"it is glTF {asset['version']}, and Pivotal reads glTF 2.0", "/asset/version"
        )
    required = value.get("extensionsRequired", [])
    if not isinstance(required, list):
        raise SceneError("must be an array", "/extensionsRequired")
    for k, name in enumerate(required):
        if not isinstance(name, str) or not name.startswith(_HARMLESS_EXTENSIONS):
            raise SceneError(
                f"needs extension {name!r}, which Pivotal cannot read (it would "
                "misread geometry or animation)",
                f"/extensionsRequired/{k}",
            )
    return value, blob


def _not_binary(data: bytes) -> str:
    """Why a ``.glb`` file that is not one is refused: what it is instead, in words."""
    if not data:
        return "the file is empty"
    head = data[:4096]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:
        text = head[: e.start].decode("utf-8") if e.start > 64 else None
    if text is not None and all(c.isprintable() or c.isspace() for c in text):
        return (
            "it is a text file, not a glTF binary: a .glb file begins with the bytes "
            "“glTF” (was it renamed?)"
        )
    shown = " ".join(f"{b:02x}" for b in data[:4])
    return (
        f"it is not a glTF binary: a .glb file begins with the bytes “glTF”, this one with {shown}"
    )


def explained(error: SceneError, path, data: bytes) -> SceneError:
    """``error`` naming the file ``path``; for a ``.glb`` that is not one (it does not begin
    with the bytes ``glTF``, nor is it glTF JSON), what it is instead, the parser's words as
    details."""
    path = Path(path)
    if (
        path.suffix.lower() == ".glb"
        and data.lstrip()[:1] != b"{"
        and not data.startswith(_GLB_MAGIC)
    ):
        return SceneError(
            _not_binary(data), details=f"{error.path}: {error.reason}", file=str(path)
        )
    return error.with_file(str(path))


def _no_constant(token):
    raise ValueError(f"{token} is not a JSON number")


def _split_glb(data: bytes) -> tuple[bytes, bytes | None]:
    if len(data) < 20:
        raise SceneError(
            f"the file ends too early: a .glb file's header alone is 20 bytes, "
            f"this file has {len(data)}",
            "/",
        )
    _, version, length = struct.unpack_from("<4sII", data, 0)
    if version != 2:
        raise SceneError(
            f"it is a .glb file of version {version}, and Pivotal reads version 2 (glTF 2.0)", "/"
        )
    if length > len(data):
        raise SceneError(
            f"the file ends too early: its header says {length:,} bytes, the "
            f"file has {len(data):,} (cut short by a download or a copy?)",
            "/",
        )
    chunks, offset = [], 12
    while offset + 8 <= length:
        size, kind = struct.unpack_from("<II", data, offset)
        if offset + 8 + size > length:
            raise SceneError(
                "the file ends too early: the part that starts there runs past its end",
                f"byte {offset:,}",
            )
        chunks.append((kind, data[offset + 8 : offset + 8 + size]))
        offset += 8 + size
    if not chunks or chunks[0][0] != _CHUNK_JSON:
        raise SceneError(
            "it is not glTF 2.0: a .glb file's first part is its JSON, and this one's is not", "/"
        )
    blob = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _CHUNK_BIN else None
    return chunks[0][1], blob


# --- reading JSON values with their pointers ----------------------------------------------


def items(doc: dict, key: str) -> list:
    """The top-level array ``doc[key]`` (``[]`` when absent)."""
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise SceneError(f"{key} must be an array", pointer(key))
    return value


def obj(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise SceneError("must be an object", where)
    return value


def index(doc: dict, key: str, value, where: str) -> int:
    """``value`` as a valid index into the top-level array ``doc[key]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SceneError(f"must be an index into {key}", where)
    if not 0 <= value < len(items(doc, key)):
        raise SceneError(f"index {value} out of range ({key} has {len(items(doc, key))})", where)
    return value


def integer(value, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SceneError(f"must be an integer >= {minimum}", where)
    return value


def numbers(value, where: str, count: int) -> np.ndarray:
    """A JSON array of ``count`` finite numbers as float64."""
    ok = isinstance(value, list) and len(value) == count
    if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        raise SceneError(f"must be an array of {plural(count, 'number')}", where)
    try:
        out = np.array(value, dtype=float)
    except OverflowError:  # an integer past the floats (JSON has no bound on digits)
        raise SceneError("numbers must be finite", where) from None
    if not np.all(np.isfinite(out)):
        raise SceneError("numbers must be finite", where)
    return out


# --- buffers and accessors ----------------------------------------------------------------


class Accessors:
    """Reads the accessors of one glTF document, loading each buffer once.

    Parameters
    ----------
    doc : dict
        The glTF JSON.
    blob : bytes or None
        The GLB binary chunk.
    base : Path or None
        The folder external buffer URIs are relative to.
    """

    def __init__(self, doc: dict, blob: bytes | None, base: Path | None):
        self.doc, self.blob, self.base = doc, blob, base
        self._buffers: dict[int, bytes] = {}

    def buffer(self, i: int) -> bytes:
        if i in self._buffers:
            return self._buffers[i]
        where = pointer("buffers", i)
        buf = obj(items(self.doc, "buffers")[i], where)
        length = integer(buf.get("byteLength"), where + "/byteLength", 1)
        uri = buf.get("uri")
        if uri is None:
            if i != 0 or self.blob is None:
                raise SceneError("a buffer without uri needs the GLB binary chunk", where)
            data = self.blob
        elif not isinstance(uri, str):
            raise SceneError("uri must be a string", where + "/uri")
        elif uri.startswith("data:"):
            data = _data_uri(uri, where + "/uri")
        else:
            data = self._external(uri, where + "/uri")
        if len(data) < length:
            raise SceneError(
                f"buffer holds {len(data)} bytes, less than its byteLength {length}",
                where + "/byteLength",
            )
        self._buffers[i] = data
        return data

    def _external(self, uri: str, where: str) -> bytes:
        if self.base is None:
            raise SceneError(f"missing external buffer {uri!r} (no folder to look in)", where)
        path = self.base / urllib.parse.unquote(uri)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise SceneError(f"missing external buffer {uri!r} ({path} not found)", where) from None
        except OSError as e:
            raise SceneError(
                f"cannot read external buffer {uri!r}: {e.strerror or e}", where
            ) from None

    def view(self, v: int) -> tuple[bytes, int, int, int | None]:
        """Buffer bytes, start, length and byteStride of buffer view ``v``."""
        where = pointer("bufferViews", v)
        bv = obj(items(self.doc, "bufferViews")[v], where)
        b = index(self.doc, "buffers", bv.get("buffer"), where + "/buffer")
        start = integer(bv.get("byteOffset", 0), where + "/byteOffset")
        length = integer(bv.get("byteLength"), where + "/byteLength", 1)
        stride = bv.get("byteStride")
        if stride is not None:
            stride = integer(stride, where + "/byteStride", 4)
            if stride > 252 or stride % 4:
                raise SceneError(
                    "byteStride must be a multiple of 4 in [4, 252]", where + "/byteStride"
                )
        data = self.buffer(b)
        if start + length > len(data):
            raise SceneError(
                f"buffer view bytes {start}..{start + length} lie outside buffer "
                f"{b} ({len(data)} bytes)",
                where + "/byteLength",
            )
        return data, start, length, stride

    def read(self, a: int, where: str | None = None) -> np.ndarray:
        """Accessor ``a`` as an array of shape ``(count, components)``.

        Floats and normalized integers come back as float64, other integers as int64.
        Matrices are flattened column by column (glTF's order).
        """
        where = where or pointer("accessors", a)
        acc = obj(items(self.doc, "accessors")[a], where)
        ctype = acc.get("componentType")
        if not isinstance(ctype, int) or isinstance(ctype, bool) or ctype not in COMPONENT_DTYPES:
            raise SceneError(f"unknown componentType {ctype!r}", where + "/componentType")
        kind = acc.get("type")
        if not isinstance(kind, str) or kind not in TYPE_SHAPES:
            raise SceneError(f"unknown type {kind!r}", where + "/type")
        count = integer(acc.get("count"), where + "/count", 1)
        normalized = acc.get("normalized", False)
        if not isinstance(normalized, bool) or (normalized and ctype in (5125, 5126)):
            raise SceneError(
                "normalized must be a boolean, and only for byte/short types", where + "/normalized"
            )
        dtype = COMPONENT_DTYPES[ctype]
        columns, rows = TYPE_SHAPES[kind]
        if "bufferView" in acc:
            v = index(self.doc, "bufferViews", acc["bufferView"], where + "/bufferView")
            raw = self._strided(acc, v, dtype, count, columns, rows, where)
        else:
            if count * columns * rows > MAX_ZERO_COMPONENTS:
                raise SceneError(
                    f"count {count} exceeds the bound of {MAX_ZERO_COMPONENTS} "
                    "components for an accessor without data",
                    where + "/count",
                )
            raw = np.zeros((count, columns * rows), dtype)
        if "sparse" in acc:
            raw = self._sparse(acc["sparse"], raw, dtype, columns * rows, count, where + "/sparse")
        out = _convert(raw, dtype, normalized)
        if dtype.kind == "f" and not np.all(np.isfinite(out)):
            raise SceneError("accessor holds a non-finite number", where)
        return out

    def _strided(self, acc, v, dtype, count, columns, rows, where) -> np.ndarray:
        data, start, length, stride = self.view(v)
        offset = integer(acc.get("byteOffset", 0), where + "/byteOffset")
        size = dtype.itemsize
        if offset % size or (start + offset) % size:
            raise SceneError(
                f"byteOffset is not a multiple of the component size {size}", where + "/byteOffset"
            )
        column_bytes = -(-rows * size // 4) * 4 if columns > 1 else rows * size
        element = columns * column_bytes
        stride = stride or element
        if stride < element:
            raise SceneError(
                f"byteStride {stride} is smaller than an element ({element} bytes)",
                pointer("bufferViews", v, "byteStride"),
            )
        needed = offset + (count - 1) * stride + element
        if needed > length:
            raise SceneError(
                f"accessor needs {needed} bytes of buffer view {v}, which has "
                f"{length}: it lies outside its buffer",
                where,
            )
        view = np.ndarray(
            (count, columns, rows),
            dtype,
            buffer=data,
            offset=start + offset,
            strides=(stride, column_bytes, size),
        )
        return view.reshape(count, columns * rows)  # a copy when strided

    def _sparse(self, sparse, raw, dtype, width, count, where) -> np.ndarray:
        sparse = obj(sparse, where)
        n = integer(sparse.get("count"), where + "/count", 1)
        if n > count:
            raise SceneError(
                f"sparse count {n} exceeds the accessor's count {count}", where + "/count"
            )
        idx = obj(sparse.get("indices"), where + "/indices")
        vals = obj(sparse.get("values"), where + "/values")
        itype = idx.get("componentType")
        if itype not in (5121, 5123, 5125) or isinstance(itype, bool):
            raise SceneError(
                "sparse indices must be unsigned byte, short or int",
                where + "/indices/componentType",
            )
        at = self._packed(idx, COMPONENT_DTYPES[itype], n, 1, where + "/indices").reshape(-1)
        at = at.astype(np.int64)
        if np.any(np.diff(at) <= 0) or at[0] < 0 or at[-1] >= count:
            raise SceneError(
                "sparse indices must increase strictly and lie within count", where + "/indices"
            )
        values = self._packed(vals, dtype, n, width, where + "/values")
        out = np.array(raw)  # never write into a file's bytes
        out[at] = values
        return out

    def _packed(self, ref, dtype, n, width, where) -> np.ndarray:
        v = index(self.doc, "bufferViews", ref.get("bufferView"), where + "/bufferView")
        data, start, length, _ = self.view(v)
        offset = integer(ref.get("byteOffset", 0), where + "/byteOffset")
        needed = offset + n * width * dtype.itemsize
        if needed > length:
            raise SceneError(
                f"needs {needed} bytes of buffer view {v}, which has {length}: it "
                "lies outside its buffer",
                where,
            )
        return np.frombuffer(data, dtype, n * width, start + offset).reshape(n, width)


def _data_uri(uri: str, where: str) -> bytes:
    head, sep, payload = uri.partition(",")
    if not sep or not head.endswith(";base64"):
        raise SceneError("data URI is not base64 (expected data:...;base64,...)", where)
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise SceneError("data URI is not valid base64", where) from None


def _convert(raw: np.ndarray, dtype: np.dtype, normalized: bool) -> np.ndarray:
    if dtype.kind == "f":
        # A signaling NaN (one flipped bit away from a float) raises "invalid value" in the
        # cast; it comes out a NaN, which the readers' finiteness checks refuse by place.
        with np.errstate(invalid="ignore"):
            return raw.astype(np.float64)
    if normalized:  # glTF 2.0 §3.11: c / max, and max(c / 127, -1) for signed types
        top = float(np.iinfo(dtype).max)
        out = raw.astype(np.float64) / top
        return np.maximum(out, -1.0) if dtype.kind == "i" else out
    return raw.astype(np.int64)
