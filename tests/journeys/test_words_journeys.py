"""Journeys through what the editor says (issue 26, items 4 and 5): the inspector offers only
settings that change something, an identical constraint is refused with the reason, each key
says what it does to what is selected, generated names read as words and fit the outliner,
status messages give way to the newest and expire, a refused file reads as a sentence. One
window on the demo for the module; real clicks, keys and drops.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.cli import DEMO_SCENE
from app.scene.rig import key_edits
from app.scene.rig.refs import Ref, resolve
from tests.helpers.gui import CTRL, drop_file, key
from tests.journeys import _fields
from tests.journeys._steps_a import ALT, outliner_click
from tests.journeys._ux import add_from_menu, add_menu_texts, outliner_pick
from tests.journeys._words import plain


@pytest.fixture
def win(window):
    _fields.fresh(window, DEMO_SCENE)
    window.document.set_selection([])
    window.statusBar().clearMessage()
    return window


def _status(win) -> str:
    return win.statusBar().currentMessage()


def _inspector_words(win) -> list[str]:
    """The words the inspector shows: its labels, as a person reads them."""
    return [
        plain(w.text())
        for w in win.inspector.findChildren(QtWidgets.QLabel)
        if w.isVisible() and w.text()
    ]


def _row_shows_whole(outliner, item) -> bool:
    """Whether an outliner row's name is drawn whole (not cut to "copy_ro….hand.R")."""
    rect = outliner.visualItemRect(item)
    width = QtGui.QFontMetrics(item.font(0)).horizontalAdvance(item.text(0))
    room = (
        (outliner.viewport().width() if item.isFirstColumnSpanned() else outliner.columnWidth(0))
        - rect.left()
        - 8
    )
    return width <= room


def test_a_child_of_offers_what_changes_something_and_is_added_once(win, qtbot):
    """Issue 26 items 4 and 5: a Child Of is named in words, shown whole in the outliner, its
    inspector offers no Space (it changes nothing), and a second identical one is refused."""
    doc = win.document
    outliner_pick(win, qtbot, "foot", "thigh")  # the target, then the bone (Blender's way)
    add_from_menu(win, qtbot, "Add Child Of Constraint on thigh following foot")
    added = doc.scene.constraints[-1]
    assert added.name == "Child Of thigh"
    assert _status(win) == "Add Child Of thigh following foot (Ctrl+Z undoes)"
    item = win.outliner.item_for(Ref.constraint(added.name))
    assert item.text(0) == "Child Of thigh" and _row_shows_whole(win.outliner, item)
    words = " · ".join(_inspector_words(win))
    assert "Child Of thigh" in words
    assert "Space" not in words and "changes nothing" not in words, words
    # the same again: greyed in the add menu, saying why
    count = len(doc.scene.constraints)
    outliner_pick(win, qtbot, "foot", "thigh")
    entries = add_menu_texts(win, qtbot)
    QTest.keyClick(QtWidgets.QApplication.activePopupWidget(), QtCore.Qt.Key.Key_Escape)
    child_of = [t for t in entries if t.startswith("Add Child Of Constraint on thigh")]
    assert (
        child_of
        == ["Add Child Of Constraint on thigh following foot (Child Of thigh does this already)"]
        and not entries[child_of[0]]
    ), entries
    assert len(doc.scene.constraints) == count


def test_every_key_says_what_it_does_to_what_is_selected(win, qtbot):
    """Alt+R on a pivot turns it back (it said "Select the bones whose pose to use"); the
    keys that cannot act on a pivot or on nothing say what they do and to what."""
    doc, vp = win.document, win.viewport
    ball = Ref.pivot_of("foot_roll", "ball")
    pivot = resolve(doc.scene, ball)
    frame = next(
        f
        for f in range(doc.scene.frame_start, doc.scene.frame_end + 1)
        if abs(key_edits.rotation_at(pivot, f)[0]) < 0.999
    )
    doc.set_frame(frame)
    outliner_click(win, qtbot, ball)
    vp.setFocus()
    key(vp, "R", ALT)
    assert _status(win) == f"Clear rotation of pivot ball at frame {frame} (Ctrl+Z undoes)"
    turned = key_edits.rotation_at(resolve(doc.scene, ball), frame)
    assert np.allclose(turned, [1, 0, 0, 0])
    angle = win.inspector.findChild(QtWidgets.QWidget, "rotation").angle
    assert "0.00" in " ".join(e.text() for e in angle.findChildren(QtWidgets.QLineEdit))
    key(vp, "G", ALT)
    assert _status(win) == (
        "Alt+G puts the selected bones back at their rest location; pivot "
        "ball has no rest location (drag it, or type where it sits in the "
        "inspector)"
    )
    key(vp, "C", CTRL)
    assert _status(win) == (
        "Ctrl+C copies the pose of the selected bones; pivot ball is not a bone"
    )
    doc.set_selection([])
    key(vp, "K")
    assert _status(win) == (
        "K keys the selected bones, pivots and position targets at this frame: select some first"
    )


def test_status_messages_give_way_to_the_newest_and_expire(win, qtbot, monkeypatch):
    """An inspector edit after "Opened …" says what it did (the old message stayed); Ctrl+Z
    says what it undid; a message goes once its time is up."""
    from app.window import layout

    doc = win.document
    assert win.files.open(str(DEMO_SCENE))
    assert _status(win).startswith("Opened foot_roll.json")
    outliner_click(win, qtbot, Ref.bone("calf"))
    _fields.type_into(win.inspector.findChild(QtWidgets.QWidget, "translation1"), "0.25")
    _fields.press("Return")
    assert doc.undo_stack.count() == 1
    assert _status(win) == f"{doc.undo_stack.text(0)} (Ctrl+Z undoes)"
    monkeypatch.setattr(layout, "MESSAGE_MS", 300)
    win.viewport.setFocus()
    key(win.viewport, "Z", CTRL)
    assert _status(win) == f"Undone: {doc.undo_stack.text(0)} (Ctrl+Shift+Z redoes)"
    qtbot.waitUntil(lambda: _status(win) == "", timeout=2000)


def _cut_fbx(tmp_path):
    from pathlib import Path

    data = (Path(__file__).parents[1] / "data" / "fbx" / "huesitos.fbx").read_bytes()
    path = tmp_path / "huesitos-cut.fbx"
    path.write_bytes(data[: len(data) // 3])
    return path


def test_a_refused_file_says_why_in_a_sentence(win, qtbot, tmp_path, dialogs):
    """A text file renamed .glb was "Where: / Why: not glTF: malformed JSON", a truncated FBX
    assimp's "FBX-Tokenize (offset 0x328a) block offset is out of range"; each now says in
    one sentence which file, why and where, assimp's words kept as details."""
    notes = tmp_path / "notes.glb"
    notes.write_text("shopping: bread, eggs\n")
    scene = win.document.scene
    for path in (notes, _cut_fbx(tmp_path)):
        drop_file(win, path)
        qtbot.waitUntil(lambda p=path: any(p.name in c[2] for c in dialogs.calls))
    (_, _, glb), (_, _, fbx) = [c for c in dialogs.calls if c[0] == "critical"]
    glb, fbx = plain(glb), plain(fbx)
    for text in (glb, fbx):
        assert "Where:" not in text and "Why:" not in text, text
    assert glb.startswith("notes.glb could not be opened: it is a text file, not a glTF binary"), (
        glb
    )
    assert "JSON" not in glb.split("Details")[0], glb
    assert fbx.startswith(
        "huesitos-cut.fbx could not be opened: the file ends too early or is damaged"
    ), fbx
    assert "(at byte 12,938)." in fbx, fbx
    assert "Details: assimp: FBX-Tokenize (offset 0x328a) block offset is out of range" in fbx
    assert win.document.scene is scene  # the open scene stays
