"""The toolbar's space toggle: World / Object / As authored, an evaluation override.

It edits nothing: each constraint keeps its own ``space`` in the file, and "As authored"
evaluates them so again.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

CHOICES = (
    (
        "world",
        "World",
        "spaceWorld",
        "Solve every constraint in world coordinates — for comparing, not an edit (1)",
    ),
    (
        "object",
        "Object",
        "spaceObject",
        "Solve every constraint in its body's own coordinates — for comparing, not an edit (2)",
    ),
    (
        None,
        "As authored",
        "spaceAuthored",
        "Evaluate each constraint in the space saved in the file (3)",
    ),
)


class SpaceToggle(QtWidgets.QWidget):
    """Three exclusive buttons bound to :meth:`Document.set_space`."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("spaceToggle")
        self._document = document
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(0)
        layout.addWidget(QtWidgets.QLabel("Space  "))
        self._group = QtWidgets.QButtonGroup(self)
        self._group.setExclusive(True)
        self.buttons: dict = {}
        for space, text, name, tip in CHOICES:
            b = QtWidgets.QToolButton()
            b.setObjectName(name)
            b.setText(text)
            b.setToolTip(tip)
            b.setCheckable(True)
            b.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
            b.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
            b.clicked.connect(lambda _=False, s=space: document.set_space(s))
            self._group.addButton(b)
            layout.addWidget(b)
            self.buttons[space] = b
        self.setStyleSheet(
            "QToolButton { padding: 3px 9px; border: 1px solid #1c1d21; background: #3a3c42; }"
            "QToolButton:checked { background: #4270be; color: white; }"
            "QToolButton:hover:!checked { background: #474a52; }"
        )
        document.space_changed.connect(self._sync)
        self._sync(document.space)

    def _sync(self, space) -> None:
        self.buttons[space].setChecked(True)
