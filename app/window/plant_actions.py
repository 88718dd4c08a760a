"""Rig ▸ Plant Feet…: a dialog that plants a clip's feet (issue 24) as one undo step and
shows the figures before and after (:mod:`app.editor.operations.plant_operations`).

The contacts it finds then show as bars under the timeline's scrub bar
(:mod:`app.widgets.contact_bars`), where they are edited; Compare draws the original motion
as the ghost.
"""

from __future__ import annotations

from PySide6 import QtWidgets

from app.editor.operations import plant_operations
from app.editor.operations.base import OperationError
from app.scene.builders.leg_names import SIDES, recognised_legs
from app.scene.motion.plant import PlantOptions, original_scene

ROWS = ("Skating ratio (GMD)", "Longest slide in a contact", "Mean joint displacement")


def add_plant_feet(window, menu: QtWidgets.QMenu) -> None:
    """Add Rig ▸ Plant Feet… to ``menu`` of ``window``."""
    tip = (
        "Find when heel, ball and toe touch the floor, hold them still there, and key the "
        "foot-roll rig with the result"
    )
    menu.addAction(
        window.make_action("plantFeet", "&Plant Feet…", lambda: open_plant_feet(window), tip=tip)
    )


def open_plant_feet(window) -> None:
    PlantFeetDialog(window.document, window).exec()


class PlantFeetDialog(QtWidgets.QDialog):
    """The frames, floor and speed to plant with; Plant; the figures before and after."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("plantFeetDialog")
        self.setWindowTitle("Plant Feet")
        self.document = document
        scene = document.scene
        record = scene.plant
        form = QtWidgets.QFormLayout()
        self.first = QtWidgets.QSpinBox(objectName="firstFrame")
        self.last = QtWidgets.QSpinBox(objectName="lastFrame")
        for spin, value in (
            (self.first, record.frames[0] if record else scene.frame_start),
            (self.last, record.frames[1] if record else scene.frame_end),
        ):
            spin.setRange(scene.frame_start, scene.frame_end)
            spin.setValue(value)
        frames = QtWidgets.QHBoxLayout()
        frames.addWidget(self.first)
        frames.addWidget(QtWidgets.QLabel("to"))
        frames.addWidget(self.last)
        form.addRow("Frames", frames)
        self.detect = QtWidgets.QCheckBox("Detect", objectName="detectFloor")
        self.detect.setChecked(True)
        self.floor = QtWidgets.QDoubleSpinBox(objectName="floor")
        self.floor.setRange(-1e6, 1e6)
        self.floor.setDecimals(4)
        self.floor.setValue(record.floor if record else 0.0)
        self.floor.setEnabled(False)
        self.detect.toggled.connect(lambda on: self.floor.setEnabled(not on))
        floor = QtWidgets.QHBoxLayout()
        floor.addWidget(self.detect)
        floor.addWidget(self.floor)
        form.addRow("Floor height", floor)
        self.auto_speed = QtWidgets.QCheckBox("From the clip", objectName="autoSpeed")
        self.auto_speed.setChecked(True)
        self.auto_speed.setToolTip(
            "Twice the speed at which this clip's standing foot slides, "
            "from 0.3 m/s (motion capture) up to 1 m/s (motion made by "
            "networks slides while it stands)"
        )
        self.speed = QtWidgets.QDoubleSpinBox(objectName="speed")
        self.speed.setRange(0.01, 20.0)
        self.speed.setSingleStep(0.05)
        self.speed.setSuffix(" m/s")
        self.speed.setValue(record.speed if record else 0.3)
        self.speed.setEnabled(False)
        self.speed.setToolTip(
            "A point near the floor slower than this is in contact (for a "
            "person 1.7 m tall), and stays so while under 1.5 times this"
        )
        self.auto_speed.toggled.connect(lambda on: self.speed.setEnabled(not on))
        speed = QtWidgets.QHBoxLayout()
        speed.addWidget(self.auto_speed)
        speed.addWidget(self.speed)
        form.addRow("Contact speed", speed)
        self.legs = QtWidgets.QLabel(objectName="legs", wordWrap=True)
        form.addRow("Legs", self.legs)
        self.table = QtWidgets.QTableWidget(len(ROWS), 2, objectName="figures")
        self.table.setHorizontalHeaderLabels(["Before", "After"])
        self.table.setVerticalHeaderLabels(list(ROWS))
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.problem = QtWidgets.QLabel(objectName="problem", wordWrap=True)
        self.problem.setStyleSheet("color: #d04040")
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        role = QtWidgets.QDialogButtonBox.ButtonRole.ActionRole
        self.plant_button = buttons.addButton("Plant", role)
        self.plant_button.setObjectName("plantButton")
        self.plant_button.clicked.connect(self.plant)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.table)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self._describe_legs()

    def _describe_legs(self) -> None:
        scene = original_scene(self.document.scene)
        if self.document.scene.plant is not None:
            feet = [f.foot for f in self.document.scene.plant.feet]
            self.legs.setText("Planted: " + ", ".join(feet))
            return
        legs = recognised_legs(scene)
        if not legs:
            self.legs.setText("")
            self.problem.setText("No legs found by their bone names (thigh, calf, foot, toes)")
            self.plant_button.setEnabled(False)
            return
        self.legs.setText("; ".join(" → ".join(legs[s].bones()) for s in SIDES if s in legs))

    def options(self) -> PlantOptions:
        return PlantOptions(
            frames=(self.first.value(), self.last.value()),
            floor=None if self.detect.isChecked() else self.floor.value(),
            speed=None if self.auto_speed.isChecked() else self.speed.value(),
        )

    def plant(self) -> None:
        """Plant with the dialog's options (one undo step) and show the figures."""
        if self.first.value() > self.last.value():
            self.problem.setText("The first frame is after the last")
            return
        try:
            planted = plant_operations.plant(self.document, self.options())
        except OperationError as e:
            self.problem.setText(str(e))
            return
        self.problem.setText("; ".join(planted.notes))
        for row, (before, after) in enumerate(zip(planted.before.row(), planted.after.row())):
            self.table.setItem(row, 0, QtWidgets.QTableWidgetItem(before))
            self.table.setItem(row, 1, QtWidgets.QTableWidgetItem(after))
        self.floor.setValue(planted.scene.plant.floor)
        self.speed.setValue(planted.scene.plant.speed)
        self.plant_button.setText("Plant again")
        self._describe_legs()
