"""The timeline: transport buttons, the current frame, the frame range, and the scrub bar.

Frame range and fps are scene edits (undoable); the current frame and playback are not.
A range that would end before it starts is refused, the field turned back and the reason
said beside it and in the status bar (the other end is never moved to make room).
When a constraint's cache is stale and being recomputed, a note says so, painted at once
(before the computation, which blocks) and replaced by the time it took.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.editor import playback
from app.editor.operations import timeline_operations
from app.editor.operations.base import OperationError
from app.widgets.contact_bars import ContactBars
from app.widgets.fields import refuse
from app.widgets.scrub_bar import ScrubBar
from app.widgets.text_keys import keep_keys


def _spin(name: str, tip: str, lo=-100000, hi=100000) -> QtWidgets.QSpinBox:
    spin = QtWidgets.QSpinBox()
    spin.setObjectName(name)
    spin.setRange(lo, hi)
    spin.setKeyboardTracking(False)
    spin.setToolTip(tip)
    spin.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
    spin.setMinimumWidth(64)
    return keep_keys(spin)


class ElidedLabel(QtWidgets.QLabel):
    """A one-line label that shrinks with its room: the text ends in "…" where it does not
    fit, and the whole text is in the tooltip."""

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        return getattr(self, "_full", "")

    def clear(self) -> None:
        self.setText("")

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        """Room for the whole text, where there is room."""
        width = self.fontMetrics().horizontalAdvance(self.text()) + 2 * self.margin() + 4
        return QtCore.QSize(width, super().sizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self.text(), QtCore.Qt.TextElideMode.ElideRight, max(self.width(), 0)
        )
        super().setText(shown)


class TimelineWidget(QtWidgets.QWidget):
    """Takes the document; talks only to it (and its player)."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("timeline")
        self._document = document
        player = document.player

        self.scrub_bar = ScrubBar(document)
        #: A planted clip's contacts, under the scrub bar (hidden for other scenes).
        self.contact_bars = ContactBars(document)
        self.frame_spin = _spin("frameSpin", "Current frame")
        self.start_spin = _spin("startSpin", "First frame of the range")
        self.end_spin = _spin("endSpin", "Last frame of the range")
        self.fps_spin = QtWidgets.QDoubleSpinBox()
        self.fps_spin.setObjectName("fpsSpin")
        self.fps_spin.setRange(0.01, 1000)
        self.fps_spin.setDecimals(2)
        self.fps_spin.setKeyboardTracking(False)
        self.fps_spin.setSuffix(" fps")
        self.fps_spin.setToolTip("Playback rate of the scene (frames per second)")
        keep_keys(self.fps_spin)
        self.recompute_label = ElidedLabel()
        self.recompute_label.setObjectName("recomputeLabel")
        self.recompute_label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self._fade = QtCore.QTimer(self)
        self._fade.setSingleShot(True)
        self._fade.timeout.connect(self.recompute_label.clear)

        style = self.style()
        sp = QtWidgets.QStyle.StandardPixmap

        def button(icon, tip, slot, name, checkable=False):
            b = QtWidgets.QToolButton()
            b.setObjectName(name)
            b.setIcon(style.standardIcon(icon))
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.setCheckable(checkable)
            b.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
            (b.toggled if checkable else b.clicked).connect(slot)
            return b

        self.play_button = button(
            sp.SP_MediaPlay, "Play / pause (Space)", player.toggle, "playButton"
        )
        self.loop_button = QtWidgets.QToolButton()
        self.loop_button.setObjectName("loopButton")
        self.loop_button.setText("⟲ Loop")
        self.loop_button.setCheckable(True)
        self.loop_button.setAutoRaise(True)
        self.loop_button.setToolTip("Loop playback (L)")
        self.loop_button.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.loop_button.setChecked(player.loop)
        self.loop_button.toggled.connect(player.set_loop)

        row = QtWidgets.QHBoxLayout()
        row.setContentsMargins(4, 2, 4, 0)
        row.setSpacing(2)
        for icon, tip, slot, name in (
            (
                sp.SP_MediaSkipBackward,
                "Jump to start (Home)",
                lambda: playback.jump_start(document),
                "startButton",
            ),
            (
                sp.SP_MediaSeekBackward,
                "Previous key (Down)",
                lambda: playback.previous_key(document),
                "prevKeyButton",
            ),
            (
                sp.SP_ArrowLeft,
                "Step back (Left)",
                lambda: playback.step(document, -1),
                "stepBackButton",
            ),
        ):
            row.addWidget(button(icon, tip, slot, name))
        row.addWidget(self.play_button)
        for icon, tip, slot, name in (
            (
                sp.SP_ArrowRight,
                "Step forward (Right)",
                lambda: playback.step(document, 1),
                "stepButton",
            ),
            (
                sp.SP_MediaSeekForward,
                "Next key (Up)",
                lambda: playback.next_key(document),
                "nextKeyButton",
            ),
            (
                sp.SP_MediaSkipForward,
                "Jump to end (End)",
                lambda: playback.jump_end(document),
                "endButton",
            ),
        ):
            row.addWidget(button(icon, tip, slot, name))
        row.addWidget(self.loop_button)
        row.addSpacing(6)
        row.addWidget(QtWidgets.QLabel("Frame"))
        row.addWidget(self.frame_spin)
        # The frame range and rate: beside the transport, or on a row of their own below it
        # when the timeline is too narrow for one row (a small screen).
        self.range_box = QtWidgets.QWidget()
        self.range_box.setObjectName("rangeBox")
        box = QtWidgets.QHBoxLayout(self.range_box)
        box.setContentsMargins(6, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(QtWidgets.QLabel("Start"))
        box.addWidget(self.start_spin)
        box.addWidget(QtWidgets.QLabel("End"))
        box.addWidget(self.end_spin)
        box.addWidget(self.fps_spin)
        row.addWidget(self.range_box)
        row.addSpacing(6)
        row.addWidget(self.recompute_label, 1)
        self._row = row
        self._second_row = QtWidgets.QHBoxLayout()
        self._second_row.setContentsMargins(0, 0, 6, 0)
        self._second_row.addStretch(1)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addLayout(self._second_row)
        layout.addWidget(self.scrub_bar)
        layout.addWidget(self.contact_bars)

        self.frame_spin.valueChanged.connect(document.set_frame)
        self.start_spin.valueChanged.connect(lambda v: self._edit(self.start_spin, frame_start=v))
        self.end_spin.valueChanged.connect(lambda v: self._edit(self.end_spin, frame_end=v))
        self.fps_spin.valueChanged.connect(lambda v: self._edit(self.fps_spin, fps=v))
        document.frame_changed.connect(self._on_frame)
        document.scene_changed.connect(self._on_scene)
        document.recompute_started.connect(self._on_recompute_started)
        document.recompute_finished.connect(self._on_recompute_finished)
        # A note about the scene that was open before says nothing about this one.
        document.path_changed.connect(lambda *_: self.recompute_label.clear())
        player.playing_changed.connect(self._on_playing)
        player.loop_changed.connect(self.loop_button.setChecked)
        self._on_scene()
        self._on_frame(document.frame)

    @property
    def two_rows(self) -> bool:
        """Whether the frame range sits on a row of its own (a narrow timeline)."""
        return self._second_row.indexOf(self.range_box) >= 0

    def _one_row_width(self) -> int:
        width = self._row.minimumSize().width()
        if self.two_rows:
            width += self.range_box.minimumSizeHint().width() + self._row.spacing()
        return width

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt's name)
        """As narrow as the transport row with the range below it."""
        transport = self._row.minimumSize().width()
        if not self.two_rows:
            transport -= self.range_box.minimumSizeHint().width() + self._row.spacing()
        range_row = self.range_box.minimumSizeHint().width() + 6
        return QtCore.QSize(max(transport, range_row), super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        two = event.size().width() < self._one_row_width()
        if two != self.two_rows:
            (self._row if two else self._second_row).removeWidget(self.range_box)
            if two:
                self._second_row.insertWidget(0, self.range_box)
            else:
                self._row.insertWidget(self._row.count() - 2, self.range_box)
            self.updateGeometry()  # one row more or less: the dock's height follows

    def _edit(self, field, **values) -> None:
        """Set the range or rate; a value that breaks a rule turns the field back and says
        why, beside the field and in the status bar."""
        try:
            timeline_operations.set_timeline(self._document, **values)
        except OperationError as e:
            self._on_scene()
            self._document.notify(str(e))
            refuse(field, str(e))

    def _on_frame(self, frame: float) -> None:
        with QtCore.QSignalBlocker(self.frame_spin):
            self.frame_spin.setValue(round(frame))

    def _on_scene(self) -> None:
        s = self._document.scene
        for spin, value in (
            (self.start_spin, s.frame_start),
            (self.end_spin, s.frame_end),
            (self.fps_spin, s.fps),
        ):
            with QtCore.QSignalBlocker(spin):
                spin.setValue(value)
        with QtCore.QSignalBlocker(self.frame_spin):
            self.frame_spin.setRange(
                min(s.frame_start, round(self._document.frame)),
                max(s.frame_end, round(self._document.frame)),
            )
            self.frame_spin.setValue(round(self._document.frame))
        self.scrub_bar.update()

    def _on_playing(self, playing: bool) -> None:
        sp = QtWidgets.QStyle.StandardPixmap
        self.play_button.setIcon(
            self.style().standardIcon(sp.SP_MediaPause if playing else sp.SP_MediaPlay)
        )

    def _on_recompute_started(self, names) -> None:
        self._fade.stop()
        self.recompute_label.setStyleSheet("color: #f0c43c;")
        self.recompute_label.setText(f"⟳ Recomputing {', '.join(names)} (cache stale)…")
        # The recomputation blocks the event loop: paint the note now, not after it.
        self.recompute_label.repaint()

    def _on_recompute_finished(self, names, seconds: float) -> None:
        self.recompute_label.setStyleSheet("color: #9aa0a8;")
        self.recompute_label.setText(f"Recomputed {', '.join(names)} in {seconds * 1e3:.0f} ms")
        self._fade.start(2500)
