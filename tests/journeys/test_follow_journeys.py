"""An animator adds the follow kinds (child of, copy rotation, copy location) to a character
with Shift+A, reads the outliner, and walks into a cycle: what they see."""

from pathlib import Path

import pytest

from app.scene.rig.editing import Ref
from app.window.layout import message_room
from tests.conftest import SCENES

from . import _fields
from ._ux import add_from_menu, outliner_pick

HUMANOID = Path(SCENES) / "humanoid.glb"


@pytest.fixture(scope="module")
def window(qapp):
    yield from _fields.module_window(HUMANOID)


@pytest.fixture
def win(window):
    window.resize(1280, 800)
    _fields.fresh(window, HUMANOID)
    return window


def target_row(win, name: str) -> str:
    """The text of constraint ``name``'s target row in the outliner (and its tooltip)."""
    item = win.outliner.item_for(Ref.constraint(name))
    (row,) = [item.child(k) for k in range(item.childCount())]
    assert row.toolTip(0) == row.text(0)
    return row.text(0)


def test_outliner_names_a_target_end_only_where_the_kind_uses_it(win, qtbot):
    """Child of and copy rotation follow the target bone as a whole: their target row says
    "→ head", not "→ head head"; copy location goes to a point, so its row names the end."""
    kinds = {"Child Of": "hand.L", "Copy Rotation": "hand.R", "Copy Location": "forearm.R"}
    for kind, bone in kinds.items():
        outliner_pick(win, qtbot, "chest", bone)
        add_from_menu(win, qtbot, f"Add {kind} Constraint on {bone} following chest")
    names = {type(c).label: c.name for c in win.document.scene.constraints}
    assert target_row(win, names["child of"]) == "target → chest"
    assert target_row(win, names["copy rotation"]) == "target → chest"
    assert target_row(win, names["copy location"]) == "target → chest head"


def test_a_refused_cycle_is_readable_in_the_status_bar(win, qtbot):
    """A window as small as a laptop's: the refusal starts with what went wrong and ends in
    "…" where the room ends (whole in the tooltip), not cut mid-word under the frame
    number."""
    win.resize(1024, 640)
    qtbot.wait(50)
    outliner_pick(win, qtbot, "head", "hand.L")
    add_from_menu(win, qtbot, "Add Child Of Constraint on hand.L following head")
    outliner_pick(win, qtbot, "hand.L", "head")
    add_from_menu(win, qtbot, "Add Copy Location Constraint on head following hand.L")
    assert len(win.document.scene.constraints) == 1  # refused
    status = win.statusBar()
    shown = status.currentMessage()
    assert shown.startswith("Refused: the constraints would run in a cycle, "), shown
    assert shown.endswith("…"), shown
    assert status.fontMetrics().horizontalAdvance(shown) <= message_room(win)
    assert "each reads a bone that the one before it moves" in status.toolTip()
    frame = win.frame_label
    assert frame.isVisible()
    assert frame.geometry().left() >= status.fontMetrics().horizontalAdvance(shown)
