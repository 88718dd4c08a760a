"""The command line: bake, help, and exit status 2 with one line for bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from app.cli import parse_frames
from app.scene.evaluate import bake
from app.scene.io import load_scene
from tests.helpers.paths import ROOT, SCENES


def run(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_help_lists_the_commands():
    out = run("--help")
    assert out.returncode == 0
    for command in ("bake", "screenshot"):
        assert command in out.stdout


def test_bake_a_bvh(tmp_path, cmu_01_01):
    out = tmp_path / "x.npz"
    proc = run("bake", cmu_01_01, "--out", out)
    assert proc.returncode == 0, proc.stderr
    data = np.load(out)
    assert data["bone_to_world"].shape == (2752, 31, 4, 4)
    assert data["heads"].shape == data["tails"].shape == (2752, 31, 3)
    assert data["limit_violation_deg"].shape == (2752, 31)
    assert data["bone_names"][0] == "Hips"
    np.testing.assert_array_equal(data["frames"], np.arange(2752.0))


def test_bake_matches_the_python_api_with_frames(tmp_path):
    scene_path = SCENES / "legs.json"
    out = tmp_path / "legs.npz"
    proc = run("bake", scene_path, "--out", out, "--frames", "10:20:2.5", "--space", "world")
    assert proc.returncode == 0, proc.stderr
    data = np.load(out)
    np.testing.assert_array_equal(data["frames"], [10, 12.5, 15, 17.5, 20])
    expected = bake(load_scene(scene_path), [10, 12.5, 15, 17.5, 20], space="world")
    np.testing.assert_array_equal(data["bone_to_world"], expected.bone_to_world)


@pytest.mark.parametrize(
    "args, why",
    [
        (["bake", "missing.json", "--out", "x.npz"], "no such file"),
        (["bake", "resources/scenes/legs.json", "--out", "x.npz", "--frames", "5"], "START:END"),
        (["bake", "resources/scenes/legs.json", "--out", "x.npz", "--frames", "9:3"], "before"),
        (["bake", "resources/scenes/legs.json"], "--out"),
        (["bake", "resources/scenes/legs.json", "--out", "x.npz", "--space", "up"], "invalid"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, why):
    proc = run(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert why in lines[-1]
    assert len([line for line in lines if not line.startswith("usage:")]) == 1


def test_bad_scene_names_file_path_and_reason(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"format": "pivotal-scene", "version": 1, "bones": [{"name": "a", '
        '"rotation": [2, 0, 0, 0]}]}'
    )
    proc = run("bake", bad, "--out", tmp_path / "x.npz")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"main.py bake: {bad}: bones[0].rotation: length 2 is not a unit quaternion"
    )
    assert not (tmp_path / "x.npz").exists()


def test_parse_frames():
    np.testing.assert_array_equal(parse_frames("0:4"), [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(parse_frames("1:2:0.25"), [1, 1.25, 1.5, 1.75, 2])
    np.testing.assert_array_equal(parse_frames("0:10:3"), [0, 3, 6, 9])
    with pytest.raises(ValueError, match="> 0"):
        parse_frames("0:4:0")


def test_bake_to_an_unwritable_place_exits_2_and_keeps_the_old_file(tmp_path):
    out = tmp_path / "x.npz"
    out.write_bytes(b"old")
    proc = run("bake", SCENES / "legs.json", "--out", tmp_path / "missing-dir" / "x.npz")
    assert proc.returncode == 2
    assert "cannot write" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert out.read_bytes() == b"old"


def _edited(tmp_path, name, edit, raw=None):
    value = json.loads((SCENES / name).read_text())
    edit(value)
    text = json.dumps(value)
    if raw is not None:
        text = text.replace('"RAW"', raw)
    path = tmp_path / f"{len(list(tmp_path.iterdir()))}.json"
    path.write_text(text)
    return path


def test_every_refusal_of_a_scene_that_loaded_before_issue_20_is_one_line_and_status_2(
    tmp_path,
):
    """Each of these loaded before issue 20 and then failed: a traceback, three lines, or a
    bake of lost names. Now each is refused at load (or at bake, naming the constraint)."""

    def bone(i, key, value):
        return lambda v: v["bones"][i].__setitem__(key, value)

    cases = [
        (_edited(tmp_path, "legs.json", bone(6, "name", "foot.r\u0000")), "bones[6].name"),
        (_edited(tmp_path, "legs.json", bone(6, "name", "\ud800")), "bones[6].name"),
        (_edited(tmp_path, "legs.json", bone(1, "notes", "RAW"), "1e400"), "bones[1].notes"),
        (
            _edited(tmp_path, "legs.json", bone(1, "notes", "RAW"), "[" * 100 + "]" * 100),
            "bones[1].notes",
        ),
        (
            _edited(tmp_path, "calf_points_at_ankle.json", bone(2, "tail", [1e-300, 0, 0])),
            "bones[2].tail",
        ),
        (
            _edited(tmp_path, "calf_points_at_ankle.json", bone(3, "translation", [1e-300, 0, 0])),
            "constraints[0].bone",
        ),
        (
            _edited(tmp_path, "fabrik_arm.json", bone(1, "scale", [5e-324, 5e-324, 5e-324])),
            "constraints[0].chain",
        ),
    ]
    for path, where in cases:
        proc = run("bake", path, "--out", tmp_path / "x.npz")
        assert proc.returncode == 2, (path.read_text()[:80], proc.stderr)
        assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
        assert proc.stderr.startswith(f"main.py bake: {path}: {where}"), proc.stderr
    assert not (tmp_path / "x.npz").exists()
