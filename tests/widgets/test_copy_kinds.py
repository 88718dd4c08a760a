"""``child_of``, ``copy_rotation`` and ``copy_location`` (contract §F2) against their closed
forms, written here with numpy and scipy: the pose each constraint starts from is the bake of
the constraints before it, and the formulas of the format page are applied to it."""

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from app.scene import evaluate
from app.scene.constraints.follows.model import ChildOf, CopyLocation, CopyRotation
from app.scene.constraints.points_at.model import PointsAt
from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.io import dumps_scene, loads_scene
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Scene, Target

FS = 3  # frame_start: not 0, and not the first key
FRAMES = np.arange(FS, 17, dtype=float)
KINDS = {"child_of": ChildOf, "copy_rotation": CopyRotation, "copy_location": CopyLocation}
BONES = ("hip", "arm", "hand", "base", "ctrl")
HIP, ARM, HAND, BASE, CTRL = range(5)


def q(rotvec):
    return tuple(Rotation.from_rotvec(rotvec).as_quat(scalar_first=True))


def rig(ctrl_scale=(1.0, 2.0, 0.5), ctrl_scale_keys=None) -> Scene:
    """``hip > arm > hand`` (the driven ``arm`` under an animated parent, ``hand`` its
    descendant) and ``base > ctrl`` (the target, non-uniformly scaled, under a turning
    parent); everything moves."""
    bones = [
        Bone(
            name="hip",
            translation_keys=Keys([0, 16], [[0, 0, 0], [1.0, 0.5, -0.3]]),
            rotation_keys=Keys([0, 16], [q([0, 0, 0]), q([0.3, 1.1, -0.2])]),
        ),
        Bone(
            name="arm",
            parent="hip",
            translation=(0.0, 1.0, 0.2),
            scale=(1.0, 1.5, 0.8),
            rotation_keys=Keys([0, 8, 16], [q([0.1, 0, 0]), q([0, 0.9, 0.4]), q([-0.5, 0, 1])]),
        ),
        Bone(name="hand", parent="arm", translation=(0.0, 0.7, 0.1), rotation=q([0.2, 0.3, 0])),
        Bone(
            name="base",
            translation=(2.0, 0.0, 0.0),
            rotation_keys=Keys([0, 16], [q([0, 0, 0.2]), q([0.8, -0.3, 0.1])]),
        ),
        Bone(
            name="ctrl",
            parent="base",
            translation_keys=Keys([1, 16], [[0, 0.5, 0], [0.4, 1, -1]]),
            rotation_keys=Keys([2, 9, 16], [q([0, 0.3, 0]), q([1.2, 0, 0.3]), q([0, -0.7, 0.9])]),
            scale=ctrl_scale,
            scale_keys=ctrl_scale_keys,
            tail=(0.1, 0.4, 0.2),
        ),
    ]
    return Scene(bones=bones, frame_start=FS, frame_end=16)


def follow(
    kind, *, offset="frame_start", space="object", at="head", bone="arm", target="ctrl", name=None
):
    return KINDS[kind](
        name=name or kind, bone=bone, target=Target(bone=target, at=at), offset=offset, space=space
    )


def with_constraints(scene, *constraints):
    out = scene.copy()
    out.constraints = list(constraints)
    return out


# --- closed forms ---------------------------------------------------------------------------


def polar(m):
    """The rotation ``U Vᵀ`` of the SVD of the linear parts ``(..., 3, 3)``, as Rotation."""
    u, _, vt = np.linalg.svd(np.asarray(m)[..., :3, :3])
    flip = np.linalg.det(u @ vt) < 0
    u[flip, :, -1] *= -1
    return Rotation.from_matrix(u @ vt)


def parent_of(scene, bone):
    parent = scene.bones[bone].parent
    return None if parent is None else scene.bone_index(parent)


def parent_world(w, scene, bone):
    parent = parent_of(scene, bone)
    return np.broadcast_to(np.eye(4), w[:, 0].shape) if parent is None else w[:, parent]


def in_parent(w, scene, bone):
    return np.linalg.inv(parent_world(w, scene, bone)) @ w[:, bone]


def point(w, scene, bone, at):
    if at == "head":
        return w[:, bone, :3, 3]
    tail = np.append(scene.bones[bone].tail, 1.0)
    return (w[:, bone] @ tail)[:, :3]


def expected(scene, c, frames, space=None):
    """The world transforms ``(F, B, 4, 4)`` the last constraint of ``scene`` (``c``) gives:
    its closed form applied to the bake of the constraints before it; descendants carried."""
    before = with_constraints(scene, *scene.constraints[:-1])
    pre = bake(before, frames, space).bone_to_world
    pre0 = bake(before, [float(scene.frame_start)], space).bone_to_world
    b, t = scene.bone_index(c.bone), scene.bone_index(c.target.bone)
    keep = c.offset == "frame_start"
    space = space or c.space
    new = pre[:, b].copy()
    if c.type == "child_of":
        offset = np.linalg.inv(pre0[0, t]) @ pre0[0, b] if keep else np.eye(4)
        new = pre[:, t] @ offset
    elif c.type == "copy_rotation":

        def rotation(w, bone):
            return polar(w[:, bone] if space == "world" else in_parent(w, scene, bone))

        wanted = rotation(pre, t)
        if keep:
            wanted = wanted * (rotation(pre0, t).inv() * rotation(pre0, b))
        if space == "world":  # turned about the head by R_b' R_b⁻¹: the stretch stays
            turn = (wanted * rotation(pre, b).inv()).as_matrix()
            new[:, :3, :3] = turn @ pre[:, b, :3, :3]
        else:  # bone_to_parent = T(t) R_b P becomes T(t) R_b' P
            local = in_parent(pre, scene, b)
            stretch = rotation(pre, b).inv().as_matrix() @ local[:, :3, :3]
            local[:, :3, :3] = wanted.as_matrix() @ stretch
            new = parent_world(pre, scene, b) @ local
    else:
        target_point = point(pre, scene, t, c.target.at)
        if not keep:
            new[:, :3, 3] = target_point
        elif space == "world":
            new[:, :3, 3] = target_point + pre0[0, b, :3, 3] - point(pre0, scene, t, c.target.at)[0]
        else:  # the point and the offset in the parent's frame, then back to the world
            parent = parent_world(pre, scene, b)
            parent0 = parent_world(pre0, scene, b)[0]
            to_parent0 = np.linalg.inv(parent0)
            head0 = to_parent0 @ np.append(pre0[0, b, :3, 3], 1.0)
            offset = head0 - to_parent0 @ np.append(point(pre0, scene, t, c.target.at)[0], 1.0)
            in_p = (
                np.einsum(
                    "fij,fj->fi", np.linalg.inv(parent), np.c_[target_point, np.ones(len(frames))]
                )
                + offset
            )
            new[:, :3, 3] = np.einsum("fij,fj->fi", parent, in_p)[:, :3]
    out = pre.copy()
    out[:, b] = new
    for d in range(len(scene.bones)):  # descendants keep their transform relative to b
        p = d
        while p is not None and p != b:
            p = parent_of(scene, p)
        if p == b and d != b:
            out[:, d] = new @ np.linalg.inv(pre[:, b]) @ pre[:, d]
    return out


CASES = [
    (kind, offset, space)
    for kind in KINDS
    for offset in ("frame_start", "none")
    for space in ("world", "object")
]


@pytest.mark.parametrize("kind,offset,space", CASES)
def test_each_kind_holds_its_closed_form(kind, offset, space):
    scene = with_constraints(rig(), follow(kind, offset=offset, space=space, at="tail"))
    c = scene.constraints[0]
    got = bake(scene).bone_to_world
    want = expected(scene, c, FRAMES)
    np.testing.assert_allclose(got, want, atol=1e-10, rtol=0)
    pre = bake(rig()).bone_to_world
    assert np.abs(got[:, HAND] - pre[:, HAND]).max() > 0.1  # the descendant followed
    if kind != "child_of":
        assert np.abs(got[:, ARM] - pre[:, ARM]).max() > 0.1
    if kind == "copy_rotation":  # the head stays where the hierarchy puts it
        np.testing.assert_allclose(got[:, ARM, :3, 3], pre[:, ARM, :3, 3], atol=1e-12)
    if kind == "copy_location":  # rotation and scale kept
        np.testing.assert_allclose(got[:, ARM, :3, :3], pre[:, ARM, :3, :3], atol=1e-12)
    if offset == "frame_start":  # the pose at frame_start is unchanged
        np.testing.assert_allclose(got[0], pre[0], atol=1e-12)


def test_the_offset_is_taken_where_the_constraints_before_leave_the_pose():
    """A points-at turns the target and a copy-location moves the bone before a child-of
    (and a copy-rotation after it): each offset is measured on that pose at frame_start.
    (Listed in an order of their dependencies, contract §F1.)"""
    scene = with_constraints(
        rig(),
        PointsAt(name="aim", bone="ctrl", target=Target(bone="hip", at="head"), space="world"),
        follow("copy_location", bone="arm", target="base", name="move", space="world"),
        follow("child_of", name="child"),
        follow("copy_rotation", bone="hand", target="base", name="turn"),
    )
    frames = np.array([9.0, 4.5, 12.0])  # without frame_start
    for k in range(2, 5):
        part = with_constraints(scene, *scene.constraints[:k])
        np.testing.assert_allclose(
            bake(part, frames).bone_to_world,
            expected(part, part.constraints[-1], frames),
            atol=1e-10,
            rtol=0,
        )


@pytest.mark.parametrize("kind", KINDS)
def test_the_space_toggle_overrides_the_constraint_space(kind):
    scene = with_constraints(rig(), follow(kind, space="object"))
    for space in ("world", "object"):
        got = bake(scene, space=space).bone_to_world
        np.testing.assert_allclose(
            got, expected(scene, scene.constraints[0], FRAMES, space), atol=1e-10, rtol=0
        )
    world, obj = (bake(scene, space=s).bone_to_world for s in ("world", "object"))
    if kind == "child_of":  # space changes nothing
        np.testing.assert_array_equal(world, obj)
    else:
        assert np.abs(world - obj).max() > 1e-3


def everything():
    """Each kind reading what another wrote (in an order of their dependencies, §F1)."""
    return with_constraints(
        rig(),
        follow("child_of", bone="base", target="hip", name="b"),
        follow("copy_location", bone="ctrl", target="hip", at="tail", name="a", space="world"),
        follow("copy_rotation", name="c"),
        follow("copy_location", bone="hand", target="ctrl", at="tail", name="d"),
    )


def test_one_frame_equals_that_frame_of_the_whole_timeline():
    scene = everything()
    whole = bake(scene)
    evaluator = Evaluator(scene)
    for frame in (9.0, 16.0, 4.0, float(FS), 1.0):
        one = evaluator.evaluate([frame])
        row = whole.bone_to_world[FRAMES == frame]
        if frame < FS:
            row = bake(scene, [frame]).bone_to_world
        np.testing.assert_allclose(one.bone_to_world, row, atol=1e-12, rtol=0)
        np.testing.assert_allclose(
            Evaluator(scene).evaluate([frame]).bone_to_world, row, atol=1e-12, rtol=0
        )


def test_frame_start_is_evaluated_once_per_edit_not_per_frame(monkeypatch):
    scene = everything()
    evaluator = Evaluator(scene)
    calls = []
    real = Evaluator._context  # every context evaluated, its frames checked or not

    def counted(self, frames, *args, **kwargs):
        calls.append(np.asarray(frames, dtype=float).tolist())
        return real(self, frames, *args, **kwargs)

    monkeypatch.setattr(Evaluator, "_context", counted)
    for frame in (5.0, 6.0, 7.0):
        evaluator.evaluate([frame])
    assert calls == [[5.0], [float(FS)], [6.0], [7.0]]  # frame_start once, for all four
    evaluator.evaluate([7.0], "world")  # another space: measured again, once
    evaluator.evaluate([8.0], "world")
    assert calls[4:] == [[7.0], [float(FS)], [8.0]]


def test_an_edit_is_seen_by_the_next_one_frame_evaluation():
    """The kept offsets follow edits of bones, constraints, frame_start and the space."""
    scene = everything()
    evaluator = Evaluator(scene)
    evaluator.evaluate([9.0])

    def check(space=None):
        got = evaluator.evaluate([9.0], space).bone_to_world
        want = bake(scene, [9.0], space).bone_to_world
        np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)

    i = scene.bone_index("hip")
    turning = Keys([0, 4], [q([0, 0, 0]), q([1, 0, 0])])
    scene.bones[i] = replace(scene.bones[i], rotation_keys=turning)
    check()
    scene.constraints[1] = replace(scene.constraints[1], target=Target(bone="hip", at="head"))
    check()
    scene.frame_start = 5
    check()
    check("world")


def test_a_chunked_bake_without_frame_start_in_its_first_chunk(monkeypatch):
    scene = everything()
    frames = FRAMES[::-1].copy()  # frame_start comes last
    whole = bake(scene, frames)
    monkeypatch.setattr(evaluate, "CHUNK_POSES", 16)
    monkeypatch.setattr(evaluate, "MIN_CHUNK_FRAMES", 4)
    assert len(evaluate.chunks(len(frames), len(scene.bones))) > 1
    np.testing.assert_allclose(
        bake(scene, frames).bone_to_world, whole.bone_to_world, atol=1e-12, rtol=0
    )


@pytest.mark.parametrize("kind", KINDS)
def test_a_target_scaled_to_zero_gives_finite_poses(kind):
    zero = Keys([0, 6, 12], [[1, 2, 0.5], [0, 0, 0], [0, 3, 1]])
    for start_scale in ((1.0, 2.0, 0.5), (0.0, 0.0, 0.0)):
        scene = rig(ctrl_scale=start_scale, ctrl_scale_keys=zero if start_scale[0] else None)
        for space in ("world", "object"):
            scene = with_constraints(scene, follow(kind, space=space))
            got = bake(scene).bone_to_world
            assert np.all(np.isfinite(got))


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    kind=st.sampled_from(sorted(KINDS)),
    offset=st.sampled_from(["frame_start", "none"]),
    space=st.sampled_from(["world", "object"]),
    at=st.sampled_from(["head", "tail"]),
    rotvecs=st.lists(st.lists(st.floats(-3, 3), min_size=3, max_size=3), min_size=4, max_size=4),
    scale=st.lists(st.floats(0.2, 3), min_size=3, max_size=3),
    frame=st.floats(-2, 20),
)
def test_random_poses_hold_the_closed_form(kind, offset, space, at, rotvecs, scale, frame):
    scene = rig(ctrl_scale=tuple(scale))
    arm, ctrl = scene.bone_index("arm"), scene.bone_index("ctrl")
    for bone, pair in ((arm, rotvecs[:2]), (ctrl, rotvecs[2:])):
        keys = Keys([0, 20], [q(r) for r in pair])
        scene.bones[bone] = replace(scene.bones[bone], rotation_keys=keys)
    scene = with_constraints(scene, follow(kind, offset=offset, space=space, at=at))
    got = Evaluator(scene).evaluate([frame]).bone_to_world
    np.testing.assert_allclose(
        got, expected(scene, scene.constraints[0], [frame]), atol=1e-9, rtol=0
    )


# --- the scene file ---------------------------------------------------------------------------


def scene_json(*constraints):
    return json.dumps(
        {
            "format": "pivotal-scene",
            "version": 1,
            "frame_start": 0,
            "frame_end": 4,
            "bones": [
                {"name": "a"},
                {"name": "b", "parent": "a", "translation": [0, 1, 0]},
                {"name": "c", "translation": [1, 0, 0]},
            ],
            "constraints": list(constraints),
        }
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_kinds_round_trip(kind):
    text = scene_json(
        {
            "type": kind,
            "name": "x",
            "bone": "b",
            "target": {"bone": "c", "at": "tail"},
            "offset": "none",
            "space": "world",
            "note": [1, 2],
        },
        {"type": kind, "name": "y", "bone": "c", "target": {"bone": "a"}},
    )
    scene = loads_scene(text)
    x, y = scene.constraints
    assert isinstance(x, KINDS[kind]) and x.type == kind
    assert (x.bone, x.target.bone, x.target.at, x.offset, x.space) == (
        "b",
        "c",
        "tail",
        "none",
        "world",
    )
    assert x.extra == {"note": [1, 2]}
    assert (y.offset, y.space, y.target.at) == ("frame_start", "object", "head")  # defaults
    again = loads_scene(dumps_scene(scene))
    assert again == scene
    assert json.loads(dumps_scene(again))["constraints"][0]["offset"] == "none"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "change,path,words",
    [
        ({"offset": "start"}, "constraints[0].offset", 'offset must be "frame_start" or "none"'),
        ({"target": {"position": [0, 1, 0]}}, "constraints[0].target", "is a bone"),
        ({"target": {"bone": "nope"}}, "constraints[0].target.bone", "'nope' is not a bone"),
        ({"bone": "nope"}, "constraints[0].bone", "'nope' is not a bone"),
        ({"bone": None}, "constraints[0]", 'missing "bone"'),
        ({"target": None}, "constraints[0]", 'missing "target"'),
        ({"target": {"bone": "b"}}, "constraints[0].target.bone", "cannot follow itself"),
        ({"space": "local"}, "constraints[0].space", 'space must be "world" or "object"'),
    ],
)
def test_bad_kinds_are_refused_naming_where_and_why(kind, change, path, words):
    item = {"type": kind, "name": "x", "bone": "b", "target": {"bone": "c"}}
    item.update(change)
    item = {k: v for k, v in item.items() if v is not None}
    with pytest.raises(SceneError) as e:
        loads_scene(scene_json(item))
    assert e.value.path == path and words in str(e.value)


# --- exports bake the scene -------------------------------------------------------------------


def test_a_gltf_export_carries_each_kind(tmp_path):
    from app.editor.export import ExportRequest, format_for, run_export
    from app.scene.io import load_scene

    scene = everything()
    scene.bones = [replace(b, scale=(1.0, 1.0, 1.0)) for b in scene.bones]  # glTF has no shear
    out = tmp_path / "kinds.glb"
    frames = np.arange(FS + 1, 17, dtype=float)  # without frame_start
    run_export(format_for(None, out), ExportRequest(scene, out, frames))
    back = load_scene(out)
    ours = bake(scene, frames)
    theirs = bake(back)
    assert back.bone_names() == list(BONES)
    np.testing.assert_allclose(theirs.heads, ours.heads, atol=1e-5)
    assert np.abs(ours.heads - bake(rig(), frames).heads).max() > 0.1  # the kinds moved bones


# --- editing: renames and deletions of bones, the operations -----------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_renaming_and_deleting_bones_carry_to_the_kinds(kind):
    from app.scene.rig.bone_edits import delete_bones, rename_bone

    scene = with_constraints(rig(), follow(kind, at="tail"))
    renamed = rename_bone(scene, "ctrl", "boss").constraints
    assert (renamed[0].bone, renamed[0].target.bone, renamed[0].target.at) == (
        "arm",
        "boss",
        "tail",
    )
    assert rename_bone(scene, "arm", "upper").constraints[0].bone == "upper"
    assert rename_bone(scene, "hand", "paw").constraints == tuple(scene.constraints)
    for going in ("arm", "ctrl"):  # the driven bone or the target: the constraint goes too
        assert delete_bones(scene, [going], children="delete").constraints == ()
    assert delete_bones(scene, ["hand"]).constraints == tuple(scene.constraints)


def test_the_operations_add_aim_and_set_the_offset_with_one_undo_step_each(qtbot):
    from app.editor.document import Document
    from app.editor.operations.base import OperationError
    from app.editor.operations.follow_operations import add_follow, set_follow_target, set_offset
    from app.scene.rig.refs import Ref

    doc = Document(rig())
    doc.set_selection([Ref.bone("arm")])
    with pytest.raises(OperationError, match="Select a target bone too"):
        add_follow(doc, CopyLocation)
    doc.set_selection([Ref.bone("ctrl"), Ref.bone("arm")])
    ref = add_follow(doc, CopyLocation)
    c = doc.scene.constraint(ref.name)
    assert (c.name, c.bone, c.target.bone, c.offset) == (
        "Copy Location arm",
        "arm",
        "ctrl",
        "frame_start",
    )
    set_follow_target(doc, c.name, at="tail")
    set_follow_target(doc, c.name, bone="hip")
    set_offset(doc, c.name, "none")
    with pytest.raises(OperationError, match="cannot follow itself"):
        set_follow_target(doc, c.name, bone="arm")
    with pytest.raises(OperationError, match="An offset is one of"):
        set_offset(doc, c.name, "start")
    after = doc.scene.constraint(c.name)
    assert (after.target.bone, after.target.at, after.offset) == ("hip", "tail", "none")
    texts = [doc.undo_stack.text(i) for i in range(doc.undo_stack.count())]
    assert texts == [
        "Add Copy Location arm following ctrl",
        "Set target of Copy Location arm to bone ctrl tail",
        "Set target of Copy Location arm to bone hip tail",
        "Set Copy Location arm to no offset (snap to the target)",
    ]
    for _ in texts:
        doc.undo_stack.undo()
    assert doc.scene.constraints == []
    for _ in texts:
        doc.undo_stack.redo()
    assert doc.scene.constraints == [after]
