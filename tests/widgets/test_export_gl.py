"""File ▸ Export in the editor: BVH and CSV of the bake, the viewport as PNG, sequences,
and Cancel in the progress dialog leaving nothing behind."""

import csv
import dataclasses

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.scene.evaluate import bake
from app.scene.formats.bvh import load_bvh
from app.scene.math.transforms import rotation_from_matrix
from app.window import export_actions
from tests.helpers import gui
from tests.helpers.paths import SCENES


def open_window(qtbot, path, size=(1100, 760)):
    return gui.open_window(qtbot, path, size=size)


def save_to(monkeypatch, path):
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), ""))
    )


def folder(monkeypatch, path):
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(path))
    )


def image_pixels(path) -> np.ndarray:
    image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), np.uint8, count=image.bytesPerLine() * image.height())
    rows = data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4]
    return rows.reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def cancel_when_shown(qtbot):
    """Click Cancel on the export's progress dialog as soon as it shows (a real click)."""
    clicked = []

    def poll():
        for dialog in QtWidgets.QApplication.topLevelWidgets():
            if isinstance(dialog, QtWidgets.QProgressDialog) and dialog.isVisible() and not clicked:
                button = dialog.findChild(QtWidgets.QPushButton)
                QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
                clicked.append(dialog.value())

    timer = QtCore.QTimer()
    timer.timeout.connect(poll)
    timer.start(5)
    return timer, clicked


def test_bvh_export_of_the_cmu_clip_reads_back_to_1e_6(qtbot, tmp_path, monkeypatch, cmu_01_01):
    win = open_window(qtbot, cmu_01_01)
    out = tmp_path / "clip.bvh"
    save_to(monkeypatch, out)
    win.actions_by_name["export_bvh"].trigger()
    assert out.exists()
    scene = win.document.scene
    original = bake(scene)
    back = bake(load_bvh(out))
    assert list(back.bone_names) == list(original.bone_names)
    np.testing.assert_allclose(back.heads, original.heads, rtol=0, atol=1e-6)
    assert "Exported clip.bvh" in win.statusBar().currentMessage()


def test_csv_export_rows_match_the_bake(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, SCENES / "calf_points_at_ankle.json")
    win.viewport.setFocus()
    QTest.keyClick(win.viewport, QtCore.Qt.Key.Key_1)  # world space: the export follows it
    out = tmp_path / "legs.csv"
    save_to(monkeypatch, out)
    win.actions_by_name["export_csv"].trigger()
    result = bake(win.document.scene, space="world")
    with out.open(newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [
        "frame",
        "bone",
        "head_x",
        "head_y",
        "head_z",
        "tail_x",
        "tail_y",
        "tail_z",
        "qw",
        "qx",
        "qy",
        "qz",
    ]
    body = rows[1:]
    F, B = result.heads.shape[:2]
    assert len(body) == F * B
    quats = rotation_from_matrix(result.bone_to_world)
    quats = np.where(quats[..., :1] < 0, -quats, quats)
    for k, row in enumerate(body):
        f, b = divmod(k, B)
        assert float(row[0]) == result.frames[f] and row[1] == result.bone_names[b]
        values = np.array(row[2:], float)
        np.testing.assert_array_equal(values[:3], result.heads[f, b])
        np.testing.assert_array_equal(values[3:6], result.tails[f, b])
        np.testing.assert_allclose(values[6:], quats[f, b], atol=1e-15)


def test_png_export_shows_the_skeleton(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, SCENES / "legs.json")
    win.document.set_frame(24.0)
    out = tmp_path / "legs.png"
    save_to(monkeypatch, out)
    win.actions_by_name["export_png"].trigger()
    pixels = image_pixels(out)
    viewport = win.viewport
    ratio = viewport.devicePixelRatioF()
    assert pixels.shape[:2] == (round(viewport.height() * ratio), round(viewport.width() * ratio))
    pose = win.document.pose()
    bright = 0
    for head, tail in zip(pose.heads[0], pose.tails[0]):
        x, y = (viewport.project([(head + tail) / 2])[0] * ratio).astype(int)
        bright += pixels[y - 2 : y + 3, x - 2 : x + 3].min(axis=2).max() > 120
    assert bright >= len(pose.heads[0]) - 1  # a bone may hide behind another


def test_png_sequence_writes_every_frame(qtbot, tmp_path, monkeypatch):
    win = open_window(qtbot, SCENES / "foot_roll.json")
    doc = win.document
    doc.set_frame(50.0)
    folder(monkeypatch, tmp_path)
    win.actions_by_name["export_png-sequence"].trigger()
    out = tmp_path / "foot_roll_frames"
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        f"frame_{f:04d}.png" for f in range(doc.scene.frame_start, doc.scene.frame_end + 1)
    ]
    assert doc.frame == 50.0  # the frame the user was on comes back
    first, later = image_pixels(out / "frame_0000.png"), image_pixels(out / "frame_0060.png")
    assert (np.abs(first - later).max(axis=2) > 40).sum() > 100  # the foot rolled
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foot_roll_frames"]  # no temp left


@pytest.mark.parametrize("fmt", ["png-sequence", "bvh"])
def test_cancel_leaves_no_partial_file(qtbot, tmp_path, monkeypatch, fmt, cmu_01_01):
    monkeypatch.setattr(export_actions, "MIN_DURATION_MS", 0)
    path = SCENES / "foot_roll.json" if fmt == "png-sequence" else cmu_01_01
    win = open_window(qtbot, path)
    folder(monkeypatch, tmp_path)
    save_to(monkeypatch, tmp_path / "clip.bvh")
    timer, clicked = cancel_when_shown(qtbot)
    win.actions_by_name[f"export_{fmt}"].trigger()
    timer.stop()
    assert clicked, "the progress dialog showed and was cancelled"
    assert list(tmp_path.iterdir()) == []  # no file, no folder, no temporary left behind
    assert "cancelled; nothing was written" in win.statusBar().currentMessage()


def test_a_refused_export_keeps_the_old_file(qtbot, tmp_path, monkeypatch, dialogs):
    win = open_window(qtbot, SCENES / "legs.json")
    scene = win.document.scene
    leaf = scene.bone_index("foot.l")
    scene.bones[leaf] = dataclasses.replace(scene.bones[leaf], name="foot  left")  # two spaces
    win.document.scene_edited()
    out = tmp_path / "legs.bvh"
    out.write_text("yesterday's export")
    save_to(monkeypatch, out)
    win.actions_by_name["export_bvh"].trigger()
    assert dialogs.kinds() == ["critical"]
    assert "foot  left" in dialogs.calls[0][2]
    assert out.read_text() == "yesterday's export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legs.bvh"]


def test_the_screenshot_is_written_atomically_by_the_one_renderer(qtbot, tmp_path, monkeypatch):
    from app.window import render
    from app.window.application import render_screenshot

    written = []
    write_atomic = render.write_atomic

    def recorded(path, data):
        written.append(path)
        write_atomic(path, data)

    monkeypatch.setattr(render, "write_atomic", recorded)
    out = tmp_path / "shot.png"
    out.write_bytes(b"the old picture")
    path = render_screenshot(SCENES / "two_axes.json", out, size=(900, 640))
    assert written == [out.resolve()] and path == str(out.resolve())
    image = QtGui.QImage(path)  # the whole window (no narrower than its docks allow)
    assert image.height() == 640 and image.width() >= 900
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shot.png"]  # no temporary left


def test_a_png_export_destroys_its_viewport_before_it_returns(qtbot, tmp_path, monkeypatch):
    """``main.py export --format png`` crashed at exit one run in a few on a loaded machine,
    after writing the image: its viewport (a GL window and context of its own) was left to
    the interpreter's exit, which may destroy it after the application. The export now
    destroys it before it returns."""
    import shiboken6

    from app.editor.export import ExportRequest
    from app.scene.io import load_scene
    from app.window import render

    made = []
    real = render._Offscreen.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append((self.viewport, self.document))

    monkeypatch.setattr(render._Offscreen, "__init__", spy)
    out = tmp_path / "legs.png"
    request = ExportRequest(load_scene(SCENES / "legs.json"), out, options={"size": (320, 200)})
    render.write_png_request(request)
    assert out.stat().st_size > 0
    ((viewport, document),) = made
    assert not shiboken6.isValid(viewport) and not shiboken6.isValid(document)


def test_screenshot_selects_a_part_by_constraint_and_part(qtbot, tmp_path, monkeypatch):
    """``--select CONSTRAINT/PART``: a pivot by its name, a target or pole by that word; a
    part the constraint does not have is refused, naming both."""
    from app.editor.document import Document
    from app.scene.rig.refs import Ref
    from app.window.application import render_screenshot

    chosen = []
    real = Document.set_selection
    monkeypatch.setattr(
        Document, "set_selection", lambda self, refs: (chosen.append(list(refs)), real(self, refs))
    )
    out = tmp_path / "shot.png"
    render_screenshot(SCENES / "fabrik_arm.json", out, size=(640, 400), select=["arm reaches/pole"])
    assert chosen[0] == [Ref.pole_of("arm reaches")]
    render_screenshot(SCENES / "foot_roll.json", out, size=(640, 400), select=["foot_roll/heel"])
    assert chosen[-1] == [Ref.pivot_of("foot_roll", "heel")]
    with pytest.raises(ValueError, match="'arm reaches' has no part called 'heel'"):
        render_screenshot(
            SCENES / "fabrik_arm.json", out, size=(640, 400), select=["arm reaches/heel"]
        )
    with pytest.raises(ValueError, match="no constraint named 'arm'"):
        render_screenshot(SCENES / "fabrik_arm.json", out, size=(640, 400), select=["arm/pole"])
