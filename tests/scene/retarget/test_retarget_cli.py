"""``python main.py retarget MOTION --onto CHARACTER --out OUT`` (issue 25 item 3)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main
from app.scene.io import load_scene, save_scene
from app.scene.retarget.humanoid import automatic_map
from app.scene.retarget.map_file import map_of
from app.scene.rig.model import Bone, Scene
from tests.helpers.retarget_judge import mixamo_character

FRAMES = 120  # a second of CMU's walk at 120 fps


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from tests.helpers.paths import CMU_DIR

    folder = tmp_path_factory.mktemp("retarget")
    lines = (CMU_DIR / "01_01.bvh").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Frames:"))
    clip = folder / "walk.bvh"  # the clip's first second, as another tool would cut it
    clip.write_text(
        "\n".join(lines[:at] + [f"Frames: {FRAMES}"] + lines[at + 1 : at + 2 + FRAMES]) + "\n"
    )
    character = folder / "character.json"
    save_scene(mixamo_character(), character)
    return clip, character


def test_retarget_to_glb_as_long_as_the_clip(files, tmp_path, capsys):
    clip, character = files
    out = tmp_path / "walk_on_character.glb"
    assert main(["retarget", str(clip), "--onto", str(character), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert f"retargeted {FRAMES} frames" in said.out and "hips x" in said.out
    back = load_scene(
        out
    )  # the glTF exporter the validator judges (tests/editor/test_gltf_export.py)
    assert (back.frame_end - back.frame_start + 1, back.fps) == (FRAMES, pytest.approx(120, 1e-3))
    assert back.bone("mixamorig:LeftArm").rotation_keys is not None


def test_retarget_to_a_scene_file_that_keeps_the_map(files, tmp_path, capsys):
    clip, character = files
    out = tmp_path / "walk.json"
    assert main(["retarget", str(clip), "--onto", str(character), "--out", str(out)]) == 0
    back = load_scene(out)
    assert map_of(back) == automatic_map(load_scene(character))
    assert "humanoid" in json.loads(out.read_text())
    hips = back.bone("mixamorig:Hips")
    assert len(hips.translation_keys) == FRAMES
    assert np.ptp(hips.translation_keys.values[:, 1]) > 0  # the hips rise and fall


@pytest.mark.parametrize(
    "extra, why",
    [
        (["--out", "x.bvh"], "--out must end in .glb, .gltf or .json"),
        (["--out", "x.glb", "--animation", "walk"], "--animation applies to glTF and FBX"),
    ],
)
def test_refusals_are_one_line_and_write_nothing(files, tmp_path, capsys, extra, why):
    clip, character = files
    args = ["retarget", str(clip), "--onto", str(character)] + [
        str(tmp_path / a) if a.startswith("x.") else a for a in extra
    ]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert why in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_character_without_hips_is_refused(files, tmp_path, capsys):
    clip, _ = files
    stick = tmp_path / "stick.json"
    save_scene(Scene(bones=[Bone(name="pole", tail=(0.0, 1.0, 0.0))]), stick)
    assert (
        main(["retarget", str(clip), "--onto", str(stick), "--out", str(tmp_path / "out.glb")]) == 2
    )
    err = capsys.readouterr().err
    assert "the character's humanoid map has no hips" in err
    assert not (tmp_path / "out.glb").exists()


def test_retarget_and_plant_the_feet(files, tmp_path, capsys):
    """``--plant`` plants the retargeted walk's feet: the result is the foot-roll rig on each
    leg, with its contacts kept in the scene file, and the figures are printed."""
    clip, character = files
    out = tmp_path / "planted.json"
    assert (
        main(["retarget", str(clip), "--onto", str(character), "--out", str(out), "--plant"]) == 0
    )
    said = capsys.readouterr().out
    assert "feet planted" in said and "skating ratio (GMD)" in said
    back = load_scene(out)
    assert back.plant is not None and len(back.plant.feet) == 2
    assert {"mixamorig:LeftFoot_ctrl", "mixamorig:RightFoot_ctrl"} <= set(back.bone_names())
    assert map_of(back).get("left_thigh") == "mixamorig:LeftUpLeg"  # the map is kept, too
