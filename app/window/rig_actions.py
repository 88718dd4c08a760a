"""The Rig menu: Rig ▸ Foot Roll Rig… opens a small dialog, pre-filled with the leg the
selection or the bone names point at, that builds the reverse foot (contract §F4) as one undo
step (:func:`app.editor.operations.rig_operations.add_foot_roll_rig`)."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.editor.operations import rig_operations
from app.editor.operations.base import OperationError
from app.scene.builders.foot_roll import MOTION, REST, FootRollError, check_leg, new_names
from app.scene.builders.leg_names import SIDES, Leg, recognised_legs, side_of_leg
from app.scene.errors import SceneError
from app.window.layout import show_message
from app.window.plant_actions import add_plant_feet

NO_TOES = "(no toes)"
PARTS = ("thigh", "calf", "foot", "toes")


def build_rig_menu(window, bar) -> QtWidgets.QMenu:
    """Add the Rig menu to the menu ``bar`` of ``window`` (a main window)."""
    tip = (
        "Build a reverse foot on a leg: a control that rolls on heel, ball and toe, a leg "
        "IK that reaches it, a foot that turns with it"
    )
    action = window.make_action(
        "footRollRig", "&Foot Roll Rig…", lambda: open_foot_roll(window), tip=tip
    )
    menu = bar.addMenu("R&ig")  # Alt+R is Clear Rotation (Blender's)
    menu.setObjectName("rigMenu")
    menu.addAction(action)
    add_plant_feet(window, menu)
    return menu


def open_foot_roll(window) -> None:
    dialog = FootRollDialog(window.document, window)
    if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
        show_message(window, dialog.done_text)


class FootRollDialog(QtWidgets.QDialog):
    """Choose the leg (thigh, calf, foot, toes), see what will be added, build it."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("footRollDialog")
        self.setWindowTitle("Foot Roll Rig")
        self.document = document
        self.done_text = ""
        scene = document.scene
        self.legs = recognised_legs(scene)
        form = QtWidgets.QFormLayout()
        self.side = QtWidgets.QComboBox(objectName="side")
        for side in SIDES:
            if side in self.legs:
                self.side.addItem(f"{side.capitalize()} leg ({self.legs[side].foot})", side)
        self.side.addItem("Bones chosen below", None)
        form.addRow("Leg", self.side)
        names = scene.bone_names()
        self.boxes = {}
        for part in PARTS:
            box = QtWidgets.QComboBox(objectName=part)
            box.addItems(([NO_TOES] if part == "toes" else []) + names)
            box.currentIndexChanged.connect(self._describe)
            form.addRow(part.capitalize(), box)
            self.boxes[part] = box
        # A leg the names and the map do not give, chosen bone by bone, is remembered in
        # the scene's humanoid map as this side's (issue 24, "any leg").
        self.remember = QtWidgets.QComboBox(objectName="remember")
        self.remember.addItem("Left leg", "left")
        self.remember.addItem("Right leg", "right")
        self.remember.addItem("Don't remember", None)
        self.remember_label = QtWidgets.QLabel("Remember as")
        form.addRow(self.remember_label, self.remember)
        self.motion = QtWidgets.QCheckBox("Keep the leg's motion", objectName="keepMotion")
        self.motion.setToolTip(
            "Key the control and the knee pole on every frame from the leg's motion, so the "
            "rigged leg moves as it did (FK to IK, baked). Off: build at rest, one key at the "
            "first frame, for keying by hand."
        )
        self.motion.toggled.connect(self._describe)
        self._moves: bool | None = None
        form.addRow("Motion", self.motion)
        self.summary = QtWidgets.QLabel(objectName="summary", wordWrap=True)
        self.problem = QtWidgets.QLabel(objectName="problem", wordWrap=True)
        self.problem.setStyleSheet("color: #d04040")
        self.fix_button = QtWidgets.QPushButton(objectName="fixButton")
        self.fix_button.clicked.connect(self._fix)
        self.fix_button.hide()
        self._fix_for: Leg | None = None
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok
            | QtWidgets.QDialogButtonBox.StandardButton.Cancel
        )
        self.build_button = buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        self.build_button.setText("Build")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.problem)
        layout.addWidget(self.fix_button, 0, QtCore.Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(buttons)
        leg = rig_operations.suggested_leg(document)
        if leg is not None:
            sides = [s for s, found in self.legs.items() if found == leg]
            if sides:
                self.side.setCurrentIndex(self.side.findData(sides[0]))
            else:
                self.side.setCurrentIndex(self.side.count() - 1)
            self.set_leg(leg)
        self.side.currentIndexChanged.connect(self._side_chosen)
        self._describe()

    def keyed(self) -> str:
        """How the control is keyed: from the leg's motion, or at rest."""
        return MOTION if self.motion.isChecked() else REST

    def set_leg(self, leg: Leg) -> None:
        for part in PARTS:
            value = getattr(leg, part)
            self.boxes[part].setCurrentText(value if value is not None else NO_TOES)

    def leg(self) -> Leg:
        values = [self.boxes[p].currentText() for p in PARTS]
        return Leg(*values[:3], None if values[3] == NO_TOES else values[3])

    def _side_chosen(self, _index) -> None:
        side = self.side.currentData()
        if side is not None:
            self.set_leg(self.legs[side])

    def remembered_side(self) -> str | None:
        """The side the chosen bones will be remembered as (``None``: not remembered, as a
        leg the scene's map already gives is not)."""
        return self.remember.currentData() if self.remember.isVisibleTo(self) else None

    def _offer_remember(self) -> None:
        """Show "Remember as" for a leg the map does not give, on the side its shape says."""
        leg = self.leg()
        known = leg in self.legs.values()
        try:
            check_leg(self.document.scene, leg)
            chain = True
        except FootRollError:
            chain = False
        show = chain and not known
        self.remember.setVisible(show)
        self.remember_label.setVisible(show)
        if show:
            with QtCore.QSignalBlocker(self.remember):
                side = side_of_leg(self.document.scene, leg)
                self.remember.setCurrentIndex(self.remember.findData(side))

    def _describe(self, *_) -> None:
        self._offer_remember()
        leg = self.leg()
        n = new_names(leg)
        moves = self._leg_moves(leg)
        self.motion.blockSignals(True)
        if moves != self._moves:  # a leg that moves keeps its motion unless unticked
            self.motion.setChecked(moves)
            self._moves = moves
        self.motion.setEnabled(moves)
        self.motion.setText(
            "Keep the leg's motion"
            if moves
            else "Keep the leg's motion (it has none: built at rest)"
        )
        self.motion.blockSignals(False)
        if self.motion.isChecked():
            keys = (
                "keyed on every frame from the leg's motion, so the leg moves as it did; "
                "re-key it, or key over it"
            )
        else:
            keys = "keyed once, at the first frame: move, turn and key it at any frame to step"
        self.summary.setText(
            f"Adds the bones {n['control']} (the control, {keys}), {n['body']} (on the "
            f"control, rolled by the pivots heel, ball and toe: key them to roll the foot) and "
            f"{n['pole']} (the knee points at it), and three constraints: {n['roll']} "
            f"(multi-parent on {n['body']}), {n['leg_ik']} (FABRIK on the thigh and calf, "
            f"reaching it) and {n['follow']} (the foot turns with it). One undo takes them "
            "all away."
        )
        problem, fix = self.refusal_and_fix()
        self.problem.setText(problem)
        self._fix_for = leg if fix == "foot_length" else None
        if self._fix_for is not None:
            self.fix_button.setText(f"Give {leg.foot} a length")
            self.fix_button.setToolTip(
                f"Set the tail of {leg.foot} to the ball of its foot (from its skin when it "
                "has one), as Blender's bones always have: one undo step"
            )
        self.fix_button.setVisible(self._fix_for is not None)
        self.build_button.setEnabled(not problem)

    def _leg_moves(self, leg: Leg) -> bool:
        try:
            return rig_operations.leg_moves(self.document.scene, leg)
        except KeyError:  # a bone the boxes name is gone
            return False

    def _fix(self) -> None:
        if self._fix_for is None:
            return
        try:
            rig_operations.give_foot_length(self.document, self._fix_for)
        except OperationError as e:
            self.problem.setText(str(e))
            return
        self._describe()

    def refusal(self) -> str:
        """Why the leg the boxes show cannot take the rig, in words ("" when it can): said
        as the boxes change, Build greyed, not only after pressing it."""
        return self.refusal_and_fix()[0]

    def refusal_and_fix(self) -> tuple[str, str | None]:
        """:meth:`refusal`, and the fix the dialog offers for it (``None``: none)."""
        leg, scene = self.leg(), self.document.scene
        control = new_names(leg)["control"]
        if control in scene.bone_names():
            return (
                f"This leg has a foot roll already ({control}): Ctrl+Z takes it away, or "
                "choose another leg"
            ), None
        try:
            check_leg(scene, leg)
        except FootRollError as e:
            if not self.legs and len(set(leg.bones())) != len(leg.bones()):
                return (
                    "No leg found by its bone names (thigh, calf, foot, toes): choose "
                    "the leg's bones in the boxes above"
                ), None
            return str(e), e.fix
        except SceneError as e:  # the scene cannot be evaluated at its first frame
            return f"The scene cannot be evaluated: {e}", None
        return "", None

    def accept(self) -> None:
        try:
            side = self.remembered_side()
            built = rig_operations.add_foot_roll_rig(
                self.document, self.leg(), self.keyed(), remember=side
            )
        except OperationError as e:
            self.problem.setText(str(e))
            return
        # what comes next, as the document's own message says it (this one replaces it)
        self.done_text = (
            f"Foot-roll rig added on {built.leg.foot}: "
            f"{rig_operations.next_steps(built)} (Ctrl+Z undoes)"
            + (f"; the scene remembers these bones as its {side} leg" if side else "")
        )
        super().accept()
