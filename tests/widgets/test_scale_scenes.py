"""The scale scenes of tools/make_scale_scenes.py: the committed files are what the tool
makes, they open (File ▸ Open, the command line) and bake to finite poses of the right
shapes, and each copy of the crowd moves as the CMU clip it was made from."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.evaluate import bake
from app.scene.formats.bvh import load_bvh
from app.scene.io import load_scene
from app.scene.rig.keys import sample
from tests.helpers import gui
from tests.helpers.gui import CTRL, key
from tests.helpers.paths import SCENES
from tools import make_scale_scenes as tool

CROWD = SCENES / tool.CROWD
RIG = SCENES / tool.RIG


def test_committed_files_are_what_the_tool_makes(tmp_path):
    for name, make in ((tool.CROWD, tool.crowd_scene), (tool.RIG, tool.rig_scene)):
        made = tool.write_compact(make(), tmp_path / name)
        assert json.loads(made.read_text()) == json.loads((SCENES / name).read_text())
        assert (SCENES / name).stat().st_size < 1_000_000  # small enough to commit


def test_crowd_is_ten_copies_of_the_cmu_clip_side_by_side():
    crowd = load_scene(CROWD)
    clip = load_bvh(tool.CMU_01_01)
    B = len(clip.bones)
    assert len(crowd.bones) == 10 * B == 310
    assert sum(b.parent is None for b in crowd.bones) == 10
    frames = np.arange(crowd.frame_start, crowd.frame_end + 1, dtype=float)
    assert abs(crowd.fps - clip.fps / 4) < 1e-4 and len(frames) == 60
    result = bake(crowd)
    assert result.bone_to_world.shape == (60, 310, 4, 4)
    assert np.all(np.isfinite(result.bone_to_world))
    # Oracle: the clip itself at every fourth motion frame, baked independently.
    original = bake(clip, 4 * frames)
    size = np.ptp(original.heads.reshape(-1, 3), axis=0).max()
    offsets = []
    for k in range(10):
        heads = result.heads[:, k * B : (k + 1) * B]
        shift = heads - original.heads
        offsets.append(shift[0, 0])
        # The same motion (rounded to 6 decimals in the file), shifted by one constant.
        assert np.abs(shift - shift[0, 0]).max() < 1e-4 * size
    offsets = np.array(offsets)
    assert np.allclose(offsets[:, 1:], 0, atol=1e-4 * size)  # side by side along X only
    gaps = np.diff(offsets[:, 0])
    assert np.allclose(gaps, gaps[0]) and gaps[0] > 0.3 * size  # evenly, not overlapping


def test_rig_has_200_bones_20_chains_10_multi_parents_all_live():
    rig = load_scene(RIG)
    assert len(rig.bones) == 200
    assert sum(isinstance(c, Fabrik) for c in rig.constraints) == 20
    assert sum(isinstance(c, MultiParent) for c in rig.constraints) == 10
    result = bake(rig)
    F = rig.frame_end - rig.frame_start + 1
    assert result.bone_to_world.shape == (F, 200, 4, 4)
    assert np.all(np.isfinite(result.bone_to_world))
    for c in rig.constraints:
        info = result.info[c.name]
        i = rig.bone_index(c.driven_bones()[-1])
        if isinstance(c, Fabrik):  # every target reached: the tail on it
            assert info["reachable"].all()
            wanted = sample(c.target.position, c.target.position_keys, result.frames)
            assert np.linalg.norm(result.tails[:, i] - wanted, axis=1).max() < 2 * c.tolerance
        else:  # the body rocks: it turns by more than 10 degrees over the shot
            r = result.bone_to_world[:, i, :3, :3]
            cos = (np.einsum("fii->f", r[0].T[None] @ r) - 1) / 2
            assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() > 10


def test_long_clip_loops_the_cmu_motion(tmp_path):
    path = tool.write_long_bvh(tmp_path / "long.bvh")
    long = load_scene(path)
    clip = load_bvh(tool.CMU_01_01)
    n = clip.frame_end + 1
    assert long.frame_end - long.frame_start + 1 == tool.LONG_FRAMES
    frames = np.array([0.0, 17.0, n + 17.0, 99_999.0])
    got = bake(long, frames)
    want = bake(clip, np.mod(frames, n))
    assert got.bone_to_world.shape == (4, 31, 4, 4)
    assert np.array_equal(got.bone_to_world, want.bone_to_world)


def test_scale_scenes_open_from_file_open_and_draw(qtbot, monkeypatch, tmp_path):
    win = gui.open_window(qtbot, SCENES / "legs.json", size=(900, 600))
    for path in (CROWD, RIG):
        monkeypatch.setattr(
            "PySide6.QtWidgets.QFileDialog.getOpenFileName", lambda *a, p=path, **k: (str(p), "")
        )
        key(win.viewport, "O", CTRL)  # File ▸ Open…
        assert win.document.path.endswith(path.name)
        assert len(win.document.scene.bones) == len(load_scene(path).bones)
        image = gui.framebuffer(win.viewport, qtbot)
        # Bones light grey and joints amber over the dark background (the ground's axes
        # are red and blue, its grid dim).
        b, g, r = image[..., 0], image[..., 1], image[..., 2]
        bones = image.min(axis=2) > 140
        joints = (r > 200) & (g > 140) & (b < 130)
        assert (bones | joints).sum() > 300


def test_scale_scenes_bake_from_the_command_line(tmp_path):
    out = tmp_path / "rig.npz"
    proc = subprocess.run(
        [sys.executable, "main.py", "bake", str(RIG), "--out", str(out), "--frames", "0:24"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SCENES.parent.parent,
    )
    assert proc.returncode == 0, proc.stderr
    baked = np.load(out)
    assert baked["bone_to_world"].shape == (25, 200, 4, 4)
