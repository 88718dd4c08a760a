"""Constraint-setting edits (app.scene.rig.constraint_edits): what they accept is what the
file format reads back, and what they refuse the format refuses too."""

import pytest

from app.scene.constraints.fabrik import edits as fabrik_edits
from app.scene.constraints.multi_parent import edits as multi_parent_edits
from app.scene.constraints.points_at import edits as points_at_edits
from app.scene.errors import SceneError
from app.scene.formats.kinds.parts import limit_from_json
from app.scene.formats.scene_json import scene_to_json
from app.scene.formats.schema import scene_from_json
from app.scene.io import load_scene
from app.scene.rig import constraint_edits as ce
from app.scene.rig.model import ConeLimit, HingeLimit
from tests.helpers.paths import SCENES


def test_limits_round_trip_through_the_file_format():
    scene = load_scene(SCENES / "fabrik_arm.json")
    c = scene.constraint("arm reaches")
    c = ce.with_limit(c, ce.cone(30, (-10, 20)), "hand")
    c = ce.with_limit(c, ce.hinge((0, 0, 2), -5, 5), "upper_arm")
    c = fabrik_edits.with_pole(c, None)
    scene.constraints = [c]
    back = scene_from_json(scene_to_json(scene)).constraint("arm reaches")
    assert back.limits == {
        "upper_arm": HingeLimit(axis=(0.0, 0.0, 2.0), min=-5.0, max=5.0),
        "forearm": c.limits["forearm"],
        "hand": ConeLimit(degrees=30.0, twist=(-10.0, 20.0)),
    }
    assert list(back.limits) == ["upper_arm", "forearm", "hand"]  # chain order
    assert back.pole is None
    assert ce.with_limit(c, None, "hand").limits.keys() == {"upper_arm", "forearm"}
    with pytest.raises(ValueError, match="not in the chain"):
        ce.with_limit(c, None, "chest")


@pytest.mark.parametrize(
    "bad",
    [
        lambda: ce.cone(181),
        lambda: ce.cone(-1),
        lambda: ce.cone(10, (5, -5)),
        lambda: ce.hinge((0, 0, 0), 0, 1),
        lambda: ce.hinge((1, 0, 0), 2, 1),
    ],
)
def test_bad_limits_are_refused_like_the_format_refuses_them(bad):
    with pytest.raises(ValueError):
        bad()


def test_the_format_refuses_the_same_cone():
    with pytest.raises(SceneError):
        limit_from_json({"cone": 181}, "limit")


def test_up_and_pivot_names():
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    c = scene.constraints[0]
    up = points_at_edits.with_up(c, (0, 0, 1), (1, 0, 0)).up
    assert (up.axis, up.toward) == ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0))
    assert points_at_edits.with_up(c).up is None
    with pytest.raises(ValueError):
        points_at_edits.with_up(c, (0, 0, 0), (1, 0, 0))
    mp = load_scene(SCENES / "foot_roll.json").constraints[0]
    renamed = multi_parent_edits.with_pivot_renamed(mp, "ball", "ball_of_foot")
    assert [p.name for p in renamed.pivots] == ["heel", "ball_of_foot", "toe", "swing"]
    assert renamed.pivots[1].rotation_keys == mp.pivots[1].rotation_keys
    with pytest.raises(ValueError, match="already"):
        multi_parent_edits.with_pivot_renamed(mp, "ball", "toe")
    with pytest.raises(KeyError):
        multi_parent_edits.with_pivot_renamed(mp, "nope", "x")


def test_moving_a_pivot_reorders_the_list_and_nothing_else():
    mp = load_scene(SCENES / "foot_roll.json").constraints[0]
    down = multi_parent_edits.with_pivot_moved(mp, "heel", 1)
    assert [p.name for p in down.pivots] == ["ball", "heel", "toe", "swing"]
    assert sorted(down.pivots, key=lambda p: p.name) == sorted(mp.pivots, key=lambda p: p.name)
    assert down.name == mp.name
    up = multi_parent_edits.with_pivot_moved(mp, "swing", -3)
    assert [p.name for p in up.pivots] == ["swing", "heel", "ball", "toe"]
    assert (
        multi_parent_edits.with_pivot_moved(
            multi_parent_edits.with_pivot_moved(mp, "toe", -1), "toe", 1
        )
        == mp
    )
    with pytest.raises(ValueError, match="pivot heel of foot_roll is already the first one"):
        multi_parent_edits.with_pivot_moved(mp, "heel", -1)
    with pytest.raises(ValueError, match="already the last one"):
        multi_parent_edits.with_pivot_moved(mp, "swing", 1)
    with pytest.raises(KeyError):
        multi_parent_edits.with_pivot_moved(mp, "nope", 1)


def test_moving_a_pivot_is_one_undo_step_and_the_motion_stays(qapp):
    import numpy as np

    from app.editor.document import Document
    from app.editor.operations import constraint_operations
    from app.editor.operations.base import OperationError
    from app.scene.evaluate import bake

    doc = Document.from_file(SCENES / "foot_roll.json")
    before = doc.scene
    constraint_operations.move_pivot(doc, "foot_roll", "ball", -1)
    assert [p.name for p in doc.scene.constraints[0].pivots] == ["ball", "heel", "toe", "swing"]
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.text(0) == "Move pivot ball of foot_roll up"
    frames = np.arange(0, 97.0)
    np.testing.assert_array_equal(
        bake(doc.scene, frames).bone_to_world, bake(before, frames).bone_to_world
    )
    doc.undo_stack.undo()
    assert doc.scene == before
    with pytest.raises(OperationError, match="already the first one"):
        constraint_operations.move_pivot(doc, "foot_roll", "heel", -1)
    assert doc.undo_stack.count() == 1  # the refused move pushed nothing
