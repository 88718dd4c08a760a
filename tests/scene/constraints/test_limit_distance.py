"""The ``limit_distance`` kind (issue 29 item 1): closed forms of the sphere projection in
each mode and space, descendants following, ``r = 0``, the distance measured at
``frame_start`` after the constraints before it, one frame alone against the whole bake, the
file's round trip and its refusals with place and reason, and the exports baking it."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from app.scene.constraints.limit_distance.model import LimitDistance
from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.formats.schema import scene_from_json, scene_to_json

S = math.sqrt(0.5)
#: The parent turned 90 degrees about +Z and scaled 2: its +X is world +Y (2 units a unit),
#: its +Y world -X.
TURNED = [S, 0, 0, S]


def scene_json(constraint: dict, *, turned: bool = False, before: list | None = None) -> dict:
    """``hand``'s head runs along its parent's +X from 0 to 10 (frames 0..10); ``goal``'s head
    is at the parent's (3, 0, 0) (world (3, 0, 0), or (0, 6, 0) under the turned parent);
    ``finger`` hangs off ``hand``; ``lead`` is where an earlier constraint may put ``goal``."""
    base = {"name": "base", "tail": [0, 1, 0]}
    goal = {"name": "goal", "translation": [3, 0, 0], "tail": [0, 1, 0]}
    if turned:
        base.update(rotation=TURNED, scale=[2, 2, 2])
        goal["translation"] = [0, 6, 0]
    return {
        "format": "pivotal-scene",
        "version": 1,
        "fps": 24,
        "frame_start": 0,
        "frame_end": 10,
        "bones": [
            base,
            {
                "name": "hand",
                "parent": "base",
                "translation_keys": [[0, [0, 0, 0]], [10, [10, 0, 0]]],
                "tail": [0, 0.5, 0],
            },
            {"name": "finger", "parent": "hand", "translation": [0, 0.5, 0], "tail": [0, 0.25, 0]},
            goal,
            {"name": "lead", "translation": [4, 0, 0], "tail": [0, 1, 0]},
        ],
        "constraints": (before or [])
        + [
            {
                "type": "limit_distance",
                "name": "limit",
                "bone": "hand",
                "target": {"bone": "goal", "at": "head"},
                **constraint,
            }
        ],
    }


def heads(scene_dict, space=None, frames=None):
    scene = scene_from_json(json.loads(json.dumps(scene_dict)))
    result = bake(scene, frames, space)
    return result.heads[:, scene.bone_index("hand")], result.heads[:, scene.bone_index("finger")]


X = np.arange(11.0)  # the hand's head along the parent's +X, frame by frame


def along_x(x) -> np.ndarray:
    return np.stack([x, np.zeros_like(x), np.zeros_like(x)], axis=1)


# --- closed forms ------------------------------------------------------------------------------


@pytest.mark.parametrize("space", ["world", "object"])
def test_inside_keeps_the_head_within_the_sphere(space):
    # unturned parent: both spaces are the world; the head stays within 2 of x = 3: [1, 5]
    hand, finger = heads(scene_json({"mode": "inside", "distance": 2, "space": space}))
    np.testing.assert_allclose(hand, along_x(np.clip(X, 1, 5)), atol=1e-12)
    np.testing.assert_allclose(finger, hand + [0, 0.5, 0], atol=1e-12)  # it follows


def test_outside_pushes_the_head_off_the_sphere_and_up_at_its_centre():
    hand, _ = heads(scene_json({"mode": "outside", "distance": 2, "space": "world"}))
    expected = along_x(np.where(np.abs(X - 3) >= 2, X, np.where(X < 3, 1.0, 5.0)))
    expected[3] = [3, 2, 0]  # on the target: along the parent's +Y
    np.testing.assert_allclose(hand, expected, atol=1e-12)


def test_surface_keeps_the_head_on_the_sphere_at_every_frame():
    hand, finger = heads(scene_json({"mode": "surface", "distance": 2, "space": "world"}))
    expected = along_x(np.where(X < 3, 1.0, 5.0))
    expected[3] = [3, 2, 0]
    np.testing.assert_allclose(hand, expected, atol=1e-12)
    np.testing.assert_allclose(finger, expected + [0, 0.5, 0], atol=1e-12)


def test_the_head_off_the_line_moves_along_its_ray_from_the_centre():
    # a head at (3 + 3, 4, 0) from c = (3, 0, 0): r = 5, inside 2.5 -> c + (3, 4, 0) / 2
    doc = scene_json({"mode": "inside", "distance": 2.5, "space": "world"})
    doc["bones"][1]["translation_keys"] = [[0, [6, 4, 0]], [10, [6, 4, 0]]]
    hand, _ = heads(doc, frames=[0.0])
    np.testing.assert_allclose(hand[0], [4.5, 2, 0], atol=1e-12)


def test_object_space_limits_in_the_parents_frame_and_units():
    # Parent turned +90 about Z and scaled 2: the hand's head is world (0, 2x, 0), the goal
    # at world (0, 6, 0) is the parent's (3, 0, 0). Object space: within 2 parent units of
    # x = 3, so world y in [2, 10]; world space: within 2 world units of y = 6, [4, 8].
    spec = {"mode": "inside", "distance": 2}
    hand, finger = heads(scene_json({**spec, "space": "object"}, turned=True))
    expected = np.stack([0 * X, 2 * np.clip(X, 1, 5), 0 * X], axis=1)
    np.testing.assert_allclose(hand, expected, atol=1e-12)
    np.testing.assert_allclose(finger, expected + [-1, 0, 0], atol=1e-12)  # 2 R (0, .5, 0)
    hand, _ = heads(scene_json({**spec, "space": "world"}, turned=True))
    np.testing.assert_allclose(
        hand, np.stack([0 * X, np.clip(2 * X, 4, 8), 0 * X], axis=1), atol=1e-12
    )
    # the editor's toggle overrides the authored space the same way
    hand, _ = heads(scene_json({**spec, "space": "object"}, turned=True), space="world")
    np.testing.assert_allclose(hand[:, 1], np.clip(2 * X, 4, 8), atol=1e-12)


def test_at_the_centre_the_head_goes_along_the_parents_plus_y_in_either_space():
    spec = {"mode": "surface", "distance": 2}
    # frame 3: the head is on the goal. The parent's +Y is world -X (and 2 units a unit).
    hand, _ = heads(scene_json({**spec, "space": "world"}, turned=True), frames=[3.0])
    np.testing.assert_allclose(hand[0], [-2, 6, 0], atol=1e-12)
    hand, _ = heads(scene_json({**spec, "space": "object"}, turned=True), frames=[3.0])
    np.testing.assert_allclose(hand[0], [-4, 6, 0], atol=1e-12)


def test_the_rotation_and_scale_are_kept():
    scene = scene_from_json(
        scene_json({"mode": "surface", "distance": 2, "space": "object"}, turned=True)
    )
    free = scene.copy()
    free.constraints = []
    b = scene.bone_index("hand")
    got, before = bake(scene).bone_to_world[:, b], bake(free).bone_to_world[:, b]
    np.testing.assert_array_equal(got[:, :3, :3], before[:, :3, :3])
    np.testing.assert_array_equal(got[:, 3], before[:, 3])


def test_an_absent_distance_is_the_one_at_frame_start_after_the_constraints_before_it():
    # alone: the hand starts 3 from the goal, so inside 3 keeps it in [0, 6]
    hand, _ = heads(scene_json({"mode": "inside", "space": "world"}))
    np.testing.assert_allclose(hand[:, 0], np.clip(X, 0, 6), atol=1e-12)
    # a copy location first puts the goal on lead (x = 4): 4 at frame_start, so [0, 8]
    before = [
        {
            "type": "copy_location",
            "name": "move goal",
            "space": "world",
            "bone": "goal",
            "target": {"bone": "lead", "at": "head"},
            "offset": "none",
        }
    ]
    doc = scene_json({"mode": "inside", "space": "world"}, before=before)
    hand, _ = heads(doc)
    np.testing.assert_allclose(hand[:, 0], np.clip(X, 0, 8), atol=1e-12)
    # frames without frame_start measure it the same (frame_start evaluated alone once)
    alone, _ = heads(doc, frames=[9.0, 10.0])
    np.testing.assert_allclose(alone[:, 0], [8, 8], atol=1e-12)
    # in object space it is measured in the parent's units: the turned parent puts the hand
    # 3 parent units (6 world) from the goal at frame 0, so world y stays in [0, 12]
    hand, _ = heads(scene_json({"mode": "inside", "space": "object"}, turned=True))
    np.testing.assert_allclose(hand[:, 1], 2 * np.clip(X, 0, 6), atol=1e-12)
    scene = scene_from_json(json.loads(json.dumps(doc)))
    assert bake(scene).info["limit"]["radius"] == pytest.approx(4.0)


@pytest.mark.parametrize("mode", ["inside", "outside", "surface"])
@pytest.mark.parametrize("space", ["world", "object"])
def test_one_frame_alone_is_the_whole_bakes_frame(mode, space):
    doc = scene_json({"mode": mode, "space": space}, turned=True)
    scene = scene_from_json(json.loads(json.dumps(doc)))
    whole = bake(scene)
    for f in (0.0, 3.0, 7.5, 10.0):
        one = Evaluator(scene).evaluate([f])
        row = int(np.flatnonzero(whole.frames == f)[0]) if f in whole.frames else None
        if row is None:
            two = bake(scene, [0.0, f])
            np.testing.assert_allclose(one.bone_to_world[0], two.bone_to_world[1], atol=1e-12)
        else:
            np.testing.assert_allclose(one.bone_to_world[0], whole.bone_to_world[row], atol=1e-12)


# --- the file -----------------------------------------------------------------------------


def test_the_file_round_trip_keeps_every_key_and_an_absent_distance_absent():
    for spec in (
        {"mode": "outside", "distance": 1.25, "space": "object"},
        {"mode": "surface", "space": "world"},
    ):
        doc = scene_json(spec)
        doc["constraints"][0]["target"]["at"] = "tail"
        doc["constraints"][0]["note"] = "kept"
        scene = scene_from_json(json.loads(json.dumps(doc)))
        (c,) = scene.constraints
        assert type(c) is LimitDistance and c.extra == {"note": "kept"}
        assert c.distance == spec.get("distance") and c.target.at == "tail"
        written = scene_to_json(scene)
        assert written["constraints"] == doc["constraints"]
        assert scene_from_json(json.loads(json.dumps(written))).constraints == [c]


def test_the_mode_defaults_to_inside():
    doc = scene_json({"distance": 1, "space": "world"})
    assert scene_from_json(doc).constraints[0].mode == "inside"


@pytest.mark.parametrize(
    "change, place, reason",
    [
        ({"distance": float("nan")}, "constraints[0].distance", "not a finite number"),
        ({"distance": -0.5}, "constraints[0].distance", "a distance is 0 or more, got -0.5"),
        ({"distance": "far"}, "constraints[0].distance", "expected a number"),
        ({"mode": "around"}, "constraints[0].mode", 'mode must be "inside", "outside" or'),
        ({"target": {"at": "head"}}, "constraints[0].target", "is a bone"),
        ({"target": {"position": [0, 0, 0]}}, "constraints[0].target", "is a bone"),
        ({"target": {"bone": "nobody"}}, "constraints[0].target.bone", "'nobody' is not a bone"),
        (
            {"target": {"bone": "goal", "at": "middle"}},
            "constraints[0].target.at",
            '"at" must be "head" or "tail"',
        ),
        ({"target": {"bone": "hand"}}, "constraints[0].target.bone", "from itself"),
        ({"bone": "ghost"}, "constraints[0].bone", "'ghost' is not a bone"),
    ],
)
def test_the_file_refuses_bad_values_naming_place_and_reason(change, place, reason):
    doc = scene_json({"mode": "inside", "distance": 1, "space": "world"})
    doc["constraints"][0].update(change)
    with pytest.raises(SceneError) as e:
        scene_from_json(json.loads(json.dumps(doc, allow_nan=True)))
    assert e.value.path == place and reason in str(e.value)


def test_a_missing_target_is_refused():
    doc = scene_json({"mode": "inside", "distance": 1, "space": "world"})
    del doc["constraints"][0]["target"]
    with pytest.raises(SceneError, match='missing "target"') as e:
        scene_from_json(doc)
    assert e.value.path == "constraints[0]"


def test_it_runs_after_what_moves_its_target():
    # the copy location that moves the goal is listed after it, and still runs first
    before = {
        "type": "copy_location",
        "name": "move goal",
        "space": "world",
        "bone": "goal",
        "target": {"bone": "lead", "at": "head"},
        "offset": "none",
    }
    doc = scene_json({"mode": "inside", "distance": 1, "space": "world"})
    doc["constraints"].append(before)
    hand, _ = heads(doc)
    np.testing.assert_allclose(hand[:, 0], np.clip(X, 3, 5), atol=1e-12)


# --- the exports bake it ------------------------------------------------------------------


def test_the_exports_write_the_limited_pose(tmp_path):
    from app.cli import main
    from app.scene.io import load_scene

    doc = scene_json({"mode": "surface", "distance": 2, "space": "object"}, turned=True)
    path = tmp_path / "limit.json"
    path.write_text(json.dumps(doc))
    scene = load_scene(path)
    expected = bake(scene)
    names = list(expected.bone_names)
    for suffix, tolerance in ((".bvh", 1e-4), (".glb", 1e-5)):
        out = tmp_path / f"limit{suffix}"
        assert main(["export", str(path), "--out", str(out)]) == 0
        back = load_scene(out)
        got = bake(back)
        rows = [list(got.bone_names).index(n) for n in names]
        np.testing.assert_allclose(got.heads[:, rows], expected.heads, atol=tolerance)
    free = scene.copy()
    free.constraints = []
    hand = names.index("hand")
    assert np.abs(bake(free).heads[:, hand] - expected.heads[:, hand]).max() > 1  # it moved


def test_a_parent_scaled_to_nothing_gives_finite_poses_and_one_frame_is_the_bake():
    # object space through a parent squashed flat (the pseudo-inverse rule), measured distance
    doc = scene_json({"mode": "surface", "space": "object"}, turned=True)
    doc["bones"][0]["scale"] = [0, 2, 2]
    scene = scene_from_json(doc)
    whole = bake(scene)
    assert np.all(np.isfinite(whole.bone_to_world))
    for f in (3.0, 10.0):
        one = Evaluator(scene).evaluate([f])
        np.testing.assert_allclose(one.bone_to_world[0], whole.bone_to_world[int(f)], atol=1e-12)
