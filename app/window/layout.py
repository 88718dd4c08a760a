"""The main window's layout: the built-in arrangement of the docks, the rule that the viewport
keeps at least half of the window's central area, the saved layout's version, fitting
windows and dialogs to the screen, and the status bar's message to its room.

The rule is kept by :class:`LayoutKeeper`: whenever the viewport changes size (a dock opens
or closes, the window or a separator moves) it measures the viewport against the area the
docks and the viewport share, and gives height or width back from the docks when the viewport
has less than half. A saved layout is restored only when it was saved by this version of the
layout and, once shown, keeps the rule; otherwise the built-in layout is used.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

#: The version passed to ``saveState``/``restoreState``: a layout saved under another version
#: is not restored. Bump it when the built-in layout changes. (0 was every layout saved before
#: the viewport's share was kept; 1 had the tutorial in a tab over the inspector.)
STATE_VERSION = 2
#: The viewport's least share of the central area, in height and in width.
VIEWPORT_SHARE = 0.5
#: The first window's least size on a screen that has room for it.
PREFERRED_SIZE = QtCore.QSize(1280, 800)
#: The share of a large screen's free area (in width and in height) the first window takes.
SCREEN_SHARE = 0.8
#: The frame a window manager adds around a window, until the real one is known.
ESTIMATED_FRAME = QtCore.QMargins(4, 32, 4, 4)

VERTICAL = QtCore.Qt.Orientation.Vertical
HORIZONTAL = QtCore.Qt.Orientation.Horizontal
AREA = QtCore.Qt.DockWidgetArea


def available_geometry(widget: QtWidgets.QWidget | None = None) -> QtCore.QRect:
    """The part of the widget's screen (else the primary screen) that windows may use: the
    screen less panels and docks of the desktop."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QtGui.QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def frame_margins(window: QtWidgets.QWidget) -> QtCore.QMargins:
    """The window frame around the window's client area: measured on a shown window (none
    until the window manager has framed it), estimated before."""
    frame, inner = window.frameGeometry(), window.geometry()
    if window.isVisible():
        return QtCore.QMargins(
            inner.left() - frame.left(),
            inner.top() - frame.top(),
            frame.right() - inner.right(),
            frame.bottom() - inner.bottom(),
        )
    return ESTIMATED_FRAME


def preferred_size(area: QtCore.QRect) -> QtCore.QSize:
    """The first window's size on a screen whose free area is ``area``: :data:`SCREEN_SHARE`
    of it (a good part of a large screen, as a desktop program opens), at least
    :data:`PREFERRED_SIZE` (the room a small screen has is the limit, in :func:`fit_to_screen`)."""
    width = max(PREFERRED_SIZE.width(), int(SCREEN_SHARE * area.width()))
    return QtCore.QSize(width, max(PREFERRED_SIZE.height(), int(SCREEN_SHARE * area.height())))


def fit_to_screen(window: QtWidgets.QWidget, preferred: QtCore.QSize | None = None) -> None:
    """Size ``window`` to ``preferred`` (by default :func:`preferred_size`: four fifths of the
    screen, at least 1280×800), or less where the screen has less room, and centre it on the
    screen's available area, frame included."""
    area = available_geometry(window)
    preferred = preferred or preferred_size(area)
    margins = frame_margins(window)
    room_w = area.width() - margins.left() - margins.right()
    room_h = area.height() - margins.top() - margins.bottom()
    width = max(min(preferred.width(), room_w), window.minimumWidth())
    height = max(min(preferred.height(), room_h), window.minimumHeight())
    window.resize(width, height)
    # move() places the frame's top-left corner.
    window.move(
        area.left() + max((room_w - width) // 2, 0), area.top() + max((room_h - height) // 2, 0)
    )


def keep_on_screen(window: QtWidgets.QWidget) -> None:
    """Shrink ``window`` where it is larger than the screen's available area and move it
    inside, frame included (a window that fits stays as it is)."""
    area = available_geometry(window)
    margins = frame_margins(window)
    frame = window.geometry().marginsAdded(margins)
    if area.contains(frame):
        return
    width = min(
        window.width(), max(area.width() - margins.left() - margins.right(), window.minimumWidth())
    )
    height = min(
        window.height(),
        max(area.height() - margins.top() - margins.bottom(), window.minimumHeight()),
    )
    if (width, height) != (window.width(), window.height()):
        window.resize(width, height)
    frame = QtCore.QRect(frame.topLeft(), window.size().grownBy(margins))
    x = min(max(frame.left(), area.left()), area.right() + 1 - frame.width())
    y = min(max(frame.top(), area.top()), area.bottom() + 1 - frame.height())
    window.move(max(x, area.left()), max(y, area.top()))


class DialogFitter(QtCore.QObject):
    """Keeps every dialog of a window on the screen as it shows (a long message or a file
    dialog sized for another screen is shrunk and moved inside)."""

    def __init__(self, window: QtWidgets.QWidget):
        super().__init__(window)

    def watch(self, child) -> None:
        if isinstance(child, QtWidgets.QDialog):
            child.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QtCore.QEvent.Type.Show and isinstance(obj, QtWidgets.QDialog):
            # After the dialog's own show handling, which may still size it (message boxes).
            QtCore.QTimer.singleShot(0, obj, lambda d=obj: _fit_shown(d))
        return False


def _fit_shown(dialog: QtWidgets.QWidget) -> None:
    try:
        if dialog.isVisible():
            keep_on_screen(dialog)
    except RuntimeError:  # deleted in the meantime
        pass


class LayoutKeeper(QtCore.QObject):
    """Keeps the viewport of ``window`` at least :data:`VIEWPORT_SHARE` of the central area
    (the viewport and the docks around it), raises a dock reopened from the View menu, and
    restores the built-in layout on request."""

    def __init__(self, window: QtWidgets.QMainWindow):
        super().__init__(window)
        self.window = window
        self.viewport = window.centralWidget()
        #: The built-in layout (``saveState``), taken before any saved layout is restored.
        self.default_state = window.saveState(STATE_VERSION)
        #: Set when a saved layout was restored: the first check after showing falls back to
        #: the built-in layout when the saved one breaks the rule.
        self.check_restored = False
        self._attempts = 0
        #: The scene and the outliner's rows, last seen (the built-in layout fits them).
        self._rows: tuple = (window.document.scene, window.outliner.row_count())
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.enforce)
        #: A separator between docks is being dragged (a press on the window itself, which
        #: is where Qt's separators take the mouse): the rule waits until it is let go.
        self.separator_held = False
        self.viewport.installEventFilter(self)
        window.installEventFilter(self)
        for dock in self.docks():
            dock.toggleViewAction().triggered.connect(
                lambda shown, d=dock: shown and self._raise(d)
            )
            dock.topLevelChanged.connect(self.schedule)
            dock.dockLocationChanged.connect(self.schedule)

    def docks(self) -> list[QtWidgets.QDockWidget]:
        return self.window.findChildren(QtWidgets.QDockWidget)

    def _raise(self, dock: QtWidgets.QDockWidget) -> None:
        dock.raise_()
        self.schedule()

    # --- measuring ------------------------------------------------------------------------

    def docked(self, *areas) -> list[QtWidgets.QDockWidget]:
        """The shown, docked docks in ``areas`` (a dock behind another's tab is moved out of
        the window)."""
        inside = self.window.rect()
        return [
            d
            for d in self.docks()
            if d.isVisible()
            and not d.isFloating()
            and self.window.dockWidgetArea(d) in areas
            and inside.contains(d.geometry())
        ]

    def central_area(self) -> QtCore.QRect:
        """The rectangle the viewport shares with the docked docks (the window less its menu
        bar, toolbars and status bar)."""
        area = self.viewport.geometry()
        for dock in self.docked(
            AREA.LeftDockWidgetArea,
            AREA.RightDockWidgetArea,
            AREA.TopDockWidgetArea,
            AREA.BottomDockWidgetArea,
        ):
            area = area.united(dock.geometry())
        return area

    def shares(self) -> tuple[float, float]:
        """The viewport's width and height as shares of the central area's."""
        area = self.central_area()
        return (
            self.viewport.width() / max(area.width(), 1),
            self.viewport.height() / max(area.height(), 1),
        )

    def keeps_rule(self) -> bool:
        return min(self.shares()) >= VIEWPORT_SHARE - 0.01

    def room_beside(self) -> int:
        """How many pixels of width a side dock may still take from the viewport while it
        keeps its share."""
        whole = self.central_area().width()
        return max(0, self.viewport.width() - int(VIEWPORT_SHARE * whole) - 2)

    def fit_names(self) -> None:
        """After bones or constraints were added or another scene opened (the outliner has
        rebuilt: it listens first): the outliner wide enough for its longest name, where the
        viewport keeps its share. A rename or a deletion leaves the panels where they are."""
        window = self.window
        rows = (window.document.scene, window.outliner.row_count())
        grown = rows[0] is not self._rows[0] or rows[1] > self._rows[1]
        self._rows = rows
        if grown:
            self.widen(window.outliner_dock, window.outliner.fit_width())

    def widen(self, dock: QtWidgets.QDockWidget, content: int) -> None:
        """Make a docked side ``dock`` wide enough for ``content`` pixels of its widget, as
        far as the viewport keeps its share (a long name that came in shows whole)."""
        width = content + dock.width() - dock.widget().width()
        if not dock.isVisible() or dock.isFloating() or width <= dock.width():
            return
        grown = dock.width() + min(width - dock.width(), self.room_beside())
        if grown > dock.width():
            self.window.resizeDocks([dock], [grown], HORIZONTAL)

    # --- keeping the rule -----------------------------------------------------------------

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if obj is self.window:
            if kind == QtCore.QEvent.Type.MouseButtonPress:
                self.separator_held = True
            elif kind == QtCore.QEvent.Type.MouseButtonRelease:
                self.separator_held = False
                self.schedule()
        elif kind == QtCore.QEvent.Type.Resize:
            self.schedule()
        return False

    def schedule(self, *_) -> None:
        if not self._timer.isActive():
            self._timer.start(0)

    def enforce(self) -> None:
        """Give the viewport back its share where the docks took more than their half."""
        window = self.window
        if not window.isVisible() or window.isMinimized():
            return
        if self.separator_held:  # checked again once it is let go
            return
        if self.check_restored:
            self.check_restored = False
            if not self.keeps_rule():
                self.reset_docks()
                return
        if self.keeps_rule():
            self._attempts = 0
            return
        self._attempts += 1
        if self._attempts > 3:  # the docks' minimum sizes leave no more room to give
            self._attempts = 0
            return
        area = self.central_area()
        self._shrink(VERTICAL, area.height(), self.viewport.height())
        self._shrink(HORIZONTAL, area.width(), self.viewport.width())

    def _shrink(self, orientation, whole: int, viewport: int) -> None:
        """Shrink the docks across ``orientation`` so the viewport gets its share of
        ``whole``, taking from each side in proportion to what its docks can give."""
        excess = int(VIEWPORT_SHARE * whole) + 1 - viewport
        if excess <= 0:
            return
        vertical = orientation == VERTICAL
        sides = (
            (AREA.TopDockWidgetArea, AREA.BottomDockWidgetArea)
            if vertical
            else (AREA.LeftDockWidgetArea, AREA.RightDockWidgetArea)
        )

        def length(widget) -> int:
            return widget.height() if vertical else widget.width()

        def least(dock) -> int:
            size = dock.minimumSizeHint().expandedTo(dock.minimumSize())
            return size.height() if vertical else size.width()

        flexible = [d for side in sides for d in self.docked(side) if length(d) > least(d)]
        spare = sum(length(d) - least(d) for d in flexible)
        if not flexible or spare <= 0:
            return
        keep = max(0.0, 1.0 - excess / spare)
        sizes = [least(d) + int((length(d) - least(d)) * keep) for d in flexible]
        self.window.resizeDocks(flexible, sizes, orientation)

    # --- the built-in layout --------------------------------------------------------------

    def reset_layout(self) -> None:
        """View ▸ Reset Layout: the built-in docks and toolbars, the window fitted to the
        screen."""
        window = self.window
        if window.isMaximized() or window.isFullScreen():
            window.showNormal()
        fit_to_screen(window)
        self.reset_docks()
        window.set_trails(window.viewport.trails)  # the Trails bar shows while trails are on
        window.statusBar().showMessage("The panels are back where they start", 4000)

    def reset_docks(self) -> None:
        """Every dock where the built-in layout puts it, at its built-in size; the docks that
        show a mode (Compare, step-through, a tutorial) stay shown if they were."""
        window = self.window
        modes = {
            window.compare_dock: window.document.compare,
            window.step_dock: window.step_through.active,
            window.tutorial_dock: getattr(window.tutorial_dock.widget(), "tutorial", None),
        }
        shown = [d for d, on in modes.items() if on and d.isVisible()]
        window.restoreState(self.default_state, STATE_VERSION)
        for dock in shown:
            dock.show()
        window.size_docks()
        self.schedule()


def message_room(window) -> int:
    """The width, in pixels, the status bar gives a message beside the labels still shown."""
    status = window.statusBar()
    beside = [
        w
        for w in (window.error_label, window.hint_label, window.space_label, window.frame_label)
        if w.isVisible()
    ]
    spacing = status.layout().spacing() if status.layout() is not None else 6
    return status.width() - sum(w.width() + spacing for w in beside) - 24  # margins, grip


#: How long a status message stays, in milliseconds (a newer one replaces it at once).
MESSAGE_MS = 6000


def show_message(window, text: str, ms: int | None = None) -> None:
    """Say ``text`` in the status bar for ``ms`` (default :data:`MESSAGE_MS`), in place of
    any message before it; one too long for the room it has ends in "…" (it is whole in
    the status bar's tooltip) instead of being cut mid-word against the frame number."""
    ms = MESSAGE_MS if ms is None else ms
    status = window.statusBar()
    status.showMessage(text, ms)  # fit_message makes what room it can
    room = message_room(window)
    if status.fontMetrics().horizontalAdvance(text) <= room:
        return
    elided = status.fontMetrics().elidedText(text, QtCore.Qt.TextElideMode.ElideRight, room)
    status.showMessage(elided, ms)
    status.setToolTip(text)


def fit_message(window, text: str) -> None:
    """A status message shows whole: the hint steps aside while it shows, and the space too
    when the message needs its room; one still too long is whole in the tooltip."""
    status = window.statusBar()
    window.hint_label.setVisible(not text)
    window.space_label.setVisible(True)
    status.setToolTip("")
    if not text:
        return
    status.layout().activate()
    width = status.fontMetrics().horizontalAdvance(text)
    if width > message_room(window):
        window.space_label.setVisible(False)
        status.layout().activate()
    if width > message_room(window):
        status.setToolTip(text)
