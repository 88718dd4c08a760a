"""Constraints run after what they read (contract §F1), not in file order.

Hand-made rigs check the order and the refusal of cycles; random rigs (hypothesis) bake bit
for bit the same under any listing that keeps each bone's stack of constraints in order.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.scene.errors import SceneError
from app.scene.evaluate import Evaluator, bake
from app.scene.formats.schema import scene_from_json

FRAMES = 6


def _quat_x(degrees):
    h = math.radians(degrees) / 2
    return [math.cos(h), math.sin(h), 0.0, 0.0]


def _scene(bones, constraints, frame_end=FRAMES - 1):
    return scene_from_json(
        {
            "format": "pivotal-scene",
            "version": 1,
            "fps": 24,
            "frame_start": 0,
            "frame_end": frame_end,
            "bones": bones,
            "constraints": constraints,
        }
    )


def _bone(name, parent=None, translation=(0, 1, 0), keys=None):
    bone = {"name": name, "translation": list(translation), "tail": [0, 1, 0]}
    if parent is not None:
        bone["parent"] = parent
    if keys is not None:
        bone["rotation_keys"] = keys
    return bone


def _roll(name, body):
    """A multi-parent rolling ``body`` 60° about a pivot at its head over the frames."""
    pivot = {
        "name": "p",
        "position": [0, 0, 0.5],
        "rotation_keys": [[0, _quat_x(0)], [FRAMES - 1, _quat_x(60)]],
    }
    return {
        "type": "multi_parent",
        "name": name,
        "body": body,
        "space": "world",
        "integrator": "exact",
        "pivots": [pivot],
    }


def _aim(name, bone, target, at="head"):
    return {
        "type": "points_at",
        "name": name,
        "bone": bone,
        "space": "world",
        "target": {"bone": target, "at": at},
    }


# --- a points-at aiming at what a multi-parent moves, listed before it ---------------------


ARM_BONES = [
    _bone("root", translation=(0, 0, 0)),
    _bone("arm", "root"),
    _bone("ctrl", translation=(1, 0, 0)),
]


def test_a_points_at_runs_after_the_multi_parent_that_moves_its_target():
    first = _scene(ARM_BONES, [_aim("aim", "arm", "ctrl", "tail"), _roll("roll", "ctrl")])
    second = _scene(ARM_BONES, [_roll("roll", "ctrl"), _aim("aim", "arm", "ctrl", "tail")])
    a, b = bake(first), bake(second)
    assert np.array_equal(a.bone_to_world, b.bone_to_world)  # bit for bit
    assert np.array_equal(a.limit_violation_deg, b.limit_violation_deg)
    # the arm aims at the control's tail where the multi-parent puts it, on every frame
    arm, ctrl = 1, 2
    moved = np.linalg.norm(a.tails[:, ctrl] - a.tails[0, ctrl], axis=1)
    assert moved[-1] > 0.3  # the roll moves the tail (the test means something)
    aim = a.tails[:, arm] - a.heads[:, arm]
    to = a.tails[:, ctrl] - a.heads[:, arm]
    cos = np.sum(aim * to, 1) / np.linalg.norm(aim, axis=1) / np.linalg.norm(to, axis=1)
    assert np.all(cos > 1 - 1e-9)


def test_the_step_through_context_runs_what_a_constraint_reads_first():
    scene = _scene(ARM_BONES, [_aim("aim", "arm", "ctrl", "tail"), _roll("roll", "ctrl")])
    ctx = Evaluator(scene).context([FRAMES - 1], until="aim")
    full = bake(scene, [FRAMES - 1])
    assert np.array_equal(ctx.bone_to_world[:, 2], full.bone_to_world[:, 2])  # roll ran


def test_the_order_is_computed_once_per_edit_not_per_frame(monkeypatch):
    import dataclasses

    from app.scene.constraints import order

    calls = []
    real = order.run_order
    monkeypatch.setattr(order, "run_order", lambda *a: calls.append(1) or real(*a))
    scene = _scene(ARM_BONES, [_aim("aim", "arm", "ctrl", "tail"), _roll("roll", "ctrl")])
    evaluator = Evaluator(scene)
    for frame in range(FRAMES):
        evaluator.evaluate([frame])
    evaluator.context([1], until="roll")
    assert len(calls) == 1
    scene.constraints[0] = dataclasses.replace(scene.constraints[0], space="object")  # an edit
    for frame in range(FRAMES):
        evaluator.evaluate([frame])
    assert len(calls) == 2


# --- cycles --------------------------------------------------------------------------------


def test_two_constraints_reading_each_other_are_refused_at_load_naming_them():
    bones = [_bone("a", translation=(0, 0, 0)), _bone("b", translation=(1, 0, 0))]
    with pytest.raises(SceneError) as e:
        _scene(bones, [_aim("x", "a", "b"), _aim("y", "b", "a")])
    assert str(e.value).startswith("constraints: x → y → x")
    assert e.value.path == "constraints"


def test_a_longer_cycle_through_a_child_is_named_in_order():
    # z aims c at a's tail; x aims a at the child of b; y aims b at the head of c; "free"
    # (first in the file) reads a but is on no cycle
    bones = [
        _bone("a", translation=(0, 0, 0)),
        _bone("b", translation=(1, 0, 0)),
        _bone("b_child", "b"),
        _bone("c", translation=(2, 0, 0)),
        _bone("d", translation=(3, 0, 0)),
    ]
    constraints = [
        _aim("free", "d", "a"),
        _aim("z", "c", "a", "tail"),
        _aim("x", "a", "b_child"),
        _aim("y", "b", "c"),
    ]
    with pytest.raises(SceneError, match="^constraints: z → y → x → z "):
        _scene(bones, constraints)


def test_a_constraint_reading_what_it_writes_is_no_cycle():
    # a points-at on a bone aiming at its own child (it reads what it writes), and a
    # multi-parent moving the bone's parent listed after it: the points-at runs after it
    bones = [
        _bone("base", translation=(0, 0, 0)),
        _bone("a", "base"),
        _bone("a_child", "a", keys=[[0, _quat_x(0)], [FRAMES - 1, _quat_x(40)]]),
    ]
    scene = _scene(bones, [_aim("self", "a", "a_child", "tail"), _roll("roll", "base")])
    assert [c.name for c in scene.constraints] == ["self", "roll"]
    again = _scene(bones, [_roll("roll", "base"), _aim("self", "a", "a_child", "tail")])
    assert np.array_equal(bake(scene).bone_to_world, bake(again).bone_to_world)


def test_a_stack_against_the_hierarchy_is_a_cycle():
    # "aim" drives the calf before the FABRIK (the calf's stack), but reads the thigh, which
    # the FABRIK moves: no order satisfies both rules
    bones = [
        _bone("thigh", translation=(0, 0, 0)),
        _bone("calf", "thigh"),
        _bone("ctrl", translation=(1, 0, 0)),
    ]
    fabrik = {
        "type": "fabrik",
        "name": "ik",
        "chain": ["thigh", "calf"],
        "target": {"bone": "ctrl", "at": "head"},
    }
    with pytest.raises(SceneError, match="^constraints: aim → ik → aim "):
        _scene(bones, [_aim("aim", "calf", "ctrl"), fabrik])
    _scene(bones, [fabrik, _aim("aim", "calf", "ctrl")])  # the other way round loads


# --- random rigs -------------------------------------------------------------------------


@st.composite
def rigs(draw):
    """(bones, constraints) as JSON: a random skeleton with keyed rotations and random
    multi-parent, points-at and FABRIK constraints on random bones with random targets."""
    n = draw(st.integers(3, 7))
    bones = []
    for i in range(n):
        parent = draw(st.integers(-1, i - 1))
        turn = draw(st.floats(-50, 50))
        axis = draw(st.sampled_from([(1, 0, 0), (0, 0, 1)]))
        h = math.radians(turn) / 2
        q = [math.cos(h)] + [math.sin(h) * a for a in axis]
        bones.append(
            _bone(
                f"b{i}",
                None if parent < 0 else f"b{parent}",
                translation=(0, 1, 0) if parent >= 0 else (i, 0, 0),
                keys=[[0, [1, 0, 0, 0]], [FRAMES - 1, q]],
            )
        )
    parent_of = {b["name"]: b.get("parent") for b in bones}
    constraints = []
    bodies = set()
    for k in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["multi_parent", "points_at", "fabrik"]))
        bone = f"b{draw(st.integers(0, n - 1))}"
        target = draw(st.one_of(st.none(), st.integers(0, n - 1)))
        at = draw(st.sampled_from(["head", "tail"]))
        name = f"c{k}"
        aim = {"position": [1.0, 2.0, 0.5]} if target is None else {"bone": f"b{target}", "at": at}
        if kind == "multi_parent":
            if bone in bodies:
                continue
            bodies.add(bone)
            constraints.append(_roll(name, bone))
        elif kind == "points_at":
            constraints.append(
                {
                    "type": "points_at",
                    "name": name,
                    "bone": bone,
                    "space": draw(st.sampled_from(["world", "object"])),
                    "target": aim,
                }
            )
        elif parent_of[bone] is not None:
            constraints.append(
                {"type": "fabrik", "name": name, "target": aim, "chain": [parent_of[bone], bone]}
            )
    return bones, constraints


def _stack_keeping(constraints, priorities):
    """A listing of ``constraints`` by ``priorities`` (highest first) in which constraints
    driving the same bone keep their relative order."""
    driven = [set(c.get("chain") or [c.get("bone") or c.get("body")]) for c in constraints]
    left, out = list(range(len(constraints))), []
    while left:
        free = [i for i in left if not any(j < i and driven[j] & driven[i] for j in left)]
        best = max(free, key=lambda i: priorities[i])
        out.append(constraints[best])
        left.remove(best)
    return out


def _feeds(first, then, parent_of):
    """Whether ``then`` must run after ``first`` (§F1, written out plainly): ``first``
    drives a bone that ``then`` reads or an ancestor of one, or they share a driven bone."""

    def drives(c):
        return set(c.get("chain") or [c.get("bone") or c.get("body")])

    reads = {p for p in (parent_of[b] for b in drives(then)) if p is not None}
    for t in (then.get("target"), then.get("pole")):
        if t and t.get("bone"):
            reads.add(t["bone"])
    reads -= drives(then)
    above = set()
    for b in reads:
        while b is not None:
            above.add(b)
            b = parent_of[b]
    return bool(drives(first) & above) or bool(drives(first) & drives(then))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rig=rigs(), data=st.data())
def test_random_rigs_bake_the_same_in_any_listing_that_keeps_the_stacks(rig, data):
    bones, constraints = rig
    parent_of = {b["name"]: b.get("parent") for b in bones}
    try:
        scene = _scene(bones, constraints)
    except SceneError as e:  # a cycle: named in order, each one feeding the next
        assert e.path == "constraints" and " → " in e.reason
        names = e.reason.split(" (")[0].split(" → ")
        assert names[0] == names[-1] and len(set(names)) == len(names) - 1 >= 2
        by_name = {c["name"]: c for c in constraints}
        assert all(_feeds(by_name[a], by_name[b], parent_of) for a, b in zip(names, names[1:]))
        return
    priorities = data.draw(st.permutations(range(len(constraints))))
    listed = _stack_keeping(constraints, priorities)
    other = _scene(bones, listed)
    a, b = bake(scene), bake(other)
    assert np.array_equal(a.bone_to_world, b.bone_to_world)
    assert np.array_equal(a.limit_violation_deg, b.limit_violation_deg)
