"""The convergence view and the exact integrator in the editor, with real mouse and key events.

Opened from the View menu by clicks, the panel overlays the three integrators' head paths of
the foot roll; the substeps slider, moved by keys, shrinks the seed's distance to exact at
first order (checked against bakes of the scene, not the panel's own numbers), and the
curves are drawn (pixels). The inspector offers "exact", and new constraints use it.
"""

import dataclasses

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.editor.operations import constraint_operations
from app.scene.evaluate import bake
from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.paths import SCENES

LEFT = QtCore.Qt.MouseButton.LeftButton


def open_from_view_menu(qtbot, win, title):
    """Click View in the menu bar, then the dock's entry."""
    bar = win.menuBar()
    view = next(a for a in bar.actions() if a.text().replace("&", "") == "View")
    QTest.mouseClick(bar, LEFT, pos=bar.actionGeometry(view).center())
    menu = view.menu()
    qtbot.waitUntil(menu.isVisible)
    entry = next(a for a in menu.actions() if a.text().replace("&", "") == title)
    QTest.mouseClick(menu, LEFT, pos=menu.actionGeometry(entry).center())
    qtbot.waitUntil(lambda: not menu.isVisible())


def body_distance(scene, integrator, substeps, space=None):
    """Largest distance of the foot's head to the exact one, from bakes of the scene."""

    def heads(integ, sub):
        s = scene.copy()
        c = s.constraint("foot_roll")
        s.constraints = [dataclasses.replace(c, integrator=integ, substeps=sub)]
        return bake(s, None, space).heads[:, s.bone_index("foot")]

    return float(np.linalg.norm(heads(integrator, substeps) - heads("exact", 1), axis=1).max())


def colour_pixels(widget, rgb, tolerance=40):
    image = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())
    pixels = data[:, : 3 * w].reshape(h, w, 3).astype(int)
    return int((np.abs(pixels - np.array(rgb)).max(axis=2) < tolerance).sum())


def test_the_convergence_view_overlays_the_integrators_and_follows_the_slider(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", frame=10)
    doc = win.document
    assert not win.convergence_dock.isVisible()
    open_from_view_menu(qtbot, win, "Convergence")
    qtbot.waitUntil(win.convergence_dock.isVisible)
    panel = win.findChild(QtWidgets.QWidget, "convergencePanel")
    assert panel is not None
    qtbot.waitUntil(lambda: panel.paths is not None)
    assert panel.constraint.currentText() == "foot_roll"
    assert panel.slider.value() == 4
    d4 = panel.distance_at("seed")
    assert abs(d4 - body_distance(doc.scene, "seed", 4)) < 1e-12
    assert panel.distance_at("twist") < 1e-12  # object space, fixed pivots: the twist is exact

    panel.slider.setFocus()
    for _ in range(3):  # 4 -> 16 substeps, a page at a time
        QTest.keyClick(panel.slider, QtCore.Qt.Key.Key_PageUp)
    qtbot.waitUntil(lambda: panel.paths is not None and panel.paths.substeps == 16)
    d16 = panel.distance_at("seed")
    assert abs(d16 - body_distance(doc.scene, "seed", 16)) < 1e-12
    assert 3.5 < d4 / d16 < 4.5  # first order

    # World space (the toolbar's toggle): the view follows. The foot's pivots all turn about
    # parallel axes, so the twist stays exact there too.
    world = body_distance(doc.scene, "seed", 16, "world")
    assert abs(world - d16) > 1e-6
    doc.set_space("world")
    qtbot.waitUntil(lambda: abs(panel.distance_at("seed") - world) < 1e-12)
    assert panel.distance_at("twist") < 1e-12
    # The drawn paths: the exact one (white) and the seed's (orange) are on screen.
    qtbot.wait(50)
    assert colour_pixels(panel.path_plot, (235, 235, 235)) > 30
    assert colour_pixels(panel.path_plot, (255, 150, 40)) > 30
    exact = panel.shown_points("exact")
    assert exact.shape == (len(panel.paths.frames), 2)
    assert np.ptp(exact, axis=0).min() > 0.05  # a 2D view of a path that spreads

    # Scrubbing moves the frame line on the distance plot.
    doc.set_frame(30)
    assert panel.frame_line.value() == 30


def test_the_inspector_offers_exact_and_new_constraints_use_it(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", frame=10)
    doc = win.document
    assert doc.scene.constraint("foot_roll").integrator == "seed"  # the file says nothing
    doc.set_selection([Ref.constraint("foot_roll")])
    combo = win.inspector.findChild(QtWidgets.QComboBox, "integrator")
    assert [combo.itemText(i) for i in range(combo.count())] == ["seed", "twist", "exact"]
    combo.setFocus()
    QTest.keyClick(combo, QtCore.Qt.Key.Key_Down)
    QTest.keyClick(combo, QtCore.Qt.Key.Key_Down)
    assert doc.scene.constraint("foot_roll").integrator == "exact"
    assert doc.undo_stack.undoText() == "Set integrator of foot_roll to exact"
    np.testing.assert_allclose(doc.pose().heads, bake(doc.scene, [10]).heads, atol=1e-12)

    ref = constraint_operations.add_multi_parent(doc, "thigh")
    assert doc.scene.constraint(ref.name).integrator == "exact"
