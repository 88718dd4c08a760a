"""Constraint-setting edits (app.scene.rig.constraint_edits): what they accept is what the
file format reads back, and what they refuse the format refuses too."""

import pytest

from app.scene.errors import SceneError
from app.scene.formats.scene_json import scene_to_json
from app.scene.formats.schema import limit_from_json, scene_from_json
from app.scene.io import load_scene
from app.scene.rig import constraint_edits as ce
from app.scene.rig.model import ConeLimit, HingeLimit

from .conftest import SCENES


def test_limits_round_trip_through_the_file_format():
    scene = load_scene(SCENES / "fabrik_arm.json")
    c = scene.constraint("arm reaches")
    c = ce.with_limit(c, ce.cone(30, (-10, 20)), "hand")
    c = ce.with_limit(c, ce.hinge((0, 0, 2), -5, 5), "upper_arm")
    c = ce.with_pole(c, None)
    scene.constraints = [c]
    back = scene_from_json(scene_to_json(scene)).constraint("arm reaches")
    assert back.limits == {"upper_arm": HingeLimit(axis=(0.0, 0.0, 2.0), min=-5.0, max=5.0),
                           "forearm": c.limits["forearm"],
                           "hand": ConeLimit(degrees=30.0, twist=(-10.0, 20.0))}  # fmt: skip
    assert list(back.limits) == ["upper_arm", "forearm", "hand"]  # chain order
    assert back.pole is None
    assert ce.with_limit(c, None, "hand").limits.keys() == {"upper_arm", "forearm"}
    with pytest.raises(ValueError, match="not in the chain"):
        ce.with_limit(c, None, "chest")


@pytest.mark.parametrize("bad", [
    lambda: ce.cone(181), lambda: ce.cone(-1), lambda: ce.cone(10, (5, -5)),
    lambda: ce.hinge((0, 0, 0), 0, 1), lambda: ce.hinge((1, 0, 0), 2, 1),
])  # fmt: skip
def test_bad_limits_are_refused_like_the_format_refuses_them(bad):
    with pytest.raises(ValueError):
        bad()


def test_the_format_refuses_the_same_cone():
    with pytest.raises(SceneError):
        limit_from_json({"cone": 181}, "limit")


def test_up_and_pivot_names():
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    c = scene.constraints[0]
    up = ce.with_up(c, (0, 0, 1), (1, 0, 0)).up
    assert (up.axis, up.toward) == ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0))
    assert ce.with_up(c).up is None
    with pytest.raises(ValueError):
        ce.with_up(c, (0, 0, 0), (1, 0, 0))
    mp = load_scene(SCENES / "foot_roll.json").constraints[0]
    renamed = ce.with_pivot_renamed(mp, "ball", "ball_of_foot")
    assert [p.name for p in renamed.pivots] == ["heel", "ball_of_foot", "toe", "swing"]
    assert renamed.pivots[1].rotation_keys == mp.pivots[1].rotation_keys
    with pytest.raises(ValueError, match="already"):
        ce.with_pivot_renamed(mp, "ball", "toe")
    with pytest.raises(KeyError):
        ce.with_pivot_renamed(mp, "nope", "x")
