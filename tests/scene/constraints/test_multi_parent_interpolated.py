"""Constant and eased keys (format §B) in the three multi-parent integrators (§A).

Oracles: the per-step loop of ``tests/scene/constraints/test_multi_parent_exact.py`` fed by
key sampling written here (scipy ``Slerp`` at the shaped time, ``np.interp``), the seed's
closed form, and scipy's matrix exponential of the summed twist for simultaneous jumps.
"""

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.spatial.transform import Rotation, Slerp

import app.scene.constraints.multi_parent.nonlinear as nonlinear
from app.scene.constraints.multi_parent.cache import agrees_until
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot
from tests.scene.constraints.test_multi_parent_exact import (
    make_scene,
    random_turns,
    rotation_distance,
    seed_loop,
    state,
)


def shaped_times(keys, times):
    """Each time moved along its key segment as the segment's interpolation says."""
    times = np.asarray(times, dtype=float)
    f = keys.frames
    t = np.clip(times, f[0], f[-1])
    j = np.clip(np.searchsorted(f, t, side="right") - 1, 0, len(f) - 2)
    u = (t - f[j]) / (f[j + 1] - f[j])
    kind = np.array(keys.interpolation)[j]
    s = np.where(
        kind == "constant",
        np.where(u >= 1, 1.0, 0.0),
        np.where(kind == "ease", u * u * (3 - 2 * u), u),
    )
    return f[j] + s * (f[j + 1] - f[j])


def rotation_at(pivot, times):
    keys = pivot.rotation_keys
    if keys is None:
        return Rotation.from_quat(np.tile(pivot.rotation, (len(times), 1)), scalar_first=True)
    slerp = Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))
    return slerp(shaped_times(keys, times))


def offset_at(pivot, times, scale):
    keys = pivot.position_keys
    if keys is None:
        return np.tile(np.multiply(pivot.position, scale), (len(times), 1))
    t = shaped_times(keys, times)
    return np.stack([np.interp(t, keys.frames, keys.values[:, c]) for c in range(3)], -1) * scale


def with_kinds(keys, kinds):
    return Keys(keys.frames, keys.values, tuple(kinds))


def rig(rng):
    """Two pivots turning on random axes through eased, constant and linear segments, one
    sliding along an eased path; keys on whole and half frames."""
    body = Bone(
        name="body",
        translation=(0.1, 1.0, 0.2),
        scale=(1.0, 1.25, 0.8),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    a = with_kinds(
        random_turns(rng, [0, 2, 4, 6], spread=30), ["ease", "constant", "ease", "linear"]
    )
    b = with_kinds(random_turns(rng, [0.5, 3, 5.5], spread=30), ["linear", "ease", "linear"])
    slide = Keys([1, 4.5], [[0, 0.3, 0], [0.2, -0.1, 0.5]], ("ease", "linear"))
    return body, [
        Pivot(name="a", position=(0.1, -0.2, -0.3), rotation_keys=a),
        Pivot(name="b", position=(0.0, 0.3, 0.0), rotation_keys=b, position_keys=slide),
    ]


FRAMES = np.arange(0.0, 7.0)


@pytest.mark.parametrize("space", ["world", "object"])
@pytest.mark.parametrize("integrator", ["seed", "twist"])
def test_seed_and_twist_step_eased_and_constant_keys_literally(rng, space, integrator):
    body, pivots = rig(rng)
    scene = make_scene(pivots, body, space=space, integrator=integrator, substeps=3, frame_end=7)
    q, p = state(scene, FRAMES)
    q_loop, p_loop = seed_loop(pivots, body, 3, FRAMES, space, integrator, rotation_at, offset_at)
    np.testing.assert_allclose(p, p_loop, atol=1e-10, rtol=0)
    assert rotation_distance(q, q_loop).max() < 1e-10


@pytest.mark.parametrize("space", ["world", "object"])
def test_exact_is_the_limit_of_the_seed_on_eased_and_constant_keys(rng, space):
    """Richardson extrapolation of the seed loop is exact's result to 1e-6, and the seed's
    error shrinks 4x per 4x the substeps."""
    body, pivots = rig(rng)
    q_exact, p_exact = state(make_scene(pivots, body, space=space, frame_end=7), FRAMES)
    loops = {
        n: seed_loop(pivots, body, n, FRAMES, space, "seed", rotation_at, offset_at)
        for n in (16, 64, 256, 512)
    }
    e16, e64 = (np.abs(loops[n][1] - p_exact).max() for n in (16, 64))
    assert 3.6 < e16 / e64 < 4.4
    rich = 2 * loops[512][1] - loops[256][1]
    np.testing.assert_allclose(rich, p_exact, atol=1e-6, rtol=0)
    q_rich = 2 * loops[512][0] - loops[256][0]
    q_rich /= np.linalg.norm(q_rich, axis=1, keepdims=True)
    assert rotation_distance(q_rich, q_exact).max() < 1e-6


@pytest.mark.parametrize("space", ["world", "object"])
def test_fractional_frames_in_eased_pieces_agree_with_shifted_keys(rng, space):
    """Exact at t equals exact at t + 0.3 with every key 0.3 later: fractional frames (Magnus
    flow from the frame before) and whole ones (the scan) are the same motion."""
    body, pivots = rig(rng)

    def later(keys):
        return None if keys is None else Keys(keys.frames + 0.3, keys.values, keys.interpolation)

    shifted = [
        Pivot(
            name=pv.name,
            position=pv.position,
            rotation_keys=later(pv.rotation_keys),
            position_keys=later(pv.position_keys),
        )
        for pv in pivots
    ]
    t = np.array([1.7, 2.3, 3.7, 4.0, 4.2, 4.7, 5.9])
    q_a, p_a = state(make_scene(pivots, body, space=space, frame_end=7), t)
    q_b, p_b = state(make_scene(shifted, body, space=space, frame_end=7), t + 0.3)
    np.testing.assert_allclose(p_a, p_b, atol=1e-12, rtol=0)
    assert rotation_distance(q_a, q_b).max() < 1e-12


def test_the_magnus_flow_is_converged(rng, monkeypatch):
    """Twice finer Magnus substeps change the eased motion by less than 1e-12 of its
    extent."""
    body, pivots = rig(rng)
    frames = np.arange(0.0, 7.0, 0.25)
    _, coarse = state(make_scene(pivots, body, frame_end=7), frames)
    monkeypatch.setattr(nonlinear, "MAGNUS_STEP_ANGLE", nonlinear.MAGNUS_STEP_ANGLE / 2)
    _, fine = state(make_scene(pivots, body, frame_end=7), frames)
    extent = np.ptp(fine, axis=0).max()
    assert extent > 0.1
    assert np.abs(coarse - fine).max() < 1e-12 * extent


def test_one_pivot_on_constant_keys_jumps_about_itself(rng):
    """The seed's closed form ``p0 = p1 - R1(t) v1``, ``q0 = R1(t) q0(0)`` with the held
    values: each jump is an instant turn about the pivot, at the key's frame."""
    keys = with_kinds(random_turns(rng, [0, 2, 3.5, 6], spread=120), ["constant"] * 4)
    pivot = Pivot(name="p", position=(0.3, -0.4, 0.2), rotation_keys=keys)
    body = Bone(
        name="body",
        translation=(1.0, 2.0, 3.0),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    frames = np.array([0, 1, 1.99, 2, 2.5, 3.49, 3.5, 4, 5.2, 6, 7])
    q, p = state(make_scene([pivot], body, frame_end=8), frames)
    q_start = Rotation.from_quat(body.rotation, scalar_first=True)
    v1 = q_start.apply(pivot.position)
    turn = rotation_at(pivot, frames) * rotation_at(pivot, np.zeros(1))[0].inv()
    np.testing.assert_allclose(p, body.translation + v1 - turn.apply(v1), atol=1e-12, rtol=0)
    assert rotation_distance(q, (turn * q_start).as_quat(scalar_first=True)).max() < 1e-12


@pytest.mark.parametrize("space", ["world", "object"])
def test_simultaneous_jumps_are_the_exponential_of_the_summed_twist(rng, space):
    """Two pivots whose constant keys change at the same frame move the body by
    ``expm([[Phi]x, sum_i p_i x phi_i], [0, 0])`` (scipy), not by one then the other."""
    body = Bone(
        name="body",
        translation=(0.2, 1.0, -0.3),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    pivots = [
        Pivot(
            name=n,
            position=tuple(rng.normal(size=3) * 0.4),
            rotation_keys=with_kinds(random_turns(rng, [0, 3], spread=70), ["constant", "linear"]),
        )
        for n in "ab"
    ]
    q, p = state(make_scene(pivots, body, space=space, frame_end=5), [2.5, 3.0, 4.2])
    q0 = Rotation.from_quat(body.rotation, scalar_first=True)
    xi = np.zeros((4, 4))
    for pv in pivots:
        jump = (
            Rotation.from_quat(pv.rotation_keys.values[1], scalar_first=True)
            * Rotation.from_quat(pv.rotation_keys.values[0], scalar_first=True).inv()
        )
        phi = jump.as_rotvec() if space == "world" else q0.apply(jump.as_rotvec())
        where = np.asarray(body.translation) + q0.apply(pv.position)
        xi[:3, :3] += [[0, -phi[2], phi[1]], [phi[2], 0, -phi[0]], [-phi[1], phi[0], 0]]
        xi[:3, 3] += np.cross(where, phi)
    start = np.eye(4)
    start[:3, :3], start[:3, 3] = q0.as_matrix(), body.translation
    after = expm(xi) @ start
    np.testing.assert_allclose(p[0], body.translation, atol=1e-12)  # held until the key
    for i in (1, 2):
        np.testing.assert_allclose(p[i], after[:3, 3], atol=1e-12, rtol=0)
        expected = Rotation.from_matrix(after[:3, :3]).as_quat(scalar_first=True)
        assert rotation_distance(q[i : i + 1], expected[None]).max() < 1e-12


def test_an_interpolation_edit_keeps_the_cache_before_its_segment():
    keys = Keys([0, 4, 8, 12], Rotation.random(4, rng=1).as_quat(scalar_first=True))
    before = (Pivot(name="p", rotation_keys=keys),)
    after = (Pivot(name="p", rotation_keys=keys.with_interpolation([8], "ease")),)
    assert agrees_until(before, after) == 4.0  # the segment 8 -> 12 changed; 4 -> 8 did not
    assert agrees_until(before, before) == np.inf


@pytest.mark.parametrize("space", ["world", "object"])
def test_the_step_through_splits_eased_pieces_and_jumps_among_the_pivots(rng, space):
    """Eased pieces and jumps are flows, yet each pivot's share is shown: the shares add up to
    the body's motion in every piece (a pivot that holds still contributes nothing)."""
    from app.scene.constraints.multi_parent.cache import update
    from app.scene.constraints.multi_parent.solver import inputs_of
    from app.scene.constraints.multi_parent.steps import steps

    body, pivots = rig(rng)
    scene = make_scene(pivots, body, space=space, frame_end=7)
    # One integral for every frame, as the editor's cache passes it (the same bits as
    # integrating anew: tests/scene/constraints/test_multi_parent_steps.py).
    integral = update(None, inputs_of(scene.constraints[0], scene, space))
    by_frame = {}
    for frame in range(1, 7):
        st = by_frame[frame] = steps(scene.constraints[0], scene, frame, integral=integral)
        np.testing.assert_allclose(np.diff(st.position, axis=0), st.displacement(), atol=1e-13)
        turned = Rotation.from_quat(st.combined, scalar_first=True) * Rotation.from_quat(
            st.rotation[:-1], scalar_first=True
        )
        assert rotation_distance(turned.as_quat(scalar_first=True), st.rotation[1:]).max() < 1e-12
    # Frames 2-4 hold pivot a (a constant segment): it moves the body only at the jump, frame 4.
    st = by_frame[3]
    assert np.abs(st.contributions[:, 0]).max() < 1e-15


def test_a_very_fast_key_elsewhere_does_not_slow_an_eased_piece(rng):
    """The Magnus substeps of a piece follow the turn within that piece: a half turn within a
    millionth of a frame on another pivot, far from the eased segment, costs nothing there."""
    from app.scene.constraints.multi_parent.plan import _track

    body, pivots = rig(rng)
    flash = Pivot(
        name="flash",
        position=(0.2, 0.0, 0.0),
        rotation_keys=Keys(
            [6.5, 6.500001],
            Rotation.from_rotvec([[0, 0, 0], [0, 0, 3.0]]).as_quat(scalar_first=True),
        ),
    )
    tracks = [_track(pv, np.ones(3)) for pv in [*pivots, flash]]
    alone = nonlinear.magnus_substeps(tracks[:2], np.array([3.0]), np.array([4.0]))
    assert nonlinear.magnus_substeps(tracks, np.array([3.0]), np.array([4.0])) == alone
    assert alone < 1000
    q, p = state(make_scene([*pivots, flash], body, frame_end=7), [3.5, 7.0])
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(q))
    _, p_ref = state(make_scene(pivots, body, frame_end=7), [3.5])
    np.testing.assert_allclose(p[0], p_ref[0], atol=1e-12)  # before the flash, unchanged
