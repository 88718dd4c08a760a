"""Journey: every string a person can read says words, not identifiers (issue 18, item 7).

One window opens each shipped scene in turn (the demo, FABRIK, points-at, the tumbling box,
the CMU clip, the glTF humanoid), opens every dock and panel, selects an item of each kind,
makes a few edits, and reads everything on screen (:mod:`tests.journeys._words`): no
snake_case identifier, no ``None``/``True``/``[...]``/``{...}`` repr and no "1 keys" may
show, once the scene's own names are taken out.
"""

from __future__ import annotations

from PySide6 import QtWidgets
from PySide6.QtTest import QTest

from app.editor.operations import key_operations
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.rig.refs import BONE, CONSTRAINT, Ref
from app.widgets.add_menu import build_add_menu
from tests.helpers.gui import LEFT, NO_MODS, SHIFT, key, open_window
from tests.helpers.paths import CMU_DIR, SCENES
from tests.journeys._words import (
    menu_strings,
    message_fits,
    offences,
    outliner_cells,
    plain,
    scene_names,
    visible_strings,
)

SHIPPED = [
    SCENES / "foot_roll.json",
    SCENES / "fabrik_arm.json",
    SCENES / "calf_points_at_ankle.json",
    SCENES / "tumbling_box.json",
    CMU_DIR / "01_01.bvh",
    SCENES / "humanoid.glb",
]


def _refs(scene) -> list[Ref]:
    """One item of each kind: the first and a deep bone, each constraint, a pivot, a target
    and a pole."""
    refs = [Ref.bone(scene.bones[0].name), Ref.bone(scene.bones[-1].name)]
    for c in scene.constraints:
        refs.append(Ref.constraint(c.name))
        if isinstance(c, MultiParent):
            refs.append(Ref.pivot_of(c.name, c.pivots[-1].name))
        else:
            refs.append(Ref.target_of(c.name))
        if getattr(c, "pole", None) is not None:
            refs.append(Ref.pole_of(c.name))
    return refs


def _show_every_dock(window) -> None:
    for dock in window.findChildren(QtWidgets.QDockWidget):
        if not dock.isVisible():
            dock.toggleViewAction().trigger()
    window.document.set_compare(True)


def _read(window, qtbot, strings: list) -> None:
    qtbot.wait(10)
    strings.extend(visible_strings(window))
    message, width, room = message_fits(window)
    if width > room:
        strings.append(("status bar, cut", f"{message} ({width} px in {room} px)"))


def _session(window, qtbot, path, strings: list) -> None:
    doc = window.document
    assert window.files.open(str(path)), path
    _show_every_dock(window)
    doc.set_frame(doc.scene.frame_start + 3)
    _read(window, qtbot, strings)
    for ref in _refs(doc.scene):
        doc.set_selection([ref])
        if ref.kind == CONSTRAINT and doc.scene.constraint(ref.name).type != "points_at":
            window.actions_by_name["stepThrough"].setChecked(True)
            window.step_through.start(ref.name)
            window.step_through.next()
        if ref.kind == BONE or ref.is_part:
            key(window.viewport, "K")  # a key at the current frame, as a person keys
        _read(window, qtbot, strings)
        strings.extend(menu_strings(build_add_menu(doc, window, ref), f"add menu of {ref}"))
    # Drag the last bone over the first in the outliner: the status bar says what a drop
    # does (a long message, beside the selection's hint), then the drop reparents it.
    outliner = window.outliner
    last, first = (
        outliner.item_for(Ref.bone(b.name)) for b in (doc.scene.bones[-1], doc.scene.bones[0])
    )
    start = outliner.visualItemRect(last).center()
    end = outliner.visualItemRect(first).center()
    QTest.mousePress(outliner.viewport(), LEFT, NO_MODS, start)
    for t in (0.3, 0.6, 1.0):
        QTest.mouseMove(outliner.viewport(), start + (end - start) * t)
    _read(window, qtbot, strings)
    QTest.mouseRelease(outliner.viewport(), LEFT, NO_MODS, end)
    # Key edits on the one key at the current frame: the undo texts speak of "1 key".
    bone = Ref.bone(doc.scene.bones[0].name)
    doc.set_selection([bone])
    key(window.viewport, "K")
    selected = dict(list(key_operations.keys_at_frame(doc).items())[:1])  # one key
    key_operations.set_interpolation(doc, selected, "ease")
    _read(window, qtbot, strings)
    move = key_operations.KeyMove(doc, selected)
    move.to(1.0)
    move.commit()
    _read(window, qtbot, strings)


def test_every_visible_string_is_words_for_people(qtbot):
    window = open_window(qtbot, SHIPPED[0], size=(1280, 800))
    found = []
    for path in SHIPPED:
        strings: list = []
        _session(window, qtbot, path, strings)
        names = scene_names(window.document.scene, path)
        found += [(path.name, *o) for o in offences(set(strings), names)]
        found += [(path.name, where, text, "cut") for where, text in strings if "cut" in where]
    report = "\n".join(
        f"{scene}: {where}: {text[:120]!r} ({why})"
        for scene, where, text, why in sorted(set(found))
    )
    assert not found, f"{len(found)} strings show identifiers, reprs or bad plurals:\n{report}"


def test_outliner_names_keep_both_ends(qtbot):
    """CMU 01_01's 31 bones nest eleven deep: at the first window's size every name shows
    whole or loses only its middle, inside the outliner, with the whole name as tooltip."""
    window = open_window(qtbot, CMU_DIR / "01_01.bvh", size=(1280, 800))
    qtbot.wait(30)
    cells = outliner_cells(window.outliner)
    assert len(cells) == 2 + 31
    bad = []
    for text, shown, tooltip, inside in cells:
        both_ends = shown == text or (
            "…" in shown and shown.startswith(text[:3]) and shown.endswith(text[-3:])
        )
        if not (both_ends and inside and (text in tooltip or text in ("Bones", "Constraints"))):
            bad.append(f"{text!r} shows {shown!r} (inside: {inside}, tooltip {tooltip!r})")
    assert not bad, "\n".join(bad)


def test_shift_a_offers_only_what_can_be_done(qtbot):
    """The demo's foot is a root driven by a multi-parent: Shift+A on it offers no FABRIK
    "on foot and its parent" (it has none) and greys a second multi-parent; on the calf,
    FABRIK names the calf and its real parent."""
    window = open_window(qtbot, SCENES / "foot_roll.json")
    doc = window.document
    texts = {}
    for bone in ("foot", "calf"):
        doc.set_selection([Ref.bone(bone)])
        key(window.viewport, "A", SHIFT)
        qtbot.waitUntil(lambda: getattr(window, "_shown_add_menu", None) is not None)
        menu = window._shown_add_menu
        texts[bone] = {a.text(): a.isEnabled() for a in menu.actions() if a.text()}
        menu.close()
        window._shown_add_menu = None
    assert not any("FABRIK" in t for t in texts["foot"]), texts["foot"]
    multi = [t for t in texts["foot"] if t.startswith("Add Multi-Parent")]
    assert multi and not texts["foot"][multi[0]], texts["foot"]
    assert texts["calf"].get("Add FABRIK Constraint on calf and its parent foot"), texts["calf"]


def test_file_errors_name_the_kind_of_file(qtbot, tmp_path, dialogs):
    """A text file is not "malformed JSON", and a BVH of garbage shows its bytes readably
    (no replacement character)."""
    window = open_window(qtbot, SCENES / "foot_roll.json")
    scene = window.document.scene
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping: bread, eggs\n")
    garbage = tmp_path / "clip.bvh"
    garbage.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe garbage")
    for path in (notes, garbage):
        assert not window.files.open(str(path))
    (_, _, txt), (_, _, bvh) = [c for c in dialogs.calls if c[0] == "critical"]
    txt, bvh = plain(txt), plain(bvh)
    assert "notes.txt could not be opened: it is not a Pivotal scene" in txt, txt
    assert "BVH" in txt and "glTF" in txt, txt
    assert "JSON" not in txt.replace("(.json)", ""), txt
    assert "\ufffd" not in bvh and "\\x89PNG" in bvh and "not a BVH clip" in bvh, bvh
    assert window.document.scene is scene  # the open scene stays


def test_units_on_the_compare_table(qtbot):
    """Every number in the Compare table carries a unit, in its cell or its heading."""
    window = open_window(qtbot, SCENES / "foot_roll.json", frame=40)
    window.document.set_compare(True)
    qtbot.wait(30)
    table = window.compare_table.table
    assert table.rowCount() == len(window.document.scene.bones)
    for c in range(1, table.columnCount()):
        heading = table.horizontalHeaderItem(c).text()
        for r in range(table.rowCount()):
            cell = table.item(r, c).text()
            bare = cell.replace(".", "").replace("+", "").replace("-", "").isdigit()
            assert not bare or "(" in heading, f"{heading!r}: {cell!r} has no unit"
