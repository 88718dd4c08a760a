"""Scene files: round trips, unknown keys, validation messages, atomic saving."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from app.scene.errors import SceneError
from app.scene.io import dumps_scene, load_scene, loads_scene, save_scene
from tests.helpers.paths import SCENES

FULL = {
    "format": "pivotal-scene",
    "version": 1,
    "fps": 30,
    "frame_start": 0,
    "frame_end": 48,
    "studio_note": {"kept": True},
    "bones": [
        {"name": "hip", "translation": [0, 1, 0], "color": "red"},
        {
            "name": "thigh",
            "parent": "hip",
            "translation": [0.1, 0, 0],
            "rotation_keys": [
                [0, [1, 0, 0, 0]],
                [24, [0.7071067811865476, 0.7071067811865476, 0, 0]],
            ],
        },
        {
            "name": "calf",
            "parent": "thigh",
            "translation": [0, -0.45, 0],
            "scale": [1, 2, 1],
            "tail": [0, -0.4, 0],
            "translation_keys": [[0, [0, -0.45, 0]], [10.5, [0, -0.5, 0]]],
        },
        {"name": "foot", "parent": "calf", "translation": [0, -0.4, 0]},
    ],
    "constraints": [
        {
            "type": "multi_parent",
            "name": "roll",
            "body": "foot",
            "space": "world",
            "substeps": 8,
            "integrator": "twist",
            "custom": 3,
            "pivots": [
                {
                    "name": "heel",
                    "position": [0, 0, -0.05],
                    "rotation": [1, 0, 0, 0],
                    "rotation_keys": [[0, [1, 0, 0, 0]], [12, [0, 1, 0, 0]]],
                    "tag": 1,
                },
                {
                    "name": "toe",
                    "position": [0, 0, 0.15],
                    "position_keys": [[0, [0, 0, 0.15]], [5, [0, 0, 0.1]]],
                },
            ],
        },
        {
            "type": "points_at",
            "name": "aim",
            "bone": "hip",  # on the calf, listed before "ik", it would make a cycle (§F1)
            "target": {"position": [1, 0, 0], "position_keys": [[0, [1, 0, 0]], [9, [0, 1, 0]]]},
            "limit": {"cone": 30, "soft": True},
        },
        {
            "type": "fabrik",
            "name": "ik",
            "chain": ["thigh", "calf"],
            "target": {"bone": "hip", "at": "tail"},
            "tolerance": 0.001,
            "max_iterations": 7,
            "limits": {"calf": {"hinge": {"axis": [1, 0, 0], "min": -10, "max": 150}}},
        },
    ],
}


def write(tmp_path, value, name="scene.json"):
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value))
    return path


def test_round_trip_gives_an_equal_scene(tmp_path):
    scene = load_scene(write(tmp_path, FULL))
    out = tmp_path / "again.json"
    save_scene(scene, out)
    again = load_scene(out)
    assert again == scene
    assert dumps_scene(again) == dumps_scene(scene)


def test_unknown_keys_survive(tmp_path):
    scene = load_scene(write(tmp_path, FULL))
    out = tmp_path / "again.json"
    save_scene(scene, out)
    saved = json.loads(out.read_text())
    assert saved["studio_note"] == {"kept": True}
    assert saved["bones"][0]["color"] == "red"
    assert saved["constraints"][0]["custom"] == 3
    assert saved["constraints"][0]["pivots"][0]["tag"] == 1
    assert saved["constraints"][1]["limit"]["soft"] is True


def test_defaults(tmp_path):
    scene = load_scene(
        write(tmp_path, {"format": "pivotal-scene", "version": 1, "bones": [{"name": "a"}]})
    )
    assert (scene.fps, scene.frame_start, scene.frame_end) == (24.0, 0, 120)
    bone = scene.bones[0]
    assert bone.rotation == (1, 0, 0, 0) and bone.scale == (1, 1, 1) and bone.parent is None
    assert scene.constraints == []


def test_keys_replace_the_static_value(tmp_path):
    from app.scene.evaluate import bake

    scene = load_scene(write(tmp_path, {**FULL, "constraints": []}))
    r = bake(scene, [0.0, 5.25, 10.5, 40])
    calf_to_thigh_t = np.linalg.inv(r.bone_to_world[:, 1]) @ r.bone_to_world[:, 2]
    np.testing.assert_allclose(calf_to_thigh_t[:, 1, 3], [-0.45, -0.475, -0.5, -0.5])


BAD = [
    (
        "bones[1].rotation",
        "length 1.7 is not a unit quaternion",
        lambda d: d["bones"][1].__setitem__("rotation", [1.7, 0, 0, 0]),
    ),
    (
        "bones[0].translation[1]",
        "expected a number",
        lambda d: d["bones"][0].__setitem__("translation", [0, "1", 0]),
    ),
    ("bones[2].scale", ">= 0", lambda d: d["bones"][2].__setitem__("scale", [1, -1, 1])),
    ("bones[3].parent", "not a bone", lambda d: d["bones"][3].__setitem__("parent", "knee")),
    ("bones[0].parent", "cycle", lambda d: d["bones"][0].__setitem__("parent", "thigh")),
    ("bones[2].name", "used twice", lambda d: d["bones"][2].__setitem__("name", "hip")),
    (
        "bones[1].rotation_keys[1][0]",
        "not after",
        lambda d: d["bones"][1]["rotation_keys"][1].__setitem__(0, 0),
    ),
    ("version", "newer version", lambda d: d.__setitem__("version", 2)),
    ("format", "pivotal-scene", lambda d: d.__setitem__("format", "other")),
    ("frame_start", "after frame_end", lambda d: d.__setitem__("frame_start", 100)),
    ("bones", "at least one bone", lambda d: d.__setitem__("bones", [])),
    ("fps", "> 0", lambda d: d.__setitem__("fps", 0)),
    (
        "constraints[0].type",
        "unknown constraint type",
        lambda d: d["constraints"][0].__setitem__("type", "spline_ik"),
    ),
    ("constraints[0].body", "not a bone", lambda d: d["constraints"][0].__setitem__("body", "x")),
    (
        "constraints[0].pivots",
        "at least one pivot",
        lambda d: d["constraints"][0].__setitem__("pivots", []),
    ),
    ("constraints[0].substeps", ">= 1", lambda d: d["constraints"][0].__setitem__("substeps", 0)),
    ("constraints[1].space", "world", lambda d: d["constraints"][1].__setitem__("space", "local")),
    (
        "constraints[2].chain[1]",
        "not a child",
        lambda d: d["constraints"][2].__setitem__("chain", ["hip", "calf"]),
    ),
    (
        "constraints[1].limit",
        "exactly one",
        lambda d: d["constraints"][1].__setitem__("limit", {"cone": 3, "hinge": {}}),
    ),
    (
        "constraints[2].limits.calf.hinge",
        "greater than max",
        lambda d: d["constraints"][2]["limits"]["calf"]["hinge"].__setitem__("min", 200),
    ),
    (
        "constraints[1].name",
        "used twice",
        lambda d: d["constraints"][1].__setitem__("name", "roll"),
    ),
]


@pytest.mark.parametrize("where, why, corrupt", BAD, ids=[b[0] for b in BAD])
def test_errors_name_file_path_and_reason(tmp_path, where, why, corrupt):
    data = json.loads(json.dumps(FULL))
    corrupt(data)
    path = write(tmp_path, data)
    with pytest.raises(SceneError) as info:
        load_scene(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ")
    assert info.value.path == where, message
    assert why in message
    assert "\n" not in message


def test_nan_and_malformed_json(tmp_path):
    text = json.dumps(FULL).replace('"translation": [0, 1, 0]', '"translation": [0, NaN, 0]')
    with pytest.raises(SceneError, match="NaN"):
        load_scene(write(tmp_path, text))
    with pytest.raises(SceneError, match=r"line 1 column \d+: malformed JSON|malformed JSON"):
        load_scene(write(tmp_path, '{"format": "pivotal-scene",'))
    with pytest.raises(SceneError, match="no such file"):
        load_scene(tmp_path / "missing.json")


def test_exact_message_for_a_bad_quaternion():
    data = json.loads(json.dumps(FULL))
    data["bones"][3]["rotation"] = [1.7, 0, 0, 0]
    with pytest.raises(SceneError) as info:
        loads_scene(json.dumps(data), "rig.json")
    assert str(info.value) == "rig.json: bones[3].rotation: length 1.7 is not a unit quaternion"


def test_save_is_atomic(tmp_path, monkeypatch):
    path = write(tmp_path, FULL)
    before = path.read_bytes()
    scene = load_scene(path)
    scene.fps = 60.0

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(SceneError, match="No space left"):
        save_scene(scene, path)
    assert path.read_bytes() == before  # the old file is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["scene.json"]  # no temporary left behind


def test_saving_an_invalid_scene_writes_nothing(tmp_path):
    path = write(tmp_path, FULL)
    before = path.read_bytes()
    scene = load_scene(path)
    scene.bones.append(scene.bones[0])  # a duplicate name
    with pytest.raises(SceneError, match="used twice"):
        save_scene(scene, path)
    assert path.read_bytes() == before


def test_shipped_scenes_load_and_round_trip(tmp_path):
    paths = sorted(SCENES.glob("*.json"))
    assert paths
    for path in paths:
        scene = load_scene(path)
        save_scene(scene, tmp_path / path.name)
        assert load_scene(tmp_path / path.name) == scene


# --- atomic saving (issue 20) --------------------------------------------------------------


def test_a_save_syncs_the_directory_after_the_rename(tmp_path, monkeypatch):
    import stat

    synced = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (synced.append("rename"), real_replace(a, b)))
    monkeypatch.setattr(
        os,
        "fsync",
        lambda fd: (
            synced.append("directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"),
            real_fsync(fd),
        ),
    )
    save_scene(load_scene(SCENES / "legs.json"), tmp_path / "legs.json")
    assert synced == ["file", "rename", "directory"]


KILLED_WRITER = """
import sys, time
sys.path.insert(0, {root!r})
from app.scene.formats.atomic import atomic_path
with atomic_path({target!r}) as tmp:
    tmp.write_text("half a scene")
    print("writing", flush=True)
    time.sleep(60)
"""


def test_the_next_save_removes_what_a_killed_writer_left_even_before_it_is_reaped(tmp_path):
    """A killed writer not yet reaped (a zombie) still has its pid: its temporary was kept
    until the next start. Its lock is gone with it; a live writer's lock keeps its own."""
    import signal
    import subprocess
    import sys

    from app.scene.formats.atomic import remove_stale_temporaries_in
    from tests.helpers.paths import ROOT

    target = tmp_path / "session-1.json"
    code = KILLED_WRITER.format(root=str(ROOT), target=str(target))
    writers = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    try:
        for w in writers:
            assert w.stdout.readline() == "writing\n"
        assert len(list(tmp_path.glob(".session-1.json.*.tmp"))) == 2
        writers[0].send_signal(signal.SIGKILL)
        stat = Path(f"/proc/{writers[0].pid}/stat")
        while stat.read_text().split(")")[-1].split()[0] != "Z":
            pass  # killed, not reaped
        save_scene(load_scene(SCENES / "legs.json"), target)  # the next save, here
        left = list(tmp_path.glob(".session-1.json.*.tmp"))
        assert [f.name.split(".")[3] for f in left] == [str(writers[1].pid)]  # the live one
        assert remove_stale_temporaries_in(tmp_path, "session-*") == []
    finally:
        for w in writers:
            w.kill()
            w.wait()
            w.stdout.close()
    assert [f.name for f in remove_stale_temporaries_in(tmp_path, "session-*")] == [left[0].name]
    assert [f.name for f in tmp_path.iterdir()] == ["session-1.json"]
