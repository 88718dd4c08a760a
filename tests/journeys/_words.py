"""Every string a person can read in the main window, and the lint that checks them.

``visible_strings(window)`` walks the window as it is on screen: labels, buttons, group and
dock titles, tabs, combo items, table and tree cells and headers (the History dock's undo
texts among them), text panes, plot labels, the viewport's labels, every menu's actions and
every tooltip, the window title and the status bar's message. ``offences(strings, names)``
returns the strings that show an identifier, a Python repr or a count with the wrong plural,
after taking the scene's own names out of them (a bone called ``multi_parent.foot`` is data,
the words around it are not).
"""

from __future__ import annotations

import re

from PySide6 import QtGui, QtWidgets

#: Words that look like identifiers but are the interface's own (kept short on purpose).
ALLOWED = {
    "main.py",  # the command line's name, in About and tooltips
    "Select None",  # Edit ▸ Select None: the word, not Python's
}

#: A file's name is data (the recent files, a tutorial's scene, the window title).
FILE_NAME = re.compile(
    r"(?:/[\w.-]+)*/?[\w.-]+\.(?:json|bvh|glb|gltf|fbx|npz|csv|usda|usdc|png|md|txt)\b"
)  # with the folders of its path (a recent file's tooltip), which are the user's data too

IDENTIFIER = re.compile(r"(?<![\w./\\-])[A-Za-z][a-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w/\\-])")
REPR_WORD = re.compile(r"\b(?:None|True|False|nan|NaN|inf)\b")
#: What is left of an identifier built on a name (``{bone}_to_world``, the name taken out).
JOINED = re.compile(r"·_[A-Za-z0-9_]+")
#: pyqtgraph's scale beside an axis label without a unit: numbers people must rescale.
AXIS_SCALE = re.compile(r"\(x[\d.e+-]+\)")
#: A reference into a document the user has not read ("option 1 of the seed").
JARGON = re.compile(r"\boption \d of\b")
LIST_REPR = re.compile(r"\[\s*(?:\]|True|False|None|-?\d|'|\")")
DICT_REPR = re.compile(r"\{\s*(?:\}|['\"]?\w+['\"]?\s*:)")
ONE_PLURAL = re.compile(r"(?<![\d.,])\b1 ([a-z]+s)\b")
NOT_PLURAL = {"is", "has", "was", "as", "this", "its", "us", "plus", "axis", "thus"}


def plain(text: str) -> str:
    """``text`` as shown: rich text reduced to its words."""
    if "<" in text and ">" in text:
        doc = QtGui.QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _menu_strings(menu: QtWidgets.QMenu, where: str, out: list) -> None:
    for action in menu.actions():
        if action.isSeparator():
            continue
        here = f"{where} ▸ {action.text()}"
        out.append((here, action.text().replace("&", "")))
        if action.toolTip() and action.toolTip() != action.text().replace("&", ""):
            out.append((f"{here} (tooltip)", action.toolTip()))
        if action.statusTip():
            out.append((f"{here} (status tip)", action.statusTip()))
        if action.menu() is not None:
            _menu_strings(action.menu(), here, out)


def _model_strings(view: QtWidgets.QAbstractItemView, where: str, out: list) -> None:
    from PySide6.QtCore import QModelIndex, Qt

    model = view.model()
    if model is None:
        return

    def columns(parent) -> int:  # a list model's columnCount is private in PySide
        try:
            return model.columnCount(parent)
        except TypeError:
            return 1

    for c in range(columns(QModelIndex())):
        header = model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if isinstance(header, str) and header:
            out.append((f"{where} header", header))

    def walk(parent):
        for r in range(model.rowCount(parent)):
            for c in range(columns(parent)):
                index = model.index(r, c, parent)
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    value = model.data(index, role)
                    if isinstance(value, str) and value:
                        out.append((f"{where} cell {r},{c}", value))
            first = model.index(r, 0, parent)
            if model.rowCount(first):
                walk(first)

    walk(QModelIndex())


def _graphics_strings(view: QtWidgets.QGraphicsView, where: str, out: list) -> None:
    import pyqtgraph as pg

    scene = view.scene()
    if scene is None:
        return
    for item in scene.items():
        if not item.isVisible():
            continue
        if isinstance(item, (QtWidgets.QGraphicsTextItem,)):
            text = item.toPlainText()
        elif isinstance(item, QtWidgets.QGraphicsSimpleTextItem):
            text = item.text()
        elif isinstance(item, pg.AxisItem):
            text = plain(item.labelString()) if item.label.isVisible() else ""
        else:
            continue
        if text.strip():
            out.append((f"{where} plot text", text))


def visible_strings(window) -> list[tuple[str, str]]:
    """``(where, text)`` for every string the window shows now (see the module docstring)."""
    out: list[tuple[str, str]] = [("window title", window.windowTitle().replace("[*]", ""))]
    message = window.statusBar().currentMessage()
    if message:
        out.append(("status bar message", message))
    for widget in window.findChildren(QtWidgets.QWidget):
        if not widget.isVisibleTo(window) or isinstance(widget, QtWidgets.QMenu):
            continue
        where = f"{type(widget).__name__} {widget.objectName()}".strip()
        if widget.toolTip():
            out.append((f"{where} (tooltip)", widget.toolTip()))
        if isinstance(widget, QtWidgets.QLabel):
            out.append((where, widget.text()))
        elif isinstance(widget, QtWidgets.QAbstractButton):
            out.append((where, widget.text().replace("&", "")))
        elif isinstance(widget, QtWidgets.QGroupBox):
            out.append((where, widget.title()))
        elif isinstance(widget, QtWidgets.QDockWidget):
            out.append((where, widget.windowTitle()))
        elif isinstance(widget, QtWidgets.QComboBox):
            out.extend((f"{where} item", widget.itemText(i)) for i in range(widget.count()))
        elif isinstance(widget, QtWidgets.QTabBar):
            for i in range(widget.count()):
                out.append((f"{where} tab", widget.tabText(i)))
                if widget.tabToolTip(i):
                    out.append((f"{where} tab (tooltip)", widget.tabToolTip(i)))
        elif isinstance(widget, QtWidgets.QAbstractSpinBox):
            for part in (widget.prefix(), widget.suffix(), widget.specialValueText()):
                if part.strip():
                    out.append((where, part))
        elif isinstance(widget, QtWidgets.QLineEdit):
            if widget.placeholderText():
                out.append((f"{where} placeholder", widget.placeholderText()))
        elif isinstance(widget, QtWidgets.QTextEdit):
            out.append((where, widget.toPlainText()))
        elif isinstance(widget, QtWidgets.QAbstractItemView):
            _model_strings(widget, where, out)
        elif isinstance(widget, QtWidgets.QGraphicsView):
            _graphics_strings(widget, where, out)
    out.extend(("viewport label", text) for text in window.viewport.labels())
    for action in window.menuBar().actions():
        if action.menu() is not None:
            _menu_strings(action.menu(), action.text().replace("&", ""), out)
    return [(where, plain(text)) for where, text in out if text and text.strip()]


def menu_strings(menu: QtWidgets.QMenu, where: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    _menu_strings(menu, where, out)
    return out


def scene_names(scene, path=None) -> list[str]:
    """The names a scene brings (bones, constraints, pivots, meshes, its file): data."""
    names = [b.name for b in scene.bones]
    for c in scene.constraints:
        names.append(c.name)
        names.extend(p.name for p in getattr(c, "pivots", ()))
    names.extend(getattr(m, "name", "") for m in scene.meshes)
    if path is not None:
        from pathlib import Path

        names += [Path(path).name, Path(path).stem]
    return sorted({n for n in names if n}, key=len, reverse=True)


def offences(strings, names=(), allowed=ALLOWED) -> list[tuple[str, str, str]]:
    """``(where, text, why)`` for each string showing an identifier, a repr or "1 keys"."""
    found = []
    for where, text in strings:
        words = FILE_NAME.sub("·", text)  # first: a name inside a path must not split it
        for name in (*names, *allowed):
            words = words.replace(name, "·")
        for pattern, why in (
            (IDENTIFIER, "identifier"),
            (JOINED, "identifier"),
            (AXIS_SCALE, "axis scale"),
            (JARGON, "jargon"),
            (REPR_WORD, "Python word"),
            (LIST_REPR, "list repr"),
            (DICT_REPR, "dict repr"),
        ):
            hit = pattern.search(words)
            if hit:
                found.append((where, text, f"{why} {hit.group(0)!r}"))
        for hit in ONE_PLURAL.finditer(words):
            if hit.group(1) not in NOT_PLURAL and not hit.group(1).endswith("ss"):
                found.append((where, text, f"plural {hit.group(0)!r}"))
    return found


def outliner_cells(tree) -> list[tuple[str, str, str, bool]]:
    """``(text, shown, tooltip, inside)`` for each name cell of the outliner as drawn now:
    the text Qt paints in the cell's width (elided as the view elides), its tooltip, and
    whether the cell lies inside the visible part of the view."""
    margin = tree.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin) + 1
    cells = []
    it = QtWidgets.QTreeWidgetItemIterator(tree)
    while it.value() is not None:
        item = it.value()
        rect = tree.visualRect(tree.indexFromItem(item, 0))
        metrics = QtGui.QFontMetrics(item.font(0))
        text = item.text(0)
        shown = metrics.elidedText(text, tree.textElideMode(), rect.width() - 2 * margin)
        inside = rect.left() >= 0 and rect.right() <= tree.viewport().width()
        cells.append((text, shown, item.toolTip(0), inside))
        it += 1
    return cells


def message_fits(window) -> tuple[str, int, int]:
    """``(message, its width, the room it has)``: the status bar draws its message from
    the left edge up to the first permanent widget shown (QStatusBar's message rect)."""
    status = window.statusBar()
    message = status.currentMessage()
    right = status.width() - 12
    for widget in status.findChildren(QtWidgets.QWidget):
        if widget.parent() is status and widget.isVisible() and widget.x() > 0:
            if not isinstance(widget, QtWidgets.QSizeGrip):
                right = min(right, widget.x() - 1)
    return message, status.fontMetrics().horizontalAdvance(message), right - 6
