"""FBX in the editor (Xvfb + llvmpipe): File ▸ Open with Ctrl+O shows a Z-up centimetre
character where Blender's FBX importer puts its deformed vertices, at two frames (the mesh
deforms as the frame changes); dropping an FBX opens it, a broken one keeps the document."""

from __future__ import annotations

import json

import numpy as np
from PySide6 import QtWidgets

from app.editor.files import OPEN_FILTER
from tests.helpers import gui
from tests.helpers.gui import CTRL, framebuffer, key
from tests.helpers.paths import SCENES
from tests.scene.formats.test_fbx import DATA
from tests.widgets.test_mesh_viewport_gl import clay, on_clay

CHARACTER = DATA / "wave_zup_cm.fbx"
FRAMES = (0, 20)  # Blender's frames 1 and 21 (its take starts at 1)


def test_open_an_fbx_with_ctrl_o_and_its_mesh_deforms_in_the_viewport(qtbot, monkeypatch):
    assert "*.fbx" in OPEN_FILTER
    record = json.loads((DATA / "wave_zup_cm.fbx.blender.json").read_text())
    theirs = [np.array(record["meshes"]["Body"][str(f + 1)]) for f in FRAMES]
    win = gui.open_window(qtbot, SCENES / "legs.json", size=(1000, 700))
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(CHARACTER), ""))
    )
    key(win, "O", CTRL)
    qtbot.waitUntil(lambda: "chain0_0" in win.document.scene.bone_names())
    assert win.windowTitle().startswith("wave_zup_cm")
    viewport = win.viewport
    viewport.set_mesh_display("mesh")
    viewport.frame_points(np.concatenate(theirs))  # one camera for both frames
    images = []
    for k, frame in enumerate(FRAMES):
        win.document.set_frame(frame)
        qtbot.wait(40)
        image = framebuffer(viewport, qtbot)
        # The mesh is drawn where Blender's importer has its vertices at this frame.
        assert on_clay(image, viewport.project(theirs[k])) > 0.95, f"frame {frame}"
        images.append(clay(image))
    # It deformed: much of what was mesh at the first frame is not at the second.
    changed = np.count_nonzero(images[0] != images[1])
    assert changed > 0.2 * max(np.count_nonzero(images[0]), 1)


def test_dropping_an_fbx_opens_it_and_a_broken_one_keeps_the_document(qtbot, tmp_path, dialogs):
    broken = tmp_path / "broken.fbx"
    broken.write_bytes(CHARACTER.read_bytes()[:5000])
    win = gui.open_window(qtbot, SCENES / "legs.json", size=(1000, 700))

    def drop(path):
        gui.drop_file(win, path)

    drop(CHARACTER)
    qtbot.waitUntil(lambda: len(win.document.scene.meshes) == 1)
    before = win.document.scene.copy()
    drop(broken)
    qtbot.waitUntil(lambda: len(dialogs.calls) == 1)
    kind, _, text = dialogs.calls[0]
    assert kind == "critical" and "<b>broken.fbx</b> could not be opened" in text
    assert "ends too early" in text and "assimp: FBX-" in text  # its words, in the details
    assert win.document.scene == before and win.document.path == str(CHARACTER)
