"""A multi-parent relative to its parent (contract §F3), against a literal loop in the parent's
frame.

The oracle is written here from the seed and the contract alone: the seed's update equations
stepped one step at a time in plain Python (scipy ``Rotation`` with ``scalar_first=True`` for
every quaternion), started from the body's head and rotation in its parent's frame at
``frame_start`` (its own keys there), and composed with the parent's world transform, which is
computed here too (its keys by scipy's ``Slerp`` and ``np.interp``, the points-at that moves
it by its shortest arc). Nothing in the oracle comes from ``app.scene`` but the model's data.
"""

import dataclasses
import itertools
import json
from functools import reduce

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation, Slerp

from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.multi_parent.steps import steps
from app.scene.constraints.points_at.model import PointsAt
from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.formats.scene_json import scene_to_json
from app.scene.formats.schema import scene_from_json
from app.scene.rig.keys import Keys
from app.scene.rig.model import Bone, Pivot, Scene, Target
from app.scene.rig.refs import Ref
from tests.helpers import gui

F0 = 2  # frame_start: the state is the body's own keys there, not at frame 0
FRAMES = np.concatenate([np.arange(0.0, 11.0), [2.3, 5.3, 7.625, 9.9]])


# --- the oracle ---------------------------------------------------------------------------


def slerped(keys, static, t):
    """Keyed rotation at times ``t`` (held outside the keys), scipy rotations."""
    t = np.atleast_1d(np.asarray(t, float))
    if keys is None:
        return Rotation.from_quat(np.tile(static, (len(t), 1)), scalar_first=True)
    clamped = np.clip(t, keys.frames[0], keys.frames[-1])
    return Slerp(keys.frames, Rotation.from_quat(keys.values, scalar_first=True))(clamped)


def lerped(keys, static, t):
    """Keyed position at times ``t`` (held outside the keys), ``(N, 3)``."""
    t = np.atleast_1d(np.asarray(t, float))
    if keys is None:
        return np.tile(np.asarray(static, float), (len(t), 1))
    return np.stack([np.interp(t, keys.frames, keys.values[:, c]) for c in range(3)], -1)


def trs(translation, rotation: Rotation, scale):
    """``T R S`` as ``(N, 4, 4)``."""
    rotation = rotation if len(rotation.as_quat().shape) > 1 else Rotation.concatenate([rotation])
    m = np.zeros((len(rotation), 4, 4))
    m[:, :3, :3] = rotation.as_matrix() * np.asarray(scale, float)
    m[:, :3, 3] = translation
    m[:, 3, 3] = 1.0
    return m


def local(bone, t):
    """The bone's animated ``bone_to_parent`` at times ``t``."""
    return trs(
        lerped(bone.translation_keys, bone.translation, t),
        slerped(bone.rotation_keys, bone.rotation, t),
        bone.scale,
    )


def anticommutator(increments) -> Rotation:
    """``{R_i}``: the Hamilton products in every order, summed and normalized."""
    total = np.zeros(4)
    for order in itertools.permutations(increments):
        total += reduce(lambda a, b: a * b, order).as_quat(canonical=True, scalar_first=True)
    return Rotation.from_quat(total / np.linalg.norm(total), scalar_first=True)


def step(q, p, before, after, offsets, space, integrator):
    """One step of the update equations, every quantity in one frame (here: the parent's):
    the pivots turn from ``before`` to ``after`` (their ``q_i`` at the step's ends) and sit at
    ``offsets`` (``S pos_i`` at its start). ``space="object"``: ``R_i`` is read in the body's
    own axes."""
    increments = [b * a.inv() for a, b in zip(before, after)]  # R_i = q_i(t1) q_i(t0)^-1
    if space == "object":
        increments = [q * r * q.inv() for r in increments]
    v = [q.apply(u) for u in offsets]  # v_i = p_i - p0
    if integrator == "seed":  # p0 += sum_i v_i - R_i v_i R_i*, q0 = {R_i} q0
        return anticommutator(increments) * q, p + sum(
            vi - r.apply(vi) for r, vi in zip(increments, v)
        )
    # twist: the summed twist's exact exponential over the step
    phis = [r.as_rotvec() for r in increments]
    phi = sum(phis)
    c = -sum(np.cross(f, vi) for f, vi in zip(phis, v))
    angle = np.linalg.norm(phi)
    K = np.array([[0, -phi[2], phi[1]], [phi[2], 0, -phi[0]], [-phi[1], phi[0], 0]])
    if angle < 1e-8:
        J = np.eye(3) + K / 2 + K @ K / 6
    else:
        J = (
            np.eye(3)
            + (1 - np.cos(angle)) / angle**2 * K
            + (angle - np.sin(angle)) / angle**3 * K @ K
        )
    return Rotation.from_rotvec(phi) * q, p + J @ c


def literal(pivots, q_start, p_start, scale, substeps, frames, space, integrator="seed"):
    """``q0`` (scipy) and ``p0 (F, 3)`` at ``frames``: the grid ``F0 + k / substeps`` stepped
    one step at a time, a frame between grid points one partial step from the one before,
    frames before ``F0`` at the start state."""
    scale = np.asarray(scale, float)

    def keyed(t):  # every pivot's q_i and S pos_i at times t
        return (
            [slerped(pv.rotation_keys, pv.rotation, t) for pv in pivots],
            [lerped(pv.position_keys, pv.position, t) * scale for pv in pivots],
        )

    q, p = q_start, np.asarray(p_start, float)
    last = max(int(np.ceil((max(frames) - F0) * substeps)), 0)
    turns, offsets = keyed(F0 + np.arange(last + 1) / substeps)  # the grid's, read once
    grid = [(q, p)]
    for n in range(last):
        q, p = step(
            q,
            p,
            [r[n] for r in turns],
            [r[n + 1] for r in turns],
            [u[n] for u in offsets],
            space,
            integrator,
        )
        grid.append((q, p))
    out_q, out_p = [], []
    for f in frames:
        n = max(0, int(np.floor((f - F0) * substeps)))
        q, p = grid[min(n, len(grid) - 1)]
        if f > F0 + n / substeps:
            turns_ab, offsets_a = keyed(np.array([F0 + n / substeps, f]))
            q, p = step(
                q,
                p,
                [r[0] for r in turns_ab],
                [r[1] for r in turns_ab],
                [u[0] for u in offsets_a],
                space,
                integrator,
            )
        out_q.append(q.as_quat(scalar_first=True))
        out_p.append(p)
    return Rotation.from_quat(out_q, scalar_first=True), np.array(out_p)


def shortest_arc(a, b) -> Rotation:
    """The rotations of least angle taking directions ``a`` to ``b``, ``(N, 3)`` each."""
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    axis = np.cross(a, b)
    s = np.linalg.norm(axis, axis=1, keepdims=True)
    angle = np.arctan2(s, np.sum(a * b, axis=1, keepdims=True))
    return Rotation.from_rotvec(axis / np.where(s == 0, 1, s) * angle)


def parent_world(scene, frames):
    """The parent ``arm``'s world transform: its keys under a static ``hip``, then the
    points-at on it (world space: ``T(head) R_c T(-head) bone_to_world``) when there is one."""
    hip, arm = scene.bone("hip"), scene.bone("arm")
    world = local(hip, frames) @ local(arm, frames)
    aims = [c for c in scene.constraints if c.type == "points_at"]
    if aims:
        head = world[:, :3, 3]
        tail = (world @ np.append(arm.tail, 1.0))[:, :3]
        target = lerped(aims[0].target.position_keys, aims[0].target.position, frames)
        turn = np.tile(np.eye(4), (len(frames), 1, 1))
        turn[:, :3, :3] = shortest_arc(tail - head, target - head).as_matrix()
        turn[:, :3, 3] = head - np.einsum("nij,nj->ni", turn[:, :3, :3], head)
        world = turn @ world
    return world


def expected(scene, frames, q, p):
    """``parent_to_world(f) T(p0) R(q0) S(body scale)``."""
    return parent_world(scene, frames) @ trs(p, q, scene.bone("body").scale)


def start_state(scene):
    """The body's head and rotation in its parent's frame at ``F0``: its own keys there."""
    body = scene.bone("body")
    return (
        slerped(body.rotation_keys, body.rotation, F0)[0],
        lerped(body.translation_keys, body.translation, F0)[0],
    )


# --- the rigs -----------------------------------------------------------------------------


def turns(rng, frames, spread=30.0):
    out = [Rotation.random(rng=rng)]
    for _ in frames[1:]:
        axis = rng.normal(size=3)
        out.append(
            Rotation.from_rotvec(
                np.radians(rng.uniform(-spread, spread)) * axis / np.linalg.norm(axis)
            )
            * out[-1]
        )
    return Keys(np.asarray(frames, float), Rotation.concatenate(out).as_quat(scalar_first=True))


def rig(
    rng,
    *,
    space="world",
    integrator="seed",
    substeps=4,
    aimed=False,
    root=False,
    relative_to="parent",
    pivots=None,
):
    """``hip`` (static) → ``arm`` (keyed, optionally aimed by a points-at before the
    multi-parent) → ``body`` (its own keys, non-uniform scale) → ``tip``; three pivots with
    keys on and off the grid, one sliding along the body."""
    hip = Bone(
        name="hip",
        translation=(0.3, 1.2, -0.4),
        rotation=tuple(Rotation.random(rng=rng).as_quat(scalar_first=True)),
    )
    arm = Bone(
        name="arm",
        parent="hip",
        translation=(0.1, 0.5, 0.2),
        tail=(0.0, 0.6, 0.0),
        scale=(1.0, 1.0, 1.0) if aimed else (1.2, 0.9, 1.1),
        translation_keys=Keys([0.0, 5.0, 9.0], [[0.1, 0.5, 0.2], [0.4, 0.3, 0.0], [0.0, 0.7, 0.3]]),
        rotation_keys=turns(rng, [0, 4, 10], 50.0),
    )
    body = Bone(
        name="body",
        parent=None if root else "arm",
        translation=(0.2, 0.6, -0.1),
        scale=(1.0, 1.5, 0.75),
        rotation_keys=turns(rng, [0, 3, 8]),
        translation_keys=Keys([1.0, 4.0], [[0.2, 0.6, -0.1], [0.3, 0.4, 0.0]]),
    )

    tip = Bone(name="tip", parent="body", translation=(0.0, 0.4, 0.0))
    pivots = pivots or [
        Pivot(name="heel", position=(0.1, -0.2, -0.3), rotation_keys=turns(rng, [2, 5, 9])),
        Pivot(name="ball", position=(-0.1, -0.2, 0.4), rotation_keys=turns(rng, [3, 5.3, 10])),
        Pivot(
            name="slide",
            position=(0.0, 0.3, 0.0),
            rotation_keys=turns(rng, [1, 6, 8]),
            position_keys=Keys([3.0, 7.5], [[0.0, 0.3, 0.0], [0.2, -0.1, 0.5]]),
        ),
    ]
    constraints = []
    if aimed:  # runs before the multi-parent (file order: the parent is moved first)
        target = Target(
            position=(0.0, 0.0, 0.0),
            position_keys=Keys(
                [0.0, 6.0, 10.0], [[1.5, 2.0, 0.5], [-0.5, 2.5, 1.0], [0.5, 1.0, -1.5]]
            ),
        )
        constraints.append(PointsAt(name="aim", bone="arm", target=target, space="world"))
    constraints.append(
        MultiParent(
            name="mp",
            body="body",
            pivots=tuple(pivots),
            space=space,
            integrator=integrator,
            substeps=substeps,
            relative_to=relative_to,
        )
    )
    return Scene(bones=[hip, arm, body, tip], constraints=constraints, frame_start=F0, frame_end=10)


def body_world(scene, frames):
    result = bake(scene, np.asarray(frames, float))
    return result.bone_to_world[:, scene.bone_index("body")], result


# --- the integrators against the loop -----------------------------------------------------


@pytest.mark.parametrize("aimed", [False, True], ids=["keyed-parent", "aimed-parent"])
@pytest.mark.parametrize("space", ["world", "object"])
@pytest.mark.parametrize("integrator", ["seed", "twist"])
def test_the_integration_runs_in_the_parents_frame(rng, integrator, space, aimed):
    scene = rig(rng, space=space, integrator=integrator, aimed=aimed)
    q_start, p_start = start_state(scene)
    q, p = literal(
        scene.constraints[-1].pivots,
        q_start,
        p_start,
        scene.bone("body").scale,
        4,
        FRAMES,
        space,
        integrator,
    )
    world, result = body_world(scene, FRAMES)
    np.testing.assert_allclose(world, expected(scene, FRAMES, q, p), atol=1e-9, rtol=0)
    # the tip follows the body as its child; the world value would not be carried
    tip = result.bone_to_world[:, scene.bone_index("tip")]
    np.testing.assert_allclose(tip, world @ local(scene.bone("tip"), FRAMES), atol=1e-9, rtol=0)
    absolute, _ = body_world(
        dataclasses.replace(
            scene,
            constraints=[
                *scene.constraints[:-1],
                dataclasses.replace(scene.constraints[-1], relative_to="world"),
            ],
        ),
        FRAMES,
    )
    assert np.abs(absolute - world).max() > 0.05


@pytest.mark.parametrize("aimed", [False, True], ids=["keyed-parent", "aimed-parent"])
@pytest.mark.parametrize("space", ["world", "object"])
def test_exact_with_one_pivot_is_the_seeds_closed_form_in_the_parents_frame(rng, space, aimed):
    """``p0(t) = p1 - R1(t) v1``, ``q0(t) = R1(t) q0`` in the parent's frame (object space:
    turns about one axis, read in the body's axes), carried by the parent, at any frame."""
    if space == "world":
        keys = turns(rng, [2, 4.6, 7, 9.3], 60.0)
    else:
        axis = rng.normal(size=3)
        angles = np.radians([0, 70, -40, 120])
        keys = Keys(
            [2, 4.6, 7, 9.3],
            Rotation.from_rotvec(angles[:, None] * axis / np.linalg.norm(axis)).as_quat(
                scalar_first=True
            ),
        )

    pivot = Pivot(name="p", position=(0.3, -0.4, 0.2), rotation_keys=keys)
    scene = rig(rng, space=space, integrator="exact", aimed=aimed, pivots=[pivot])
    q_start, p_start = start_state(scene)
    v1 = q_start.apply(np.multiply(pivot.position, scene.bone("body").scale))
    turn = slerped(keys, None, np.maximum(FRAMES, F0)) * slerped(keys, None, F0)[0].inv()
    if space == "object":
        turn = q_start * turn * q_start.inv()
    q, p = turn * q_start, p_start + v1 - turn.apply(v1)
    world, _ = body_world(scene, FRAMES)
    np.testing.assert_allclose(world, expected(scene, FRAMES, q, p), atol=1e-9, rtol=0)


@pytest.mark.parametrize("space", ["world", "object"])
def test_exact_is_the_limit_of_the_loop_in_the_parents_frame(rng, space):
    """Richardson's ``2 x(2n) - x(n)`` of the loop at 128 and 256 substeps cancels its first
    order term: the exact integrator, composed with the parent, agrees with it to 1e-7."""
    pivots = [
        Pivot(name="heel", position=(0.1, -0.2, -0.3), rotation_keys=turns(rng, [2, 3.5, 5])),
        Pivot(name="ball", position=(-0.1, -0.2, 0.4), rotation_keys=turns(rng, [2.25, 4.5])),
    ]
    scene = rig(rng, space=space, integrator="exact", pivots=pivots)
    frames = np.array([3.0, 4.0])
    q_start, p_start = start_state(scene)
    scale = scene.bone("body").scale
    q1, p1 = literal(pivots, q_start, p_start, scale, 128, frames, space)
    q2, p2 = literal(pivots, q_start, p_start, scale, 256, frames, space)
    quats = [q.as_quat(canonical=True, scalar_first=True) for q in (q1, q2)]
    rich = 2 * quats[1] - quats[0]
    q_rich = Rotation.from_quat(
        rich / np.linalg.norm(rich, axis=1, keepdims=True), scalar_first=True
    )
    world, _ = body_world(scene, frames)
    np.testing.assert_allclose(
        world, expected(scene, frames, q_rich, 2 * p2 - p1), atol=1e-7, rtol=0
    )
    assert np.abs(world - expected(scene, frames, q1, p1)).max() > 1e-6  # the loop alone is not


# --- what the contract promises besides ---------------------------------------------------


@pytest.mark.parametrize("space", ["world", "object"])
@pytest.mark.parametrize("integrator", ["seed", "twist", "exact"])
def test_a_root_body_moves_the_same_bits_either_way(rng, integrator, space):
    world = rig(rng, space=space, integrator=integrator, root=True, relative_to="world")
    parent = dataclasses.replace(
        world, constraints=[dataclasses.replace(world.constraints[-1], relative_to="parent")]
    )
    a, b = (bake(s, FRAMES).bone_to_world for s in (world, parent))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("integrator", ["seed", "exact"])
def test_one_frame_at_a_time_is_the_timeline_bake(rng, integrator):
    """In any order, fractional frames and frames before ``frame_start`` included. (The
    parent's own forward kinematics of one frame may differ from the timeline's in the last
    bit, as every bone's does: a batched product there, entry by entry here.) Before
    ``frame_start`` the body holds its state in its parent's frame: it rides on the parent."""
    scene = rig(rng, integrator=integrator, aimed=True)
    frames = np.concatenate(
        [np.arange(scene.frame_start - 2.0, scene.frame_end + 1.0), [2.3, 5.3, 7.625]]
    )
    whole = bake(scene, frames).bone_to_world
    evaluator = Evaluator(scene)
    arm, body = scene.bone_index("arm"), scene.bone_index("body")
    for i in rng.permutation(len(frames)):
        one = evaluator.evaluate([frames[i]]).bone_to_world[0]
        np.testing.assert_allclose(one, whole[i], atol=1e-13, rtol=0)
        # inv(parent) @ body, with the parent each evaluation had: the integral's own bits
        np.testing.assert_allclose(
            np.linalg.solve(one[arm], one[body]),
            np.linalg.solve(whole[i, arm], whole[i, body]),
            atol=1e-14,
            rtol=0,
        )
    held = np.linalg.solve(whole[:3, arm], whole[:3, body])  # frames 0, 1, 2 (frame_start)
    assert np.abs(whole[0, arm] - whole[2, arm]).max() > 0.05  # the parent moves there
    np.testing.assert_allclose(held, held[[2, 2, 2]], atol=1e-13, rtol=0)


def test_the_parents_keys_do_not_integrate_again(rng):
    """Scrubbing stays cheap: the cached integral does not depend on the parent's motion, so
    a new key on the parent (at frame_start too) recomputes nothing and only moves the body
    with it; a change of the body's own state at frame_start integrates again."""
    scene = rig(rng, integrator="exact")
    evaluator = Evaluator(scene)
    evaluator.evaluate()
    arm = scene.bone_index("arm")
    keys = scene.bones[arm].rotation_keys
    scene.bones[arm] = dataclasses.replace(
        scene.bones[arm],
        rotation_keys=Keys(
            keys.frames,
            Rotation.from_rotvec([0.0, 0.4, 0.0]).as_quat(scalar_first=True)
            * np.ones((len(keys), 1)),
        ),
    )
    assert evaluator.stale_constraints() == []
    after = evaluator.evaluate()
    assert after.info["mp"]["recomputed_from_frame"] is None
    assert np.array_equal(after.bone_to_world, bake(scene).bone_to_world)
    q_start, p_start = start_state(scene)  # at frame_start: the start state on the new parent
    body = scene.bone_index("body")
    np.testing.assert_allclose(
        after.bone_to_world[0, body],
        expected(scene, [F0], q_start, p_start[None])[0],
        atol=1e-12,
        rtol=0,
    )
    scene.bones[body] = dataclasses.replace(scene.bones[body], translation_keys=None)
    assert evaluator.stale_constraints() == ["mp"]


# --- the file -------------------------------------------------------------------------------


def test_the_format_reads_and_writes_relative_to():
    doc = {
        "format": "pivotal-scene",
        "version": 1,
        "fps": 24,
        "frame_start": 0,
        "frame_end": 4,
        "bones": [{"name": "arm"}, {"name": "b", "parent": "arm"}],
        "constraints": [
            {"type": "multi_parent", "name": "mp", "body": "b", "pivots": [{"name": "p"}]}
        ],
    }
    scene = scene_from_json(doc)
    assert scene.constraints[0].relative_to == "world"
    assert "relative_to" not in scene_to_json(scene)["constraints"][0]  # saved as it was
    doc["constraints"][0]["relative_to"] = "parent"
    scene = scene_from_json(doc)
    assert scene.constraints[0].relative_to == "parent"
    written = scene_to_json(scene)
    assert written["constraints"][0]["relative_to"] == "parent"
    assert scene_from_json(json.loads(json.dumps(written))).constraints == scene.constraints
    doc["constraints"][0]["relative_to"] = "parents"
    with pytest.raises(SceneError) as error:
        scene_from_json(doc)
    assert error.value.path == "constraints[0].relative_to"
    assert '"world" or "parent"' in str(error.value) and "'parents'" in str(error.value)


# --- the step-through ------------------------------------------------------------------------


@pytest.mark.parametrize("integrator", ["seed", "exact"])
def test_the_step_through_is_in_the_parents_frame_placed_where_it_is(rng, integrator):
    """The steps are the integration in the parent's frame, placed where the parent is at the
    frame shown: their displacements add up, and the last one is the evaluated pose."""
    scene = rig(rng, integrator=integrator, aimed=True)
    c = scene.constraints[-1]
    for frame in (4, 6, 8):
        result = bake(scene, [float(frame)])
        world = result.bone_to_world[0]
        st = steps(c, scene, frame, parent_to_world=world[scene.bone_index("arm")])
        assert st.parent == "arm" and len(st) >= 1
        np.testing.assert_allclose(np.diff(st.position, axis=0), st.displacement(), atol=1e-13)
        body = world[scene.bone_index("body")]
        assert np.array_equal(st.position[-1], body[:3, 3])
        rotation = Rotation.from_quat(st.rotation[-1], scalar_first=True).as_matrix()
        np.testing.assert_allclose(rotation * scene.bone("body").scale, body[:3, :3], atol=1e-12)


# --- the inspector ---------------------------------------------------------------------------


def test_the_inspector_sets_relative_to_with_undo_and_redo(qtbot, tmp_path, rng):
    scene = rig(rng, integrator="exact", aimed=True, relative_to="world")
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(scene_to_json(scene)))
    win = gui.open_window(qtbot, path, frame=6)
    doc = win.document
    outliner = win.outliner
    gui.click(
        outliner.viewport(),
        outliner.visualItemRect(outliner.item_for(Ref.constraint("mp"))).center(),
    )
    assert doc.active == Ref.constraint("mp")
    combo = win.inspector.findChild(QtWidgets.QComboBox, "relativeTo")
    assert combo is not None and combo.isVisible()
    assert [combo.itemText(i) for i in range(combo.count())] == ["World", "Parent"]
    assert combo.currentText() == "World"
    before = doc.scene.constraint("mp")
    pose_before = doc.pose().bone_to_world.copy()
    QTest.qWait(QtWidgets.QApplication.keyboardInputInterval() + 20)
    combo.setFocus()
    QTest.keyClicks(combo, "p")
    assert doc.scene.constraint("mp").relative_to == "parent"
    assert doc.undo_stack.undoText() == "Make mp relative to its parent"
    parent_scene = doc.scene.copy()
    expected_pose = bake(parent_scene, [6.0]).bone_to_world[0]
    assert np.array_equal(doc.pose().bone_to_world[0], expected_pose)
    assert np.abs(expected_pose - pose_before[0]).max() > 0.05
    win.activateWindow()
    QTest.keyClick(win, QtCore.Qt.Key.Key_Z, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert doc.scene.constraint("mp") is before
    assert combo.currentText() == "World"
    assert np.array_equal(doc.pose().bone_to_world, pose_before)
    QTest.keyClick(
        win,
        QtCore.Qt.Key.Key_Z,
        QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.ShiftModifier,
    )
    assert doc.scene.constraint("mp").relative_to == "parent"
    assert win.inspector.findChild(QtWidgets.QComboBox, "relativeTo").currentText() == "Parent"
    assert np.array_equal(doc.pose().bone_to_world[0], expected_pose)
    # the step-through says where it shows the steps, and lands on the pose
    win.viewport.setFocus()
    gui.key(win.viewport, "S", QtCore.Qt.KeyboardModifier.AltModifier)
    model = win.step_through
    assert model.active and model.kind == "multi_parent"
    QTest.mouseClick(win.step_panel.buttons["stepLast"], QtCore.Qt.MouseButton.LeftButton)
    assert "in the frame of arm" in win.step_panel.description.text()
    body = doc.scene.bone_index("body")
    assert np.array_equal(model.trace.position[-1], expected_pose[body, :3, 3])
