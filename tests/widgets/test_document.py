"""The document and its undo commands (Qt, no OpenGL needed)."""

import numpy as np
import pytest

from app.editor.commands import ReplaceItem
from app.editor.document import Document
from app.editor.operations import (
    bone_operations,
    constraint_operations,
    key_operations,
    timeline_operations,
)
from app.editor.operations.base import LiveEdit, OperationError
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.points_at.model import PointsAt
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig import key_edits
from app.scene.rig.model import Pivot, Target
from app.scene.rig.refs import Ref
from tests.helpers.paths import SCENES


@pytest.fixture
def doc(qtbot):
    return Document(load_scene(SCENES / "legs.json"))


def recorder(signal):
    calls = []
    signal.connect(lambda *a: calls.append(a))
    return calls


def test_setters_emit_only_on_change(doc):
    frames, poses, spaces = (
        recorder(doc.frame_changed),
        recorder(doc.pose_changed),
        recorder(doc.space_changed),
    )
    doc.set_frame(0)
    doc.set_space(None)
    assert frames == poses == spaces == []
    doc.set_frame(5)
    doc.set_frame(5)
    doc.set_space("world")
    doc.set_space("world")
    assert frames == [(5.0,)] and spaces == [("world",)] and len(poses) == 2
    with pytest.raises(ValueError):
        doc.set_space("sideways")


def test_pose_is_the_bake_at_the_current_frame(doc):
    doc.set_frame(17)
    expected = bake(doc.scene, [17.0])
    assert np.allclose(doc.pose().bone_to_world, expected.bone_to_world)
    doc.prepare_timeline()  # the cached timeline gives the same pose
    doc.set_frame(18)
    assert np.allclose(doc.pose().heads, bake(doc.scene, [18.0]).heads)


def test_replace_item_undo_redo_restores_exactly(doc):
    before = doc.scene.copy()
    i = doc.scene.bone_index("calf.l")
    old = doc.scene.bones[i]
    new = key_edits.with_bone_rotation(old, 3, [0.9, 0.1, 0, 0])
    edits = recorder(doc.scene_changed)
    doc.push(ReplaceItem(doc, "bones", i, old, new, "Rotate bone calf.l at frame 3"))
    after = doc.scene.copy()
    assert doc.scene.bones[i] is new and edits and doc.dirty
    assert doc.undo_stack.undoText() == "Rotate bone calf.l at frame 3"
    doc.undo_stack.undo()
    assert doc.scene == before and not doc.dirty
    doc.undo_stack.redo()
    assert doc.scene == after


def test_spin_box_edits_merge_into_one_command(doc):
    ref = Ref.bone("calf.l")
    for angle in (0.1, 0.2, 0.3):
        key_operations.set_rotation(doc, ref, [np.cos(angle / 2), np.sin(angle / 2), 0, 0])
    assert doc.undo_stack.count() == 1
    doc.set_frame(4)
    key_operations.set_rotation(doc, ref, [1, 0, 0, 0])  # another frame: another entry
    assert doc.undo_stack.count() == 2
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.scene.bone("calf.l").rotation_keys is None


def test_live_edit_previews_and_pushes_one_command(doc):
    ref = Ref.bone("calf.l")
    before = doc.scene.copy()
    live = editing_live = LiveEdit(doc, ref, "Rotate bone calf.l at frame 0")
    for angle in np.linspace(0.1, 0.5, 5):
        bone = key_edits.with_bone_rotation(live.original, 0, [np.cos(angle), np.sin(angle), 0, 0])
        editing_live.preview(bone)
    assert doc.undo_stack.count() == 0 and doc.scene != before
    previewed = doc.scene.copy()
    changes = recorder(doc.scene_changed)
    assert live.commit()
    assert changes == []  # the command's first redo found its item in place
    assert doc.undo_stack.count() == 1 and doc.scene == previewed
    doc.undo_stack.undo()
    assert doc.scene == before


def test_live_edit_cancel_restores(doc):
    before = doc.scene.copy()
    live = LiveEdit(doc, Ref.bone("hip"), "Move")
    live.preview(key_edits.with_bone_translation(live.original, 0, (5, 5, 5)))
    live.cancel()
    assert doc.scene == before and doc.undo_stack.count() == 0


def with_constraints(doc):
    doc.scene.constraints[:] = [
        MultiParent(
            name="roll",
            body="foot.l",
            pivots=(Pivot(name="heel"), Pivot(name="toe", position=(0, -0.06, 0.16))),
        ),
        PointsAt(name="aim", bone="calf.r", target=Target(position=(0, 0, 1))),
    ]
    doc.scene_edited()


def test_structural_edits_undo_exactly_and_prune_the_selection(doc):
    with_constraints(doc)
    doc.undo_stack.clear()
    before = doc.scene.copy()
    snapshots = [before]

    def step(fn, *args):
        fn(*args)
        snapshots.append(doc.scene.copy())

    step(constraint_operations.add_pivot, doc, "roll")
    step(key_operations.set_position, doc, Ref.target_of("aim"), (0.3, 0.2, 0.9))
    assert doc.selection == (Ref.pivot_of("roll", "pivot 3"),)
    step(constraint_operations.remove_pivot, doc, "roll", "heel")
    doc.set_selection([Ref.bone("thigh.l"), Ref.bone("calf.l")])
    step(constraint_operations.add_fabrik, doc)
    assert doc.scene.constraints[-1].chain == ("thigh.l", "calf.l")
    doc.set_selection([Ref.bone("hip"), Ref.bone("calf.l")])
    step(constraint_operations.add_points_at, doc)
    assert doc.scene.constraints[-1].target == Target(bone="hip", at="head")
    step(constraint_operations.set_target, doc, "aim", Target(bone="hip", at="tail"))
    step(constraint_operations.set_constraint_field, doc, "roll", "space", "world")
    step(timeline_operations.set_timeline, doc, None, 10, 50)
    step(bone_operations.set_bone_rest, doc, "calf.r", "tail", (0, -0.5, 0.1))
    step(key_operations.set_bone_translation, doc, "hip", (0.1, 1.1, 0))
    doc.set_frame(12)
    step(key_operations.set_rotation, doc, Ref.pivot_of("roll", "toe"), [0.8, 0.6, 0, 0])
    step(key_operations.set_key, doc, [Ref.bone("thigh.r"), Ref.pivot_of("roll", "toe")])
    step(key_operations.delete_key, doc, [Ref.bone("thigh.r")])
    doc.set_selection([Ref.constraint("aim")])
    step(constraint_operations.delete_selected, doc)
    assert doc.selection == ()  # the deleted constraint is no longer selected
    for expected in reversed(snapshots[:-1]):
        doc.undo_stack.undo()
        assert doc.scene == expected
    for expected in snapshots[1:]:
        doc.undo_stack.redo()
        assert doc.scene == expected


def test_operation_errors_change_nothing(doc):
    with_constraints(doc)
    before = doc.scene.copy()
    with pytest.raises(OperationError, match="at least one"):
        constraint_operations.remove_pivot(doc, "roll", "heel")
        constraint_operations.remove_pivot(doc, "roll", "toe")
    doc.undo_stack.undo()
    assert doc.scene == before
    doc.set_selection([Ref.pivot_of("roll", "heel"), Ref.pivot_of("roll", "toe")])
    with pytest.raises(OperationError, match="no pivot left"):
        constraint_operations.delete_selected(doc)
    assert doc.scene == before
    doc.set_selection([])
    with pytest.raises(OperationError):
        key_operations.set_key(doc)
    with pytest.raises(OperationError, match="no key"):
        key_operations.delete_key(doc, [Ref.bone("calf.l")])
    assert doc.scene == before


def test_set_and_delete_key(doc):
    before = doc.scene.copy()
    doc.set_frame(12)
    doc.set_selection([Ref.bone("thigh.r")])
    pose = doc.pose().bone_to_world.copy()
    key_operations.set_key(doc)
    assert 12 in doc.scene.bone("thigh.r").rotation_keys.frames
    assert np.allclose(doc.pose().bone_to_world, pose)  # keying holds the pose
    assert doc.undo_stack.undoText() == "Set key on bone thigh.r at frame 12"
    key_operations.delete_key(doc)
    assert doc.scene == before


def test_evaluation_failure_falls_back_to_the_bare_skeleton(doc, monkeypatch):
    from app.scene.constraints import registry
    from app.scene.constraints.points_at.model import PointsAt

    monkeypatch.delitem(registry.SOLVERS, PointsAt)
    failures = recorder(doc.evaluation_failed)
    with_constraints(doc)
    doc.scene.constraints[:] = doc.scene.constraints[1:]  # the points-at alone
    doc.scene_edited()
    pose = doc.pose()
    bare = doc.scene.copy()
    bare.constraints = []
    assert np.allclose(pose.heads, bake(bare, [doc.frame]).heads)
    assert "cannot be evaluated" in doc.evaluations.error and failures


def test_replace_scene_resets_history_selection_and_frame(doc):
    key_operations.set_rotation(doc, Ref.bone("hip"), [0, 1, 0, 0])
    doc.set_selection([Ref.bone("hip")])
    doc.set_frame(30)
    replaced = recorder(doc.scene_replaced)
    other = load_scene(SCENES / "legs.json")
    doc.replace_scene(other, "/tmp/other.json")
    assert doc.scene is other and doc.selection == () and doc.frame == other.frame_start
    assert doc.undo_stack.count() == 0 and not doc.dirty and replaced
    doc.replace_scene(load_scene(SCENES / "legs.json"), None, recovered=True)
    assert doc.dirty


def test_ghost_space_is_the_other_one(doc):
    with_constraints(doc)
    assert doc.ghost_space() == "world"  # authored object
    doc.set_space("world")
    assert doc.ghost_space() == "object"
    doc.set_space(None)
    for i, c in enumerate(doc.scene.constraints):
        import dataclasses

        doc.scene.constraints[i] = dataclasses.replace(c, space="world")
    assert doc.ghost_space() == "object"


def test_merged_edits_are_named_by_the_last_value(doc):
    with_constraints(doc)
    doc.undo_stack.clear()
    constraint_operations.set_constraint_field(doc, "roll", "space", "world")
    constraint_operations.set_constraint_field(doc, "roll", "substeps", 8)
    constraint_operations.set_constraint_field(doc, "roll", "substeps", 9)
    assert doc.undo_stack.count() == 2
    assert doc.undo_stack.undoText() == "Set substeps of roll to 9"
    doc.undo_stack.undo()
    assert (
        doc.scene.constraint("roll").substeps == 4 and doc.scene.constraint("roll").space == "world"
    )


def test_evaluate_with_none_is_the_current_space_and_integrates_once(qtbot, monkeypatch):
    from app.scene.constraints.multi_parent import solver

    computed = []
    update = solver.update

    def counted(integral, inputs, *known):
        result = update(integral, inputs, *known)
        computed.extend([1] if result is not integral else [])
        return result

    monkeypatch.setattr(solver, "update", counted)
    doc = Document(load_scene(SCENES / "foot_roll.json"))
    doc.set_space("world")
    timeline = doc.timeline()
    calls = len(computed)
    frames = [4.0, 50.0]
    result = doc.evaluations.evaluate(frames)  # the current space, with its caches
    assert len(computed) == calls == 1  # the cached integral read, not integrated again
    np.testing.assert_array_equal(result.bone_to_world, timeline.bone_to_world[[4, 50]])
    doc.set_space(None)
    authored = doc.evaluations.evaluate(frames, None)  # as authored
    np.testing.assert_array_equal(authored.bone_to_world, bake(doc.scene, frames).bone_to_world)
    assert doc.evaluations.evaluator(None) is doc.evaluations.evaluator("object")
