"""The Open Asset Import Library (assimp, Debian's ``libassimp5``) through cffi: read an FBX file
into numpy arrays (``docs/scene-format.md``, "FBX").

Only the C structures the importer reads are declared, as assimp 5.x lays them out (``aiBone``
keeps ``mNumWeights`` right after the name; impasse 5.4.2 declares it after the armature
pointers, which reads garbage weight counts from Debian's 5.2). Assimp parses the file; this
module copies what it produced (nodes, meshes, skins, the first take, the file's global
settings) into plain Python and numpy values and releases assimp's scene before returning.

Assimp is C++: a file it cannot parse makes it return no scene and say why
(``aiGetErrorString``); :func:`read` raises :class:`ReadError` with that reason. A file that
crashes it must not take the editor down: :func:`read_guarded` reads in a forked child.
"""

from __future__ import annotations

import ctypes.util
import os
import pickle
import select
import signal
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

_CDEF = """
struct aiString { uint32_t length; char data[1024]; };
struct aiMatrix4x4 { float m[16]; };
struct aiVector3D { float x, y, z; };
struct aiQuaternion { float w, x, y, z; };
struct aiFace { unsigned int mNumIndices; unsigned int *mIndices; };
struct aiVertexWeight { unsigned int mVertexId; float mWeight; };
struct aiMetadataEntry { int mType; void *mData; };
struct aiMetadata {
    unsigned int mNumProperties; struct aiString *mKeys; struct aiMetadataEntry *mValues;
};
struct aiNode {
    struct aiString mName; struct aiMatrix4x4 mTransformation; struct aiNode *mParent;
    unsigned int mNumChildren; struct aiNode **mChildren;
    unsigned int mNumMeshes; unsigned int *mMeshes; struct aiMetadata *mMetaData;
};
struct aiBone {
    struct aiString mName; unsigned int mNumWeights; void *mArmature; void *mNode;
    struct aiVertexWeight *mWeights; struct aiMatrix4x4 mOffsetMatrix;
};
struct aiMesh {
    unsigned int mPrimitiveTypes; unsigned int mNumVertices; unsigned int mNumFaces;
    struct aiVector3D *mVertices; struct aiVector3D *mNormals;
    struct aiVector3D *mTangents; struct aiVector3D *mBitangents;
    void *mColors[8]; void *mTextureCoords[8]; unsigned int mNumUVComponents[8];
    struct aiFace *mFaces; unsigned int mNumBones; struct aiBone **mBones;
    unsigned int mMaterialIndex; struct aiString mName;
};
struct aiVectorKey { double mTime; struct aiVector3D mValue; };
struct aiQuatKey { double mTime; struct aiQuaternion mValue; };
struct aiNodeAnim {
    struct aiString mNodeName;
    unsigned int mNumPositionKeys; struct aiVectorKey *mPositionKeys;
    unsigned int mNumRotationKeys; struct aiQuatKey *mRotationKeys;
    unsigned int mNumScalingKeys; struct aiVectorKey *mScalingKeys;
    unsigned int mPreState; unsigned int mPostState;
};
struct aiAnimation {
    struct aiString mName; double mDuration; double mTicksPerSecond;
    unsigned int mNumChannels; struct aiNodeAnim **mChannels;
};
struct aiScene {
    unsigned int mFlags; struct aiNode *mRootNode;
    unsigned int mNumMeshes; struct aiMesh **mMeshes;
    unsigned int mNumMaterials; void **mMaterials;
    unsigned int mNumAnimations; struct aiAnimation **mAnimations;
    unsigned int mNumTextures; void **mTextures;
    unsigned int mNumLights; void **mLights;
    unsigned int mNumCameras; void **mCameras;
    struct aiMetadata *mMetaData;
};
struct aiPropertyStore { char sentinel; };
struct aiPropertyStore *aiCreatePropertyStore(void);
void aiReleasePropertyStore(struct aiPropertyStore *p);
void aiSetImportPropertyInteger(struct aiPropertyStore *store, const char *name, int value);
const struct aiScene *aiImportFileExWithProperties(const char *file, unsigned int flags,
    void *fs, const struct aiPropertyStore *props);
void aiReleaseImport(const struct aiScene *scene);
const char *aiGetErrorString(void);
unsigned int aiGetVersionMajor(void);
unsigned int aiGetVersionMinor(void);
"""

# aiProcess_Triangulate | aiProcess_SortByPType: polygons become triangles, and points and
# lines go to meshes of their own (skipped).
_FLAGS = 0x8 | 0x8000
_TRIANGLES = 0x4

#: How long the reader may take on one file before it is given up.
_GUARD_SECONDS = 60.0
#: What this module needs, for the messages of a machine without it.
NEEDS = "assimp (Debian's libassimp5) and the cffi Python package"


class ReadError(Exception):
    """The file could not be read: assimp's reason, or why assimp is not there."""


@dataclass
class Node:
    name: str
    matrix: np.ndarray  # (4, 4) parent-relative, column vectors
    parent: int  # -1 for assimp's root
    meshes: list[int]
    geometry: np.ndarray | None = None  # FBX's geometric transform (its meshes only)


@dataclass
class Mesh:
    name: str
    positions: np.ndarray  # (V, 3)
    normals: np.ndarray | None
    triangles: np.ndarray | None  # (T, 3); None when the mesh has no triangles
    bones: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]  # name, ids, weights, offset


@dataclass
class Channel:
    node: str
    position: tuple[np.ndarray, np.ndarray]  # times (K,), values (K, 3)
    rotation: tuple[np.ndarray, np.ndarray]  # times (K,), values (K, 4) [w, x, y, z]
    scale: tuple[np.ndarray, np.ndarray]


@dataclass
class File:
    nodes: list[Node]
    meshes: list[Mesh]
    takes: list[str]
    ticks_per_second: float  # of the take read (0 when none)
    channels: list[Channel]  # of the take read
    settings: dict
    lights_and_cameras: set = field(default_factory=set)
    take: int = 0  # which of ``takes`` the channels are (-1: none of that name)


_lib = None
_ffi = None


def _library():
    """cffi and the assimp library, loaded once; ``ReadError`` naming what is missing."""
    global _lib, _ffi
    if _lib is not None:
        return _ffi, _lib
    try:
        import cffi
    except ImportError:
        raise ReadError(f"reading FBX needs {NEEDS}: cffi is not installed") from None
    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    found = None
    for name in ("libassimp.so.5", ctypes.util.find_library("assimp"), "libassimp.5.dylib"):
        if not name:
            continue
        try:
            found = ffi.dlopen(name)
            break
        except OSError:
            continue
    if found is None:
        raise ReadError(
            f"reading FBX needs {NEEDS}: the assimp library is not installed "
            "(apt-get install libassimp5)"
        )
    if found.aiGetVersionMajor() != 5:
        raise ReadError(
            f"reading FBX needs assimp 5 (found {found.aiGetVersionMajor()}."
            f"{found.aiGetVersionMinor()})"
        )
    _ffi, _lib = ffi, found
    return ffi, found


def available() -> bool:
    try:
        _library()
    except ReadError:
        return False
    return True


def read(path, preserve_pivots: bool = True, take=0) -> File:
    """Read the FBX file ``path`` with assimp (``IMPORT_FBX_PRESERVE_PIVOTS`` on, assimp's
    default: the parts of a node's transform on helper nodes, :mod:`.pivots`), with the
    channels of ``take`` (its index, or its name; ``File.take`` is -1 when no take has
    that name).

    Raises
    ------
    ReadError
        With assimp's reason when it cannot read the file.
    """
    ffi, lib = _library()
    store = lib.aiCreatePropertyStore()
    try:
        lib.aiSetImportPropertyInteger(store, b"IMPORT_FBX_PRESERVE_PIVOTS", int(preserve_pivots))
        scene = lib.aiImportFileExWithProperties(os.fsencode(path), _FLAGS, ffi.NULL, store)
    finally:
        lib.aiReleasePropertyStore(store)
    if scene == ffi.NULL:
        reason = ffi.string(lib.aiGetErrorString()).decode("utf-8", "replace").strip()
        raise ReadError(reason or "assimp could not read it")
    try:
        return _copy(ffi, scene, take)
    finally:
        lib.aiReleaseImport(scene)


def read_guarded(path, preserve_pivots: bool = True, take=0) -> File:
    """:func:`read` in a forked child where fork exists, the result coming back through
    a pipe: assimp is C++, and a file that crashes it must be refused, not take the editor
    down. Elsewhere, in this process.

    Raises
    ------
    ReadError
        assimp's reason, or that the reader crashed or did not finish in time.
    """
    if not hasattr(os, "fork"):
        return read(path, preserve_pivots, take)
    available()  # load the library before forking, once
    into, out = os.pipe()
    with warnings.catch_warnings():  # Python 3.12 warns about fork in a threaded process:
        warnings.simplefilter("ignore", DeprecationWarning)  # the child only reads and exits
        pid = os.fork()
    if pid == 0:  # the child: read, send, and leave without running any Python clean-up
        os.close(into)
        code = 0
        try:
            import faulthandler

            faulthandler.disable()  # a crash here is reported by the parent, in one line
            try:
                answer = read(path, preserve_pivots, take)
            except ReadError as e:
                answer = e
            with os.fdopen(out, "wb") as pipe:
                pickle.dump(answer, pipe, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - the parent says the read failed
            code = 1
        os._exit(code)
    os.close(out)
    data = bytearray()
    try:
        deadline = time.monotonic() + _GUARD_SECONDS
        with os.fdopen(into, "rb", buffering=0) as pipe:
            while True:  # read until the child closes the pipe (done, or dead)
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([pipe], [], [], left)[0]:
                    os.kill(pid, signal.SIGKILL)
                    raise ReadError(f"the FBX reader did not finish within {_GUARD_SECONDS:g} s")
                chunk = pipe.read(1 << 20)
                if not chunk:
                    break
                data += chunk
    finally:
        _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        raise ReadError(f"the FBX reader crashed on it ({name})")
    if os.WEXITSTATUS(status) != 0 or not data:
        raise ReadError("the FBX reader failed on it")
    answer = pickle.loads(bytes(data))
    if isinstance(answer, ReadError):
        raise answer
    return answer


def _text(ffi, s) -> str:
    n = min(int(s.length), 1023)
    return bytes(ffi.buffer(s.data, n)).decode("utf-8", "replace")


def _array(ffi, pointer, count, dtype, width):
    if count == 0 or pointer == ffi.NULL:
        return np.zeros((0, width), dtype)
    size = np.dtype(dtype).itemsize * width * count
    return np.frombuffer(ffi.buffer(pointer, size), dtype).reshape(count, width).copy()


def _matrix(ffi, m) -> np.ndarray:
    return np.frombuffer(ffi.buffer(m.m, 64), np.float32).astype(float).reshape(4, 4)


_VECTOR_KEY = np.dtype(
    {"names": ["t", "v"], "formats": ["<f8", ("<f4", 3)], "offsets": [0, 8], "itemsize": 24}
)
_QUAT_KEY = np.dtype(
    {"names": ["t", "v"], "formats": ["<f8", ("<f4", 4)], "offsets": [0, 8], "itemsize": 24}
)
_WEIGHT = np.dtype([("id", "<u4"), ("w", "<f4")])


def _keys(ffi, pointer, count, dtype):
    if count == 0:
        width = 4 if dtype is _QUAT_KEY else 3
        return np.zeros(0), np.zeros((0, width))
    raw = np.frombuffer(ffi.buffer(pointer, dtype.itemsize * count), dtype)
    return raw["t"].astype(float), raw["v"].astype(float)


def _metadata(ffi, meta) -> dict:
    out = {}
    if meta == ffi.NULL:
        return out
    readers = {0: "bool *", 1: "int32_t *", 2: "uint64_t *", 3: "float *", 4: "double *"}
    for i in range(meta.mNumProperties):
        key = _text(ffi, meta.mKeys[i])
        entry = meta.mValues[i]
        if entry.mData == ffi.NULL:
            continue
        if entry.mType in readers:
            out[key] = ffi.cast(readers[entry.mType], entry.mData)[0]
        elif entry.mType == 5:
            out[key] = _text(ffi, ffi.cast("struct aiString *", entry.mData)[0])
    return out


def _copy(ffi, scene, take=0) -> File:
    nodes = []
    stack = [(scene.mRootNode, -1)]
    while stack:
        node, parent = stack.pop()
        index = len(nodes)
        meshes = [int(node.mMeshes[k]) for k in range(node.mNumMeshes)]
        nodes.append(
            Node(_text(ffi, node.mName), _matrix(ffi, node.mTransformation), parent, meshes)
        )
        stack.extend((node.mChildren[k], index) for k in reversed(range(node.mNumChildren)))
    meshes = []
    for m in range(scene.mNumMeshes):
        mesh = scene.mMeshes[m]
        v = int(mesh.mNumVertices)
        positions = _array(ffi, mesh.mVertices, v, np.float32, 3).astype(float)
        normals = None
        if mesh.mNormals != ffi.NULL:
            normals = _array(ffi, mesh.mNormals, v, np.float32, 3).astype(float)
        triangles = None
        if mesh.mPrimitiveTypes & _TRIANGLES:
            faces, unpack = mesh.mFaces, ffi.unpack
            triangles = [
                unpack(faces[f].mIndices, 3)
                for f in range(mesh.mNumFaces)
                if faces[f].mNumIndices == 3
            ]
            triangles = np.array(triangles, np.int64).reshape(-1, 3)
        bones = []
        for b in range(mesh.mNumBones):
            bone = mesh.mBones[b]
            n = int(bone.mNumWeights)
            if n > v:
                raise ReadError(
                    f"bone {_text(ffi, bone.mName)!r} weighs {n} vertices of {v} "
                    "(an assimp this module does not know)"
                )
            weights = (
                np.frombuffer(ffi.buffer(bone.mWeights, 8 * n), _WEIGHT)
                if n
                else (np.zeros(0, _WEIGHT))
            )
            ids, amounts = weights["id"].astype(np.int64), weights["w"].astype(float)
            bones.append((_text(ffi, bone.mName), ids, amounts, _matrix(ffi, bone.mOffsetMatrix)))
        meshes.append(Mesh(_text(ffi, mesh.mName), positions, normals, triangles, bones))
    takes = [_text(ffi, scene.mAnimations[a].mName) for a in range(scene.mNumAnimations)]
    if isinstance(take, str):
        take = takes.index(take) if take in takes else -1
    elif not 0 <= take < max(len(takes), 1):
        take = -1
    channels, ticks = [], 0.0
    if takes and take >= 0:
        chosen = scene.mAnimations[take]
        ticks = float(chosen.mTicksPerSecond)
        for c in range(chosen.mNumChannels):
            ch = chosen.mChannels[c]
            channels.append(
                Channel(
                    _text(ffi, ch.mNodeName),
                    _keys(ffi, ch.mPositionKeys, ch.mNumPositionKeys, _VECTOR_KEY),
                    _keys(ffi, ch.mRotationKeys, ch.mNumRotationKeys, _QUAT_KEY),
                    _keys(ffi, ch.mScalingKeys, ch.mNumScalingKeys, _VECTOR_KEY),
                )
            )
    others = set()  # the lights' and cameras' names: their aiString comes first
    for count, items in ((scene.mNumLights, scene.mLights), (scene.mNumCameras, scene.mCameras)):
        for k in range(count):
            others.add(_text(ffi, ffi.cast("struct aiString *", items[k])[0]))
    return File(
        nodes,
        meshes,
        takes,
        ticks,
        channels,
        _metadata(ffi, scene.mMetaData),
        others,
        max(take, -1) if takes else 0,
    )
