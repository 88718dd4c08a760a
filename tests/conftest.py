"""Test setup shared by every test module.

PyOpenGL's error checks are on in the tests (off in the editor): a GL error fails the test
that caused it. OpenGL contexts must be shared before the QApplication exists: pyqtgraph
caches its shader programs per class, so without sharing every GL widget after the first
draws nothing.
"""

import os

import numpy as np
import pytest

# Every GL call of the tests is checked (PyOpenGL raises at the failing call); the editor
# itself runs without the checks, which cost a share of each frame (app/window/gl_checks.py).
os.environ.setdefault("PIVOTAL_GL_CHECKS", "1")

import app.window.gl_checks  # noqa: E402, F401  (before OpenGL.GL, as main.py does)

os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from PySide6 import QtCore  # noqa: E402

QtCore.QCoreApplication.setAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

from tests.helpers.paths import CMU_DIR, ROOT, SCENES  # noqa: E402, F401  (fixtures use them)


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def cmu_01_01():
    path = CMU_DIR / "01_01.bvh"
    assert path.exists(), "make test installs Debian's assimp-testmodels, which ships this clip"
    return path


@pytest.fixture(autouse=True, scope="session")
def _isolated_settings(tmp_path_factory):
    """Keep the editor's QSettings and recovery files out of the user's home."""
    QtCore.QSettings.setPath(
        QtCore.QSettings.Format.IniFormat,
        QtCore.QSettings.Scope.UserScope,
        str(tmp_path_factory.mktemp("settings")),
    )
    os.environ["PIVOTAL_RECOVERY_DIR"] = str(tmp_path_factory.mktemp("recovery"))


class Dialogs:
    """Modal message boxes, recorded and answered instead of shown (a test never blocks).

    ``answer`` is what ``question`` returns (default: Discard, so closing a window with
    unsaved changes in a test's teardown discards them); ``calls`` lists ``(kind, title,
    text)``.
    """

    def __init__(self):
        from PySide6 import QtWidgets

        self.answer = QtWidgets.QMessageBox.StandardButton.Discard
        self.calls = []

    def kinds(self):
        return [c[0] for c in self.calls]


@pytest.fixture(autouse=True)
def dialogs(monkeypatch):
    from PySide6 import QtWidgets

    recorder = Dialogs()
    box = QtWidgets.QMessageBox

    def fake(kind):
        def show(parent, title, text, *args, **kwargs):
            recorder.calls.append((kind, title, text))
            return recorder.answer if kind == "question" else box.StandardButton.Ok

        return staticmethod(show)

    for kind in ("question", "critical", "warning", "information", "about"):
        monkeypatch.setattr(box, kind, fake(kind))
    return recorder
