"""Fuzzing load, save and bake (issues 10 and 20): structural mutations of the shipped scenes
and the CMU clips; the only outcomes allowed are a SceneError with a place, or a scene that
saves, loads back equal and bakes finite arrays of the documented shapes. ``make fuzz`` runs
20,000 examples (``tools/fuzz.py``); the plain tests below keep each defect the fuzzer found
(``docs/reliability.md``)."""

import collections
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.bvh import parse_bvh
from app.scene.io import load_scene, loads_scene, save_scene
from tests.helpers import fuzz_rigs, fuzz_squash, fuzzing
from tests.helpers.paths import SCENES

NAMES = sorted(fuzzing.bases())
#: The hypothesis run leaves the FBX files out (each read forks a reader); they have their
#: own few inputs below.
LIGHT = [n for n in NAMES if not n.endswith(".fbx")]


def light_kinds(name):
    """The kinds ``name`` takes, but issue 27's squashed parents (whole bakes of FABRIK
    chains in both spaces: ``make fuzz`` and the plain test below draw those)."""
    return [k for k in fuzzing.kinds_for(name) if k not in fuzz_squash.SCENE_KINDS]


def examples():
    """A base's name and one to three mutations ``(kind, seed)`` of the kinds it takes."""
    return st.sampled_from(LIGHT).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.lists(
                st.tuples(st.sampled_from(light_kinds(name)), st.integers(0, 2**32 - 1)),
                min_size=1,
                max_size=3,
            ),
        )
    )


def test_the_bases_are_every_shipped_scene_and_clip_and_all_are_accepted():
    shipped = {p.name for p in SCENES.glob("*.json")}
    assert shipped <= set(NAMES)
    # The scenes with the new kinds (tests/helpers/fuzz_rigs.py), glTF with 5-8 influences, FBX.
    assert set(NAMES) - shipped >= {"legs_follows.json", "influences_8.gltf", "huesitos.fbx"}
    assert {"01_01.bvh", "01_03.bvh"} <= set(NAMES)
    for name in NAMES:
        assert fuzzing.check_input(fuzzing.bases()[name], fuzzing.suffix_of(name)).kind == (
            "accepted"
        ), name


def every_kind_and_base():
    """One mutation of each kind (on the first base that takes it) and of each base (its
    first kind): the classes ``examples()`` draws, each at least once whatever it draws."""
    chosen = {}
    for kind in dict.fromkeys(k for n in LIGHT for k in light_kinds(n)):
        name = next(n for n in LIGHT if kind in light_kinds(n))
        chosen.setdefault((name, kind), len(chosen))
    for name in LIGHT:
        if not any(n == name for n, _ in chosen):
            chosen[(name, light_kinds(name)[0])] = len(chosen)
    return [(name, [(kind, seed)]) for (name, kind), seed in chosen.items()]


EXPLICIT = every_kind_and_base()


def test_mutated_scenes_and_clips_are_refused_with_a_place_or_bake_finite():
    """Every kind and base once, then 120 drawn examples (``make fuzz`` draws 20,000)."""
    tally = collections.Counter()
    seen = set()

    @settings(
        max_examples=120,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(examples())
    def one(example):
        name, steps = example
        seen.update((name, kind) for kind, _ in steps)
        outcome = fuzzing.check_input(fuzzing.mutate(name, steps), fuzzing.suffix_of(name))
        tally[outcome.kind] += 1
        tally[(fuzzing.suffix_of(name), outcome.kind)] += 1

    for explicit in EXPLICIT:
        one = example(explicit)(one)
    one()
    assert {kind for _, kind in seen} == {k for n in LIGHT for k in light_kinds(n)}
    assert {name for name, _ in seen} == set(LIGHT)
    # Both outcomes are exercised, for both formats: the mutations are neither all fatal
    # nor all harmless.
    for fmt in (".json", ".bvh"):
        assert tally[(fmt, "refused")] >= 20 and tally[(fmt, "accepted")] >= 2, tally


def test_the_harness_calls_a_placeless_error_or_a_nan_a_defect(monkeypatch):
    with pytest.raises(fuzzing.Defect, match="without a place"):
        monkeypatch.setattr(
            fuzzing,
            "load_scene",
            lambda path: (_ for _ in ()).throw(SceneError("no reason to be found")),
        )
        fuzzing.check_input(b"{}", ".json")
    monkeypatch.undo()
    real = fuzzing.bake

    def nan_bake(scene, space=None):
        result = real(scene, space=space)
        result.heads[0, 0, 0] = np.nan
        return result

    monkeypatch.setattr(fuzzing, "bake", nan_bake)
    with pytest.raises(fuzzing.Defect, match="heads is not finite"):
        fuzzing.check_input(SCENES / "legs.json", ".json")


# --- the defects the fuzzer found (before the bounds), one plain test each ----------------


def scene_with(name, edit):
    value = json.loads((SCENES / name).read_text())
    edit(value)
    return json.dumps(value)


def set_in(path, new):
    """An edit setting ``value[path[0]][path[1]]...`` to ``new``."""

    def edit(value):
        for k in path[:-1]:
            value = value[k]
        value[path[-1]] = new

    return edit


@pytest.mark.parametrize(
    "name, path, new, where",
    [
        # MemoryError: np.arange over 1e16 frames in default_frames.
        ("calf_points_at_ankle.json", ["frame_start"], -1e16, "frame_start"),
        # ValueError "Maximum allowed size exceeded" / an empty bake for frame_end 2**63.
        ("basis_change.json", ["frame_end"], 2**63, "frame_end"),
        ("basis_change.json", ["frame_end"], 5e8, "frame_end"),
        # OverflowError: a 401-digit integer to float.
        ("fabrik_arm.json", ["bones", 0, "tail", 0], 10**400, "bones[0].tail[0]"),
        # RuntimeWarning overflow in the FABRIK solver (a target 1e300 away).
        (
            "fabrik_arm.json",
            ["constraints", 0, "target", "position_keys", 5, 1, 2],
            1e300,
            "constraints[0].target.position_keys[5][1][2]",
        ),
        # RuntimeWarning overflow in the multi-parent increments (a pivot 1e308 away).
        (
            "tumbling_box.json",
            ["constraints", 0, "pivots", 1, "position", 1],
            -1e308,
            "constraints[0].pivots[1].position[1]",
        ),
        # RuntimeWarning overflow in a norm, then ValueError from shortest_arc (points-at).
        (
            "calf_points_at_ankle.json",
            ["bones", 3, "translation", 1],
            1e308,
            "bones[3].translation[1]",
        ),
        # RuntimeWarning overflow in the FABRIK chain's lengths.
        ("fabrik_arm.json", ["bones", 3, "translation", 1], -1e308, "bones[3].translation[1]"),
    ],
)
def test_a_number_the_evaluation_would_overflow_on_is_refused_at_its_key(name, path, new, where):
    with pytest.raises(SceneError) as info:
        loads_scene(scene_with(name, set_in(path, new)), name)
    assert info.value.path == where and "bound" in info.value.reason


def test_a_file_that_is_not_utf8_is_refused_at_its_byte(tmp_path):
    data = bytearray((SCENES / "fabrik_arm.json").read_bytes())
    data[1390] = 0xFF
    (tmp_path / "x.json").write_bytes(bytes(data))
    with pytest.raises(SceneError) as info:
        load_scene(tmp_path / "x.json")
    assert info.value.path == "byte 1390" and "UTF-8" in info.value.reason


def test_infinity_in_json_is_refused_at_its_line_and_column():
    text = (SCENES / "legs.json").read_text().replace('"fps": 24', '"fps": -Infinity', 1)
    assert "-Infinity" in text
    line = text[: text.index("-Infinity")].count("\n") + 1
    with pytest.raises(SceneError) as info:
        loads_scene(text)
    assert info.value.path.startswith(f"line {line} column ") and "Infinity" in str(info.value)


@pytest.mark.parametrize("key", ["bones", "version"])
def test_a_missing_top_level_key_is_named(key):
    with pytest.raises(SceneError) as info:
        loads_scene(scene_with("foot_roll.json", lambda v: v.pop(key)))
    assert info.value.path == key and f'missing "{key}"' in info.value.reason


def test_a_signaling_nan_in_a_glb_accessor_is_refused_at_the_accessor(tmp_path):
    """Found by the fuzzer in ``humanoid.glb``: a flipped bit made a float32 a signaling NaN,
    whose cast to float64 raised numpy's "invalid value" warning instead of a SceneError."""
    import struct

    data = bytearray((SCENES / "humanoid.glb").read_bytes())
    json_length = struct.unpack_from("<I", data, 12)[0]
    gltf = json.loads(data[20 : 20 + json_length])
    bin_start = 20 + json_length + 8
    accessor = 1
    a = gltf["accessors"][accessor]
    view = gltf["bufferViews"][a["bufferView"]]
    assert a["componentType"] == 5126  # FLOAT
    struct.pack_into(
        "<I", data, bin_start + view.get("byteOffset", 0) + a.get("byteOffset", 0), 0x7F800001
    )
    (tmp_path / "snan.glb").write_bytes(bytes(data))
    with pytest.raises(SceneError) as info:
        load_scene(tmp_path / "snan.glb")
    assert info.value.path == f"/accessors/{accessor}" and "non-finite" in info.value.reason


# --- issue 20: what loads must save, load back equal, and bake ----------------------------


def refused_at(text):
    with pytest.raises(SceneError) as info:
        loads_scene(text, "x.json")
    return info.value


def renamed(name, old, new):
    """``name``'s scene with bone ``old`` called ``new`` everywhere (its children's parent)."""

    def edit(value):
        for bone in value["bones"]:
            if bone["name"] == old:
                bone["name"] = new
            if bone.get("parent") == old:
                bone["parent"] = new

    return scene_with(name, edit)


@pytest.mark.parametrize(
    "new, why",
    [
        ("\ud800", "surrogate"),  # UnicodeEncodeError in atomic.write_atomic on save
        ("toe\udfff", "surrogate"),
        ("toe\u0000", "control characters (U+0000"),  # a NUL ends the bake's name: lost there
        ("\u0000", "control characters (U+0000"),
        ("toe\tL", "control characters (U+0009"),
        ("toe\n", "control characters (U+000A"),
    ],
)
def test_a_name_that_could_not_be_saved_or_shown_is_refused_at_load(new, why):
    error = refused_at(renamed("legs.json", "hip", new))
    assert error.path == "bones[0].name" and why in error.reason
    # The message itself prints: the surrogate is not in it.
    str(error).encode("utf-8")


@pytest.mark.parametrize(
    "raw, where",
    [
        ("1e400", "bones[2].notes"),  # loaded as inf: every save failed ("not JSON compliant")
        ('[1, {"a": -1e400}]', "bones[2].notes[1].a"),
        ('"\\ud800"', "bones[2].notes"),
        ('{"\\udfff": 1}', "bones[2].notes.\\udfff"),
        ("[" * 65 + "]" * 65, "bones[2].notes"),  # nesting 2,000 deep: RecursionError on save
    ],
)
def test_an_unknown_key_a_save_could_not_write_back_is_refused_at_its_place(raw, where):
    text = scene_with("legs.json", set_in(["bones", 2, "notes"], "MARK")).replace('"MARK"', raw)
    error = refused_at(text)
    assert error.path == where
    str(error).encode("utf-8")


def test_a_number_past_the_floats_in_tutorial_data_is_refused_at_its_place():
    text = scene_with("foot_roll.json", set_in(["tutorial"], {"steps": [{"weight": "MARK"}]}))
    error = refused_at(text.replace('"MARK"', "1e400"))
    assert error.path == "tutorial.steps[0].weight" and "too large to save" in error.reason


def test_unknown_keys_within_the_bounds_save_and_load_back_as_they_came(tmp_path):
    kept = {
        "deep": json.loads("[" * 63 + "]" * 63),
        "nul": "a\u0000b",
        "big": 10**30,
        "tiny": 5e-324,
        "minus_zero": -0.0,
        "astral": "\U0001f9b4",
    }
    scene = loads_scene(scene_with("legs.json", set_in(["bones", 2, "notes"], kept)))
    save_scene(scene, tmp_path / "x.json")
    back = load_scene(tmp_path / "x.json")
    assert back == scene and back.bones[2].extra["notes"] == kept


def test_a_tail_shorter_than_the_shortest_bone_is_refused_naming_the_bone():
    # Was: loaded, then quat.shortest_arc raised ValueError at bake (points-at).
    error = refused_at(
        scene_with("calf_points_at_ankle.json", set_in(["bones", 2, "tail"], [1e-300, 0, 0]))
    )
    assert error.path == "bones[2].tail" and "'calf.l' would have no length" in error.reason
    assert "1e-06" in error.reason
    # [0, 0, 0] says so plainly and is still a scene; points-at then names the bone at bake.
    scene = loads_scene(
        scene_with("calf_points_at_ankle.json", set_in(["bones", 2, "tail"], [0, 0, 0]))
    )
    with pytest.raises(SceneError, match="zero length") as info:
        bake(scene)
    assert info.value.path == "constraints[0].bone"


def test_a_default_tail_of_almost_nothing_is_a_zero_length_bone_at_bake():
    """The calf's first child (the foot) at 1e-300 from its head: the calf's tail is there."""
    foot_at_the_calf = set_in(["bones", 3, "translation"], [1e-300, 0, 0])
    scene = loads_scene(scene_with("calf_points_at_ankle.json", foot_at_the_calf))
    assert scene.tail_of(2) == (1e-300, 0, 0)
    for space in ("world", "object"):
        with pytest.raises(SceneError, match="has zero length") as info:
            bake(scene, space=space)
        assert info.value.path == "constraints[0].bone"


@pytest.mark.parametrize("name", sorted(p.name for p in SCENES.glob("*.json")))
@pytest.mark.parametrize("scale", [[5e-324, 1, 1], [5e-324] * 3, [1e-320, 1e-300, 1]])
def test_a_bone_scaled_almost_to_nothing_bakes_finite_or_is_refused_with_a_place(name, scale):
    """Was: "SVD did not converge" (transforms.rotation_from_matrix) or "Singular matrix"
    (transforms.inverse) at bake."""

    def edit(value):
        for bone in value["bones"][:3]:
            bone["scale"] = scale

    scene = loads_scene(scene_with(name, edit))
    for space in ("world", "object"):
        try:
            result = bake(scene, space=space)
        except SceneError as e:  # a FABRIK chain squashed to nothing: its bone, its frame
            assert e.path.startswith("constraints[") and "zero length" in e.reason
            continue
        assert np.all(np.isfinite(result.bone_to_world))


@pytest.mark.parametrize(
    "name",
    [
        "fabrik_arm.json",
        "rig_200_bones.json",
        "tumbling_box.json",
        "calf_points_at_ankle.json",
        "foot_roll.json",
    ],
)
def test_a_bake_of_no_frames_gives_empty_arrays_for_every_constraint_kind(name):
    """Was: "zero-size array to reduction operation maximum" (fabrik/solver.py)."""
    scene = load_scene(SCENES / name)
    for space in (None, "world", "object"):
        result = bake(scene, frames=[], space=space)
        assert result.bone_to_world.shape == (0, len(scene.bones), 4, 4)
        assert result.heads.shape == result.tails.shape == (0, len(scene.bones), 3)
        assert result.limit_violation_deg.shape == (0, len(scene.bones))
        assert list(result.bone_names) == scene.bone_names()


def test_a_bvh_joint_named_with_a_control_character_is_refused_at_its_line(cmu_01_01):
    text = cmu_01_01.read_text().replace("JOINT LeftUpLeg", "JOINT LeftUpLeg\u0000", 1)
    line = text[: text.index("LeftUpLeg\u0000")].count("\n") + 1
    with pytest.raises(SceneError) as info:
        parse_bvh(text)
    assert info.value.path == f"line {line}" and "control characters" in info.value.reason


def test_the_harness_calls_a_scene_that_does_not_come_back_equal_a_defect(monkeypatch):
    real = fuzzing.load_scene
    calls = []

    def second_load_differs(path):
        scene = real(path)
        calls.append(path)
        if len(calls) == 2:
            scene.fps += 1
        return scene

    monkeypatch.setattr(fuzzing, "load_scene", second_load_differs)
    with pytest.raises(fuzzing.Defect, match="not the same"):
        fuzzing.check_input(SCENES / "legs.json", ".json")


def test_renaming_in_the_editor_refuses_a_name_a_save_could_not_write():
    from app.scene.constraints.multi_parent.edits import with_pivot_renamed
    from app.scene.rig.bone_edits import rename_bone

    scene = load_scene(SCENES / "foot_roll.json")
    for bad in ("hi\u0000p", "hi\tp", "\ud800"):
        with pytest.raises(ValueError, match="control characters|surrogate"):
            rename_bone(scene, "foot", bad)
        constraint = scene.constraints[0]
        with pytest.raises(ValueError, match="control characters|surrogate"):
            with_pivot_renamed(constraint, constraint.pivots[0].name, bad)


@pytest.mark.parametrize("integrator", ["seed", "twist", "exact"])
def test_pivot_keys_5e_324_frames_apart_are_refused_naming_the_pivot(integrator):
    """Found by ``make fuzz`` (20,000, seed 10): a key frame of 24 became 5e-324; the turn
    between the first two keys overflowed to an infinite speed (numpy's overflow warning in
    multi_parent/plan.py), and "exact" multiplied it by 0."""

    def edit(value):
        value["constraints"][0]["integrator"] = integrator
        value["constraints"][0]["pivots"][0]["rotation_keys"][1][0] = 5e-324

    scene = loads_scene(scene_with("foot_roll.json", edit))
    with pytest.raises(SceneError, match="infinitely fast") as info:
        bake(scene)
    assert info.value.path == "constraints[0].pivots" and "'heel'" in info.value.reason


# --- issues 19 and 20: the follow kinds, cycles, stacks, FBX, eight influences ------------


def test_the_new_classes_are_refused_with_their_place_or_save_bake_npz_and_export():
    """Each class of ``tests/helpers/fuzz_rigs.py`` on the scenes with the new kinds: broken follows
    and cycles are refused naming their place, the rest bake (one frame, fractional frames),
    ``bake_to_npz`` equals ``bake``, and the bake exports (``check_input`` checks all that)."""
    tally = collections.Counter()
    reasons = []
    bases = ["legs_follows.json", "arm_follows.json", "foot_roll_relative.json", "legs.json"]
    for i in range(60):
        name, kind = bases[i % len(bases)], fuzz_rigs.SCENE_KINDS[i % 5]
        outcome = fuzzing.check_input(fuzzing.mutate(name, [(kind, i)]), ".json")
        tally[(kind, outcome.kind)] += 1
        reasons.append(outcome.detail)
    for kind in set(fuzz_rigs.SCENE_KINDS) - {"cycle"}:
        assert tally[(kind, "accepted")] >= 1, tally
    assert tally[("follows", "refused")] >= 1 and tally[("cycle", "refused")] >= 1, tally
    assert any("(a cycle" in r and " → " in r for r in reasons)


@pytest.mark.parametrize("kind", ["truncate", "flip_bytes"])
def test_broken_fbx_files_are_refused_naming_the_file_or_load(kind):
    """Truncated and bit-flipped copies of the test FBX files (assimp in a forked child):
    a SceneError naming the file, or a scene that saves, bakes and exports."""
    outcomes = collections.Counter()
    for seed in range(4):
        name = ("huesitos.fbx", "wave_yup_m.fbx")[seed % 2]
        data = fuzzing.mutate(name, [(kind, seed)])
        outcome = fuzzing.check_input(data, ".fbx")
        outcomes[outcome.kind] += 1
        if outcome.kind == "refused":
            assert "input.fbx" in outcome.detail
    assert outcomes["refused"] >= 1, outcomes


@pytest.mark.parametrize("k", [5, 6, 8])
def test_gltf_with_five_to_eight_influences_loads_and_broken_ones_are_refused_at_a_place(k):
    name = f"influences_{k}.gltf"
    scene = loads_scene_from(fuzzing.bases()[name], ".gltf")
    assert np.count_nonzero(scene.meshes[0].weights > 0, axis=1).max() == k
    kinds = collections.Counter()
    for seed in range(12):
        kinds[fuzzing.check_input(fuzzing.mutate(name, [("influences", seed)]), ".gltf").kind] += 1
    assert kinds["refused"] >= 3, kinds


def loads_scene_from(data, suffix, tmp=None):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"x{suffix}"
        path.write_bytes(data)
        return load_scene(path)


def test_the_command_line_refuses_fuzzed_inputs_in_one_line_with_status_2():
    """A few refused inputs of the new classes through ``main.py bake``."""
    for name, kind in [
        ("legs_follows.json", "cycle"),
        ("influences_8.gltf", "influences"),
        ("huesitos.fbx", "truncate"),
    ]:
        data = next(
            d
            for d in (fuzzing.mutate(name, [(kind, seed)]) for seed in range(20))
            if fuzzing.check_input(d, fuzzing.suffix_of(name)).kind == "refused"
        )
        line = fuzzing.check_cli(data, fuzzing.suffix_of(name))
        assert line.startswith("main.py bake: ") and "input" in line


def test_an_object_space_copy_rotation_bakes_no_frames():
    """Found by the fuzzer's new classes: ``bake(frames=[])`` of a scene with an object-space
    ``copy_rotation`` raised "zero-size array to reduction operation maximum"
    (``constraints/follows/common.py``, ``linear_in_parents``)."""

    def edit(value):
        value["constraints"] = [
            {
                "type": "copy_rotation",
                "name": "c",
                "bone": "calf.r",
                "space": "object",
                "target": {"bone": "hip"},
            }
        ]

    scene = loads_scene(scene_with("legs.json", edit))
    for space in (None, "world", "object"):
        result = bake(scene, frames=[], space=space)
        assert result.bone_to_world.shape == (0, len(scene.bones), 4, 4)


def test_an_integer_past_the_floats_in_a_gltf_is_refused_at_its_place():
    """Found by the fuzzer's glTF class: a 401-digit integer in a node's translation raised
    ``OverflowError: int too large to convert to float`` (``gltf/buffers.py``, ``numbers``)."""
    doc = json.loads(fuzzing.bases()["influences_5.gltf"])
    doc["nodes"][3]["translation"] = [10**400, 0, 0]
    with pytest.raises(SceneError) as info:
        loads_scene_from(json.dumps(doc).encode(), ".gltf")
    assert info.value.path == "/nodes/3/translation" and "finite" in info.value.reason


def test_a_bone_under_a_parent_scaled_to_almost_nothing_exports_to_gltf(tmp_path):
    """Found by the fuzzer's export check: the chest scaled to 1e-300 while FABRIK turns the
    arm gave local transforms of 1e300, past glTF's float32 ("Out of range float values are
    not JSON compliant"; numpy's overflow warning in ``gltf/export.py``). Such locals come from
    the keys, as under a parent scaled to 0 (``baked_locals.local_trs``)."""
    from app.scene.formats.gltf.export import write_gltf
    from app.scene.formats.gltf.importer import load_gltf

    scene = loads_scene(
        scene_with("fabrik_arm.json", set_in(["bones", 0, "scale"], [1e-300, 1, 1]))
    )
    result = bake(scene, space="world")
    write_gltf(tmp_path / "arm.glb", scene, result)
    back = load_gltf(tmp_path / "arm.glb")
    assert back.bone_names() == scene.bone_names()
    assert np.all(np.isfinite(bake(back).bone_to_world))


def test_a_copy_location_under_a_bone_squashed_flat_plays_as_it_bakes():
    """Found by the fuzzer's one-frame check (20,000 inputs, seed 10): the forearm scaled to
    0 on one axis and turned by FABRIK is singular only up to rounding, and the plain inverse
    of the relation kept from ``frame_start`` (entries of 1e16) put the hand 1.7e14 away on a
    frame evaluated alone (the editor while playing) and not in the bake
    (``constraints/follows/common.py`` ``start_inverse``, used by ``copy_location`` and
    ``child_of``)."""

    def edit(value):
        value["bones"][2]["scale"] = [1, 0, 1]
        value["constraints"].append(
            {
                "type": "copy_location",
                "name": "c",
                "bone": "hand",
                "space": "object",
                "target": {"bone": "chest"},
            }
        )

    scene = loads_scene(scene_with("fabrik_arm.json", edit))
    whole = bake(scene, space="object")
    for frame in (1, 7, 60):
        alone = bake(scene, frames=[frame], space="object")
        # Within FABRIK's tolerance (1e-4): the chain solved alone may stop elsewhere in it.
        np.testing.assert_allclose(alone.heads[0], whole.heads[frame], atol=1e-3)


@pytest.mark.parametrize("scale", [[1, 0, 1], [1, 1e-300, 1]])
def test_a_fabrik_chain_squashed_flat_plays_as_it_bakes(scale):
    """Found by the fuzzer's one-frame check (20,000 inputs, seed 10): the arm's first bone
    scaled to 0 on one axis, a frame evaluated alone (the editor while playing) took the
    plain-float path of one frame, which does not follow the general one on such a chain:
    the fingers 32 units from where the bake puts them (``constraints/fabrik/solver.py``:
    one frame of a chain with scale takes the general path)."""
    scene = loads_scene(scene_with("fabrik_arm.json", set_in(["bones", 1, "scale"], scale)))
    whole = bake(scene, space="object")
    for frame in (1, 30):
        alone = bake(scene, frames=[frame], space="object")
        np.testing.assert_allclose(alone.heads[0], whole.heads[frame], atol=1e-3)


# --- issue 27: squashed parents under follows and FABRIK, FBX with edited numbers ----------


def test_the_harness_calls_a_frame_alone_off_the_bake_or_a_mesh_skinned_to_nan_a_defect(
    monkeypatch,
):
    """The two checks issue 27 added to every accepted input can fail: a frame evaluated
    alone that is not where the timeline's bake puts it, and a mesh that skins to NaN."""
    real = fuzzing.bake

    def one_frame_off(scene, frames=None, space=None):
        result = real(scene, frames=frames, space=space)
        if frames is not None and len(frames) == 1:
            result.tails[0, -1, 1] += 1e-6
        return result

    monkeypatch.setattr(fuzzing, "bake", one_frame_off)
    with pytest.raises(fuzzing.Defect, match="alone differs from that frame"):
        fuzzing.check_input(SCENES / "legs.json", ".json")
    monkeypatch.undo()
    glb = fuzzing.bases()["humanoid.glb"]
    scene = loads_scene_from(glb, ".glb")
    mesh = scene.meshes[0]
    positions = mesh.positions.copy()
    positions[3, 1] = np.nan
    from dataclasses import replace

    scene.meshes = (replace(mesh, positions=positions),) + tuple(scene.meshes[1:])
    with pytest.raises(fuzzing.Defect, match="positions are not finite"):
        fuzzing._check_meshes(scene, bake(scene, frames=[0]))


def test_the_issue_27_classes_are_refused_with_their_place_or_play_as_they_bake():
    """``squashed_follow`` and ``squashed_chain`` on the scenes with the new kinds, and
    ``fbx_number`` on three FBX files (binary, ASCII, assimp's): every outcome is a refusal
    with its place or an input that passes every check (``check_input``), and both happen."""
    tally = collections.Counter()
    for i in range(6):
        name = ("legs_follows.json", "fabrik_arm.json", "arm_follows.json")[i % 3]
        kind = ("squashed_follow", "squashed_chain")[i % 2]
        tally[(kind, fuzzing.check_input(fuzzing.mutate(name, [(kind, i)]), ".json").kind)] += 1
    for kind in ("squashed_follow", "squashed_chain"):
        assert tally[(kind, "accepted")] >= 1, tally
    for i, name in enumerate(["huesitos.fbx", "pivots.fbx", "assimp_box.fbx"]):
        outcome = fuzzing.check_input(fuzzing.mutate(name, [("fbx_number", i)]), ".fbx")
        tally[("fbx_number", outcome.kind)] += 1
        if outcome.kind == "refused":
            assert "input.fbx" in outcome.detail
    assert tally[("fbx_number", "refused")] >= 1 and tally[("fbx_number", "accepted")] >= 1, tally
