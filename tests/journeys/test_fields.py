"""Fields as in every desktop program, with real clicks and keys on the demo scene.

Esc puts back what the field showed and nothing is committed later; Enter commits and gives
the keyboard back, so K keys, Space plays and E extrudes; a range that would end before it
starts is refused with a word, not fixed by moving the other end.
"""

import pytest
from PySide6 import QtWidgets

from app.scene.rig import key_edits
from app.scene.rig.refs import Ref
from tests.journeys._fields import click_at, focused, press, shown, type_into


def bone_middle(window, name):
    doc = window.document
    pose = doc.pose()
    i = doc.scene.bone_index(name)
    return window.viewport.project([(pose.heads[0, i] + pose.tails[0, i]) / 2])[0]


def click_bone(window, name):
    click_at(window.viewport, bone_middle(window, name))
    assert window.document.active == Ref.bone(name), f"the click did not select {name}"


def field(window, name):
    found = window.findChild(QtWidgets.QAbstractSpinBox, name) or window.findChild(
        QtWidgets.QLineEdit, name
    )
    assert found is not None and found.isVisible(), name
    return found


def test_esc_restores_every_kind_of_field_and_nothing_is_committed_later(win):
    doc, timeline = win.document, win.timeline
    click_bone(win, "calf")
    before, history = doc.scene.copy(), doc.undo_stack.count()
    fields = [
        (field(win, "translation1"), "0.9"),  # a float spin box of the inspector
        (field(win, "rest_tail1"), "2.5"),  # a bone's tail
        (field(win, "rotationEuler0"), "45"),  # a rotation (with its ° suffix)
        (timeline.frame_spin, "40"),  # the timeline's int spin boxes
        (timeline.start_spin, "10"),
        (timeline.end_spin, "50"),
        (timeline.fps_spin, "12"),
    ]
    for spin, typed in fields:
        was = shown(spin)
        type_into(spin, typed)
        assert shown(spin).startswith(typed), spin.objectName()  # what was typed is there...
        press("Escape")
        assert shown(spin) == was, spin.objectName()  # ...and Esc puts back what it showed
        assert focused() is win.viewport  # the keyboard is back in the viewport
    # The session: 0.9 into calf's translation, Esc, then a click on another bone.
    type_into(field(win, "translation1"), "0.9")
    press("Escape")
    click_bone(win, "thigh")
    click_at(win.viewport, (5, 5))  # and on empty viewport
    assert doc.scene == before and doc.undo_stack.count() == history
    assert doc.frame == 0 and (doc.scene.frame_start, doc.scene.frame_end) == (0, 96)
    # Leaving the field commits what was typed, to the bone the field shows.
    click_bone(win, "calf")
    type_into(field(win, "translation1"), "0.25")
    click_at(win.viewport, (5, 5))
    assert key_edits.translation_at(doc.scene.bone("calf"), 0)[1] == pytest.approx(0.25)
    assert doc.undo_stack.count() == history + 1


def test_a_name_and_an_int_field_restore_on_esc_and_commit_on_enter(win):
    doc = win.document
    doc.set_selection([Ref.pivot_of("foot_roll", "heel")])
    name = field(win, "pivotName")
    type_into(name, "heel2")
    assert shown(name) == "heel2"
    press("Escape")
    assert shown(name) == "heel" and focused() is win.viewport
    doc.set_selection([Ref.constraint("foot_roll")])
    substeps = field(win, "substeps")
    was = shown(substeps)
    type_into(substeps, "7")
    press("Escape")
    assert shown(substeps) == was
    click_at(win.viewport, (5, 5))
    assert [p.name for p in doc.scene.constraint("foot_roll").pivots][0] == "heel"
    assert doc.undo_stack.count() == 0
    # Enter commits the name (the form rebuilds) and the keyboard is back in the viewport.
    doc.set_selection([Ref.pivot_of("foot_roll", "heel")])
    type_into(field(win, "pivotName"), "heel2")
    press("Return")
    assert [p.name for p in doc.scene.constraint("foot_roll").pivots][0] == "heel2"
    assert focused() is win.viewport and doc.undo_stack.count() == 1


def test_a_range_that_ends_before_it_starts_is_refused_with_a_word(win):
    doc, timeline = win.document, win.timeline
    for spin, typed, words in (
        (timeline.end_spin, "-5", "End -5 is before Start 0"),
        (timeline.start_spin, "500", "Start 500 is after End 96"),
    ):
        was = shown(spin)
        type_into(spin, typed)
        press("Return")
        assert (doc.scene.frame_start, doc.scene.frame_end) == (0, 96)  # nothing moved
        assert shown(spin) == was and doc.undo_stack.count() == 0  # the field turned back
        status = win.statusBar()
        assert status.isVisible() and words in status.currentMessage()
        QtWidgets.QApplication.processEvents()  # the tip shows once the keys went back
        assert QtWidgets.QToolTip.isVisible() and words in QtWidgets.QToolTip.text()
    type_into(timeline.end_spin, "50")  # a range that keeps the rule is taken
    press("Return")
    assert (doc.scene.frame_start, doc.scene.frame_end) == (0, 50)


def test_after_enter_in_the_frame_field_k_keys_and_space_plays(win):
    doc = win.document
    click_bone(win, "calf")
    type_into(win.timeline.frame_spin, "40")
    press("Return")
    assert doc.frame == 40 and focused() is win.viewport
    press("K")
    keys = doc.scene.bone("calf").rotation_keys
    assert keys is not None and 40 in keys.frames
    press("Space")
    assert doc.player.playing
    press("Space")
    assert not doc.player.playing


def test_after_enter_in_a_tail_field_e_extrudes(win):
    doc = win.document
    click_bone(win, "thigh")
    type_into(field(win, "rest_tail1"), "0.6")
    press("Return")
    assert doc.scene.tail_of(doc.scene.bone_index("thigh"))[1] == pytest.approx(0.6)
    bones = len(doc.scene.bones)
    press("E")
    assert len(doc.scene.bones) == bones + 1
    assert doc.scene.bones[-1].parent == "thigh"
