"""PyOpenGL's per-call error checking: off in the editor, on with ``PIVOTAL_GL_CHECKS=1``.

With checking on, PyOpenGL calls ``glGetError`` after every GL call and wraps results; a
redraw makes one to two hundred calls, so the checks cost a measurable share of a frame's
Python. The flag is read once, when ``OpenGL.GL`` is first imported: import this module
before anything that imports pyqtgraph's OpenGL items (``main.py``, the tests' conftest
and the benchmark runner do so first thing). Set ``PIVOTAL_GL_CHECKS=1`` to debug a GL
error: every failing call then raises where it happens.
"""

from __future__ import annotations

import os
import sys

import OpenGL

#: The environment variable that turns PyOpenGL's error checking back on.
ENV = "PIVOTAL_GL_CHECKS"


def wanted() -> bool:
    """Whether error checking is asked for (``PIVOTAL_GL_CHECKS`` set and not ``0``)."""
    return os.environ.get(ENV, "").strip() not in ("", "0")


def configure() -> bool:
    """Set ``OpenGL.ERROR_CHECKING`` from the environment; returns the setting.

    Raises ``RuntimeError`` if ``OpenGL.GL`` was imported already with another setting
    (PyOpenGL reads the flag at that import; changing it later would not take effect).
    """
    on = wanted()
    if "OpenGL.GL" in sys.modules and bool(OpenGL.ERROR_CHECKING) != on:
        raise RuntimeError("app.window.gl_checks must be imported before OpenGL.GL")
    OpenGL.ERROR_CHECKING = on
    return on


configure()
