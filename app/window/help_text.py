"""The controls listed by Help ▸ Controls (F1): keep it in step with the README's controls.

They show in a box that scrolls, no taller than the screen has room for.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.window.layout import available_geometry, frame_margins

HELP_TEXT = """<h3>Pivotal controls</h3>
<table cellspacing=4>
<tr><td><b>Viewport</b></td><td></td></tr>
<tr><td>Drag on empty space</td><td>orbit · Ctrl: pan · wheel: zoom</td></tr>
<tr><td>Click</td><td>select a bone, pivot (orange), target (cyan) · Shift adds</td></tr>
<tr><td>Drag a pivot / target</td><td>move it facing you · Shift: along the ground</td></tr>
<tr><td>Ctrl+drag a pivot / bone</td><td>turn it with the arcball (a key when animated,
else the rest)</td></tr>
<tr><td>Esc while dragging</td><td>cancel the drag</td></tr>
<tr><td>Move · Rotate (toolbar)</td><td>arrows / rings on the selection · Local: its own axes
· Ctrl snaps (0.1 / 5°)</td></tr>
<tr><td>G · R</td><td>move / rotate with the mouse · X/Y/Z lock an axis (twice: local) ·
type a number (R Z 90) · Ctrl snaps · Enter or click confirms · Esc or right-click
cancels</td></tr>
<tr><td>F · Shift+F</td><td>frame the selection · frame everything at this frame</td></tr>
<tr><td>Ctrl+F · Ctrl+Shift+F</td><td>frame the whole animation · follow the selection (else
the root) as it plays</td></tr>
<tr><td>Drag a selected bone's tail</td><td>aim and size the bone (its rest tail)</td></tr>
<tr><td>Drag a limit's rim / ends</td><td>cone angle · hinge min (blue) / max (red)</td></tr>
<tr><td><b>Building</b> (viewport, outliner)</td><td></td></tr>
<tr><td>Shift+A · E</td><td>add menu (bone, constraints) · extrude from the tail</td></tr>
<tr><td>Shift+A on two bones</td><td>child of · copy rotation · copy location: the bone
selected last follows the other</td></tr>
<tr><td>Rig ▸ Foot Roll Rig… (Alt+I, F)</td><td>a reverse foot on a leg: a control rolling
on heel, ball and toe, leg IK, the foot turning with it (one undo)</td></tr>
<tr><td>An edit making a cycle</td><td>refused: constraints that read each other's bones
in a ring (the status bar names them)</td></tr>
<tr><td>F2 · X / Delete</td><td>rename · delete (asks about the children)</td></tr>
<tr><td>Drag in the outliner</td><td>reparent keeping its place · Shift: its values</td></tr>
<tr><td><b>Pose</b> (viewport, outliner)</td><td></td></tr>
<tr><td>Ctrl+C · Ctrl+V</td><td>copy · paste the selected bones' pose at this frame</td></tr>
<tr><td>Ctrl+Shift+V</td><td>paste flipped onto the other side (.l/.r, _L/_R, Left/Right)</td></tr>
<tr><td>Alt+R · Alt+G</td><td>clear rotation · location (keys it where animated)</td></tr>
<tr><td><b>Timeline</b></td><td></td></tr>
<tr><td>Space</td><td>play / pause · L loop</td></tr>
<tr><td>Left / Right · Home / End</td><td>step a frame · jump to start / end</td></tr>
<tr><td>Up / Down</td><td>next / previous key of the selection</td></tr>
<tr><td>K · Shift+K</td><td>key the selection · delete its key at this frame</td></tr>
<tr><td>Drag a diamond · Alt+drag</td><td>move the selection's keys there in time · copy
them (onto a key: replaces it)</td></tr>
<tr><td>T · right-click (timeline clicked)</td><td>interpolation of the keys at this frame:
Constant / Linear / Ease</td></tr>
<tr><td>Enter · Esc in a field</td><td>commit · put back what it showed (either way the
keys above work again)</td></tr>
<tr><td><b>Curves</b> (plot clicked)</td><td></td></tr>
<tr><td>Click · Shift+click · drag on empty</td><td>select a key · add or remove ·
box-select</td></tr>
<tr><td>Drag keys · Shift+drag</td><td>move in time (onto a key: replaces it) · in value
(rotations: the Euler XYZ option)</td></tr>
<tr><td>Ctrl+click a curve</td><td>insert a key there</td></tr>
<tr><td>Delete / X · Ctrl+C · Ctrl+V</td><td>delete the selected keys · copy · paste at this
frame</td></tr>
<tr><td>T · right-click a key</td><td>interpolation: Constant / Linear / Ease</td></tr>
<tr><td><b>Spaces</b></td><td></td></tr>
<tr><td>1 · 2 · 3</td><td>evaluate in world · object · as authored (not an edit)</td></tr>
<tr><td>C</td><td>Compare: the other space as a ghost, differences per bone</td></tr>
<tr><td><b>Teaching and analysis</b></td><td></td></tr>
<tr><td>T · Shift+T</td><td>motion trails · onion-skin ghosts (range in the Trails bar)</td></tr>
<tr><td>Alt+S</td><td>step through the selected FABRIK / multi-parent constraint</td></tr>
<tr><td>Alt+Right / Alt+Left</td><td>next / previous pass or integration step</td></tr>
<tr><td>View ▸ Mesh and Bones · Alt+Z</td><td>what a skinned character shows · X-ray
bones</td></tr>
<tr><td>View ▸ Labels · Alt+L</td><td>names beside pivots, targets and poles (where they crowd,
the selection's and the hovered one's show)</td></tr>
<tr><td>View ▸ Curves · Matrix Chain</td><td>values over time · the live matrix chain</td></tr>
</table>"""


def controls_dialog(parent: QtWidgets.QWidget) -> QtWidgets.QDialog:
    """The controls in a box beside the window (not modal: it may stay open while you try
    them), as tall as its text or as the screen's available height allows, scrolling the
    rest."""
    dialog = QtWidgets.QDialog(parent)
    dialog.setObjectName("controlsDialog")
    dialog.setWindowTitle("Controls")
    browser = QtWidgets.QTextBrowser()
    browser.setObjectName("controlsText")
    browser.setOpenLinks(False)
    browser.setHtml(HELP_TEXT)
    buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok)
    buttons.accepted.connect(dialog.accept)
    layout = QtWidgets.QVBoxLayout(dialog)
    layout.addWidget(browser)
    layout.addWidget(buttons)
    width = 620
    browser.document().setTextWidth(width - 40)
    text_height = int(browser.document().size().height()) + 12
    rest = layout.contentsMargins().top() + layout.contentsMargins().bottom()
    rest += layout.spacing() + buttons.sizeHint().height()
    area = available_geometry(parent)
    margins = frame_margins(parent.window()) if parent is not None else QtCore.QMargins()
    room = int(0.9 * (area.height() - margins.top() - margins.bottom()))
    dialog.resize(width, min(text_height + rest, room))
    return dialog


def show_controls(window: QtWidgets.QWidget) -> None:
    """F1: show the controls (the box already open, if it is), in front."""
    dialog = window.findChild(QtWidgets.QDialog, "controlsDialog") or controls_dialog(window)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
