"""Help ▸ Tutorials: every tutorial scene opens with its text; the basis change is live."""

import numpy as np
import pytest
from PySide6 import QtWidgets

from app.editor.operations import key_operations
from app.editor.tutorials import load_tutorials
from app.scene.io import load_scene
from app.scene.math.transforms import inverse, transform_points
from app.scene.rig.refs import POINT, Ref
from tests.helpers import gui
from tests.helpers.gui import drag
from tests.helpers.paths import SCENES


@pytest.fixture
def window(qtbot):
    return gui.open_window(qtbot, SCENES / "legs.json", size=(1280, 860))


def test_every_tutorial_opens_its_scene_and_shows_its_text(window, qtbot):
    doc = window.document
    menu = window.findChild(QtWidgets.QMenu, "tutorialsMenu")
    entries = [a for a in menu.actions() if a.objectName().startswith("tutorial_")]
    tutorials = load_tutorials()
    assert [a.text() for a in entries] == [t.title for t in tutorials]
    for action, tutorial in zip(entries, tutorials):
        assert action.isEnabled()
        action.trigger()  # what clicking the menu entry does
        assert doc.scene == load_scene(tutorial.scene)
        assert window.files.asks_where()  # read-only: Save never overwrites the bundled file
        assert window.tutorial_dock.isVisible() and window.tutorial_panel.tutorial == tutorial
        shown = window.tutorial_panel.text.toPlainText()
        assert shown.startswith(tutorial.title)  # the Markdown heading, rendered
        assert "What to try" in shown and "What to notice" in shown
        qtbot.wait(10)
    # Opening any other scene closes the tutorial's panel.
    window.files.new()
    assert not window.tutorial_dock.isVisible() and window.tutorial_panel.tutorial is None


def test_opening_a_tutorial_asks_before_losing_changes(window, qtbot, dialogs):
    doc = window.document
    doc.set_selection([Ref.bone("hip")])
    key_operations.set_key(doc)
    before = doc.scene.copy()
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Cancel
    window.actions_by_name["tutorial_fabrik_arm"].trigger()
    assert dialogs.kinds() == ["question"] and doc.scene == before
    assert not window.tutorial_dock.isVisible()


def test_the_basis_change_shows_the_point_in_both_frames_live(window, qtbot):
    window.actions_by_name["tutorial_basis_change"].trigger()
    doc, panel, viewport = window.document, window.tutorial_panel, window.viewport
    qtbot.wait(30)
    rows = dict(panel.rows())
    np.testing.assert_allclose(rows["Rice208"], [-2, -4, -10], atol=1e-12)  # the seed's numbers
    np.testing.assert_allclose(rows["RiceDoor"], [-1, 0, 30], atol=1e-12)
    table = panel.coordinates
    assert [table.item(r, 0).text() for r in range(3)] == ["world", "Rice208", "RiceDoor"]
    assert table.item(1, 2).text() == "(-2.00, -4.00, -10.00) ✓"
    labels = viewport.labels()
    assert "Einstein Bros Bagels" in labels
    assert "in Rice208: (-2.00, -4.00, -10.00)" in labels
    assert "in RiceDoor: (-1.00, 0.00, 30.00)" in labels
    # Drag the point (the bagel shop) in the viewport: both coordinates follow.
    point = dict(viewport.handles())[Ref(POINT, "EinsteinBrosBagels")]
    start = viewport.project(point[None])[0]
    drag(viewport, start, start + [60, -40], qtbot=qtbot)
    panel._throttled.flush()
    assert doc.selection == (Ref.bone("EinsteinBrosBagels"),)
    moved = dict(viewport.handles())[Ref(POINT, "EinsteinBrosBagels")]
    assert np.linalg.norm(moved - point) > 0.5
    pose = doc.pose().bone_to_world[0]
    rows = dict(panel.rows())
    for frame in ("Rice208", "RiceDoor"):
        i = doc.scene.bone_index(frame)
        np.testing.assert_allclose(
            rows[frame], transform_points(inverse(pose[i]), moved), atol=1e-9
        )
    assert table.item(1, 2).text().endswith("(moved)")
    assert doc.undo_stack.undoText() == "Move bone EinsteinBrosBagels"
    doc.undo_stack.undo()
    panel._throttled.flush()
    np.testing.assert_allclose(dict(panel.rows())["RiceDoor"], [-1, 0, 30], atol=1e-12)
