"""The demo scenes: the foot roll and the tumbling box, baked from the command line."""

import subprocess
import sys

import numpy as np
import pytest

from app import cli
from app.scene.evaluate import bake
from app.scene.io import load_scene
from tests.helpers.paths import ROOT, SCENES


def world_points(result, bone, points):
    """World positions ``(F, N, 3)`` of points given in a bone's frame."""
    m = result.bone_to_world[:, bone]
    return np.einsum("fij,nj->fni", m[:, :3, :3], np.asarray(points)) + m[:, None, :3, 3]


@pytest.mark.parametrize("name", ["foot_roll.json", "tumbling_box.json"])
def test_scenes_bake_from_the_command_line(tmp_path, name):
    out = tmp_path / "baked.npz"
    for space in ("world", "object"):
        run = subprocess.run(
            [
                sys.executable,
                "main.py",
                "bake",
                str(SCENES / name),
                "--out",
                str(out),
                "--space",
                space,
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        baked = np.load(out)
        scene = load_scene(SCENES / name)
        assert baked["bone_to_world"].shape == (scene.frame_end + 1, len(scene.bones), 4, 4)
        assert np.all(np.isfinite(baked["bone_to_world"]))


def test_the_demo_is_the_foot_roll():
    assert cli.DEMO_SCENE == SCENES / "foot_roll.json"
    result = bake(load_scene(cli.DEMO_SCENE))
    assert np.ptp(result.heads[:, 0], axis=0).max() > 1.0  # it plays: the foot walks


def test_the_foot_rolls_over_heel_ball_and_toe():
    scene = load_scene(SCENES / "foot_roll.json")
    pivots = {p.name: p.position for p in scene.constraints[0].pivots}
    frames = np.arange(0, 96.01, 0.25)
    result = bake(scene, frames)
    points = world_points(result, 0, [pivots["heel"], pivots["ball"], pivots["toe"]])
    for cycle in range(4):
        for index, (start, end) in enumerate([(0, 12), (12, 16), (16, 19)]):  # heel, ball, toe
            span = (frames >= 24 * cycle + start) & (frames <= 24 * cycle + end)
            contact = points[span, index]
            np.testing.assert_allclose(
                contact, np.broadcast_to(contact[0], contact.shape), atol=1e-9
            )
            assert abs(contact[0, 1]) < 1e-6  # on the ground
    # The sole (heel, ball, toes' tip) never goes through the ground ...
    toes_tip = result.tails[:, scene.bone_index("toes")]
    assert min(points[:, :2, 1].min(), toes_tip[:, 1].min()) > -1e-6
    # ... and each cycle repeats the last one a stride further along +X, the foot's length.
    per_cycle = frames.searchsorted([0, 24, 48, 72, 96])
    heads = result.heads[per_cycle, 0]
    strides = np.diff(heads, axis=0)
    np.testing.assert_allclose(strides, np.broadcast_to(strides[0], strides.shape), atol=1e-9)
    assert strides[0, 0] > 0.5 and np.abs(strides[0, 1:]).max() < 1e-9


def test_in_world_space_the_foot_rolls_sideways():
    scene = load_scene(SCENES / "foot_roll.json")
    obj = bake(scene, space="object").heads[:, 0]
    world = bake(scene, space="world").heads[:, 0]
    assert np.abs(obj[:, 2]).max() < 1e-9 and np.ptp(obj[:, 0]) > 2.0
    assert np.ptp(world[:, 2]) > 1.0 and np.ptp(world[:, 0]) < 0.1


def test_the_box_tumbles_over_each_edge_in_turn():
    scene = load_scene(SCENES / "tumbling_box.json")
    pivots = scene.constraints[0].pivots
    frames = np.arange(scene.frame_start, scene.frame_end + 0.01, 0.5)
    result = bake(scene, frames)
    edges = world_points(result, 0, [p.position for p in pivots])
    corners = np.concatenate([result.heads[:, 1:], result.tails[:, 1:]], axis=1)
    assert corners[..., 1].min() > -1e-9  # never through the floor
    for i, pivot in enumerate(pivots):  # each edge rests on the ground while the box turns on it
        keys = pivot.rotation_keys
        moving = np.flatnonzero(~np.all(keys.values[1:] == keys.values[:-1], axis=1))
        for j in moving:
            span = (frames >= keys.frames[j]) & (frames <= keys.frames[j + 1])
            np.testing.assert_allclose(
                edges[span, i], np.broadcast_to(edges[span, i][0], edges[span, i].shape), atol=1e-9
            )
            assert abs(edges[span, i][0, 1]) < 1e-9
    travel = result.heads[-1, 0] - result.heads[0, 0]
    assert travel[0] > 5.0 and abs(travel[2]) < 1e-9  # along its length, world +X


def test_in_world_space_the_box_rolls_sideways_into_the_floor():
    scene = load_scene(SCENES / "tumbling_box.json")
    result = bake(scene, space="world")
    corners = np.concatenate([result.heads[:, 1:], result.tails[:, 1:]], axis=1)
    assert corners[..., 1].min() < -0.2
    assert np.ptp(result.heads[:, 0, 2]) > 1.0 and np.ptp(result.heads[:, 0, 0]) < 1e-9
