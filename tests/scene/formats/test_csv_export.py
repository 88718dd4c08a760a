"""CSV export: every number reads back as the bake's value, bit for bit."""

import csv
import io

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.evaluate import BakeResult, bake
from app.scene.formats.csv_export import COLUMNS, csv_from_bake, write_csv
from app.scene.io import load_scene
from app.scene.math.transforms import rotation_from_matrix
from tests.helpers.paths import SCENES
from tests.scene.rig.test_fk import random_scene


def parse(text):
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == COLUMNS
    frames = np.array([float(r[0]) for r in rows[1:]])
    names = [r[1] for r in rows[1:]]
    values = np.array([[float(x) for x in r[2:]] for r in rows[1:]])
    return frames, names, values


def test_rows_match_the_bake_exactly(cmu_01_01):
    scene = load_scene(cmu_01_01)
    result = bake(scene, np.arange(0, 2752, 11.0))
    frames, names, values = parse(csv_from_bake(result))
    F, B = result.heads.shape[:2]
    assert len(names) == F * B
    np.testing.assert_array_equal(frames, np.repeat(result.frames, B))
    assert names == list(result.bone_names) * F
    values = values.reshape(F, B, 10)
    np.testing.assert_array_equal(values[..., 0:3], result.heads)
    np.testing.assert_array_equal(values[..., 3:6], result.tails)
    np.testing.assert_array_equal(values[..., 6:10], rotation_from_matrix(result.bone_to_world))


def test_quaternions_are_world_orientations_checked_with_scipy(rng):
    """With non-uniform scale everywhere, q is the rotation part of bone_to_world."""
    scene = random_scene(rng)
    result = bake(scene, np.linspace(0, 30, 13))
    _, _, values = parse(csv_from_bake(result))
    q = values[:, 6:10].reshape(13, len(scene.bones), 4)
    linear = result.bone_to_world[..., :3, :3]
    u, _, vt = np.linalg.svd(linear)
    expected = Rotation.from_matrix((u @ vt).reshape(-1, 3, 3)).as_quat(scalar_first=True)
    expected *= np.where(expected[:, :1] < 0, -1, 1)
    np.testing.assert_allclose(q.reshape(-1, 4), expected, atol=1e-12)
    assert np.all(q[..., 0] >= 0)


def test_fractional_frames_and_awkward_names(tmp_path):
    scene = load_scene(SCENES / "legs.json")
    result = bake(scene, [0, 0.5, 7.25])
    B = len(result.bone_names)
    names = np.array([f'odd, "name" {i}' if i % 2 else f"b{i}" for i in range(B)])
    renamed = BakeResult(
        names,
        result.frames,
        result.bone_to_world,
        result.heads,
        result.tails,
        result.limit_violation_deg,
    )
    out = tmp_path / "legs.csv"
    write_csv(out, renamed)
    text = out.read_text()
    assert text.splitlines()[1].startswith("0,b0,")
    assert text.splitlines()[B + 2].startswith('0.5,"odd, ""name"" 1",')
    frames, read_names, values = parse(text)
    assert read_names == list(names) * 3
    np.testing.assert_array_equal(frames, np.repeat([0, 0.5, 7.25], B))
    np.testing.assert_array_equal(values[:, :3].reshape(3, B, 3), result.heads)


def test_the_file_written_a_block_of_frames_at_a_time_is_the_whole_text(tmp_path, monkeypatch):
    from app.scene.formats import csv_export

    result = bake(load_scene(SCENES / "legs.json"), np.arange(0.0, 20.0, 0.75))
    B = len(result.bone_names)
    monkeypatch.setattr(csv_export, "BLOCK_ROWS", 3 * B)  # blocks of three frames
    out = tmp_path / "legs.csv"
    write_csv(out, result)
    assert out.read_bytes() == csv_from_bake(result).encode()
    assert [p.name for p in tmp_path.iterdir()] == ["legs.csv"]
