"""Pure item edits (app.scene.rig.editing): keys, positions, pivots, new constraints."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.evaluate import Evaluator
from app.scene.formats.schema import validate
from app.scene.io import dumps_scene, loads_scene
from app.scene.rig import editing
from app.scene.rig.editing import Ref
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, MultiParent, Pivot, PointsAt, Scene, Target


def arm_scene():
    return Scene(
        bones=[
            Bone(name="root", translation=(0, 1, 0)),
            Bone(
                name="upper",
                parent="root",
                translation=(0, 0.2, 0),
                rotation_keys=Keys(
                    [0, 10], Rotation.from_rotvec([[0, 0, 0], [0, 0, 1]]).as_quat(scalar_first=True)
                ),
            ),
            Bone(name="lower", parent="upper", translation=(0, 0.5, 0), tail=(0, 0.4, 0)),
        ],
        constraints=[
            MultiParent(
                name="mp",
                body="lower",
                pivots=(
                    Pivot(name="heel", position=(0, 0, 0.1)),
                    Pivot(name="toe", position_keys=Keys([0, 20], [[0, 0.4, 0], [0, 0.3, 0]])),
                ),
            ),
            PointsAt(name="aim", bone="upper", target=Target(position=(1, 2, 3))),
        ],
    )


def test_refs_resolve_by_name():
    s = arm_scene()
    assert editing.resolve(s, Ref.bone("upper")) is s.bones[1]
    assert editing.resolve(s, Ref.pivot_of("mp", "toe")).name == "toe"
    assert editing.resolve(s, Ref.target_of("aim")).position == (1, 2, 3)
    assert not editing.exists(s, Ref.pivot_of("mp", "nope"))
    assert not editing.exists(s, Ref.target_of("mp"))
    assert editing.owner(s, Ref.pivot_of("mp", "toe")) == ("constraints", 0)
    assert editing.owner(s, Ref.bone("lower")) == ("bones", 2)
    assert Ref.pivot_of("mp", "toe").label() == "pivot toe"


def test_key_frames_of_items_and_constraints():
    s = arm_scene()
    assert list(editing.key_frames(s, Ref.bone("upper"))) == [0, 10]
    assert list(editing.key_frames(s, Ref.constraint("mp"))) == [0, 20]
    assert len(editing.key_frames(s, Ref.bone("lower"))) == 0


def test_with_position_is_static_or_a_key():
    s = arm_scene()
    heel = editing.resolve(s, Ref.pivot_of("mp", "heel"))
    moved = editing.with_position(heel, 7, (1, 2, 3))
    assert moved.position == (1, 2, 3) and moved.position_keys is None
    toe = editing.resolve(s, Ref.pivot_of("mp", "toe"))
    keyed = editing.with_position(toe, 7, (1, 2, 3))
    assert list(keyed.position_keys.frames) == [0, 7, 20]
    assert np.allclose(editing.position_at(keyed, 7), (1, 2, 3))
    assert toe.position_keys.frames.tolist() == [0, 20]  # the input is untouched


def test_rotation_keys_are_created_and_replaced():
    pivot = Pivot(name="p")
    q = Rotation.from_rotvec([0.3, 0, 0]).as_quat(scalar_first=True)
    keyed = editing.with_pivot_rotation(pivot, 5, 2 * q)  # normalized on the way
    assert keyed.rotation_keys.frames.tolist() == [5] and np.allclose(
        keyed.rotation_keys.values[0], q
    )
    again = editing.with_pivot_rotation(keyed, 5, [1, 0, 0, 0])
    assert again.rotation_keys.frames.tolist() == [5]


def test_keying_does_not_change_the_pose():
    s = arm_scene()
    s.constraints = []
    before = Evaluator(s).evaluate(np.arange(0, 21.0)).bone_to_world
    for name in ("root", "upper", "lower"):
        i = s.bone_index(name)
        s.bones[i] = editing.keyed(s, Ref.bone(name), 4.5)
        assert 4.5 in s.bones[i].rotation_keys.frames
    assert s.bones[0].translation_keys is not None  # a root keys its translation too
    assert s.bones[2].translation_keys is None
    after = Evaluator(s).evaluate(np.arange(0, 21.0)).bone_to_world
    assert np.allclose(before, after, atol=1e-12)


def test_keyed_value_between_keys_is_the_slerp():
    s = arm_scene()
    bone = editing.keyed(s, Ref.bone("upper"), 2.5)
    keys = s.bones[1].rotation_keys
    expected = Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))([2.5])
    got = Rotation.from_quat(bone.rotation_keys.values[1], scalar_first=True)
    assert (got * expected.inv()).magnitude()[0] < 1e-12


def test_unkeyed_removes_and_keeps_the_last_value_static():
    s = arm_scene()
    upper = editing.unkeyed(s, Ref.bone("upper"), 10)
    assert upper.rotation_keys.frames.tolist() == [0]
    s.bones[1] = upper
    last = editing.unkeyed(s, Ref.bone("upper"), 0)
    assert last.rotation_keys is None and last.rotation == (1.0, 0.0, 0.0, 0.0)
    with pytest.raises(editing.NoKeyError):
        editing.unkeyed(s, Ref.bone("upper"), 3)
    toe = editing.unkeyed(s, Ref.pivot_of("mp", "toe"), 20)
    assert toe.position_keys.frames.tolist() == [0]


def test_keyable():
    s = arm_scene()
    assert editing.keyable(s, Ref.bone("root"))
    assert editing.keyable(s, Ref.pivot_of("mp", "heel"))
    assert editing.keyable(s, Ref.target_of("aim"))
    assert not editing.keyable(s, Ref.constraint("mp"))
    s.constraints[1] = PointsAt(name="aim", bone="upper", target=Target(bone="root"))
    assert not editing.keyable(s, Ref.target_of("aim"))
    with pytest.raises(ValueError):
        editing.keyed(s, Ref.target_of("aim"), 0)


def test_replace_in_puts_pivots_and_targets_back():
    s = arm_scene()
    mp = s.constraints[0]
    heel = editing.with_position(mp.pivots[0], 0, (9, 9, 9))
    new = editing.replace_in(mp, Ref.pivot_of("mp", "heel"), heel)
    assert new.pivots[0].position == (9, 9, 9) and new.pivots[1] is mp.pivots[1]
    aim = editing.replace_in(s.constraints[1], Ref.target_of("aim"), Target(bone="root"))
    assert aim.target.bone == "root" and aim.bone == "upper"


def test_pivots_added_and_removed():
    s = arm_scene()
    mp = s.constraints[0]
    more, pivot = editing.with_new_pivot(mp, (0, 0.4, 0))
    assert pivot.name == "pivot 3" and len(more.pivots) == 3
    more2, pivot2 = editing.with_new_pivot(more, (0, 0, 0))
    assert pivot2.name == "pivot 4"
    fewer = editing.without_pivot(mp, "heel")
    assert [p.name for p in fewer.pivots] == ["toe"]
    with pytest.raises(ValueError, match="only pivot"):
        editing.without_pivot(fewer, "toe")


def test_new_constraints_are_valid_and_survive_a_file_round_trip():
    s = arm_scene()
    s.constraints.append(editing.new_multi_parent(s, "upper"))
    s.constraints.append(editing.new_points_at(s, "lower", Target(bone="root", at="tail")))
    # the FABRIK at the front: after "mp" on the stack of "lower" it would move the "upper"
    # that "mp" reads, a cycle (§F1)
    s.constraints.insert(
        0, editing.new_fabrik(s, editing.chain_from(s, ["lower"]), Target(position=(0, 0, 1)))
    )
    s.constraints.append(editing.new_points_at(s, "lower", Target(position=(0, 1, 0))))
    validate(s)
    names = [c.name for c in s.constraints]
    assert names == [
        "FABRIK lower",
        "mp",
        "aim",
        "Multi-Parent upper",
        "Points-At lower",
        "Points-At lower.001",
    ]
    assert loads_scene(dumps_scene(s)) == s


def test_chain_from_orders_root_to_tip_and_refuses_gaps():
    s = arm_scene()
    assert editing.chain_from(s, ["lower", "root", "upper"]) == ("root", "upper", "lower")
    assert editing.chain_from(s, ["upper"]) == ("root", "upper")
    assert editing.chain_from(s, ["root"]) == ("root",)
    with pytest.raises(ValueError, match="unbroken"):
        editing.chain_from(s, ["root", "lower"])
    with pytest.raises(ValueError):
        editing.chain_from(s, [])


def test_bone_rest_edits_validate():
    bone = Bone(name="b")
    assert editing.with_bone_rest(bone, rotation=(2, 0, 0, 0)).rotation == (1, 0, 0, 0)
    with pytest.raises(ValueError):
        editing.with_bone_rest(bone, scale=(1, -1, 1))
    with pytest.raises(ValueError):
        editing.with_bone_rest(bone, rotation=(0, 0, 0, 0))
    with pytest.raises(ValueError):
        editing.with_bone_rest(bone, translation=(np.nan, 0, 0))


def test_unique_name():
    assert editing.unique_name("a", []) == "a"
    assert editing.unique_name("a", ["a", "a.001"]) == "a.002"
