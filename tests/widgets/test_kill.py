"""Saving and autosaving under SIGKILL (issue 10): an editor session killed at a random
moment while it saves or autosaves leaves files that all parse, and the next start offers
the recovery. The children are ``tests/helpers/kill_child.py``; the kill moments are seeded."""

import json
import os
import random
import signal
import subprocess
import sys
import time

from PySide6 import QtWidgets

from app.editor.document import Document, new_scene
from app.editor.files import FileController
from app.editor.recovery import orphans
from app.scene.formats.atomic import remove_stale_temporaries
from app.scene.io import load_scene
from tests.helpers.paths import ROOT, SCENES

#: Kills in all: half of them while saving, half while autosaving (two sessions at a time).
KILLS = 20


def start(mode, scene, out, env):
    return subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.kill_child", mode, str(scene), str(out)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_ready(proc):
    line = proc.stdout.readline()
    assert line.strip() == "ready", proc.stderr.read()


def parse(path):
    """Every file the editor writes: scenes through the loader, meta files as JSON."""
    if path.name.endswith(".meta.json"):
        meta = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(meta["pid"], int)
    else:
        load_scene(path)


def test_killed_while_saving_and_autosaving_every_file_parses_and_recovery_is_offered(
    qtbot, tmp_path, dialogs, monkeypatch
):
    rng = random.Random(10)
    saves, recovery = tmp_path / "saves", tmp_path / "recovery"
    saves.mkdir()
    recovery.mkdir()
    monkeypatch.setenv("PIVOTAL_RECOVERY_DIR", str(recovery))  # where the next start looks
    out = saves / "scene.json"
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PIVOTAL_RECOVERY_DIR=str(recovery),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    base = SCENES / "foot_roll.json"
    base_keys = len(load_scene(base).bone(load_scene(base).bones[0].name).rotation_keys or ())
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Yes
    left_mid_write = 0
    for _ in range(KILLS // 2):
        # The saving session starts on the file its predecessor was killed saving.
        saver = start("save", out if out.exists() else base, out, env)
        autosaver = start("autosave", base, out, env)
        wait_ready(saver)
        wait_ready(autosaver)
        moments = sorted(
            [(rng.uniform(0.0, 0.15), saver), (rng.uniform(0.0, 0.15), autosaver)],
            key=lambda m: m[0],
        )
        began = time.monotonic()
        for moment, proc in moments:
            time.sleep(max(0.0, moment - (time.monotonic() - began)))
            proc.send_signal(signal.SIGKILL)
        for proc in (saver, autosaver):
            assert proc.wait(timeout=30) == -signal.SIGKILL
            proc.stdout.close()
            proc.stderr.close()

        # Every file on disk parses (a killed write leaves only its hidden temporary file).
        temporaries = sorted(saves.glob(".*.tmp")) + sorted(recovery.glob(".*.tmp"))
        left_mid_write += len(temporaries)
        for f in sorted(saves.iterdir()) + sorted(recovery.iterdir()):
            if f not in temporaries:
                parse(f)

        # The next start offers the autosaved work back, and recovers it.
        found = orphans(recovery)
        assert len(found) == 1 and found[0].original_path.endswith("foot_roll.json")
        autosaved = load_scene(found[0].scene_file)
        document = Document(new_scene(), None)
        files = FileController(QtWidgets.QWidget(), document)
        assert files.offer_recovery()
        assert dialogs.calls[-1][0] == "question" and "foot_roll.json" in dialogs.calls[-1][2]
        assert document.scene == autosaved and document.dirty
        assert len(document.scene.bones[0].rotation_keys or ()) >= base_keys
        assert list(recovery.iterdir()) == []  # recovered: its files and stale ones are gone

    # The temporaries of killed saves go with the next write to the same place.
    remove_stale_temporaries(out)
    assert [f.name for f in saves.iterdir()] == ["scene.json"]
    parse(out)
    assert left_mid_write >= 1  # some kills did land in the middle of a write
