"""Files in the editor: open (errors keep the document), save, prompts, drops, recovery."""

import os
import subprocess
import sys

import pytest
from PySide6 import QtWidgets

from app.editor import settings
from app.editor.document import Document
from app.editor.operations import key_operations
from app.editor.recovery import orphans
from app.scene.io import load_scene
from app.scene.rig.refs import Ref
from app.window.main_window import MainWindow
from tests.helpers import gui
from tests.helpers.gui import CTRL, SHIFT, key
from tests.helpers.paths import CMU_DIR, SCENES

Button = QtWidgets.QMessageBox.StandardButton


@pytest.fixture
def window(qtbot):
    return gui.open_window(qtbot, SCENES / "legs.json", size=(1000, 700))


def choose_file(monkeypatch, path, save=False):
    name = "getSaveFileName" if save else "getOpenFileName"
    monkeypatch.setattr(QtWidgets.QFileDialog, name, staticmethod(lambda *a, **k: (str(path), "")))


def edit_something(doc):
    doc.set_selection([Ref.bone("hip")])
    key_operations.set_key(doc)


@pytest.mark.parametrize(
    "text, where, why",
    [
        (
            '{"format": "pivotal-scene", "version": 1, "bones": [}',
            "line 1 column 53",
            "malformed JSON",
        ),
        (
            '{"format": "pivotal-scene", "version": 1, "bones": [{"name": "a", '
            '"rotation": [1, 1, 0, 0]}]}',
            "bones[0].rotation",
            "length",
        ),
        (
            '{"format": "pivotal-scene", "version": 1, "frame_end": 1e308, "bones": '
            '[{"name": "a"}]}',
            "frame_end",
            "bound",
        ),
        (
            '{"format": "pivotal-scene", "version": 1, "bones": [{"name": "a"}], "constraints": '
            '[{"type": "multi_parent", "name": "m", "body": "a", "substeps": 1e300, "pivots": '
            '[{"name": "p"}]}]}',
            "constraints[0].substeps",
            "10,000,000",
        ),
    ],
)
def test_a_malformed_file_shows_why_and_where_and_keeps_the_document(
    window, qtbot, tmp_path, monkeypatch, dialogs, text, where, why
):
    doc = window.document
    edit_something(doc)
    before, path, count = doc.scene.copy(), doc.path, doc.undo_stack.count()
    bad = tmp_path / "broken.json"
    bad.write_text(text)
    choose_file(monkeypatch, bad)
    key(window.viewport, "O", CTRL)  # File ▸ Open…
    assert dialogs.kinds() == ["critical"]  # no "save changes?" for a file that cannot open
    _, title, message = dialogs.calls[0]
    assert "broken.json" in message and where in message and why in message
    assert doc.scene == before and doc.path == path and doc.undo_stack.count() == count
    assert doc.dirty and doc.selection == (Ref.bone("hip"),)


def test_open_asks_before_losing_changes(window, qtbot, tmp_path, monkeypatch, dialogs):
    doc = window.document
    edit_something(doc)
    before = doc.scene.copy()
    choose_file(monkeypatch, CMU_DIR / "01_01.bvh")
    dialogs.answer = Button.Cancel
    window.actions_by_name["open"].trigger()
    assert dialogs.kinds() == ["question"] and doc.scene == before
    dialogs.answer = Button.Discard
    window.actions_by_name["open"].trigger()
    assert len(doc.scene.bones) == 31 and not doc.dirty and doc.path.endswith("01_01.bvh")
    assert settings.recent_files()[0].endswith("01_01.bvh")
    assert window.windowTitle().startswith("01_01.bvh")


def test_save_as_then_save_round_trips(window, qtbot, tmp_path, monkeypatch):
    doc = window.document
    edit_something(doc)
    assert window.isWindowModified()
    out = tmp_path / "saved.json"
    choose_file(monkeypatch, out, save=True)
    key(window.viewport, "S", CTRL | SHIFT)
    assert load_scene(out) == doc.scene and not doc.dirty and not window.isWindowModified()
    assert doc.path == str(out.resolve())
    doc.set_frame(9)
    key_operations.set_key(doc)
    key(window.viewport, "S", CTRL)
    assert load_scene(out) == doc.scene and not doc.dirty
    assert str(out.resolve()) in settings.recent_files()


def test_save_changes_prompt_saves(window, qtbot, tmp_path, monkeypatch, dialogs):
    doc = window.document
    out = tmp_path / "kept.json"
    doc.set_path(str(out))
    edit_something(doc)
    edited = doc.scene.copy()
    dialogs.answer = Button.Save
    key(window.viewport, "N", CTRL)
    assert load_scene(out) == edited  # saved before the new scene replaced it
    assert [b.name for b in doc.scene.bones] == ["root"] and doc.path is None


def test_dropping_a_file_opens_it(window, qtbot):
    gui.drop_file(window, CMU_DIR / "01_01.bvh")
    qtbot.waitUntil(lambda: len(window.document.scene.bones) == 31)


def test_autosave_writes_and_removes_the_recovery_file(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("PIVOTAL_RECOVERY_DIR", str(tmp_path))
    doc = Document.from_file(SCENES / "legs.json")
    win = MainWindow(doc, restore_settings=False, autosave_ms=40)
    qtbot.addWidget(win)
    auto = win.autosaver
    qtbot.wait(120)
    assert not auto.scene_file.exists()  # nothing unsaved, nothing written
    edit_something(doc)
    qtbot.waitUntil(auto.scene_file.exists, timeout=2000)
    assert load_scene(auto.scene_file) == doc.scene
    doc.undo_stack.undo()  # back to the saved state: no recovery needed
    assert not auto.scene_file.exists()
    assert orphans(tmp_path) == []  # our own live session is never an orphan


def test_recovery_after_a_crash(qtbot, tmp_path, monkeypatch, dialogs):
    monkeypatch.setenv("PIVOTAL_RECOVERY_DIR", str(tmp_path))
    # A child editor session edits, autosaves, and dies without cleaning up.
    code = (
        "import os, sys\n"
        "from PySide6 import QtWidgets\n"
        "app = QtWidgets.QApplication([])\n"
        "from app.editor.document import Document\n"
        "from app.editor.recovery import Autosaver\n"
        "from app.editor.operations import key_operations\n"
        "from app.scene.rig.refs import Ref\n"
        f"doc = Document.from_file({str(SCENES / 'legs.json')!r})\n"
        "doc.set_frame(5)\n"
        "key_operations.set_key(doc, [Ref.bone('calf.l')])\n"
        "Autosaver(doc).autosave()\n"
        "os._exit(1)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    found = orphans(tmp_path)
    assert len(found) == 1 and found[0].original_path.endswith("legs.json")
    doc = Document.from_file(SCENES / "legs.json")
    win = MainWindow(doc, restore_settings=False)
    qtbot.addWidget(win)
    dialogs.answer = Button.Yes
    assert win.files.offer_recovery()
    assert "legs.json" in dialogs.calls[0][2]
    assert 5 in doc.scene.bone("calf.l").rotation_keys.frames
    assert doc.dirty and doc.path.endswith("legs.json")
    assert orphans(tmp_path) == []


def test_declining_recovery_discards_it(qtbot, tmp_path, monkeypatch, dialogs):
    monkeypatch.setenv("PIVOTAL_RECOVERY_DIR", str(tmp_path))
    (tmp_path / "session-999999999.json").write_text("{}")
    (tmp_path / "session-999999999.meta.json").write_text('{"pid": 999999999, "path": null}')
    doc = Document.from_file(SCENES / "legs.json")
    win = MainWindow(doc, restore_settings=False)
    qtbot.addWidget(win)
    dialogs.answer = Button.No
    assert not win.files.offer_recovery()
    assert list(tmp_path.iterdir()) == [] and not doc.dirty


def test_window_state_and_recent_files_persist(qtbot, tmp_path, monkeypatch):
    doc = Document.from_file(SCENES / "legs.json")
    win = MainWindow(doc)
    qtbot.addWidget(win)
    win.show()
    win.history_dock.raise_()
    win.actions_by_name["boneAxes"].setChecked(True)
    win.files.open(SCENES / "legs.json")
    win.close()
    again = MainWindow(Document.from_file(SCENES / "legs.json"))
    qtbot.addWidget(again)
    assert again.restored_geometry and again.viewport.show_axes
    assert again.recent_menu.actions()[0].text().endswith("legs.json")
    settings.settings().clear()  # later tests start from the default layout
