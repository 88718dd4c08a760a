"""The timeline's recompute note fits narrow windows: elided, whole in its tooltip."""

from PySide6 import QtWidgets

from app.widgets.timeline import ElidedLabel


def test_elided_label_shrinks_and_keeps_the_whole_text(qtbot):
    holder = QtWidgets.QWidget()
    layout = QtWidgets.QHBoxLayout(holder)
    label = ElidedLabel()
    layout.addWidget(label)
    qtbot.addWidget(holder)
    text = "Recomputed foot_roll, tumbling, another_constraint in 12 ms"
    label.setText(text)
    holder.resize(120, 40)
    holder.show()
    qtbot.waitExposed(holder)
    shown = QtWidgets.QLabel.text(label)
    assert shown.endswith("…") and len(shown) < len(text)
    assert label.fontMetrics().horizontalAdvance(shown) <= label.width()
    assert label.text() == text and label.toolTip() == text
    assert label.minimumSizeHint().width() == 0  # it never holds the window open
    holder.resize(900, 40)
    qtbot.waitUntil(lambda: QtWidgets.QLabel.text(label) == text)
    label.clear()
    holder.resize(600, 40)
    qtbot.wait(10)
    assert label.text() == "" and QtWidgets.QLabel.text(label) == ""
