"""A grid of 4×4 matrices, each under its rich-text label, painted directly.

The matrix-chain panel refreshes while the user scrubs; a rich-text document re-laid out on
every frame costs more than the viewport's whole redraw, so the cards are painted: labels
are laid out once per label (cached), numbers are drawn as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets


def number(v: float) -> str:
    """A matrix entry: 3 decimals, no ``-0.000``."""
    text = f"{v:.3f}"
    return "0.000" if text == "-0.000" else text


@dataclass(frozen=True)
class Card:
    """One matrix: its label (rich text), its value, and how it is drawn."""

    label_html: str
    matrix: np.ndarray
    color: str = "#dddddd"
    struck: bool = False
    highlight: bool = False

    def rows(self) -> list[list[str]]:
        return [[number(v) for v in row] for row in np.asarray(self.matrix)]


class MatrixCards(QtWidgets.QWidget):
    """Cards in rows that wrap at the widget's width (give it to a scroll area)."""

    PAD = 8
    GAP = 10

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("matrixCards")
        self._cards: list[Card] = []
        self._labels: dict[tuple, QtGui.QTextDocument] = {}
        self._sizes: tuple | None = None  # (cell, card) for the cards' labels and digits
        self.font = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self.font.setPointSizeF(9.5)
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Preferred
        )

    def set_cards(self, cards: list[Card]) -> None:
        same_shape = len(cards) == len(self._cards) and all(
            (a.label_html, a.struck) == (b.label_html, b.struck) for a, b in zip(cards, self._cards)
        )
        widths = {len(t) for c in cards for row in c.rows() for t in row}
        if not same_shape or widths != getattr(self, "_widths", None):
            self._sizes = None
        self._widths = widths
        self._cards = list(cards)
        if not same_shape:
            self.updateGeometry()
            self.setMinimumHeight(self.heightForWidth(max(self.width(), 1)))
        self.update()

    def texts(self) -> list[tuple[str, list[list[str]]]]:
        """What each card shows: its label as plain text and its rows of numbers."""
        return [(self._label(c).toPlainText(), c.rows()) for c in self._cards]

    # --- layout --------------------------------------------------------------------------

    def _label(self, card: Card) -> QtGui.QTextDocument:
        key = (card.label_html, card.color, card.struck)
        doc = self._labels.get(key)
        if doc is None:
            doc = QtGui.QTextDocument()
            doc.setDefaultFont(self.font)
            doc.setDocumentMargin(0)
            color = "#8a8d96" if card.struck else card.color
            text = f"<s>{card.label_html}</s>" if card.struck else card.label_html
            doc.setHtml(f"<span style='color:{color}'><b>{text}</b></span>")
            self._labels[key] = doc
        return doc

    def _cell(self) -> QtCore.QSizeF:
        if self._sizes is None:
            self._sizes = (self._measure_cell(), None)
        return self._sizes[0]

    def _measure_cell(self) -> QtCore.QSizeF:
        metrics = QtGui.QFontMetricsF(self.font)
        width = max(
            (
                max((metrics.horizontalAdvance(t) for row in c.rows() for t in row), default=0)
                for c in self._cards
            ),
            default=40,
        )
        return QtCore.QSizeF(width + 8, metrics.height() + 1)

    def _card_size(self) -> QtCore.QSizeF:
        cell = self._cell()
        if self._sizes[1] is not None:
            return self._sizes[1]
        label = max((self._label(c).size().height() for c in self._cards), default=16)
        width = max(
            4 * cell.width(), max((self._label(c).idealWidth() for c in self._cards), default=0)
        )
        size = QtCore.QSizeF(width + 2 * self.PAD, label + 4 * cell.height() + 2.5 * self.PAD)
        self._sizes = (cell, size)
        return size

    def _columns(self, width: float) -> int:
        card = self._card_size()
        return max(1, int((width + self.GAP) // (card.width() + self.GAP)))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if not self._cards:
            return 0
        rows = -(-len(self._cards) // self._columns(width))
        return int(rows * (self._card_size().height() + self.GAP))

    def sizeHint(self) -> QtCore.QSize:
        card = self._card_size()
        return QtCore.QSize(int(3 * (card.width() + self.GAP)), self.heightForWidth(600))

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self.setMinimumHeight(self.heightForWidth(self.width()))

    # --- painting ------------------------------------------------------------------------

    def paintEvent(self, ev) -> None:
        if not self._cards:
            return
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setFont(self.font)
        card_size = self._card_size()
        cell = self._cell()
        columns = self._columns(self.width())
        text = self.palette().color(QtGui.QPalette.ColorRole.Text)
        dim = QtGui.QColor(140, 142, 150)
        for k, card in enumerate(self._cards):
            r, c = divmod(k, columns)
            x = c * (card_size.width() + self.GAP)
            y = r * (card_size.height() + self.GAP)
            box = QtCore.QRectF(x, y, card_size.width(), card_size.height())
            if not box.intersects(QtCore.QRectF(ev.rect())):
                continue
            p.setPen(QtGui.QPen(QtGui.QColor(70, 72, 80), 1))
            p.setBrush(QtGui.QColor(38, 56, 79) if card.highlight else QtGui.QColor(40, 41, 46))
            p.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 5, 5)
            label = self._label(card)
            p.save()
            p.translate(x + self.PAD, y + self.PAD)
            label.drawContents(p)
            p.restore()
            top = y + self.PAD * 1.5 + label.size().height()
            p.setPen(dim if card.struck else text)
            for i, row in enumerate(card.rows()):
                for j, value in enumerate(row):
                    rect = QtCore.QRectF(
                        x + self.PAD + j * cell.width(),
                        top + i * cell.height(),
                        cell.width(),
                        cell.height(),
                    )
                    p.drawText(
                        rect,
                        QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter,
                        value,
                    )
        p.end()
