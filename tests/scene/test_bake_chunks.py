"""A long bake runs in chunks of frames (issue 20): the same bits as one pass, the
diagnostics joined, and memory bounded by the result plus one chunk; written to a ``.npz``
chunk by chunk (``main.py bake``), the same arrays as in memory, and no result held."""

import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from app.scene import evaluate
from app.scene.evaluate import bake, chunks
from app.scene.io import load_scene
from tests.helpers.paths import ROOT, SCENES

ARRAYS = ("bone_names", "frames", "bone_to_world", "heads", "tails", "limit_violation_deg")


def test_chunks_cover_the_frames_in_near_equal_spans_never_shorter_than_the_minimum():
    assert chunks(100, 7) == [(0, 100)]
    spans = chunks(49_999, 121)
    assert spans[0][0] == 0 and spans[-1][1] == 49_999
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    lengths = [hi - lo for lo, hi in spans]
    assert max(lengths) - min(lengths) <= 1
    assert max(lengths) * 121 <= evaluate.CHUNK_POSES * 1.01
    assert min(hi - lo for lo, hi in chunks(40, 10**5)) >= evaluate.MIN_CHUNK_FRAMES
    assert chunks(0, 5) == [(0, 0)]


@pytest.mark.parametrize(
    "name",
    [
        "fabrik_arm.json",
        "rig_200_bones.json",
        "tumbling_box.json",
        "calf_points_at_ankle.json",
        "foot_roll.json",
        "humanoid.glb",
    ],
)
def test_a_bake_in_chunks_gives_the_same_bits_and_diagnostics_as_one_pass(name, monkeypatch):
    scene = load_scene(SCENES / name)
    fractional = np.arange(scene.frame_start, scene.frame_end + 1, 0.37)[::-1]
    heavy = name == "rig_200_bones.json"  # 40 FABRIK chains at once: one variant is enough
    for frames in (None,) if heavy else (None, fractional):
        for space in (None,) if heavy else (None, "world", "object"):
            whole = bake(scene, frames=frames, space=space)
            poses = len(whole.frames) * len(scene.bones)
            monkeypatch.setattr(evaluate, "CHUNK_POSES", poses // 3)  # three chunks
            assert len(chunks(len(whole.frames), len(scene.bones))) >= 3
            chunked = bake(scene, frames=frames, space=space)
            monkeypatch.undo()
            for array in (
                "bone_names",
                "frames",
                "bone_to_world",
                "heads",
                "tails",
                "limit_violation_deg",
            ):
                np.testing.assert_array_equal(getattr(chunked, array), getattr(whole, array))
            assert whole.info.keys() == chunked.info.keys()
            for constraint, entry in whole.info.items():
                for key, value in entry.items():
                    np.testing.assert_array_equal(chunked.info[constraint][key], value)


def test_a_chunked_evaluation_checks_its_frames_once(monkeypatch, tmp_path):
    """Evaluating, and writing to a ``.npz``, in chunks: the frames are checked (finite,
    within the bounds) once for the whole, not again for each chunk."""
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    checked = []
    check = evaluate.Evaluator.checked_frames
    monkeypatch.setattr(
        evaluate.Evaluator, "checked_frames", lambda self, *a: checked.append(1) or check(self, *a)
    )
    frames = evaluate.default_frames(scene)
    monkeypatch.setattr(evaluate, "CHUNK_POSES", len(frames) * len(scene.bones) // 4)
    assert len(chunks(len(frames), len(scene.bones))) >= 4
    evaluate.Evaluator(scene).evaluate()
    assert len(checked) == 1
    checked.clear()
    evaluate.bake_to_npz(scene, tmp_path / "baked.npz")
    assert len(checked) == 1
    checked.clear()
    list(evaluate.Evaluator(scene).pieces(frames, "world"))
    assert len(checked) == 1


# In a child process: a bake of 1.2 x 10^6 poses (121 bones, 9,917 frames; its result is
# 221 MB) under an address-space limit of what the process already maps plus the result's
# size plus 220 MB. In one pass (before issue 20) forward kinematics alone made several
# full-size temporaries and died of MemoryError there.
CHILD = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, {root!r})
    import numpy as np
    from app.scene.evaluate import bake

    from tests.helpers.long_rigs import binary_tree
    scene = binary_tree(9917)
    bake(scene, frames=np.arange(40.0))  # every library loaded, every lazy buffer made
    mapped = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
    poses = 9917 * 121
    result = poses * (128 + 24 + 24 + 8)
    limit = mapped + result + 220 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = bake(scene)
    assert out.bone_to_world.shape == (9917, 121, 4, 4) and np.isfinite(out.heads).all()
    print("baked", poses, "poses under", limit // 2**20, "MiB of address space")
""")


def test_a_long_bake_fits_in_its_result_plus_one_chunk():
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "baked 1199957 poses" in proc.stdout


@pytest.mark.parametrize(
    "name", ["calf_points_at_ankle.json", "fabrik_arm.json", "tumbling_box.json", "foot_roll.json"]
)
def test_the_npz_written_chunk_by_chunk_equals_the_bake_in_memory(name, tmp_path, monkeypatch):
    scene = load_scene(SCENES / name)
    fractional = np.arange(scene.frame_start, scene.frame_end + 1, 0.37)[::-1]
    for frames, space in ((None, None), (fractional, "object"), ([], "world")):
        whole = bake(scene, frames=frames, space=space)
        poses = len(whole.frames) * len(scene.bones)
        monkeypatch.setattr(evaluate, "CHUNK_POSES", max(poses // 5, 1))  # five chunks
        out = tmp_path / "baked.npz"
        counts = evaluate.bake_to_npz(scene, out, frames=frames, space=space)
        monkeypatch.undo()
        assert counts == (len(whole.frames), len(scene.bones))
        with zipfile.ZipFile(out) as zf:  # the members of np.savez, in its order
            assert zf.namelist() == [f"{array}.npy" for array in ARRAYS]
        with np.load(out) as data:
            for array in ARRAYS:
                expected = getattr(whole, array)
                assert data[array].dtype == expected.dtype
                assert data[array].shape == expected.shape
                np.testing.assert_array_equal(data[array], expected)
    assert [p.name for p in tmp_path.iterdir()] == ["baked.npz"]  # no temporary left


def test_a_bake_to_npz_stopped_part_way_keeps_the_old_file(tmp_path, monkeypatch):
    scene = load_scene(SCENES / "calf_points_at_ankle.json")
    monkeypatch.setattr(evaluate, "CHUNK_POSES", 200)
    out = tmp_path / "baked.npz"
    out.write_bytes(b"yesterday's bake")
    seen = []

    def progress(done, total):
        seen.append(done)
        if len(seen) == 2:
            raise KeyboardInterrupt  # stands for anything that stops the writer

    with pytest.raises(KeyboardInterrupt):
        evaluate.bake_to_npz(scene, out, progress=progress)
    assert len(chunks(121, 7)) > 2 and seen[0] < seen[1] < 121
    assert out.read_bytes() == b"yesterday's bake"
    assert [p.name for p in tmp_path.iterdir()] == ["baked.npz"]


# In a child process: ``main.py bake`` of the scene above (9,917 frames x 121 bones, a result
# of 221 MB) under an address-space limit of what the process already maps plus 250 MB. It
# writes the .npz chunk by chunk, so it needs about one chunk's arrays (< 150 MB). Before, it
# held the result, then the whole file in memory, then a copy of that (3 x 221 MB): MemoryError.
CLI_CHILD = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, {root!r})
    import numpy as np
    from app.cli import _bake
    from app.scene.io import save_scene

    from tests.helpers.long_rigs import binary_tree
    scene, out = {scene!r}, {out!r}
    save_scene(binary_tree(9917), scene)
    assert _bake([scene, "--out", out, "--frames", "0:39"]) == 0  # every library loaded
    mapped = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
    limit = mapped + 250 * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.exit(_bake([scene, "--out", out]))
""")


def test_the_command_line_bakes_a_result_larger_than_its_spare_memory(tmp_path):
    scene, out = tmp_path / "rig.json", tmp_path / "rig.npz"
    code = CLI_CHILD.format(root=str(ROOT), scene=str(scene), out=str(out))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "baked 9917 frames x 121 bones" in proc.stdout
    with np.load(out) as data:
        assert data["bone_to_world"].shape == (9917, 121, 4, 4)
        np.testing.assert_array_equal(data["frames"], np.arange(9917.0))
        some = bake(load_scene(scene), frames=[0.0, 57.0, 9916.0])
        for array in ("bone_to_world", "heads", "tails", "limit_violation_deg"):
            np.testing.assert_array_equal(data[array][[0, 57, 9916]], getattr(some, array))
