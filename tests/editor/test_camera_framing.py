"""The camera's framing math (app.scene.analysis.camera_framing), without Qt."""

import numpy as np

from app.scene.analysis.camera_framing import (
    MIN_RADIUS,
    bounding_sphere,
    follow_plan,
    smooth_path,
)


def test_bounding_sphere_holds_every_finite_point(rng):
    points = rng.normal(size=(200, 3)) * [3, 1, 0.5] + [10, -2, 4]
    points[7] = np.nan
    center, radius = bounding_sphere(points)
    finite = points[np.all(np.isfinite(points), axis=1)]
    assert np.linalg.norm(finite - center, axis=1).max() <= radius + 1e-12
    assert bounding_sphere(np.zeros((1, 3)))[1] == MIN_RADIUS
    assert np.allclose(bounding_sphere(np.zeros((0, 3)))[0], 0)


def test_smooth_path_removes_a_bob_and_keeps_a_straight_walk():
    frames = np.arange(240)
    walk = np.stack([0.01 * frames, 0.05 * np.sin(2 * np.pi * frames / 24), 0 * frames], -1)
    smooth = smooth_path(walk, 24)
    assert np.abs(smooth[24:-24, 1]).max() < 0.01 * 0.05 * 24  # one period averages out
    assert np.allclose(smooth[:, 0], walk[:, 0])  # a straight walk stays, to its ends
    assert np.array_equal(smooth_path(walk, 1), walk)


def test_follow_plan_holds_every_frame_around_its_path(rng):
    frames = np.arange(0, 500, 2.0)
    root = np.stack([0.1 * frames, 1 + 0.1 * np.sin(frames / 5), 0 * frames], -1)
    body = rng.normal(size=(1, 20, 3)) * 0.5
    points = root[:, None, :] + body
    plan = follow_plan(frames, points, root, fps=24)
    centers = plan.at(frames) + plan.offset
    assert np.linalg.norm(points - centers[:, None, :], axis=-1).max() <= plan.radius + 1e-9
    assert plan.travel > 49 and plan.worth_following  # 50 units of walk, a 1-unit body
    assert np.allclose(plan.at([frames[3], frames[4]]), plan.path[3:5])
    still = follow_plan(frames, body.repeat(len(frames), 0), np.zeros((len(frames), 3)), 24)
    assert still.travel == 0 and not still.worth_following
    grown = plan.holding(np.array([[100.0, 0, 0]]))
    assert grown.hi[0] == 100 and grown.radius > plan.radius


def test_timeline_sample_reads_the_cache_or_an_even_sample(qapp, monkeypatch):
    from app.editor.document import Document
    from app.scene import evaluations
    from tests.helpers.paths import SCENES

    doc = Document.from_file(SCENES / "foot_roll.json")
    whole = doc.evaluations.timeline_sample(10)
    assert whole is doc.timeline()  # every frame, the cached timeline of the space shown
    monkeypatch.setattr(evaluations, "TIMELINE_CACHE_BONE_FRAMES", 100)
    sample = doc.evaluations.timeline_sample(10)
    assert len(sample.frames) == 10 and sample.frames[0] == 0 and sample.frames[-1] == 96
    k = list(whole.frames).index(sample.frames[3])
    assert np.allclose(sample.heads[3], whole.heads[k])  # the same poses as the timeline
