"""The worked example: the glTF humanoid (tools/make_humanoid.py) opened in the editor, a
multi-parent foot roll added with the editor's operations (tools/add_foot_roll.py), exported
back to glTF. Judged by the Khronos validator, the importer, and a closed case (while only
the ball pivot turns, the foot turns rigidly about it: the ball stays where it is)."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from app.editor.document import Document
from app.editor.export import ExportRequest, format_for, run_export
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.evaluate import bake, default_frames
from app.scene.io import load_scene
from app.scene.rig.skinning import bind
from tests.helpers.gltf_validator import problems, validate
from tests.helpers.paths import SCENES

ROOT = SCENES.parent.parent
HUMANOID = SCENES / "humanoid.glb"


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rolled(qapp):
    """The humanoid with the foot roll added, as the tool adds it."""
    document = Document.from_file(HUMANOID)
    name = _tool("add_foot_roll").add_foot_roll(document)
    return document, name


def test_the_shipped_humanoid_is_what_the_tool_writes(tmp_path):
    out = tmp_path / "humanoid.glb"
    assert _tool("make_humanoid").main(["--out", str(out)]) == 0
    shipped, fresh = load_scene(HUMANOID), load_scene(out)
    assert [b.name for b in shipped.bones] == [b.name for b in fresh.bones]
    frames = default_frames(fresh)
    np.testing.assert_allclose(bake(shipped, frames).heads, bake(fresh, frames).heads, atol=1e-6)
    (a,), (b,) = shipped.meshes, fresh.meshes
    assert a.joints == b.joints and len(a.positions) < 5000  # small, as a resource should be
    np.testing.assert_allclose(a.positions, b.positions, atol=1e-6)
    np.testing.assert_array_equal(a.indices, b.indices)


def test_the_foot_roll_is_added_with_undoable_commands(rolled):
    document, name = rolled
    constraint = document.scene.constraint(name)
    assert isinstance(constraint, MultiParent) and constraint.body == "foot_rolled.L"
    assert document.scene.bone("foot_rolled.L").parent == "foot_ctrl.L"
    assert sorted(p.name for p in constraint.pivots) == ["ball", "heel", "toe"]
    assert len(document.scene.constraints) == 6  # both legs: roll, leg IK, foot follows
    count = document.undo_stack.count()
    assert count >= 10
    before = document.scene
    bones = list(before.bones)
    for _ in range(count):
        document.undo_stack.undo()
    assert document.scene.constraints == []  # every step was a command
    assert len(document.scene.bones) == len(bones) - 6
    for _ in range(count):
        document.undo_stack.redo()
    assert document.scene.constraints == before.constraints and document.scene.bones == bones


def test_the_foot_turns_about_the_ball_and_leaves_the_rest_alone(rolled):
    document, name = rolled
    scene = document.scene
    ball = next(p for p in scene.constraint(name).pivots if p.name == "ball")
    control, foot = scene.bone_index("foot_rolled.L"), scene.bone_index("foot.L")
    # frames 2-12: only the ball turns, so its point on the roll body does not move (object
    # space), and the foot, turning with the body, keeps it under the ball too (to the
    # file's float32: its calf's tail and foot's head differ by 1e-8)
    result = bake(scene, np.arange(2.0, 13.0))  # as authored: the roll in object space
    for bone, atol in ((control, 1e-9), (foot, 1e-7)):
        to_world = result.bone_to_world[:, bone]
        ball_in_bone = np.linalg.inv(result.bone_to_world[0, bone]) @ np.append(
            result.bone_to_world[0, control, :3, :3] @ ball.position
            + result.bone_to_world[0, control, :3, 3],
            1.0,
        )
        ball_world = (to_world @ ball_in_bone)[:, :3]
        np.testing.assert_allclose(ball_world - ball_world[0], 0.0, atol=atol)
    lift = result.heads[-1, foot, 1] - result.heads[0, foot, 1]
    assert lift > 0.03  # the heel (and the ankle) rose
    knee = scene.bone_index("calf.L")
    assert result.heads[-1, knee, 2] - result.heads[0, knee, 2] > 0.05  # the knee came forward
    # the bones off the left leg move exactly as they did before the foot roll
    plain = load_scene(HUMANOID)
    leg = ("thigh.L", "calf.L", "foot.L", "toes.L")
    others = [i for i, b in enumerate(plain.bones) if b.name not in leg]
    unrolled = bake(plain, np.arange(2.0, 13.0)).heads[:, others]
    np.testing.assert_allclose(result.heads[:, others], unrolled, atol=1e-9)
    # the spaces part: the foot is turned out, so a roll about world X is not one about its X
    # (the control has the world's axes, the roll body the foot's)
    world = bake(scene, np.array([20.0]), "world").heads[0, foot]
    assert np.linalg.norm(world - bake(scene, np.array([20.0]), "object").heads[0, foot]) > 0.01


@pytest.mark.parametrize("space", ["world", "object"])
def test_exported_back_it_validates_and_reimports_with_its_mesh(rolled, tmp_path, space):
    document, _ = rolled
    out = tmp_path / f"rolled_{space}.glb"
    run_export(format_for(None, out), ExportRequest(document.scene, out, space=space))
    (report,) = validate(out)
    assert problems(report) == []
    back = load_scene(out)
    expected = bake(document.scene, default_frames(document.scene), space)
    got = bake(back, expected.frames)
    extent = float(np.ptp(expected.heads.reshape(-1, 3), axis=0).max())
    np.testing.assert_allclose(got.heads, expected.heads, atol=1e-6 * extent)
    (mesh,) = back.meshes
    (original,) = document.scene.meshes
    np.testing.assert_allclose(mesh.positions, original.positions, atol=1e-6)
    # the skinned body follows the rolled foot in the exported file too
    skin_back = bind(mesh, got.bone_names).deform(got.bone_to_world[20], normals=False)
    skin_here = bind(original, expected.bone_names).deform(
        expected.bone_to_world[20], normals=False
    )
    np.testing.assert_allclose(skin_back, skin_here, atol=1e-5)
