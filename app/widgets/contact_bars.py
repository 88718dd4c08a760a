"""The contact bars under the scrub bar: one row per contact point of each planted foot
(heel, ball, toe), one bar per contact, on the scrub bar's frame axis.

Drag a bar's end to move it; double-click an empty stretch of a row to add a contact there;
right-click a bar (or select it and press Delete) to remove it. Each edit is one undo step,
and the plant follows at once (:mod:`app.editor.operations.plant_operations`). Shown only for
a planted scene.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.operations import plant_operations
from app.editor.operations.base import OperationError
from app.scene.builders.leg_names import read_name
from app.scene.motion.feet import POINTS
from app.widgets.scrub_bar import MARGIN

ROW = 8  # pixels per row
GAP = 2  # between rows
FOOT_GAP = 4  # between feet
#: How near (pixels) a press must be to a bar's end to drag it.
END_PX = 5
COLORS = (QtGui.QColor(90, 170, 255), QtGui.QColor(110, 210, 130), QtGui.QColor(240, 170, 70))


def _side(foot: str) -> str:
    """ "L" or "R" for a foot whose name says its side, else the name's first letter."""
    read = read_name(foot)
    return read[0][0].upper() if read else foot[:1]


class ContactBars(QtWidgets.QWidget):
    """Talks only to the document."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("contactBars")
        self._document = document
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        self.setMouseTracking(True)
        #: ``(foot, point, index)`` of the selected bar, or ``None``.
        self.selected = None
        #: The last popup menu (for tests).
        self.menu: QtWidgets.QMenu | None = None
        self._drag = None  # [foot, point, index, end, frame] while an end is dragged
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed
        )
        self._playhead_x = None
        document.scene_changed.connect(self._on_scene)
        document.frame_changed.connect(self._move_playhead)
        self._on_scene()

    def _move_playhead(self, frame: float) -> None:
        """Repaint only around the old and the new playhead line (playback's whole cost)."""
        if not self.isVisible():
            return
        x = self.x_of(frame)
        for at in (self._playhead_x, x):
            if at is not None:
                self.update(QtCore.QRect(int(at) - 2, 0, 5, self.height()))
        self._playhead_x = x

    # --- geometry ------------------------------------------------------------------------

    def feet(self) -> tuple:
        record = self._document.scene.plant
        return () if record is None else record.feet

    def _on_scene(self) -> None:
        feet = self.feet()
        rows = 3 * len(feet)
        self.setFixedHeight(
            rows * (ROW + GAP) + max(len(feet) - 1, 0) * FOOT_GAP + 4 if feet else 0
        )
        self.setVisible(bool(feet))
        if self.selected is not None and not self._exists(self.selected):
            self.selected = None
        self.update()

    def _exists(self, ref) -> bool:
        foot, point, index = ref
        return any(f.foot == foot and index < len(f.contacts[point]) for f in self.feet())

    def x_of(self, frame: float) -> float:
        """The x of ``frame`` on the scrub bar's axis."""
        s = self._document.scene
        span = max(s.frame_end - s.frame_start, 1)
        return MARGIN + (frame - s.frame_start) / span * (self.width() - 2 * MARGIN)

    def frame_at(self, x: float) -> int:
        s = self._document.scene
        span = max(s.frame_end - s.frame_start, 1)
        frame = s.frame_start + (x - MARGIN) / max(self.width() - 2 * MARGIN, 1) * span
        return int(min(max(round(frame), s.frame_start), s.frame_end))

    def row_top(self, foot: int, point: int) -> float:
        return 2 + (3 * foot + point) * (ROW + GAP) + foot * FOOT_GAP

    def row_at(self, y: float):
        """``(foot index, point)`` of the row under ``y``, or ``None``."""
        for f in range(len(self.feet())):
            for p in range(3):
                top = self.row_top(f, p)
                if top - GAP / 2 <= y < top + ROW + GAP / 2:
                    return f, p
        return None

    def bar_rect(self, foot: int, point: int, index: int) -> QtCore.QRectF:
        first, last = self.feet()[foot].contacts[point][index]
        x0, x1 = self.x_of(first - 0.5), self.x_of(last + 0.5)
        return QtCore.QRectF(x0, self.row_top(foot, point), max(x1 - x0, 2.0), ROW)

    def hit(self, x: float, y: float):
        """``(foot index, point, bar index or None, end or None)`` under ``(x, y)``."""
        row = self.row_at(y)
        if row is None:
            return None
        f, p = row
        spans = self.feet()[f].contacts[p]
        for k in range(len(spans)):
            r = self.bar_rect(f, p, k)
            if abs(x - r.left()) <= END_PX:
                return f, p, k, 0
            if abs(x - r.right()) <= END_PX:
                return f, p, k, 1
            if r.left() <= x <= r.right():
                return f, p, k, None
        return f, p, None, None

    # --- editing -------------------------------------------------------------------------

    def _do(self, fn, *args) -> None:
        try:
            fn(self._document, *args)
        except OperationError as e:
            self._document.notify(str(e))

    def mousePressEvent(self, ev):
        pos = ev.position()
        found = self.hit(pos.x(), pos.y())
        if ev.button() == QtCore.Qt.MouseButton.RightButton:
            self._context_menu(found, ev.globalPosition().toPoint(), pos.x())
            return
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or found is None:
            return
        f, p, k, end = found
        foot = self.feet()[f].foot
        self.selected = None if k is None else (foot, p, k)
        if k is not None and end is not None:
            self._drag = [foot, p, k, end, self.frame_at(pos.x())]
        self.update()

    def mouseMoveEvent(self, ev):
        pos = ev.position()
        if self._drag is not None:
            self._drag[4] = self.frame_at(pos.x())
            self.update()
            return
        found = self.hit(pos.x(), pos.y())
        shape = QtCore.Qt.CursorShape
        self.setCursor(shape.SizeHorCursor if found and found[3] is not None else shape.ArrowCursor)
        if found is not None:
            foot = self.feet()[found[0]].foot
            self.setToolTip(
                f"{foot} {POINTS[found[1]]} contacts: drag an end to move it, "
                "double-click to add one, right-click or Delete to remove "
                "one"
            )

    def mouseReleaseEvent(self, ev):
        drag, self._drag = self._drag, None
        if drag is None:
            return
        foot, point, index, end, frame = drag
        spans = self._document.scene.plant.foot(foot).contacts[point]
        if spans[index][end] != frame:
            self._do(plant_operations.move_contact_end, foot, point, index, end, frame)
        self.update()

    def mouseDoubleClickEvent(self, ev):
        pos = ev.position()
        found = self.hit(pos.x(), pos.y())
        if found is not None and found[2] is None:
            self._do(
                plant_operations.add_contact,
                self.feet()[found[0]].foot,
                found[1],
                self.frame_at(pos.x()),
            )

    def keyPressEvent(self, ev):
        if ev.key() in (QtCore.Qt.Key.Key_Delete, QtCore.Qt.Key.Key_Backspace) and self.selected:
            selected, self.selected = self.selected, None
            self._do(plant_operations.remove_contact, *selected)
            return
        super().keyPressEvent(ev)

    def _context_menu(self, found, global_pos, x) -> None:
        if found is None:
            return
        f, p, k, _ = found
        foot = self.feet()[f].foot
        menu = QtWidgets.QMenu(self)
        menu.setObjectName("contactMenu")
        menu.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        if k is None:
            frame = self.frame_at(x)
            menu.addAction(
                f"Add a {POINTS[p]} contact at {frame}",
                lambda: self._do(plant_operations.add_contact, foot, p, frame),
            )
        else:
            first, last = self.feet()[f].contacts[p][k]
            menu.addAction(
                f"Remove the {POINTS[p]} contact {first}–{last}",
                lambda: self._do(plant_operations.remove_contact, foot, p, k),
            )
        self.menu = menu
        menu.popup(global_pos)

    # --- drawing -------------------------------------------------------------------------

    def paintEvent(self, ev):
        p = QtGui.QPainter(self)
        p.fillRect(self.rect(), QtGui.QColor(34, 35, 40))
        s = self._document.scene
        x0, x1 = self.x_of(s.frame_start), self.x_of(s.frame_end)
        font = p.font()
        font.setPointSizeF(7.5)
        p.setFont(font)
        for f, foot in enumerate(self.feet()):
            # the foot's side (or initial) in the margin, its rows heel, ball, toe
            p.setPen(QtGui.QColor(170, 172, 180))
            p.drawText(
                QtCore.QRectF(0, self.row_top(f, 0), MARGIN - 2, 3 * (ROW + GAP)),
                QtCore.Qt.AlignmentFlag.AlignCenter,
                _side(foot.foot),
            )
            for point in range(3):
                top = self.row_top(f, point)
                p.fillRect(QtCore.QRectF(x0, top, x1 - x0, ROW), QtGui.QColor(44, 46, 52))
                for k, span in enumerate(foot.contacts[point]):
                    first, last = span
                    drag = self._drag
                    if drag and (drag[0], drag[1], drag[2]) == (foot.foot, point, k):
                        first, last = (
                            (min(drag[4], last), last)
                            if drag[3] == 0
                            else (first, max(drag[4], first))
                        )
                    a, b = self.x_of(first - 0.5), self.x_of(last + 0.5)
                    rect = QtCore.QRectF(a, top, max(b - a, 2.0), ROW)
                    color = QtGui.QColor(COLORS[point])
                    if self.selected == (foot.foot, point, k):
                        color = color.lighter(150)
                        p.setPen(QtGui.QPen(QtGui.QColor(255, 255, 255), 1))
                    else:
                        p.setPen(QtCore.Qt.PenStyle.NoPen)
                    p.setBrush(color)
                    p.drawRect(rect)
        x = self.x_of(self._document.frame)
        p.setPen(QtGui.QPen(QtGui.QColor(90, 150, 255), 1))
        p.drawLine(QtCore.QPointF(x, 0), QtCore.QPointF(x, self.height()))
        p.end()
