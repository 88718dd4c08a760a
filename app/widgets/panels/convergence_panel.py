"""The convergence view: the three multi-parent integrators' paths of the body's head, overlaid.

For the selected multi-parent constraint (or the one chosen in the panel's list) it draws the
head's path under ``exact`` (the Δt → 0 limit, white), ``seed`` (the seed's equations, orange)
and ``twist`` (the limit stepped with the twist frozen per step, blue), projected on the two
world axes along which the path spreads most, and below it the distance of the stepped heads
to the exact one at every frame. The substeps slider sets the seed's and twist's substeps:
as it grows four times the distance shrinks about four times (first order). The panel only
reads the document (:mod:`app.scene.analysis.convergence` evaluates); it edits nothing.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.editor.throttle import Throttle
from app.scene.analysis.convergence import (
    integrator_paths,
    multi_parent_constraints,
    projection_axes,
)
from app.scene.errors import SceneError
from app.scene.words import plural

BACKGROUND = (34, 35, 40)
COLORS = {"exact": (235, 235, 235), "seed": (255, 150, 40), "twist": (80, 170, 255)}
AXES = "XYZ"
MAX_SUBSTEPS = 64


class ConvergencePanel(QtWidgets.QWidget):
    """Paths of the three integrators, a substeps slider and the distance per frame."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("convergencePanel")
        self._document = document
        self.paths = None  # the last integrator_paths shown

        self.constraint = QtWidgets.QComboBox()
        self.constraint.setObjectName("convergenceConstraint")
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setObjectName("convergenceSubsteps")
        self.slider.setRange(1, MAX_SUBSTEPS)
        self.slider.setValue(4)
        self.slider.setPageStep(4)
        self.slider.setToolTip("Substeps per frame of the seed and twist integrators")
        self.slider_label = QtWidgets.QLabel()
        self.caption = QtWidgets.QLabel()
        self.caption.setObjectName("convergenceCaption")
        self.caption.setWordWrap(True)

        self.path_plot = pg.PlotWidget(background=BACKGROUND)
        self.path_plot.setObjectName("convergencePaths")
        self.path_plot.setAspectLocked(True)
        self.path_plot.setMinimumSize(360, 240)
        self.distance_plot = pg.PlotWidget(background=BACKGROUND)
        self.distance_plot.setObjectName("convergenceDistance")
        self.distance_plot.setLabel("bottom", "frame")
        self.distance_plot.setLabel("left", "distance to exact (units)")
        self.distance_plot.setMinimumSize(360, 140)
        for plot in (self.path_plot, self.distance_plot):
            item = plot.getPlotItem()
            item.showGrid(x=True, y=True, alpha=0.18)
            for axis in ("left", "bottom"):  # numbers as they are, in the named unit
                item.getAxis(axis).enableAutoSIPrefix(False)
            item.setMenuEnabled(False)
            item.hideButtons()
            item.addLegend(offset=(6, 2), labelTextSize="8pt", brush=(28, 29, 33, 215))
        self.curves = {
            k: self.path_plot.plot(
                pen=pg.mkPen(COLORS[k], width=3 if k == "exact" else 1.5), name=k
            )
            for k in COLORS
        }
        self.distance_curves = {
            k: self.distance_plot.plot(pen=pg.mkPen(COLORS[k], width=1.5), name=f"{k} − exact")
            for k in ("seed", "twist")
        }
        self.frame_line = pg.InfiniteLine(angle=90, pen=pg.mkPen((80, 150, 255)))
        self.distance_plot.addItem(self.frame_line)

        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Constraint"))
        top.addWidget(self.constraint, 1)
        top.addWidget(QtWidgets.QLabel("Substeps"))
        top.addWidget(self.slider, 2)
        top.addWidget(self.slider_label)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.path_plot)
        split.addWidget(self.distance_plot)
        split.setSizes([300, 160])
        layout.addWidget(split, 1)

        # Dragging the slider recomputes a few times a second, not at every value.
        self._throttled = Throttle(self.refresh, 120, self)
        self.slider.valueChanged.connect(self._slider_moved)
        self.constraint.currentTextChanged.connect(lambda _: self.refresh())
        document.scene_changed.connect(self._throttled)
        document.scene_replaced.connect(self._fill_constraints)
        document.structure_changed.connect(self._fill_constraints)
        document.space_changed.connect(lambda _: self.refresh())
        document.selection_changed.connect(self._follow_selection)
        document.frame_changed.connect(self.frame_line.setValue)
        self._fill_constraints()
        self._slider_moved(self.slider.value())

    def _slider_moved(self, value: int) -> None:
        self.slider_label.setText(f"{value}")
        self._throttled()

    def _fill_constraints(self) -> None:
        names = multi_parent_constraints(self._document.scene)
        current = self.constraint.currentText()
        self.constraint.blockSignals(True)
        self.constraint.clear()
        self.constraint.addItems(names)
        if current in names:
            self.constraint.setCurrentText(current)
        self.constraint.blockSignals(False)
        self._follow_selection()

    def _follow_selection(self) -> None:
        """Show the selected multi-parent constraint (a selected pivot's too)."""
        names = multi_parent_constraints(self._document.scene)
        for ref in self._document.selection:
            if ref.kind != "bone" and ref.name in names:
                if self.constraint.currentText() != ref.name:
                    self.constraint.setCurrentText(ref.name)  # refreshes
                    return
        self.refresh()

    def refresh(self) -> None:
        doc = self._document
        name = self.constraint.currentText()
        if not name:
            self.paths = None
            self.caption.setText("No multi-parent constraint in this scene.")
            for curve in (*self.curves.values(), *self.distance_curves.values()):
                curve.setData([], [])
            return
        try:
            paths = integrator_paths(doc.scene, name, self.slider.value(), space=doc.space)
        except (SceneError, KeyError, ValueError) as error:
            self.caption.setText(f"Cannot evaluate {name}: {error}")
            return
        self.paths = paths
        a, b = projection_axes(paths.heads["exact"])
        for k, curve in self.curves.items():
            curve.setData(paths.heads[k][:, a], paths.heads[k][:, b])
        self.path_plot.setLabel("bottom", f"world {AXES[a]} (units)")
        self.path_plot.setLabel("left", f"world {AXES[b]} (units)")
        for k, curve in self.distance_curves.items():
            curve.setData(paths.frames, paths.distance[k])
        self.frame_line.setValue(doc.frame)
        seed, twist = paths.max_distance("seed"), paths.max_distance("twist")
        self.caption.setText(
            f"<b>{name}</b> (body {paths.body}): head paths over "
            f"{plural(len(paths.frames), 'frame')}. "
            f"At {paths.substeps} substeps the seed ends up at most {seed:.2g} units from the "
            f"exact limit, the twist {twist:.2g} units; four times the substeps, about a quarter."
        )

    def distance_at(self, integrator: str) -> float:
        """The largest distance to exact in the last refresh (for tests and the tutorial)."""
        return float("nan") if self.paths is None else self.paths.max_distance(integrator)

    def shown_points(self, integrator: str) -> np.ndarray:
        """The path curve's points as drawn, ``(F, 2)``."""
        x, y = self.curves[integrator].getData()
        return np.column_stack([x, y]) if x is not None else np.empty((0, 2))
