"""What ships is never overwritten: the demo `make run` opens, a tutorial's scene, and the
work recovered after a crash all keep the shipped file as it is; Save asks where the user's
copy goes, and the title says so before anyone presses it."""

import os
from pathlib import Path

from PySide6 import QtWidgets

from app.cli import DEMO_SCENE, ROOT
from app.editor import settings
from app.editor.recovery import Autosaver, orphans
from app.editor.tutorials import load_tutorials
from app.scene.io import load_scene
from app.scene.rig.refs import Ref
from tests.helpers.gui import CTRL, SHIFT
from tests.journeys import _fields
from tests.journeys._fields import kept_bytes, press

SHIPPED = ROOT / "resources"  # what ships with Pivotal


class SaveDialog:
    """Answers File ▸ Save As with ``answer`` ("" cancels) and records what it offered."""

    def __init__(self, monkeypatch, answer):
        self.answer, self.offered = str(answer), []
        monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(self))

    def __call__(self, parent, caption, suggestion, *args, **kwargs):
        self.offered.append(suggestion)
        return self.answer, ""


def edit(window):
    """A change made as a person makes it: a bone clicked in the outliner, K."""
    doc = window.document
    outliner = window.outliner
    item = outliner.item_for(Ref.bone("calf"))
    outliner.scrollToItem(item)
    _fields.click_at(outliner.viewport(), outliner.visualItemRect(item).center())
    assert doc.selected_bones() == ["calf"]
    window.viewport.setFocus()
    count = doc.undo_stack.count()
    press("K")
    assert doc.undo_stack.count() == count + 1 and doc.dirty


def test_the_demo_says_it_ships_and_save_keeps_it_as_it_is(win, monkeypatch, tmp_path):
    doc = win.document
    title = win.windowTitle()
    mine = tmp_path / "my_foot_roll.json"
    dialog = SaveDialog(monkeypatch, mine)
    with kept_bytes(DEMO_SCENE) as before:
        edit(win)
        press("S", CTRL)  # File ▸ Save: asks where, as Save As does
        assert DEMO_SCENE.read_bytes() == before[DEMO_SCENE]
    assert "shipped example, read-only" in title  # said before Save was pressed
    assert len(dialog.offered) == 1
    offered = Path(dialog.offered[0])
    assert offered.name == "foot_roll.json" and not offered.resolve().is_relative_to(SHIPPED)
    assert load_scene(mine) == doc.scene and not doc.dirty  # the work is where they chose
    assert win.windowTitle().startswith("my_foot_roll.json") and "shipped" not in win.windowTitle()
    assert settings.recent_files()[0] == str(mine.resolve())
    # From now on Save writes the user's file without asking.
    doc.set_frame(30)
    press("K")
    press("S", CTRL)
    assert len(dialog.offered) == 1 and load_scene(mine) == doc.scene


def test_save_as_onto_a_shipped_file_is_refused_with_a_word(win, monkeypatch, dialogs):
    doc = win.document
    dialog = SaveDialog(monkeypatch, DEMO_SCENE)
    with kept_bytes(DEMO_SCENE) as before:
        edit(win)
        press("S", CTRL | SHIFT)
        assert DEMO_SCENE.read_bytes() == before[DEMO_SCENE]
    assert len(dialog.offered) == 1 and doc.dirty
    assert dialogs.calls and "ships with Pivotal" in dialogs.calls[-1][2]
    assert "ships with Pivotal" in win.statusBar().currentMessage()
    # Closing with the changes: Save asks where; cancelling keeps the window and the file.
    dialog.answer = ""
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Save
    with kept_bytes(DEMO_SCENE) as before:
        assert not win.close()
        assert DEMO_SCENE.read_bytes() == before[DEMO_SCENE]
    assert win.isVisible() and doc.dirty and len(dialog.offered) == 2
    assert dialogs.calls[-1][0] == "question" and "a shipped example" in dialogs.calls[-1][2]


def test_a_tutorial_scene_is_kept_too(win, monkeypatch, tmp_path):
    tutorial = next(t for t in load_tutorials() if t.scene.suffix == ".json")
    win.actions_by_name[f"tutorial_{tutorial.id}"].trigger()
    title = win.windowTitle()
    dialog = SaveDialog(monkeypatch, tmp_path / "mine.json")
    with kept_bytes(tutorial.scene) as before:
        edit_any(win)
        press("S", CTRL)
        assert tutorial.scene.read_bytes() == before[tutorial.scene]
    assert title.startswith(tutorial.scene.name) and "shipped example, read-only" in title
    assert len(dialog.offered) == 1 and load_scene(tmp_path / "mine.json") == win.document.scene


def edit_any(window):
    doc = window.document
    doc.set_selection([Ref.bone(doc.scene.bones[0].name)])
    window.viewport.setFocus()
    press("K")
    assert doc.dirty


def test_work_recovered_on_the_demo_still_asks_where(win, monkeypatch, tmp_path, dialogs):
    doc = win.document
    monkeypatch.setenv("PIVOTAL_RECOVERY_DIR", str(tmp_path / "recovery"))
    edit(win)
    autosaver = Autosaver(doc, directory=tmp_path / "recovery")
    assert autosaver.autosave()
    autosaver.stop()
    autosaver.deleteLater()
    # What a crashed session leaves: the same files under a process that no longer runs.
    dead = 2**22 + 12345
    for f in (autosaver.scene_file, autosaver.meta_file):
        f.rename(f.with_name(f.name.replace(str(os.getpid()), str(dead))))
    meta = autosaver.meta_file.with_name(f"session-{dead}.meta.json")
    meta.write_text(meta.read_text().replace(f'"pid": {os.getpid()}', f'"pid": {dead}'))
    assert [r.original_path for r in orphans(tmp_path / "recovery")] == [str(DEMO_SCENE)]
    doc.undo_stack.setClean()
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Yes
    assert win.files.offer_recovery()
    title = win.windowTitle()
    dialog = SaveDialog(monkeypatch, tmp_path / "recovered.json")
    with kept_bytes(DEMO_SCENE) as before:
        press("S", CTRL)
        assert DEMO_SCENE.read_bytes() == before[DEMO_SCENE]
    assert len(dialog.offered) == 1 and not doc.dirty
    assert "shipped example, read-only" in title
