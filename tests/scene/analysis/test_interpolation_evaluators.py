"""Every evaluator honours key interpolation (format §B): targets, BVH export, the matrix
chain, and the frames the curve view samples.

Oracles: closed forms (a held target, ``3u² − 2u³``) and forward kinematics written here.
"""

import json

import numpy as np

from app.scene.analysis.curves import EASE_SAMPLES, plot_frames
from app.scene.analysis.matrix_chain import bone_chain
from app.scene.constraints.change_of_basis import is_rigid
from app.scene.evaluate import bake
from app.scene.formats.bvh import parse_bvh
from app.scene.formats.bvh_export import bvh_from_bake
from app.scene.io import loads_scene
from app.scene.rig.keys import Keys
from app.scene.rig.skeleton import Skeleton

HALF = 0.7071067811865476


def _scene(bones, constraints=(), end=20):
    return loads_scene(
        json.dumps(
            {
                "format": "pivotal-scene",
                "version": 1,
                "fps": 24,
                "frame_start": 0,
                "frame_end": end,
                "bones": list(bones),
                "constraints": list(constraints),
            }
        )
    )


def test_a_points_at_target_with_constant_keys_jumps_at_the_next_key():
    scene = _scene(
        [{"name": "arm", "translation": [0.0, 0.0, 0.0], "tail": [0.0, 1.0, 0.0]}],
        [
            {
                "type": "points_at",
                "name": "aim",
                "bone": "arm",
                "target": {
                    "position": [0.0, 0.0, 0.0],
                    "position_keys": [
                        [0, [2.0, 0.0, 0.0], "constant"],
                        [10, [0.0, 0.0, 3.0], "ease"],
                        [20, [0.0, 3.0, 3.0]],
                    ],
                },
            }
        ],
    )
    frames = np.arange(0.0, 20.5, 0.5)
    result = bake(scene, frames)
    tails = result.tails[:, 0]
    for f, tail in zip(frames, tails):
        if f < 10:
            target = np.array([2.0, 0.0, 0.0])
        else:
            s = 3 * ((f - 10) / 10) ** 2 - 2 * ((f - 10) / 10) ** 3
            target = np.array([0.0, 3.0 * s, 3.0])
        np.testing.assert_allclose(tail, target / np.linalg.norm(target), atol=1e-9)


def _stepped_arm():
    turn = [HALF, 0.0, 0.0, HALF]  # 90 degrees about z
    return _scene(
        [
            {
                "name": "root",
                "translation": [0.0, 1.0, 0.0],
                "translation_keys": [[0, [0.0, 1.0, 0.0], "ease"], [12, [2.0, 1.0, 0.0]]],
                "rotation_keys": [
                    [0, [1.0, 0.0, 0.0, 0.0], "constant"],
                    [6, turn, "ease"],
                    [18, [1.0, 0.0, 0.0, 0.0]],
                ],
            },
            {
                "name": "upper",
                "parent": "root",
                "translation": [0.0, 1.0, 0.0],
                "rotation_keys": [[0, [1.0, 0.0, 0.0, 0.0], "ease"], [20, [HALF, HALF, 0.0, 0.0]]],
            },
            {
                "name": "lower",
                "parent": "upper",
                "translation": [0.0, 0.8, 0.0],
                "tail": [0.0, 0.5, 0.0],
            },
        ]
    )


def test_bvh_export_samples_constant_and_eased_keys():
    scene = _stepped_arm()
    frames = np.arange(0.0, 21.0)
    result = bake(scene, frames)
    back = bake(parse_bvh(bvh_from_bake(scene, result).text), np.arange(0.0, 21.0))
    np.testing.assert_allclose(back.heads, result.heads, atol=1e-9)
    # ... and the bake itself is the stepped and eased motion: the root's rotation holds
    # until frame 6, then jumps; its translation eases.
    root = result.bone_to_world[:, 0]
    np.testing.assert_allclose(root[:6, :3, :3], np.broadcast_to(np.eye(3), (6, 3, 3)), atol=1e-15)
    np.testing.assert_allclose(root[6, :3, 0], [0.0, 1.0, 0.0], atol=1e-12)
    u = np.clip(frames / 12, 0, 1)
    np.testing.assert_allclose(root[:, 0, 3], 2.0 * (3 * u**2 - 2 * u**3), atol=1e-12)


def test_the_matrix_chain_reads_scale_keys():
    scene = _scene(
        [
            {"name": "root", "scale_keys": [[0, [1.0, 1.0, 1.0], "ease"], [20, [1.0, 2.0, 0.5]]]},
            {
                "name": "tip",
                "parent": "root",
                "translation": [0.0, 1.0, 0.0],
                "rotation_keys": [
                    [0, [1.0, 0.0, 0.0, 0.0], "constant"],
                    [10, [HALF, HALF, 0.0, 0.0]],
                ],
            },
        ]
    )
    frames = np.arange(0.0, 21.0)
    chain = bone_chain(scene, "tip", frames)
    np.testing.assert_allclose(chain.product(), bake(scene, frames).bone_to_world[:, 1], atol=1e-12)
    assert any(f.kind == "S" for f in chain.factors)
    assert not is_rigid(scene, Skeleton.from_scene(scene), 1)


def test_plot_frames_draw_steps_vertical_and_eases_dense():
    keys = Keys([2.0, 10.0, 11.0, 50.0], np.zeros((4, 3)), ("constant", "ease", "linear", "ease"))
    frames = plot_frames(0.0, 100.0, [keys, None], 101)
    assert np.all(np.diff(frames) > 0)
    assert set(keys.frames) <= set(frames)
    # A frame within 1e-5 before the key that ends the constant segment: the step is vertical.
    before = frames[(frames < 10.0) & (frames > 10.0 - 1e-5)]
    assert len(before) == 1
    # The one-frame eased segment gets EASE_SAMPLES frames, not the 2 a frame grid gives it.
    assert np.count_nonzero((frames >= 10.0) & (frames <= 11.0)) >= EASE_SAMPLES
    # Linear keys add only their own frames to the evenly spaced ones.
    linear = plot_frames(0.0, 100.0, [Keys([2.5, 7.25], np.zeros((2, 3)))], 101)
    np.testing.assert_array_equal(linear, np.union1d(np.linspace(0, 100, 101), [2.5, 7.25]))
