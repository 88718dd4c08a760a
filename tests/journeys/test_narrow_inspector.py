"""A newcomer on a small screen (a 1024-pixel-wide window) clicks through every bone,
constraint and part of the shipped scenes: each inspector page fits its dock without a
horizontal scroll bar, and every number field shows its whole value, as a person reads it
(a field narrower than its text would show "0.998" for 0.9987, or "-0.051" for -0.0511)."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from app.scene.rig.refs import Ref, part_refs
from tests.helpers import gui
from tests.helpers.paths import SCENES

SHIPPED = ["foot_roll", "fabrik_arm", "legs", "calf_points_at_ankle", "tumbling_box"]


def _cut_fields(page) -> list[str]:
    """The visible spin boxes whose shown text is wider than their text area."""
    cut = []
    for spin in page.findChildren(QtWidgets.QAbstractSpinBox):
        if not spin.isVisible():
            continue
        edit = spin.lineEdit()
        room = edit.contentsRect().width() - 2 * 2  # the line edit's own text margins
        if edit.fontMetrics().horizontalAdvance(edit.text()) > room:
            cut.append(f"{spin.objectName()} {edit.text()!r} in {room} px")
    return cut


@pytest.mark.parametrize("name", SHIPPED)
def test_every_inspector_page_fits_a_small_window(qtbot, name):
    win = gui.open_window(qtbot, SCENES / f"{name}.json", frame=30, size=(1024, 600))
    doc, inspector = win.document, win.inspector
    scene = doc.scene
    refs = [Ref.bone(b.name) for b in scene.bones[:8]]
    for c in scene.constraints:
        refs += [Ref.constraint(c.name), *part_refs(c)]
    bar = inspector.horizontalScrollBar()
    for ref in refs:
        doc.set_selection([ref])
        qtbot.waitUntil(lambda: inspector.widget().isVisible())
        qtbot.wait(10)  # the page's layout settles
        assert not bar.isVisible(), f"{ref.label()}: a horizontal scroll bar"
        assert _cut_fields(inspector.widget()) == [], ref.label()
