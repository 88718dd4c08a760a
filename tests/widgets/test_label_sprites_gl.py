"""Labels are drawn by the GL widget (app.widgets.viewport.label_sprites): in the
framebuffer where the layout puts them, from an atlas uploaded only when the labels change,
and without repainting the main window on every orbit or playback frame."""

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.scene.constraints.multi_parent.model import PIVOT_PART
from tests.helpers.gui import drag, framebuffer, open_window
from tests.helpers.paths import SCENES

PIVOT_COLOR = np.array(PIVOT_PART.color)


class PaintCounter(QtCore.QObject):
    def __init__(self):
        super().__init__()
        self.painted = []

    def eventFilter(self, obj, ev):
        if ev.type() == QtCore.QEvent.Type.Paint:
            self.painted.append(obj)
        return False


def test_a_pivot_label_is_in_the_framebuffer_in_its_colour(qtbot):
    win = open_window(qtbot, SCENES / "foot_roll.json")
    vp = win.viewport
    qtbot.wait(50)
    pixels = framebuffer(vp, qtbot)
    labels = vp._drawing.labels
    assert "swing" in vp.labels()
    assert vp.findChild(QtWidgets.QWidget, "viewportLabels") is None  # no raster overlay
    box = next(b for b, _, text, _ in labels.layout() if text == "swing")
    r = vp.devicePixelRatioF()
    inside = pixels[
        int(box.top() * r) : int(box.bottom() * r) + 1,
        int(box.left() * r) : int(box.right() * r) + 1,
    ]
    orange = np.round(PIVOT_COLOR[:3][::-1] * 255)
    close = np.abs(inside - orange).max(axis=-1) <= 12
    assert close.sum() >= 15  # the glyphs' cores
    # ... and not right of the box: the text is where the layout says.
    right = pixels[
        int(box.top() * r) : int(box.bottom() * r) + 1,
        int(box.right() * r) + 3 : int(box.right() * r) + 40,
    ]
    assert not (np.abs(right - orange).max(axis=-1) <= 12).any()


def test_the_atlas_is_uploaded_when_labels_change_not_per_frame(qtbot):
    win = open_window(qtbot, SCENES / "foot_roll.json")
    doc, vp = win.document, win.viewport
    doc.prepare_timeline()
    labels = vp._drawing.labels
    framebuffer(vp, qtbot)
    uploads, allocations = labels.uploads, labels.allocations
    vertices = labels._vertices
    assert uploads >= 1
    for frame in range(doc.scene.frame_start, doc.scene.frame_start + 10):
        doc.set_frame(frame)
        framebuffer(vp, qtbot)
    assert labels.uploads == uploads and labels.allocations == allocations
    assert labels._vertices is vertices
    labels.set_labels(np.zeros((1, 3)), ["a new label"], np.array([[1.0, 1.0, 1.0, 1.0]]))
    framebuffer(vp, qtbot)
    assert labels.uploads == uploads + 1


def test_orbiting_repaints_the_viewport_and_not_the_window_under_it(qtbot):
    win = open_window(qtbot, SCENES / "foot_roll.json")
    vp = win.viewport
    counter = PaintCounter()
    app = QtWidgets.QApplication.instance()
    app.installEventFilter(counter)
    try:
        qtbot.wait(50)
        counter.painted.clear()
        frames = vp.surface.frames
        azimuth = vp.opts["azimuth"]
        centre = np.array([vp.width() / 2, vp.height() / 2])
        drag(vp, centre, centre + [120, 30], steps=10, qtbot=qtbot)  # a real orbit
        qtbot.wait(50)
        orbit = list(counter.painted)
    finally:
        app.removeEventFilter(counter)
    # The view redrew as it turned, in its own window; neither the viewport's widget nor
    # the window under it repainted frame after frame (the press moves the keyboard focus
    # to the viewport, which repaints it and the docks once).
    assert vp.surface.frames - frames >= 6
    assert orbit.count(vp) <= 1
    assert orbit.count(win) <= 1
    assert vp.opts["azimuth"] != azimuth
