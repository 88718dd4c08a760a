"""A pyqtgraph plot with a second y axis on the right and a draggable current-frame line.

Quaternion components live in ``[-1, 1]`` and angles in degrees: each gets its own axis,
sharing the frame axis, as a graph editor does with a normalized view.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

FRAME_LINE_COLOR = (80, 150, 255)
BACKGROUND = (34, 35, 40)


class DualPlot(pg.PlotWidget):
    """A plot whose items go on the left axis (:meth:`add_left`) or the right (:meth:`add_right`).

    Signals
    -------
    frame_dragged(float)
        The user dragged the frame line (or clicked the plot's background) to this frame.
    """

    frame_dragged = QtCore.Signal(float)

    def __init__(self, name: str, parent=None):
        super().__init__(parent=parent, background=BACKGROUND)
        self.setObjectName(name)
        item = self.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.18)
        item.setMenuEnabled(False)
        item.hideButtons()
        self.legend = item.addLegend(
            offset=(6, 2), labelTextSize="8pt", brush=(28, 29, 33, 215), colCount=6
        )  # one row along the top: no curve hidden
        self.right = pg.ViewBox()
        item.scene().addItem(self.right)
        item.getAxis("right").linkToView(self.right)
        self.right.setXLink(item)
        item.vb.sigResized.connect(self._sync_right)
        for name_ in ("left", "bottom", "right"):
            axis = item.getAxis(name_)
            axis.setTextPen((190, 192, 200))
            axis.setPen((110, 112, 120))
            # Numbers as they are: no "(x0.001)" scale beside a label whose unit is named.
            axis.enableAutoSIPrefix(False)
        # Fixed widths: plots whose frame axes are linked keep their frames in line however
        # wide their value labels are (quaternion components, Euler degrees, positions).
        item.getAxis("left").setWidth(62)
        item.getAxis("right").setWidth(54)
        self.frame_line = pg.InfiniteLine(
            angle=90,
            movable=True,
            pen=pg.mkPen(FRAME_LINE_COLOR, width=2),
            hoverPen=pg.mkPen((150, 200, 255), width=3),
        )
        self.frame_line.setZValue(50)
        item.addItem(self.frame_line, ignoreBounds=True)
        self._setting = False
        self._left_items: list = []
        self._right_items: list = []
        self.frame_line.sigPositionChanged.connect(self._on_line)
        item.scene().sigMouseClicked.connect(self._on_click)
        self.set_right_axis(None)

    def _sync_right(self) -> None:
        vb = self.getPlotItem().vb
        self.right.setGeometry(vb.sceneBoundingRect())
        self.right.linkedViewChanged(vb, self.right.XAxis)

    def set_right_axis(self, label: str | None) -> None:
        """Show the right axis with ``label`` (``None`` hides it)."""
        item = self.getPlotItem()
        item.showAxis("right", label is not None)
        if label is not None:
            item.setLabel("right", label, color="#c8cad0")
            # A blank label keeps the room (frames line up with a plot that has an axis
            # there) without numbers that belong to nothing.
            item.getAxis("right").setStyle(showValues=bool(label.strip()))

    def clear_items(self) -> None:
        """Remove every curve and marker (the frame line stays)."""
        item = self.getPlotItem()
        for child in self._left_items:
            item.removeItem(child)
        for child in self._right_items:
            self.right.removeItem(child)
        self._left_items, self._right_items = [], []
        self.legend.clear()

    @staticmethod
    def _cached(item) -> None:
        """Paint ``item`` (and its parts) once into a pixmap: moving the frame line then
        repaints its strip from the pixmaps instead of drawing thousands of segments."""
        for part in [item, *item.childItems()]:
            part.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def add_left(self, item, name: str | None = None) -> None:
        self.getPlotItem().addItem(item)
        self._cached(item)
        self._left_items.append(item)
        if name:
            self.legend.addItem(item, name)

    def add_right(self, item, name: str | None = None) -> None:
        self.right.addItem(item)
        self._cached(item)
        self._right_items.append(item)
        if name:
            self.legend.addItem(item, name)

    def set_frame_range(self, start: float, end: float) -> None:
        """The frame axis shows ``[start, end]``; the line stays within it."""
        pad = max(0.5, 0.01 * (end - start))
        self.frame_line.setBounds((start, end))
        self.getPlotItem().setXRange(start - pad, end + pad, padding=0)

    def set_frame(self, frame: float) -> None:
        """Move the line without emitting :attr:`frame_dragged`."""
        self._setting = True
        try:
            self.frame_line.setValue(frame)
        finally:
            self._setting = False

    def auto_y(self) -> None:
        """Fit both y axes to what they show (fixed ranges: a later resize keeps them)."""
        self._sync_right()
        for vb, items in (
            (self.getPlotItem().vb, self._left_items),
            (self.right, self._right_items),
        ):
            values = [
                np.asarray(i.getData()[1] if hasattr(i, "getData") else i.data["y"], float)
                for i in items
            ]
            values = np.concatenate([v[np.isfinite(v)] for v in values] or [np.zeros(0)])
            if len(values):
                lo, hi = float(values.min()), float(values.max())
                span = max(hi - lo, 1e-9 * max(abs(lo), abs(hi), 1.0), 1e-6)
                # Room at the top for the legend's row (about 30 pixels).
                pixels = max(vb.height(), 60.0)
                top = max(0.3, 34.0 / (pixels - 34.0)) if pixels > 68 else 1.0
                vb.setYRange(lo - 0.08 * span, hi + top * span, padding=0)
        self.set_frame_range(*self.frame_line.maxRange)

    def pixel_of(self, frame: float, value: float, right: bool = False) -> QtCore.QPointF:
        """The viewport pixel of ``(frame, value)`` on the left (or right) axis."""
        vb = self.right if right else self.getPlotItem().vb
        return self.mapFromScene(vb.mapViewToScene(QtCore.QPointF(frame, value)))

    def frame_at(self, x: float) -> float:
        """The frame under viewport x coordinate ``x``."""
        scene = self.mapToScene(int(round(x)), 0)
        return float(self.getPlotItem().vb.mapSceneToView(scene).x())

    def _on_line(self) -> None:
        if not self._setting:
            self.frame_dragged.emit(float(self.frame_line.value()))

    def _on_click(self, ev) -> None:
        if ev.isAccepted() or ev.button() != QtCore.Qt.MouseButton.LeftButton:
            return  # a key marker took it
        vb = self.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        frame = float(vb.mapSceneToView(ev.scenePos()).x())
        lo, hi = self.frame_line.maxRange
        if lo is not None:
            frame = float(np.clip(frame, lo, hi))
        self.frame_dragged.emit(frame)
