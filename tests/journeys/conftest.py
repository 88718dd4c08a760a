"""Fixtures of the journeys: one window per module on the demo, as `make run` opens it
(main.py without a scene), put back on a fresh copy of the demo before each test. A module
that needs another window defines its own ``window``."""

import pytest

from app.cli import DEMO_SCENE
from tests.journeys import _fields


@pytest.fixture(scope="module")
def window(qapp):
    yield from _fields.module_window(DEMO_SCENE)


@pytest.fixture
def win(window):
    _fields.fresh(window, DEMO_SCENE)
    return window
