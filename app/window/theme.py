"""The editor's look: Qt's Fusion style with a dark palette, close to Blender's greys.

A dark frame around a dark viewport keeps the eye on the skeleton, and the outliner's
coloured names (orange pivots, cyan targets) read on it.
"""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

_APPLIED = "pivotal_theme"


def apply(app: QtWidgets.QApplication) -> None:
    """Dark Fusion for the whole application (once)."""
    if app.property(_APPLIED):
        return
    app.setProperty(_APPLIED, True)
    app.setStyle("Fusion")
    role = QtGui.QPalette.ColorRole
    group = QtGui.QPalette.ColorGroup
    p = QtGui.QPalette()
    colors = {
        role.Window: (48, 49, 54),
        role.WindowText: (222, 224, 230),
        role.Base: (34, 35, 40),
        role.AlternateBase: (42, 43, 48),
        role.ToolTipBase: (30, 31, 35),
        role.ToolTipText: (230, 230, 235),
        role.PlaceholderText: (130, 132, 140),
        role.Text: (222, 224, 230),
        role.Button: (58, 60, 66),
        role.ButtonText: (222, 224, 230),
        role.BrightText: (255, 110, 90),
        role.Highlight: (66, 112, 190),
        role.HighlightedText: (255, 255, 255),
        role.Link: (110, 170, 255),
        role.Light: (80, 82, 90),
        role.Midlight: (66, 68, 74),
        role.Mid: (40, 41, 46),
        role.Dark: (26, 27, 30),
        role.Shadow: (10, 10, 12),
    }
    for r, rgb in colors.items():
        p.setColor(r, QtGui.QColor(*rgb))
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(group.Disabled, r, QtGui.QColor(120, 122, 128))
    app.setPalette(p)
