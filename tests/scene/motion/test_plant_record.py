"""The planted scene as a file and as an edit: the plant record saves and loads back equal,
bad records are refused where they are wrong, an edited contact plants again from the
original, and the command line writes what it says (issue 24)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.bvh import parse_bvh
from app.scene.io import dumps_scene, load_scene, loads_scene, save_scene
from app.scene.motion.plant import PlantOptions, original_scene, plant_feet
from tests.helpers.paths import ROOT

CLIP = Path("/usr/share/assimp/models/BVH/01_01.bvh")
FRAMES = 360


def cut(frames: int = FRAMES) -> str:
    """01_01's first frames, as BVH text."""
    head, motion = CLIP.read_text().split("MOTION", 1)
    lines = motion.strip().splitlines()
    return (
        head
        + "MOTION\n"
        + f"Frames: {frames}\n"
        + lines[1]
        + "\n"
        + "\n".join(lines[2 : 2 + frames])
        + "\n"
    )


SHORT = 160  # frames of the record's tests: a landing and a take-off of both feet


@pytest.fixture(scope="module")
def planted():
    return plant_feet(parse_bvh(cut(SHORT)))


@pytest.fixture(scope="module")
def planted_json(planted):
    return dumps_scene(planted.scene)


def test_the_record_saves_and_loads_back_equal(planted, tmp_path):
    path = tmp_path / "planted.json"
    save_scene(planted.scene, path)
    back = load_scene(path)
    assert back.plant == planted.scene.plant
    assert back.bones == planted.scene.bones and back.constraints == planted.scene.constraints
    value = json.loads(path.read_text())["plant"]
    assert set(value) >= {"floor", "speed", "frames", "hips", "feet", "original"}
    assert value["frames"] == [0, SHORT - 1] and value["speed"] == pytest.approx(0.3)
    assert {f["foot"] for f in value["feet"]} == {"LeftFoot", "RightFoot"}


@pytest.mark.parametrize(
    "change, path, words",
    [
        (lambda p: p.update(frames=[10, 5]), "plant.frames", "ends (5) before it starts (10)"),
        (lambda p: p.update(speed=0), "plant.speed", "speed must be > 0"),
        (lambda p: p["feet"][0].update(foot="Nobody"), "plant.feet[0].foot", "not a bone"),
        (
            lambda p: p["feet"][0]["contacts"].update(heel=[[5, 9], [8, 12]]),
            "plant.feet[0].contacts.heel[1]",
            "within the one before",
        ),
        (
            lambda p: p["feet"][0]["contacts"].update(sole=[]),
            "plant.feet[0].contacts",
            "unknown contact point 'sole'",
        ),
        (
            lambda p: p["feet"][1]["contacts"].update(toe=[[0, 9999]]),
            "plant.feet[1].contacts.toe[0]",
            "leaves the range planted",
        ),
    ],
)
def test_a_bad_record_is_refused_where_it_is_wrong(planted_json, change, path, words):
    value = json.loads(planted_json)
    change(value["plant"])
    with pytest.raises(SceneError) as caught:
        loads_scene(json.dumps(value))
    assert caught.value.path == path and words in str(caught.value)


def test_an_edited_contact_plants_again_from_the_original(planted):
    scene = planted.scene
    foot = scene.plant.feet[0]
    point = next(p for p in range(3) if foot.contacts[p])
    first, last = foot.contacts[point][0]
    edited = [list(c) for c in foot.contacts]
    edited[point][0] = (first, last - 20)
    again = plant_feet(scene, contacts={foot.foot: edited})
    assert again.scene.plant.foot(foot.foot).contacts[point][0] == (first, last - 20)
    # the other foot's contacts are kept as they were, and the original is the same clip
    other = scene.plant.feet[1]
    assert again.scene.plant.foot(other.foot).contacts == other.contacts
    source = parse_bvh(cut(SHORT))
    assert original_scene(again.scene).bones == source.bones
    # the released frames follow the original again: the point moves there
    p0 = bake(source).heads
    p1 = bake(again.scene).heads[:, : len(source.bones)]
    assert not np.allclose(
        p1[last - 15 : last], bake(scene).heads[last - 15 : last, : len(source.bones)]
    )
    assert np.abs(p1 - p0).max() > 0


def test_a_range_plants_only_its_frames():
    planted = plant_feet(parse_bvh(cut()), PlantOptions(frames=(100, 250)))
    spans = [s for f in planted.scene.plant.feet for c in f.contacts for s in c]
    assert spans and all(100 <= a <= b <= 250 for a, b in spans)
    source = parse_bvh(cut())
    p0 = bake(source).heads
    p1 = bake(planted.scene).heads[:, : len(source.bones)]
    # as the rig keyed from motion gives it back (within 1e-4 of the character's height)
    tol = 1e-4 * 1.7 * planted.before.units_per_metre
    assert np.abs(p1[:99] - p0[:99]).max() < tol and np.abs(p1[252:] - p0[252:]).max() < tol


def _run(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "plant-feet", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def test_the_command_writes_a_bvh_in_the_inputs_joints_and_channels(tmp_path):
    source = tmp_path / "walk.bvh"
    source.write_text(cut())
    out = tmp_path / "planted.bvh"
    done = _run(str(source), "--out", str(out), "--speed", "0.3")
    assert done.returncode == 0, done.stderr
    assert out.read_text().split("MOTION")[0] == source.read_text().split("MOTION")[0]
    lines = done.stdout.splitlines()
    assert lines[0] == f"planted {source} -> {out}"
    row = next(line for line in lines if line.startswith("longest slide"))
    before, after = row.split()[-4], row.split()[-2]
    assert float(after) <= 1.0 < float(before)
    assert len(parse_bvh(out.read_text()).bones) == len(parse_bvh(cut()).bones)


def test_many_files_go_on_past_one_that_fails(tmp_path):
    good = tmp_path / "walk.bvh"
    good.write_text(cut(240))
    bad = tmp_path / "broken.bvh"
    bad.write_text("HIERARCHY\nROOT Hips\n{\n")
    done = _run(str(good), str(bad), "--out", str(tmp_path / "out"), "-j", "2")
    assert done.returncode == 2
    failures = done.stderr.strip().splitlines()
    assert len(failures) == 1 and failures[0].startswith(f"main.py plant-feet: {bad}")
    assert (tmp_path / "out" / "walk.bvh").is_file()
    assert "planted 1 of 2 files" in done.stdout


def test_the_command_refuses_bad_options_in_one_line(tmp_path):
    source = tmp_path / "walk.bvh"
    source.write_text(cut(120))
    done = _run(str(source), "--out", str(tmp_path / "x.bvh"), "--speed", "-1")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--speed must be > 0" in done.stderr
    done = _run(str(source), "--out", str(tmp_path / "x.csv"))
    assert done.returncode == 2 and "--out must end in .bvh" in done.stderr


def test_renaming_or_deleting_a_planted_bone_keeps_the_file_whole(planted):
    from app.scene.rig.bone_edits import delete_bones, rename_bone

    scene = planted.scene.copy()
    rig = rename_bone(scene, "LeftFoot", "foot.L")
    scene.bones, scene.constraints, scene.plant = (
        list(rig.bones),
        list(rig.constraints),
        rig.plant[0],
    )
    assert "foot.L" in {f.foot for f in scene.plant.feet}
    assert loads_scene(dumps_scene(scene)).plant == scene.plant  # still a valid file
    rig = delete_bones(scene, ["LeftToeBase"])
    assert rig.plant == (None,)  # no longer planted; undo brings the record back
