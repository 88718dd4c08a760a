"""The model never knows its views: app.scene imports no Qt, pyqtgraph or OpenGL."""

import subprocess
import sys

from .conftest import ROOT


def test_app_scene_imports_no_gui_modules():
    code = (
        "import sys, pkgutil, importlib, app.scene\n"
        "for m in pkgutil.walk_packages(app.scene.__path__, 'app.scene.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph', 'OpenGL'))\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""
