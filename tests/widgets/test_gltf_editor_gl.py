"""glTF in the editor: File ▸ Open (Ctrl+O), drag and drop, File ▸ Export ▸ glTF, a refused
file keeping the document, and the command line's bake and screenshot."""

import json
import subprocess
import sys

import numpy as np
from pxr import Usd, UsdSkel
from PySide6 import QtGui, QtWidgets

from app.editor.files import OPEN_FILTER
from app.scene.evaluate import bake
from app.scene.io import load_scene
from tests.helpers import gui
from tests.helpers.gltf_files import Builder
from tests.helpers.gltf_validator import problems, validate
from tests.helpers.gui import CTRL, key
from tests.helpers.paths import ROOT, SCENES
from tests.scene.formats.test_gltf_import import _channel, _skinned


def _character(tmp_path):
    b = Builder()
    _skinned(b)
    _channel(
        b,
        1,
        "rotation",
        [0.0, 0.5, 1.0],
        [[0, 0, 0, 1], [0, 0, 0.3826834, 0.9238795], [0, 0, 0.7071068, 0.7071068]],
    )
    path = tmp_path / "character.glb"
    path.write_bytes(b.glb_bytes())
    return path


def test_open_with_ctrl_o_then_export_gltf_from_the_menu(qtbot, tmp_path, monkeypatch):
    assert "*.gltf *.glb" in OPEN_FILTER
    character = _character(tmp_path)
    win = gui.open_window(qtbot, SCENES / "legs.json", size=(1000, 700))
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(character), ""))
    )
    key(win, "O", CTRL)
    qtbot.waitUntil(lambda: win.document.scene.bone_names() == ["hip", "knee", "node_2"])
    doc = win.document
    assert len(doc.scene.meshes) == 1 and doc.scene.fps == 30.0  # keys 0.5 s apart: 30 fps
    out = tmp_path / "back.gltf"
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), ""))
    )
    menu = win.findChild(QtWidgets.QMenu, "exportMenu")
    for name in ("glb", "gltf", "usda", "usdc"):
        assert win.actions_by_name[f"export_{name}"] in menu.actions()
    win.actions_by_name["export_gltf"].trigger()
    assert "Exported back.gltf" in win.statusBar().currentMessage()
    (report,) = validate(out)
    assert problems(report) == []
    back = load_scene(out)
    assert back.meshes[0].joints == doc.scene.meshes[0].joints
    np.testing.assert_allclose(bake(back).heads, bake(doc.scene).heads, atol=1e-6)
    usd = tmp_path / "back.usda"
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(usd), ""))
    )
    win.actions_by_name["export_usda"].trigger()
    assert "Exported back.usda" in win.statusBar().currentMessage()
    stage = Usd.Stage.Open(str(usd))
    skel = UsdSkel.Skeleton(stage.GetPrimAtPath("/Pivotal/Skeleton"))
    assert list(skel.GetJointsAttr().Get()) == ["hip", "hip/knee", "hip/knee/node_2"]
    assert stage.GetPrimAtPath("/Pivotal/skin").HasAPI(UsdSkel.BindingAPI)


def test_dropping_a_glb_opens_it_and_a_broken_one_keeps_the_document(qtbot, tmp_path, dialogs):
    character = _character(tmp_path)
    broken = tmp_path / "broken.gltf"
    broken.write_text(json.dumps({"asset": {"version": "2.0"}, "nodes": [{"children": [5]}]}))
    win = gui.open_window(qtbot, SCENES / "legs.json", size=(1000, 700))

    def drop(path):
        gui.drop_file(win, path)

    drop(character)
    qtbot.waitUntil(lambda: len(win.document.scene.meshes) == 1)
    before = win.document.scene.copy()
    drop(broken)
    qtbot.waitUntil(lambda: len(dialogs.calls) == 1)
    kind, _, text = dialogs.calls[0]
    assert kind == "critical" and "/nodes/0/children/0" in text and "out of range" in text
    assert win.document.scene == before and win.document.path == str(character)


def test_command_line_bakes_and_screenshots_gltf(tmp_path):
    character = _character(tmp_path)
    npz = tmp_path / "baked.npz"
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "bake", str(character), "--out", str(npz)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    arrays = np.load(npz)
    np.testing.assert_allclose(arrays["heads"], bake(load_scene(character)).heads)
    png = tmp_path / "shot.png"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            "screenshot",
            str(character),
            "--out",
            str(png),
            "--viewport-only",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    image = QtGui.QImage(str(png)).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    assert not image.isNull() and image.width() > 100
    pixels = np.frombuffer(image.constBits(), np.uint8, image.bytesPerLine() * image.height())
    assert len(np.unique(pixels.reshape(-1, 4)[:, :3], axis=0)) > 20  # something is drawn


def test_command_line_picks_a_named_animation(tmp_path):
    b = Builder()
    _skinned(b)
    _channel(b, 0, "translation", [0.0, 1.0], [[0, 1, 0], [1, 1, 0]])
    b.doc["animations"][0]["name"] = "slide"
    b.doc["animations"].append({"name": "lift", "samplers": [], "channels": []})
    lift = b.doc["animations"][1]
    lift["samplers"].append(
        {
            "input": b.accessor(np.array([0.0, 0.25, 0.5]), minmax=True),
            "output": b.accessor(np.array([[0, 1, 0], [0, 2, 0], [0, 3, 0.0]])),
        }
    )
    lift["channels"].append({"sampler": 0, "target": {"node": 0, "path": "translation"}})
    path = tmp_path / "two.glb"
    path.write_bytes(b.glb_bytes())
    npz = tmp_path / "lift.npz"

    def run(*args):
        return subprocess.run(
            [sys.executable, str(ROOT / "main.py"), *map(str, args)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )

    done = run("bake", path, "--out", npz, "--animation", "lift")
    assert done.returncode == 0, done.stderr
    heads = np.load(npz)["heads"]  # keys 0.25 s apart: 24 fps, the keys at frames 0, 6, 12
    assert len(heads) == 13
    np.testing.assert_allclose(heads[::6, 0], [[0, 1, 0], [0, 2, 0], [0, 3, 0]], atol=1e-7)
    done = run("export", path, "--out", tmp_path / "x.glb", "--animation", "walk")
    assert done.returncode == 2 and "/animations" in done.stderr and "'walk'" in done.stderr
    done = run("bake", SCENES / "legs.json", "--out", npz, "--animation", "lift")
    assert done.returncode == 2 and "--animation applies to glTF" in done.stderr
