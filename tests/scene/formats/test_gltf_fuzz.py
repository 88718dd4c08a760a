"""Fuzzing the glTF importer: byte flips, truncations and JSON mutations of valid files give
either a valid scene (which bakes to finite numbers) or a SceneError that names a place —
never another exception, a hang or a crash."""

import copy
import json
import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.gltf.export import gltf_bytes, gltf_from_bake
from app.scene.formats.gltf.importer import parse_gltf
from app.scene.io import load_scene
from tests.helpers.gltf_files import Builder
from tests.helpers.paths import SCENES
from tests.scene.formats.test_gltf_import import _channel, _skinned


def _seed() -> Builder:
    b = Builder()
    _skinned(b, stride=True, normalized=True)
    _channel(
        b,
        1,
        "rotation",
        [0.0, 0.5, 1.0],
        [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795], [0, 0, 0.7071068, 0.7071068]],
    )
    _channel(b, 0, "translation", [0.0, 1.0], [[0, 1, 0], [0, 1.5, 0.2]], "STEP")
    _channel(
        b,
        2,
        "scale",
        [0.0, 0.5],
        [[1, 1, 1], [2, 2, 2], [1.5, 1, 1], [0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5]],
        "CUBICSPLINE",
    )
    return b


SEED = _seed()
GLB = SEED.glb_bytes()
GLTF = SEED.gltf_bytes()
DOC = json.loads(GLTF)


def _exported() -> bytes:
    """What our exporter writes (fabrik_arm, every 10th frame): a third seed."""
    scene = load_scene(SCENES / "fabrik_arm.json")
    result = bake(scene, np.arange(0.0, 121.0, 10.0))
    return gltf_bytes(gltf_from_bake(scene, result), binary=True)


SEEDS = {"glb": GLB, "gltf": GLTF, "exported": _exported()}


def _judge(data: bytes) -> None:
    """A valid scene that bakes to finite numbers, or a SceneError naming where."""
    try:
        scene = parse_gltf(data)
    except SceneError as e:
        assert e.path, f"no place named: {e}"
        assert e.reason
        return
    try:
        result = bake(scene, np.linspace(scene.frame_start, scene.frame_end, 7))
    except SceneError as e:  # the bounds bake itself enforces
        assert e.path or e.reason
        return
    assert np.all(np.isfinite(result.bone_to_world))
    for mesh in scene.meshes:
        assert np.all(np.isfinite(mesh.positions)) and np.all(np.isfinite(mesh.weights))
        assert mesh.joint_indices.max() < len(mesh.joints)


FUZZ = settings(
    max_examples=int(os.environ.get("PIVOTAL_FUZZ_EXAMPLES", 150)),
    deadline=None,
    derandomize="PIVOTAL_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_the_seeds_are_valid_scenes():
    for data in (GLB, GLTF):
        scene = parse_gltf(data)
        assert scene.bone_names() == ["hip", "knee", "node_2"] and len(scene.meshes) == 1
    scene = parse_gltf(SEEDS["exported"])
    assert scene.bone_names() == load_scene(SCENES / "fabrik_arm.json").bone_names()


@FUZZ
@given(st.data(), st.sampled_from(sorted(SEEDS)))
def test_byte_flips(data, kind):
    raw = bytearray(SEEDS[kind])
    flips = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(raw) - 1), st.integers(0, 255)), min_size=1, max_size=8
        )
    )
    for at, value in flips:
        raw[at] = value
    _judge(bytes(raw))


@FUZZ
@given(st.data(), st.sampled_from(sorted(SEEDS)))
def test_truncations(data, kind):
    raw = SEEDS[kind]
    _judge(raw[: data.draw(st.integers(0, len(raw) - 1))])


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


PATHS = [p for p in _paths(DOC) if p and p[0] != "buffers"] + [("buffers", 0, "byteLength")]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.sampled_from([-1, 0, 1, 2, 3]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.lists(st.integers(-2, 5), max_size=5),
    st.just({}),
    st.just([0, 0, 0, 0]),
)


@FUZZ
@given(
    st.lists(
        st.tuples(st.sampled_from(PATHS), st.one_of(st.just("delete"), JUNK)),
        min_size=1,
        max_size=4,
    )
)
def test_json_mutations(mutations):
    doc = json.loads(GLTF)
    for path, junk in mutations:
        parent = doc
        try:
            for part in path[:-1]:
                parent = parent[part]
            if junk == "delete":
                del parent[path[-1]]
            else:
                parent[path[-1]] = copy.deepcopy(junk)  # st.just shares its object
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this place
    _judge(json.dumps(doc).encode())
