"""A real OpenGL viewport (Xvfb + Mesa llvmpipe) renders the demo skeleton."""

import numpy as np
import pytest

from app.editor.document import Document
from app.widgets.viewport.viewport import BACKGROUND
from app.window.main_window import MainWindow
from tests.helpers.paths import SCENES


def framebuffer(viewport, qtbot):
    qtbot.waitExposed(viewport)
    image = viewport.grabFramebuffer()
    width, height = image.width(), image.height()
    ptr = image.constBits()
    data = np.frombuffer(ptr, dtype=np.uint8, count=image.bytesPerLine() * height)
    rows = data.reshape(height, image.bytesPerLine())[:, : width * 4]
    return rows.reshape(height, width, 4)[..., :3].astype(int)  # BGRA -> BGR


@pytest.fixture
def window(qtbot):
    document = Document.from_file(SCENES / "legs.json")
    win = MainWindow(document)
    win.resize(900, 700)
    qtbot.addWidget(win)
    win.show()
    return win


def test_gl_context_is_real(window, qtbot):
    from OpenGL import GL

    qtbot.waitExposed(window.viewport)
    window.viewport.makeCurrent()
    version = GL.glGetString(GL.GL_VERSION)
    assert version is not None and int(version.split(b".")[0]) >= 2


def test_viewport_draws_the_skeleton(window, qtbot):
    pixels = framebuffer(window.viewport, qtbot)
    background = np.array(BACKGROUND[::-1])  # BGR
    # Bones are light grey; the background and the grid are dark.
    bright = pixels.min(axis=2) > 110
    assert bright.sum() > 500, "no bone pixels found"
    # The bright pixels sit where the skeleton projects: around the middle of the view.
    ys, xs = np.nonzero(bright)
    h, w = bright.shape
    assert 0.2 * w < xs.mean() < 0.8 * w and 0.1 * h < ys.mean() < 0.9 * h
    corner = pixels[:5, :5].reshape(-1, 3)
    assert np.all(np.abs(corner - background).max(axis=1) <= 2)


def test_scrubbing_changes_the_image(window, qtbot):
    first = framebuffer(window.viewport, qtbot)
    window.document.set_frame(12)
    qtbot.wait(50)
    second = framebuffer(window.viewport, qtbot)
    changed = np.abs(first - second).max(axis=2) > 40
    assert changed.sum() > 200  # the right leg swung and bent
