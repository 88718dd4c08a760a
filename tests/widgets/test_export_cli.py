"""``python main.py export``: the same files as the Python API, and one line for bad input."""

import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from app.editor.export import FORMATS, ExportCancelled, bake_in_chunks
from app.scene.evaluate import bake
from app.scene.formats.bvh import load_bvh
from app.scene.formats.bvh_export import bvh_from_bake
from app.scene.formats.csv_export import csv_from_bake
from app.scene.io import dumps_scene, load_scene
from tests.helpers.paths import ROOT, SCENES
from tests.scene.test_cli import run

LEGS = SCENES / "legs.json"


def test_help_lists_export():
    out = run("--help")
    assert "export SCENE --out PATH" in out.stdout


def test_bvh_and_csv_match_the_python_api(tmp_path):
    scene = load_scene(LEGS)
    result = bake(scene, np.arange(10.0, 41.0, 2.0), space="world")
    for suffix, expected in (
        (".bvh", bvh_from_bake(scene, result).text),
        (".csv", csv_from_bake(result)),
    ):
        out = tmp_path / f"legs{suffix}"
        proc = run("export", LEGS, "--out", out, "--frames", "10:40:2", "--space", "world")
        assert proc.returncode == 0, proc.stderr
        assert out.read_text() == expected
    back = load_bvh(tmp_path / "legs.bvh")
    assert back.fps == pytest.approx(12.0)  # every second frame of 24 fps


def test_explicit_format_and_rotation_order(tmp_path, cmu_01_01):
    out = tmp_path / "mocap.txt"
    proc = run(
        "export",
        cmu_01_01,
        "--out",
        out,
        "--format",
        "bvh",
        "--frames",
        "0:100:10",
        "--rotation-order",
        "yxz",
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "CHANNELS 3 Yrotation Xrotation Zrotation" in text
    assert "Frames: 11\n" in text


def test_notes_go_to_stderr(tmp_path):
    proc = run("export", LEGS, "--out", tmp_path / "legs.bvh", "--frames", "0:2")
    assert proc.returncode == 0
    assert "note: bone 'hip': its tail is not written" in proc.stderr


@pytest.mark.parametrize(
    "args, why",
    [
        (["missing.json", "--out", "x.bvh"], "no such file"),
        ([LEGS, "--out", "x.png", "--size", "8x8"], "--size must be between 16x16"),
        ([LEGS, "--out", "x.png", "--size", "big"], "--size must be WxH in pixels, got 'big'"),
        (
            [LEGS, "--out", "README.md", "--format", "png-sequence"],
            "is a file; a PNG sequence needs a folder",
        ),
        ([LEGS, "--out", "x.txt"], "cannot tell the format from 'x.txt'; give --format"),
        ([LEGS, "--out", "x.bvh", "--format", "gif"], "invalid choice: 'gif'"),
        ([LEGS, "--out", "x.bvh", "--frames", "4:1"], "before START"),
        ([LEGS, "--out", "x.bvh", "--rotation-order", "XXZ"], "rotation order must be one of"),
        ([LEGS, "--out", "no/such/dir/x.bvh"], "cannot write: No such file or directory"),
        ([LEGS], "--out"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, why, tmp_path):
    proc = run("export", *args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert why in lines[-1]
    assert len([line for line in lines if not line.startswith("usage:")]) == 1
    assert proc.stdout == ""


def test_a_refused_export_keeps_the_old_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "pivotal-scene", "version": 1, "bones": []}')
    out = tmp_path / "out.csv"
    out.write_text("yesterday's export")
    proc = run("export", bad, "--out", out)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"main.py export: {bad}: bones: a scene needs at least one bone"
    assert out.read_text() == "yesterday's export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "out.csv"]


def test_npz_holds_the_bake(tmp_path):
    out = tmp_path / "legs.npz"
    proc = run("export", LEGS, "--out", out, "--frames", "3:9", "--space", "world")
    assert proc.returncode == 0, proc.stderr
    expected = bake(load_scene(LEGS), np.arange(3.0, 10.0), space="world")
    with np.load(out) as data:
        for name in expected.ARRAYS:
            np.testing.assert_array_equal(data[name], getattr(expected, name))


def test_every_format_has_a_writer_and_the_module_stays_free_of_qt():
    from app.window.render import register_formats

    register_formats()
    assert set(FORMATS) == {
        "bvh",
        "csv",
        "npz",
        "glb",
        "gltf",
        "usda",
        "usdc",
        "png",
        "png-sequence",
    }
    assert all(callable(f.writer) for f in FORMATS.values())
    code = "import sys, app.editor.export as e; print('PySide6' in sys.modules, sorted(e.FORMATS))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    core = ["bvh", "csv", "glb", "gltf", "npz", "usda", "usdc"]  # the window adds the PNGs
    assert proc.stdout.strip() == f"False {core}"


def png_pixels(path) -> np.ndarray:
    from PySide6 import QtGui

    image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), np.uint8, count=image.bytesPerLine() * image.height())
    rows = data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4]
    return rows.reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def test_png_renders_the_skeleton(tmp_path):
    out = tmp_path / "legs.png"
    proc = run("export", LEGS, "--out", out, "--frames", "24:30", "--size", "640x400")
    assert proc.returncode == 0, proc.stderr
    assert "note: png is one image: frame 24" in proc.stderr
    pixels = png_pixels(out)
    assert pixels.shape == (400, 640, 3)
    # Bones are drawn light grey on the dark background: a few thousand bright pixels.
    bright = (pixels.min(axis=2) > 150).sum()
    assert bright > 1500
    empty = tmp_path / "far.png"  # the same scene with its bones shrunk to nothing
    scene = load_scene(LEGS)
    scene.bones = [
        replace(b, scale=(1e-6, 1e-6, 1e-6)) if b.parent is None else b for b in scene.bones
    ]
    tiny = tmp_path / "tiny.json"
    tiny.write_text(dumps_scene(scene))
    assert run("export", tiny, "--out", empty, "--size", "640x400").returncode == 0
    assert (png_pixels(empty).min(axis=2) > 150).sum() < bright / 10


def test_png_sequence_writes_a_numbered_image_per_frame(tmp_path):
    out = tmp_path / "shot"
    proc = run(
        "export",
        LEGS,
        "--out",
        out,
        "--format",
        "png-sequence",
        "--frames",
        "0:40:10",
        "--size",
        "320x200",
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [f"frame_{f:04d}.png" for f in range(0, 41, 10)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot"]  # no temporary folder left
    assert not np.array_equal(
        png_pixels(out / "frame_0000.png"), png_pixels(out / "frame_0020.png")
    )


def test_png_without_a_display_says_how_to_get_one(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "export",
            str(LEGS),
            "--out",
            str(tmp_path / "x.png"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "needs a display to render on; run under xvfb-run" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_chunked_bake_equals_one_bake_and_can_be_cancelled(cmu_01_01):
    scene = load_scene(cmu_01_01)
    frames = np.arange(0.0, 1000.0)
    seen = []
    chunked = bake_in_chunks(
        scene, frames, progress=lambda d, t: seen.append((d, t)) or True, chunk=300
    )
    assert seen == [(300, 1000), (600, 1000), (900, 1000), (1000, 1000)]
    np.testing.assert_array_equal(chunked.bone_to_world, bake(scene, frames).bone_to_world)
    with pytest.raises(ExportCancelled):
        bake_in_chunks(scene, frames, progress=lambda d, t: d < 600, chunk=300)
