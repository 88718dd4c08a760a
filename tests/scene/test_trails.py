"""Motion trails and onion skins: which points, which frames, read from a bake."""

import numpy as np

from app.scene.analysis import trails
from app.scene.evaluate import bake
from app.scene.io import load_scene
from tests.helpers.paths import SCENES


def test_the_window_stays_in_the_timeline():
    np.testing.assert_array_equal(trails.window(10, 3, 2, 0, 100), [7, 8, 9, 10, 11, 12])
    np.testing.assert_array_equal(trails.window(1, 5, 1, 0, 100), [0, 1, 2])
    np.testing.assert_array_equal(trails.window(99.5, 1, 5, 0, 100), [99, 100])
    assert len(trails.window(200, 3, 3, 0, 100)) == 0


def test_ghosts_every_n_frames_leave_the_current_frame_out():
    np.testing.assert_array_equal(trails.ghost_frames(20, 12, 8, 4, 0, 100), [8, 12, 16, 24, 28])
    np.testing.assert_array_equal(trails.ghost_frames(2, 12, 4, 3, 0, 100), [5])
    assert len(trails.ghost_frames(20, 12, 8, 0, 0, 100)) == 0


def test_the_points_are_what_the_constraints_move():
    foot = load_scene(SCENES / "foot_roll.json")
    assert [(p.label, p.at) for p in trails.trail_points(foot)] == [("foot head", "head")]
    arm = load_scene(SCENES / "fabrik_arm.json")
    points = trails.trail_points(arm, ["fingers", "forearm"])
    assert [p.label for p in points] == ["fingers tip", "forearm tip"]  # no repeat
    assert points[0].bone == arm.bone_index("fingers") and points[0].at == "tail"
    calf = load_scene(SCENES / "calf_points_at_ankle.json")
    assert [p.label for p in trails.trail_points(calf)] == ["calf.l tip"]


def test_paths_are_the_baked_positions():
    scene = load_scene(SCENES / "fabrik_arm.json")
    result = bake(scene)
    points = trails.trail_points(scene, ["upper_arm"])
    frames = trails.window(40, 10, 5, scene.frame_start, scene.frame_end)
    paths = trails.paths(points, result.heads, result.tails, result.frames, frames)
    assert paths.shape == (2, len(frames), 3)
    rows = frames.astype(int) - scene.frame_start
    np.testing.assert_array_equal(paths[0], result.tails[rows, scene.bone_index("fingers")])
    np.testing.assert_array_equal(paths[1], result.tails[rows, scene.bone_index("upper_arm")])
