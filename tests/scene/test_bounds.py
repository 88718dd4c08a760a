"""Bounds on hostile input: each refusal a SceneError naming the place and the bound, no
hang, no MemoryError, no RecursionError (docs/scene-format.md, "Bounds on hostile input")."""

import json
import subprocess
import sys

import numpy as np
import pytest

from app.scene import bounds
from app.scene.errors import SceneError
from app.scene.evaluate import bake, default_frames
from app.scene.formats.bvh import parse_bvh
from app.scene.io import load_scene, loads_scene
from tests.helpers.paths import ROOT, SCENES


def scene_text(**top):
    value = {"format": "pivotal-scene", "version": 1, "bones": [{"name": "a"}], **top}
    return json.dumps(value)


def refused(text, where, *words):
    with pytest.raises(SceneError) as info:
        loads_scene(text, "hostile.json")
    assert info.value.path == where, info.value
    for word in words:
        assert word in str(info.value)
    return info.value


def multi_parent(**fields):
    keys = [[0, [1, 0, 0, 0]], [4, [0, 0, 1, 0]]]
    c = {
        "type": "multi_parent",
        "name": "m",
        "body": "a",
        "pivots": [{"name": "p", "rotation_keys": keys}],
    }
    c.update(fields)
    return c


@pytest.mark.parametrize("end", [1e308, 10**400, 2e7, 10_000_000])
def test_an_enormous_frame_range_is_refused_at_load(end):
    # 10**400 is a JSON integer no float holds: refused, never wrapped or overflowed.
    refused(scene_text(frame_end=end), "frame_end")


def test_the_frame_bound_is_inclusive():
    scene = loads_scene(scene_text(frame_start=1, frame_end=bounds.MAX_FRAMES))
    assert scene.frame_end - scene.frame_start + 1 == bounds.MAX_FRAMES
    refused(scene_text(frame_start=0, frame_end=bounds.MAX_FRAMES), "frame_end", "10,000,000")


def test_frame_numbers_and_fps_stay_where_the_editor_can_hold_them():
    refused(scene_text(frame_start=-3e9, frame_end=-3e9 + 5), "frame_start")
    refused(scene_text(fps=1e-300), "fps")
    refused(scene_text(fps=1e300), "fps")


@pytest.mark.parametrize("substeps", [1e308, 10**30, 10_000_001])
def test_substeps_past_the_bound_are_refused(substeps):
    text = scene_text(constraints=[multi_parent(substeps=substeps)])
    refused(text, "constraints[0].substeps", "10,000,000")


def test_pivot_keys_too_far_for_the_grid_are_refused_at_load():
    keys = [[0, [1, 0, 0, 0]], [1e14, [0, 0, 1, 0]]]
    far = multi_parent(pivots=[{"name": "p", "rotation_keys": keys}])
    refused(scene_text(constraints=[far]), "constraints[0].pivots", "integration steps")
    # 2.6e6 frames at 4 substeps: 1.04e7 steps, just past the bound.
    far["pivots"][0]["rotation_keys"][1][0] = 2.6e6
    refused(scene_text(constraints=[far]), "constraints[0].pivots", "10,000,000")


def test_keys_a_hair_apart_are_refused_when_baked_not_wrapped():
    # A half turn in 1e-12 frames: 1e12 substeps in one grid step.
    fast = multi_parent(
        pivots=[{"name": "p", "rotation_keys": [[0.5, [1, 0, 0, 0]], [0.5 + 1e-12, [0, 0, 1, 0]]]}]
    )
    scene = loads_scene(scene_text(frame_end=2, constraints=[fast]))
    with pytest.raises(SceneError) as info:
        bake(scene)
    assert info.value.path.startswith("constraints[0]") and "10,000,000" in str(info.value)


def test_fabrik_iterations_past_the_bound_are_refused():
    bones = [{"name": "a"}, {"name": "b", "parent": "a", "translation": [0, 1, 0]}]
    fabrik = {
        "type": "fabrik",
        "name": "f",
        "chain": ["a", "b"],
        "max_iterations": 1e12,
        "target": {"position": [5, 5, 5]},
    }
    refused(scene_text(bones=bones, constraints=[fabrik]), "constraints[0].max_iterations", "bound")


def test_too_many_bones_are_refused_before_they_are_read():
    refused(scene_text(bones=[0] * (bounds.MAX_BONES + 1)), "bones", "100,000")


def test_a_chain_deeper_than_the_bound_is_refused_without_recursion():
    n = bounds.MAX_DEPTH + 1
    bones = [{"name": "b0"}] + [{"name": f"b{i}", "parent": f"b{i - 1}"} for i in range(1, n)]
    error = refused(scene_text(frame_end=0, bones=bones), f"bones[{n - 1}].parent", "depth")
    assert "10,000" in str(error)
    bones.pop()  # exactly the bound: accepted, and its deepest bone has depth 10^4
    scene = loads_scene(scene_text(frame_end=0, bones=bones))
    depths, cyclic = bounds.hierarchy_depths([-1] + list(range(len(scene.bones) - 1)))
    assert cyclic is None and max(depths) == bounds.MAX_DEPTH


def test_hierarchy_depths_against_a_direct_walk(rng):
    parents = [-1 if i == 0 or rng.random() < 0.1 else int(rng.integers(0, i)) for i in range(300)]
    parents[50] = 120  # 50 -> 120 -> ... may loop back through 50: a direct walk decides
    depths, cyclic = bounds.hierarchy_depths(parents)
    expected_cyclic = None
    for i in range(len(parents)):
        seen, node, d = set(), i, 0
        while node >= 0 and node not in seen:
            seen.add(node)
            node, d = parents[node], d + 1
        if node >= 0:
            expected_cyclic = i if expected_cyclic is None else expected_cyclic
        else:
            assert depths[i] == d
    assert cyclic == expected_cyclic


def test_a_cycle_is_still_named_where_it_starts():
    bones = [
        {"name": "a", "parent": "c"},
        {"name": "b", "parent": "a"},
        {"name": "c", "parent": "b"},
    ]
    refused(scene_text(bones=bones), "bones[0].parent", "cycle")


def test_bake_refuses_too_many_frames_itself():
    scene = load_scene(SCENES / "legs.json")
    with pytest.raises(SceneError) as info:
        bake(scene, frames=np.zeros(bounds.MAX_FRAMES + 1))
    assert info.value.path == "frames" and "10,000,000" in str(info.value)
    with pytest.raises(SceneError, match="frames x bones"):
        bake(scene, frames=np.zeros(bounds.MAX_POSES // len(scene.bones) + 1))
    scene.frame_end = scene.frame_start + int(1e9)  # an editor edit past the bound
    with pytest.raises(SceneError, match="frame count"):
        default_frames(scene)


def deep_bvh(depth: int) -> str:
    lines = [
        "HIERARCHY",
        "ROOT j0",
        "{",
        "OFFSET 0 0 0",
        "CHANNELS 3 Zrotation Xrotation Yrotation",
    ]
    for i in range(1, depth):
        lines += [f"JOINT j{i}", "{", "OFFSET 0 1 0", "CHANNELS 1 Zrotation"]
    lines += ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * depth
    lines += ["MOTION", "Frames: 2", "Frame Time: 0.04"]
    row = " ".join(["0"] * (depth + 2))
    return "\n".join(lines + [row, row]) + "\n"


def test_a_bvh_as_deep_as_the_bound_parses_without_recursion():
    depth = bounds.MAX_DEPTH
    scene = parse_bvh(deep_bvh(depth))
    assert len(scene.bones) == depth
    assert scene.bones[-1].parent == f"j{depth - 2}"
    result = bake(scene)
    # Every joint is 1 up from its parent with no rotation: the tip is at y = depth - 1.
    assert np.allclose(result.heads[:, -1], [0, depth - 1, 0])


def test_a_bvh_deeper_than_the_bound_is_refused_on_its_line():
    depth = bounds.MAX_DEPTH + 1
    with pytest.raises(SceneError) as info:
        parse_bvh(deep_bvh(depth), "deep.bvh")
    # JOINT j10000 is the 10,001st joint, on line 6 + 4 * 9999 (header lines 1-5).
    assert info.value.path == f"line {6 + 4 * (depth - 2)}"
    assert "depth" in str(info.value) and "10,000" in str(info.value)


@pytest.mark.parametrize(
    "header, line, word",
    [
        ("Frames: 100000000000000000000", 12, "frame count"),
        ("Frames: 1e308", 12, "integer"),
        ("Frame Time: 1e-320", 13, "Frame Time"),
        ("Frame Time: 1e300", 13, "bound"),
        ("Frame Time: 1e10", 13, "Frame Time"),
    ],
)
def test_absurd_bvh_motion_headers_are_refused_on_their_line(header, line, word):
    text = deep_bvh(1).splitlines()
    index = 11 if header.startswith("Frames:") else 12
    text[index] = header
    with pytest.raises(SceneError) as info:
        parse_bvh("\n".join(text) + "\n")
    assert info.value.path == f"line {line}" and word in str(info.value)


def test_deeply_nested_json_is_refused_not_a_recursion_error():
    with pytest.raises(SceneError, match="nested too deeply"):
        loads_scene("[" * 200_000 + "]" * 200_000)


def test_the_cli_answers_a_hostile_file_with_exit_2_and_one_line(tmp_path):
    bad = tmp_path / "hostile.json"
    bad.write_text(scene_text(frame_end=1e308))
    for args in (
        ["bake", bad, "--out", tmp_path / "x.npz"],
        ["bake", SCENES / "legs.json", "--out", tmp_path / "x.npz", "--frames", "0:1e300"],
    ):
        proc = subprocess.run(
            [sys.executable, str(ROOT / "main.py"), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "bound" in lines[0]
    assert not (tmp_path / "x.npz").exists()


def test_the_largest_scene_within_the_bounds_loads_and_bakes():
    """10^5 bones as ten chains 10^4 deep: the skeleton's levels and the tails' defaults are
    found in linear time (walking to the root, or scanning for a first child, per bone was
    quadratic: minutes here). Each bone sits 1 above its parent, so heads are closed form."""
    chains, depth = 10, bounds.MAX_DEPTH
    bones = []
    for c in range(chains):
        bones.append({"name": f"c{c}_0", "translation": [c, 0, 0]})
        bones += [
            {"name": f"c{c}_{k}", "parent": f"c{c}_{k - 1}", "translation": [0, 1, 0]}
            for k in range(1, depth)
        ]
    assert len(bones) == bounds.MAX_BONES
    scene = loads_scene(scene_text(frame_end=0, bones=bones))
    result = bake(scene)
    k = np.tile(np.arange(depth), chains)
    c = np.repeat(np.arange(chains), depth)
    np.testing.assert_array_equal(result.heads[0], np.stack([c, k, 0 * k], axis=1))
    # Every bone's tail defaults to its child's head; the tip's is its own head.
    np.testing.assert_array_equal(
        result.tails[0], result.heads[0] + (k < depth - 1)[:, None] * np.array([0, 1, 0])
    )


def test_tails_and_levels_agree_with_the_per_bone_definitions(rng):
    from app.scene.rig.model import Bone, Scene
    from app.scene.rig.skeleton import Skeleton

    bones = [Bone(name="b0")]
    for i in range(1, 60):
        parent = f"b{int(rng.integers(0, i))}"
        tail = tuple(rng.normal(size=3)) if rng.random() < 0.3 else None
        bones.append(
            Bone(name=f"b{i}", parent=parent, translation=tuple(rng.normal(size=3)), tail=tail)
        )
    rng.shuffle(bones)  # children may come before their parents in the list
    scene = Scene(bones=bones, frame_end=0)
    result = bake(scene)
    from app.scene.math.transforms import transform_points

    expected = np.array(
        [
            transform_points(result.bone_to_world[0, i], np.array(scene.tail_of(i)))
            for i in range(len(bones))
        ]
    )
    np.testing.assert_allclose(result.tails[0], expected, atol=1e-12)
    skeleton = Skeleton.from_scene(scene)
    for level, members in enumerate(skeleton.levels):
        for b in members:
            node, d = int(skeleton.parents[b]), 0
            while node >= 0:
                node, d = int(skeleton.parents[node]), d + 1
            assert d == level
