"""Pivotal: ``python main.py --help`` lists the commands."""

import sys

import app.window.gl_checks  # noqa: F401  (before OpenGL.GL: PyOpenGL error checks off)
from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
