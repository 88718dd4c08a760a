"""Test setup shared by every test module.

OpenGL contexts must be shared before the QApplication exists: pyqtgraph caches its shader
programs per class, so without sharing every GL widget after the first draws nothing.
"""

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from PySide6 import QtCore  # noqa: E402

QtCore.QCoreApplication.setAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

ROOT = Path(__file__).resolve().parent.parent
SCENES = ROOT / "resources" / "scenes"
CMU_DIR = Path("/usr/share/assimp/models/BVH")


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def cmu_01_01():
    path = CMU_DIR / "01_01.bvh"
    assert path.exists(), "make test installs Debian's assimp-testmodels, which ships this clip"
    return path
