"""Pure item edits: refs (``app.scene.rig.refs``), keys and positions (``key_edits``),
pivots (``constraint_edits``) and new constraints (each kind's ``edits`` module)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.constraints.fabrik import edits as fabrik_edits
from app.scene.constraints.multi_parent import edits as multi_parent_edits
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.points_at import edits as points_at_edits
from app.scene.constraints.points_at.model import PointsAt
from app.scene.evaluate import Evaluator
from app.scene.formats.schema import validate
from app.scene.io import dumps_scene, loads_scene
from app.scene.rig import bone_edits, key_edits
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene, Target
from app.scene.rig.refs import Ref, exists, owner_of, replace_in, resolve, unique_name


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
    assert resolve(s, Ref.bone("upper")) is s.bones[1]
    assert resolve(s, Ref.pivot_of("mp", "toe")).name == "toe"
    assert resolve(s, Ref.target_of("aim")).position == (1, 2, 3)
    assert not exists(s, Ref.pivot_of("mp", "nope"))
    assert not exists(s, Ref.target_of("mp"))
    assert owner_of(s, Ref.pivot_of("mp", "toe")) == ("constraints", 0)
    assert owner_of(s, Ref.bone("lower")) == ("bones", 2)
    assert Ref.pivot_of("mp", "toe").label() == "pivot toe"


def test_key_frames_of_items_and_constraints():
    s = arm_scene()
    assert list(key_edits.key_frames(s, Ref.bone("upper"))) == [0, 10]
    assert list(key_edits.key_frames(s, Ref.constraint("mp"))) == [0, 20]
    assert len(key_edits.key_frames(s, Ref.bone("lower"))) == 0


def test_with_position_is_static_or_a_key():
    s = arm_scene()
    heel = resolve(s, Ref.pivot_of("mp", "heel"))
    moved = key_edits.with_position(heel, 7, (1, 2, 3))
    assert moved.position == (1, 2, 3) and moved.position_keys is None
    toe = resolve(s, Ref.pivot_of("mp", "toe"))
    keyed = key_edits.with_position(toe, 7, (1, 2, 3))
    assert list(keyed.position_keys.frames) == [0, 7, 20]
    assert np.allclose(key_edits.position_at(keyed, 7), (1, 2, 3))
    assert toe.position_keys.frames.tolist() == [0, 20]  # the input is untouched


def test_rotation_keys_are_created_and_replaced():
    pivot = Pivot(name="p")
    q = Rotation.from_rotvec([0.3, 0, 0]).as_quat(scalar_first=True)
    keyed = key_edits.with_pivot_rotation(pivot, 5, 2 * q)  # normalized on the way
    assert keyed.rotation_keys.frames.tolist() == [5] and np.allclose(
        keyed.rotation_keys.values[0], q
    )
    again = key_edits.with_pivot_rotation(keyed, 5, [1, 0, 0, 0])
    assert again.rotation_keys.frames.tolist() == [5]


def test_keying_does_not_change_the_pose():
    s = arm_scene()
    s.constraints = []
    before = Evaluator(s).evaluate(np.arange(0, 21.0)).bone_to_world
    for name in ("root", "upper", "lower"):
        i = s.bone_index(name)
        s.bones[i] = key_edits.keyed(s, Ref.bone(name), 4.5)
        assert 4.5 in s.bones[i].rotation_keys.frames
    assert s.bones[0].translation_keys is not None  # a root keys its translation too
    assert s.bones[2].translation_keys is None
    after = Evaluator(s).evaluate(np.arange(0, 21.0)).bone_to_world
    assert np.allclose(before, after, atol=1e-12)


def test_keyed_value_between_keys_is_the_slerp():
    s = arm_scene()
    bone = key_edits.keyed(s, Ref.bone("upper"), 2.5)
    keys = s.bones[1].rotation_keys
    expected = Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))([2.5])
    got = Rotation.from_quat(bone.rotation_keys.values[1], scalar_first=True)
    assert (got * expected.inv()).magnitude()[0] < 1e-12


def test_unkeyed_removes_and_keeps_the_last_value_static():
    s = arm_scene()
    upper = key_edits.unkeyed(s, Ref.bone("upper"), 10)
    assert upper.rotation_keys.frames.tolist() == [0]
    s.bones[1] = upper
    last = key_edits.unkeyed(s, Ref.bone("upper"), 0)
    assert last.rotation_keys is None and last.rotation == (1.0, 0.0, 0.0, 0.0)
    with pytest.raises(key_edits.NoKeyError):
        key_edits.unkeyed(s, Ref.bone("upper"), 3)
    toe = key_edits.unkeyed(s, Ref.pivot_of("mp", "toe"), 20)
    assert toe.position_keys.frames.tolist() == [0]


def test_keyable():
    s = arm_scene()
    assert key_edits.keyable(s, Ref.bone("root"))
    assert key_edits.keyable(s, Ref.pivot_of("mp", "heel"))
    assert key_edits.keyable(s, Ref.target_of("aim"))
    assert not key_edits.keyable(s, Ref.constraint("mp"))
    s.constraints[1] = PointsAt(name="aim", bone="upper", target=Target(bone="root"))
    assert not key_edits.keyable(s, Ref.target_of("aim"))
    with pytest.raises(ValueError):
        key_edits.keyed(s, Ref.target_of("aim"), 0)


def test_replace_in_puts_pivots_and_targets_back():
    s = arm_scene()
    mp = s.constraints[0]
    heel = key_edits.with_position(mp.pivots[0], 0, (9, 9, 9))
    new = replace_in(mp, Ref.pivot_of("mp", "heel"), heel)
    assert new.pivots[0].position == (9, 9, 9) and new.pivots[1] is mp.pivots[1]
    aim = replace_in(s.constraints[1], Ref.target_of("aim"), Target(bone="root"))
    assert aim.target.bone == "root" and aim.bone == "upper"


def test_pivots_added_and_removed():
    s = arm_scene()
    mp = s.constraints[0]
    more, pivot = multi_parent_edits.with_new_pivot(mp, (0, 0.4, 0))
    assert pivot.name == "pivot 3" and len(more.pivots) == 3
    more2, pivot2 = multi_parent_edits.with_new_pivot(more, (0, 0, 0))
    assert pivot2.name == "pivot 4"
    fewer = multi_parent_edits.without_pivot(mp, "heel")
    assert [p.name for p in fewer.pivots] == ["toe"]
    with pytest.raises(ValueError, match="only pivot"):
        multi_parent_edits.without_pivot(fewer, "toe")


def test_new_constraints_are_valid_and_survive_a_file_round_trip():
    s = arm_scene()
    s.constraints.append(multi_parent_edits.new_multi_parent(s, "upper"))
    s.constraints.append(points_at_edits.new_points_at(s, "lower", Target(bone="root", at="tail")))
    # the FABRIK at the front: after "mp" on the stack of "lower" it would move the "upper"
    # that "mp" reads, a cycle (§F1)
    s.constraints.insert(
        0,
        fabrik_edits.new_fabrik(
            s, fabrik_edits.chain_from(s, ["lower"]), Target(position=(0, 0, 1))
        ),
    )
    s.constraints.append(points_at_edits.new_points_at(s, "lower", Target(position=(0, 1, 0))))
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
    assert fabrik_edits.chain_from(s, ["lower", "root", "upper"]) == ("root", "upper", "lower")
    assert fabrik_edits.chain_from(s, ["upper"]) == ("root", "upper")
    assert fabrik_edits.chain_from(s, ["root"]) == ("root",)
    with pytest.raises(ValueError, match="unbroken"):
        fabrik_edits.chain_from(s, ["root", "lower"])
    with pytest.raises(ValueError):
        fabrik_edits.chain_from(s, [])


def test_bone_rest_edits_validate():
    bone = Bone(name="b")
    assert bone_edits.with_bone_rest(bone, rotation=(2, 0, 0, 0)).rotation == (1, 0, 0, 0)
    with pytest.raises(ValueError):
        bone_edits.with_bone_rest(bone, scale=(1, -1, 1))
    with pytest.raises(ValueError):
        bone_edits.with_bone_rest(bone, rotation=(0, 0, 0, 0))
    with pytest.raises(ValueError):
        bone_edits.with_bone_rest(bone, translation=(np.nan, 0, 0))


def test_unique_name():
    assert unique_name("a", []) == "a"
    assert unique_name("a", ["a", "a.001"]) == "a.002"
