"""The matrix-chain panel: a bone's ``bone_to_world`` as the seed writes it, live.

``T_hip R_hip T_thigh.l R_thigh.l T_calf.l R_calf.l``, one card per factor with its 4×4 at
the current frame, and the product, checked against the evaluated pose. Where a constraint
drives a bone its correction appears where the seed puts it: ``T(knee) R_c T(-knee) [chain]``
in world space, ``[chain] R_c`` in object space. With a second bone chosen the panel shows
the transform from the first bone's frame to the second's, right to left, with the factors
that cancel (the common ancestors', the seed's hip terms) struck through.

The chain comes from :mod:`app.scene.analysis.matrix_chain`; this widget only lays it out.
"""

from __future__ import annotations

import html
import re

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor.throttle import Throttle
from app.scene.analysis.matrix_chain import MatrixChain, a_to_b_chain, bone_chain
from app.scene.rig.refs import BONE
from app.widgets.panels.matrix_cards import Card, MatrixCards
from app.widgets.text_keys import keep_keys
from app.widgets.visible_refresh import RefreshWhileVisible

WORLD = "world"
KIND_COLORS = {"T": "#7fb2ff", "R": "#ffb35c", "S": "#c79bff", "L": "#ff7a7a"}
CONSTRAINT_COLOR = "#8fdc80"


def factor_html(label: str) -> str:
    """``R_thigh.l^-1`` as ``R<sub>thigh.l</sub><sup>-1</sup>``; ``T(calf.l head)`` as is."""
    inverse = label.endswith("^-1")
    name = label[:-3] if inverse else label
    m = re.fullmatch(r"([TRSL])_([^()]+?)(\(.*\))?", name)
    if m:
        text = f"{m.group(1)}<sub>{html.escape(m.group(2))}</sub>{html.escape(m.group(3) or '')}"
    else:
        text = html.escape(name)
    return text + ("<sup>-1</sup>" if inverse else "")


class MatrixPanel(RefreshWhileVisible, QtWidgets.QWidget):
    """Takes the document; shows the chain of the chosen bone at the current frame."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("matrixPanel")
        self._document = document
        self.chain: MatrixChain | None = None
        self._cards: list[tuple[str, np.ndarray]] = []
        self.bone_combo = keep_keys(QtWidgets.QComboBox())
        self.bone_combo.setObjectName("matrixBone")
        self.bone_combo.setToolTip("The bone whose frame the chain maps from")
        self.relative_combo = keep_keys(QtWidgets.QComboBox())
        self.relative_combo.setObjectName("matrixRelative")
        self.relative_combo.setToolTip(
            "Map into world coordinates, or into another bone's frame (read right to left)"
        )
        self.formula = QtWidgets.QLabel()
        self.formula.setObjectName("matrixFormula")
        self.formula.setWordWrap(True)
        self.formula.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.formula.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes = QtWidgets.QLabel()
        self.notes.setObjectName("matrixNotes")
        self.notes.setWordWrap(True)
        self.cards_view = MatrixCards()
        scroll = QtWidgets.QScrollArea()
        scroll.setObjectName("matrixChain")
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.cards_view)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("From bone"))
        row.addWidget(self.bone_combo, 1)
        row.addWidget(QtWidgets.QLabel("to"))
        row.addWidget(self.relative_combo, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(row)
        layout.addWidget(self.formula)
        layout.addWidget(self.notes)
        layout.addWidget(scroll, 1)
        self._throttled = Throttle(self.refresh, 100, self)
        self._stale = True
        self.bone_combo.currentTextChanged.connect(lambda _: self.refresh())
        self.relative_combo.currentTextChanged.connect(lambda _: self.refresh())
        document.pose_changed.connect(self._throttled)
        document.structure_changed.connect(self._fill_combos)
        document.selection_changed.connect(self._follow_selection)
        self._fill_combos()
        self._follow_selection()

    # --- choosing ------------------------------------------------------------------------

    def _fill_combos(self) -> None:
        names = self._document.scene.bone_names()
        for combo, extra in ((self.bone_combo, []), (self.relative_combo, [WORLD])):
            current = combo.currentText()
            with QtCore.QSignalBlocker(combo):
                combo.clear()
                combo.addItems(extra + names)
                if current in extra + names:
                    combo.setCurrentText(current)
        self.refresh()

    def _follow_selection(self) -> None:
        """The active selection's bone (a constraint's driven bone, a pivot's body)."""
        doc = self._document
        ref = doc.active
        bone = None
        if ref is not None and ref.kind == BONE:
            bone = ref.name
        elif ref is not None and ref.on_constraint:
            driven = doc.scene.constraint(ref.name).driven_bones()
            bone = driven[-1] if driven else None
        if bone is not None and bone != self.bone_combo.currentText():
            self.bone_combo.setCurrentText(bone)

    def set_bones(self, bone: str, relative: str = WORLD) -> None:
        """Show ``bone``'s chain into world coordinates or into ``relative``'s frame."""
        with QtCore.QSignalBlocker(self.bone_combo), QtCore.QSignalBlocker(self.relative_combo):
            self.bone_combo.setCurrentText(bone)
            self.relative_combo.setCurrentText(relative)
        self.refresh()

    # --- what is shown -------------------------------------------------------------------

    def cards(self) -> list[tuple[str, np.ndarray]]:
        """The factors shown, ``(label, 4x4)``, then the product last."""
        return list(self._cards)

    def refresh(self) -> None:
        if self._defer_while_hidden():
            return
        doc = self._document
        bone = self.bone_combo.currentText()
        relative = self.relative_combo.currentText() or WORLD
        if not bone:
            self.formula.setText("No bones.")
            return
        pose = doc.pose()
        frame = doc.frame
        if relative == WORLD:
            chain = bone_chain(
                doc.scene, bone, frame, bone_to_world=pose.bone_to_world[0], space=doc.space
            )
            result = f"{bone} → world"
            i = doc.scene.bone_index(bone)
            evaluated = pose.bone_to_world[0, i]
        else:
            chain = a_to_b_chain(
                doc.scene,
                bone,
                relative,
                frame,
                bone_to_world=pose.bone_to_world[0],
                space=doc.space,
            )
            result = f"{bone} → {relative}"
            a, b = (doc.scene.bone_index(n) for n in (bone, relative))
            evaluated = np.linalg.inv(pose.bone_to_world[0, b]) @ pose.bone_to_world[0, a]
        self.chain = chain
        product = chain.product()
        self._cards = [(f.label, f.matrix) for f in chain.factors] + [(result, product)]
        self._show(chain, result, product, evaluated, relative)

    @staticmethod
    def _formula(chain: MatrixChain) -> str:
        def word(f) -> str:
            text = factor_html(f.label)
            if f.cancelled:
                return f"<s style='color:#8a8d96'>{text}</s>"
            if f.constraint:
                return f"<span style='color:{CONSTRAINT_COLOR}'>{text}</span>"
            return text

        return chain.text(word=word)

    def _show(self, chain, result, product, evaluated, relative) -> None:
        doc = self._document
        space = f"{doc.space} space" if doc.space else "their authored spaces"
        error = float(np.abs(product - evaluated).max())
        ok = error <= 1e-9 * max(1.0, float(np.abs(evaluated).max()))
        formula = (
            f"<span style='font-size:12.5pt'>{html.escape(result)} = {self._formula(chain)}</span>"
        )
        if formula != self.formula.text():  # rich text is laid out again only when it changes
            self.formula.setText(formula)
        if relative != WORLD:
            note = (
                "Read right to left: up the first bone's chain to the world, then down the "
                "second's, inverted. Struck-through factors meet their inverses and cancel "
                "(the common ancestors)."
            )
        elif any(f.constraint for f in chain.factors):
            note = (
                "Green factors are constraint corrections: left of the bracketed chain in "
                "world space (about the head), right of it in object space."
            )
        else:
            note = "Root first: each bone's translation, then its rotation."
        check = "✓" if ok else "✗"
        self.notes.setText(
            f"Frame {doc.frame:g}, constraints in {space}. {note}  {check} "
            f"product − evaluated pose: max |Δ| = {error:.1e}"
        )
        self.notes.setStyleSheet(f"color: {'#a8c8a0' if ok else '#ff6650'};")
        cards = [
            Card(
                factor_html(f.label),
                f.matrix,
                CONSTRAINT_COLOR if f.constraint else KIND_COLORS.get(f.kind, "#dddddd"),
                struck=f.cancelled,
            )
            for f in chain.factors
        ]
        # The product first, as the formula reads: result = factors.
        product_card = Card(f"{html.escape(result)} =", product, "#ffffff", highlight=True)
        self.cards_view.set_cards([product_card] + cards)
