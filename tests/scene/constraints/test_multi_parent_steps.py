"""The multi-parent integration one step at a time: the solver's own states and sums."""

import itertools
import json

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from app.scene.constraints.multi_parent.steps import steps
from app.scene.evaluate import bake
from app.scene.io import load_scene, loads_scene
from app.scene.math.transforms import rotation_from_matrix
from tests.helpers.paths import SCENES


def keyed_scene(integrator="seed", space="object", substeps=2):
    """Two pivots: keys off the grid (3.3), a large turn (subdivided steps), a pivot that
    slides along a scaled body, keys that end at different frames."""
    data = {
        "format": "pivotal-scene",
        "version": 1,
        "frame_start": 0,
        "frame_end": 12,
        "bones": [
            {
                "name": "body",
                "translation": [0.2, 1, -0.3],
                "tail": [0, 1, 0],
                "rotation": [0.9238795325112867, 0, 0.3826834323650898, 0],
                "scale": [1, 2, 1],
            }
        ],
        "constraints": [
            {
                "type": "multi_parent",
                "name": "mp",
                "body": "body",
                "space": space,
                "integrator": integrator,
                "substeps": substeps,
                "pivots": [
                    {
                        "name": "a",
                        "position": [1, 0, 0],
                        "rotation_keys": [
                            [0, [1, 0, 0, 0]],
                            [3.3, [0, 0, 0, 1]],
                            [7, [0.6, 0.8, 0, 0]],
                        ],
                    },
                    {
                        "name": "b",
                        "position": [0, 0, 1],
                        "position_keys": [[0, [0, 0, 1]], [5.25, [0, 1, 1]]],
                        "rotation_keys": [[1, [1, 0, 0, 0]], [9, [0.8, 0, 0.6, 0]]],
                    },
                ],
            }
        ],
    }
    return loads_scene(json.dumps(data))


def body_rotation(scene, result):
    m = result.bone_to_world[0, 0][:3, :3] / np.asarray(scene.bones[0].scale)
    return rotation_from_matrix(m)


def same_rotation(a, b, atol):
    a, b = np.asarray(a), np.asarray(b)
    return min(np.abs(a - b).max(), np.abs(a + b).max()) <= atol


def scipy_rotate(q, v):
    return Rotation.from_quat(q, scalar_first=True).apply(v)


def brute_anticommutator(qs):
    """The seed's normalized anticommutator, summing every order with scipy's products."""
    total = np.zeros(4)
    for order in itertools.permutations(range(len(qs))):
        r = Rotation.identity()
        for i in order:
            r = r * Rotation.from_quat(qs[i], scalar_first=True)
        q = r.as_quat(scalar_first=True, canonical=False)
        # scipy may return either sign; the sum needs the Hamilton product itself.
        product = np.array([1.0, 0, 0, 0])
        for i in order:
            a, b = product, qs[i]
            product = np.array(
                [
                    a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                    a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                    a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                    a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
                ]
            )
        assert same_rotation(q, product, 1e-12)
        total += product
    return total / np.linalg.norm(total)


@pytest.mark.parametrize("integrator", ["seed", "twist"])
@pytest.mark.parametrize("space", ["world", "object"])
def test_the_last_step_ends_at_the_evaluated_pose(integrator, space):
    scene = keyed_scene(integrator, space)
    c = scene.constraints[0]
    subdivided = 0
    for frame in range(scene.frame_start, scene.frame_end + 1):
        st = steps(c, scene, frame)
        result = bake(scene, [float(frame)])
        np.testing.assert_array_equal(st.position[-1], result.heads[0, 0])
        assert same_rotation(st.rotation[-1], body_rotation(scene, result), 1e-12)
        subdivided += int(st.subdivided.sum())
        if len(st):
            assert st.times[0] == pytest.approx(frame - 1) and st.times[-1] == frame
            assert np.all(np.diff(st.times) > 0)
            # Each step: p0 moves by the sum of the contributions, q0 turns by {R_i}.
            np.testing.assert_allclose(
                np.diff(st.position, axis=0), st.displacement(), rtol=0, atol=1e-12
            )
            for k in range(len(st)):
                turned = Rotation.from_quat(st.combined[k], scalar_first=True) * Rotation.from_quat(
                    st.rotation[k], scalar_first=True
                )
                assert same_rotation(turned.as_quat(scalar_first=True), st.rotation[k + 1], 1e-12)
    assert subdivided > 0  # the half turn between keys 0 and 3.3 is split


def test_each_contribution_is_v_minus_R_v_R_star_and_the_turn_is_the_anticommutator():
    for space in ("world", "object"):
        scene = keyed_scene("seed", space)
        c = scene.constraints[0]
        for frame in (2, 4, 6, 9):
            st = steps(c, scene, frame)
            assert len(st) > 0
            np.testing.assert_allclose(
                st.pivot_positions, st.position[:-1, None] + st.offsets, atol=1e-15
            )
            for k in range(len(st)):
                for i in range(len(st.pivot_names)):
                    v, R = st.offsets[k, i], st.increments[k, i]
                    np.testing.assert_allclose(
                        st.contributions[k, i], v - scipy_rotate(R, v), rtol=0, atol=1e-14
                    )
                assert same_rotation(st.combined[k], brute_anticommutator(st.increments[k]), 1e-12)


def test_offsets_are_the_pivots_on_the_turned_scaled_body():
    scene = keyed_scene("seed", "world")
    c = scene.constraints[0]
    st = steps(c, scene, 8)  # pivot b stopped sliding at 5.25: at [0, 1, 1] on the body
    b = st.pivot_names.index("b")
    for k in range(len(st)):
        expected = scipy_rotate(st.rotation[k], np.array([0.0, 1.0, 1.0]) * [1, 2, 1])
        np.testing.assert_allclose(st.offsets[k, b], expected, atol=1e-12)


def test_no_steps_before_the_start_or_after_the_last_key():
    scene = keyed_scene()
    c = scene.constraints[0]
    for frame in (0, 10, 12):  # the last key is at 9
        st = steps(c, scene, frame)
        assert len(st) == 0 and st.position.shape == (1, 3)
        np.testing.assert_array_equal(st.position[0], bake(scene, [float(frame)]).heads[0, 0])


@pytest.mark.parametrize("name", ["foot_roll", "tumbling_box"])
def test_the_shipped_scenes_step_to_their_bakes(name):
    scene = load_scene(SCENES / f"{name}.json")
    c = scene.constraints[0]
    body = scene.bone_index(c.body)
    frames = np.arange(scene.frame_start, scene.frame_end + 1, 7)
    result = bake(scene, frames)
    for row, frame in enumerate(frames):
        st = steps(c, scene, int(frame))
        np.testing.assert_array_equal(st.position[-1], result.heads[row, body])
        assert st.pivot_names == tuple(sorted(p.name for p in c.pivots))


def test_a_cached_integral_gives_the_same_steps_even_when_stale():
    import dataclasses

    from app.scene.evaluate import Evaluator
    from app.scene.rig.keys import Keys

    scene = keyed_scene("seed", "object")
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    c = scene.constraints[0]
    cached = evaluator.cache[c.name]["object"]
    fresh = steps(c, scene, 6)
    reused = steps(c, scene, 6, integral=cached)
    for field in ("times", "rotation", "position", "contributions", "combined"):
        np.testing.assert_array_equal(getattr(reused, field), getattr(fresh, field))
    # An edit after the cache was made: the stale part is integrated again.
    a = c.pivots[0]
    keys = a.rotation_keys
    edited = dataclasses.replace(a, rotation_keys=Keys(keys.frames, keys.values[::-1].copy()))
    scene.constraints[0] = dataclasses.replace(c, pivots=(edited, c.pivots[1]))
    after = steps(scene.constraints[0], scene, 6, integral=cached)
    np.testing.assert_array_equal(after.position[-1], bake(scene, [6.0]).heads[0, 0])
    assert not np.array_equal(after.position[-1], fresh.position[-1])
