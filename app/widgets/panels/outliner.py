"""The outliner: bones as a hierarchy, constraints with their pivots and targets.

Selecting here selects in the document (and so in the viewport); the context menu adds and
removes pivots and constraints and sets targets, all through undoable operations. A bone's
or a pivot's name is edited in place (double-click or F2) to rename it; dragging a bone onto another
makes it that bone's child keeping its place in the world (Shift at the drop: keeping its
local values, so it moves with its new parent); dropping it on "Bones" makes it a root.
The drag is the widget's own (press, move, release), not Qt's drag and drop: nothing
leaves the outliner.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from app.scene.rig import key_edits
from app.scene.rig.refs import (
    BONE,
    CONSTRAINT,
    Ref,
    exists,
    part_refs,
    resolve,
)
from app.scene.words import plural
from app.widgets.add_menu import build_add_menu
from app.widgets.kinds import registry as views

REF_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: The rows' colours: a bone's, a constraint's; a part's is its type's ``list_color``.
COLORS = {
    BONE: QtGui.QColor(220, 222, 228),
    CONSTRAINT: QtGui.QColor(150, 215, 140),
}


def _color(ref: Ref) -> QtGui.QColor:
    return COLORS[ref.kind] if ref.part is None else QtGui.QColor(*ref.part.list_color)


class Outliner(QtWidgets.QTreeWidget):
    """Takes the document; rebuilds on structural changes, mirrors the selection.

    Signals
    -------
    rename_requested(object, str)
        A bone's or a pivot's name was edited: its :class:`Ref` and the new name.
    reparent_requested(str, object, str)
        A bone was dropped on another: its name, the new parent (``None``: a root) and
        ``"world"`` or ``"local"`` (what it keeps).
    """

    rename_requested = QtCore.Signal(object, str)
    reparent_requested = QtCore.Signal(str, object, str)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("outliner")
        self._document = document
        self._items: dict[Ref, QtWidgets.QTreeWidgetItem] = {}
        self.setHeaderLabels(["Name", ""])
        self.setColumnCount(2)
        self.header().setStretchLastSection(False)
        # The name column fills the room the keys column leaves, and never gets so narrow
        # that a name loses either end (:meth:`fit_columns`); a long name loses its middle.
        self.header().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Interactive)
        self.header().setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        self.setUniformRowHeights(True)
        self.setAnimated(False)
        self.setIndentation(self.INDENT)
        self.customContextMenuRequested.connect(self._context_menu)
        self.itemSelectionChanged.connect(self._on_item_selection)
        self.setEditTriggers(
            QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
            | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.itemChanged.connect(self._on_item_changed)
        self._bones_group = None
        self._rows: list | None = None  # the names' widths (fit_columns), per change
        self._dragged: Ref | None = None
        self._drag_from = None
        document.structure_changed.connect(self.rebuild)
        document.scene_changed.connect(self._update_texts)
        document.selection_changed.connect(self._on_document_selection)
        self.rebuild()

    def sizeHint(self):
        return QtCore.QSize(max(230, min(self.fit_width(), 360)), 400)

    def fit_width(self) -> int:
        """The width at which every name shows whole beside its keys (a deep hierarchy's
        too), with a scroll bar only if the rows need one."""
        whole, _ = self.name_widths()
        keys = self.sizeHintForColumn(1) if self.topLevelItemCount() else 0
        rows = sum(1 for _ in self._name_rows()) * max(self.sizeHintForRow(0), 1)
        bar = self.verticalScrollBar().sizeHint().width() if rows > self.viewport().height() else 0
        return whole + keys + 2 * self.frameWidth() + bar

    # --- column widths -------------------------------------------------------------------

    #: Characters a name keeps at each end when it is elided (``LeftH…dex1``).
    KEPT = 4
    #: The indentation per level, and the least it shrinks to for a deep hierarchy.
    INDENT, LEAST_INDENT = 14, 8

    def _name_rows(self) -> list[tuple[int, int, int]]:
        """``(depth, whole, ends)`` per row: its depth, and the widths of its name whole and
        of its two ends around an ellipsis (margins included); measured once per change."""
        if self._rows is None:
            margin = (
                2
                * (self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
                + 4
            )
            rows = []
            stack = [(self.topLevelItem(i), 1) for i in range(self.topLevelItemCount())]
            while stack:
                item, depth = stack.pop()
                metrics = QtGui.QFontMetrics(item.font(0))
                text = item.text(0)
                width = metrics.horizontalAdvance(text)
                ends = metrics.horizontalAdvance(text[: self.KEPT] + "…" + text[-self.KEPT :])
                rows.append((depth, width + margin, min(width, ends) + margin))
                stack.extend((item.child(i), depth + 1) for i in range(item.childCount()))
            self._rows = rows
        return self._rows

    def name_widths(self, indent: int | None = None) -> tuple[int, int]:
        """``(whole, least)``: the name column's width for every name whole, and the least
        width at which every name still shows both ends, at ``indent`` pixels per level
        (default: the full indentation)."""
        indent = self.INDENT if indent is None else indent
        rows = self._name_rows()
        whole = max((d * indent + w for d, w, _ in rows), default=0)
        least = max((d * indent + e for d, _, e in rows), default=0)
        return whole, least

    def fit_columns(self) -> None:
        """The name column: the room beside the keys column. A deep hierarchy indents less
        (down to :attr:`LEAST_INDENT`) before a name would lose an end; below that, the
        column keeps the least width and the view scrolls sideways."""
        room = self.viewport().width() - self.columnWidth(1)
        indent = self.INDENT
        while indent > self.LEAST_INDENT and self.name_widths(indent)[1] > room:
            indent -= 1
        if self.indentation() != indent:
            self.setIndentation(indent)
        width = max(room, self.name_widths(indent)[1])
        if self.columnWidth(0) != width:
            self.setColumnWidth(0, width)

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        self.fit_columns()

    def row_count(self) -> int:
        """How many bones, constraints and parts it lists."""
        return len(self._items)

    def item_for(self, ref: Ref) -> QtWidgets.QTreeWidgetItem | None:
        return self._items.get(ref)

    # --- building ------------------------------------------------------------------------

    def _add(self, parent, ref: Ref, text: str) -> QtWidgets.QTreeWidgetItem:
        item = QtWidgets.QTreeWidgetItem(parent, [text, ""])
        item.setData(0, REF_ROLE, ref)
        item.setForeground(0, _color(ref))
        if ref.renamable:
            item.setFlags(item.flags() | QtCore.Qt.ItemFlag.ItemIsEditable)
        item.setToolTip(0, text)  # the whole name, however narrow the column
        self._items[ref] = item
        return item

    def rebuild(self) -> None:
        doc = self._document
        scene = doc.scene
        self._rows = None
        with QtCore.QSignalBlocker(self):
            self.clear()
            self._items = {}
            bones = self._bones_group = QtWidgets.QTreeWidgetItem(self, ["Bones", ""])
            constraints = QtWidgets.QTreeWidgetItem(self, ["Constraints", ""])
            for group in (bones, constraints):
                group.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
            by_name: dict = {}
            pending = list(scene.bones)  # a parent may come after its child in the file
            while pending:
                rest = []
                for b in pending:
                    parent = bones if b.parent is None else by_name.get(b.parent)
                    if parent is None:
                        rest.append(b)
                        continue
                    by_name[b.name] = self._add(parent, Ref.bone(b.name), b.name)
                if len(rest) == len(pending):
                    break
                pending = rest
            for c in scene.constraints:
                item = self._add(constraints, Ref.constraint(c.name), c.name)
                for part in part_refs(c):
                    self._add(item, part, part.part_name if part.is_named_part else part.kind)
            self.expandAll()
        self._update_texts()
        self._on_document_selection()

    def _update_texts(self) -> None:
        scene = self._document.scene
        for ref, item in self._items.items():
            if not exists(scene, ref):
                continue
            thing = resolve(scene, ref)
            if ref.kind == CONSTRAINT:
                words = views.words(thing)
                # a name that says its kind ("Child Of hand.L") takes the kind's column too
                said = thing.name.lower().startswith(words.lower())
                item.setText(1, "" if said else words)
                item.setFirstColumnSpanned(said)
                space = f", authored in {thing.space} space" if thing.space_matters else ""
                item.setToolTip(0, f"{thing.name}: {words}{space}")
            elif ref.part is not None and not ref.part.on_body:  # a target: what it is at
                words = views.target_text(scene.constraint(ref.name), thing)
                if item.text(0) != f"{ref.kind} {words}":
                    item.setText(0, f"{ref.kind} {words}")
                    item.setToolTip(0, item.text(0))
                    self._rows = None
                item.setText(1, "◆" if thing.position_keys is not None else "")
                # nothing beside it: the name takes the keys column too ("target → …_ctrl.R"
                # lost the bone's name in a narrow outliner)
                item.setFirstColumnSpanned(not item.text(1))
            else:
                keyed = len(key_edits.key_frames(scene, ref))
                item.setText(1, f"◆ {keyed}" if keyed else "")
                item.setToolTip(1, plural(keyed, "key frame") if keyed else "not animated")
        self.fit_columns()

    # --- renaming and reparenting ---------------------------------------------------------

    def edit(self, index, *args):
        """Only the name column is edited, wherever in the row the double-click lands."""
        if args and index.isValid() and index.column() != 0:
            index = index.siblingAtColumn(0)
        return super().edit(index, *args)

    def _on_item_changed(self, item, column: int) -> None:
        ref = item.data(0, REF_ROLE)
        if column != 0 or ref is None or not ref.renamable:
            return
        name = ref.name if ref.kind == BONE else ref.part_name
        new = item.text(0)
        if new == name:
            return
        with QtCore.QSignalBlocker(self):
            item.setText(0, name)  # the rename arrives through the document, or not
        self.rename_requested.emit(ref, new)

    def _drop_parent(self, pos):
        """The bone (name) or ``None`` (root) a drop at ``pos`` makes the parent, or
        ``False`` when the drop lands on nothing that can parent."""
        item = self.itemAt(pos)
        if item is None:
            return False
        if item is self._bones_group:
            return None
        ref = item.data(0, REF_ROLE)
        return ref.name if ref is not None and ref.kind == BONE else False

    def mousePressEvent(self, ev):
        item = self.itemAt(ev.position().toPoint())
        ref = item.data(0, REF_ROLE) if item is not None else None
        left = ev.button() == QtCore.Qt.MouseButton.LeftButton
        self._dragged = ref if left and ref is not None and ref.kind == BONE else None
        self._hint = False  # the drop parent the status bar speaks of
        self._drag_from = ev.position().toPoint()
        super().mousePressEvent(ev)

    def mouseMoveEvent(self, ev):
        if self._dragged is not None:
            far = (ev.position().toPoint() - self._drag_from).manhattanLength()
            if far >= QtWidgets.QApplication.startDragDistance():
                parent = self._drop_parent(ev.position().toPoint())
                shape = (
                    QtCore.Qt.CursorShape.DragMoveCursor
                    if parent is not False
                    else QtCore.Qt.CursorShape.ForbiddenCursor
                )
                self.viewport().setCursor(shape)
                if parent is not False and parent != self._dragged.name and parent != self._hint:
                    self._hint = parent
                    where = f"a child of {parent}" if parent else "a root"
                    self._document.notify(
                        f"Drop to make {self._dragged.name} {where}, keeping "
                        "its place (Shift: keeping its local values)"
                    )
            ev.accept()
            return
        super().mouseMoveEvent(ev)

    def mouseReleaseEvent(self, ev):
        dragged, self._dragged = self._dragged, None
        if dragged is not None:
            self.viewport().unsetCursor()
            pos = ev.position().toPoint()
            moved = (pos - self._drag_from).manhattanLength()
            if moved >= QtWidgets.QApplication.startDragDistance():
                parent = self._drop_parent(pos)
                if parent is not False and parent != dragged.name:
                    shift = ev.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier
                    self.reparent_requested.emit(
                        dragged.name, parent, "local" if shift else "world"
                    )
                ev.accept()
                return
        super().mouseReleaseEvent(ev)

    # --- selection -----------------------------------------------------------------------

    def _on_item_selection(self) -> None:
        refs = [item.data(0, REF_ROLE) for item in self.selectedItems()]
        refs = [r for r in refs if r is not None]
        current = self.currentItem()
        active = current.data(0, REF_ROLE) if current is not None else None
        if active in refs:  # the active (last clicked) item goes last
            refs.remove(active)
            refs.append(active)
        self._document.set_selection(refs)

    def _on_document_selection(self) -> None:
        selection = self._document.selection
        with QtCore.QSignalBlocker(self):
            self.clearSelection()
            for ref in selection:
                item = self._items.get(ref)
                if item is not None:
                    item.setSelected(True)
            if selection and selection[-1] in self._items:
                item = self._items[selection[-1]]
                self.setCurrentItem(item, 0, QtCore.QItemSelectionModel.SelectionFlag.NoUpdate)
                self.scrollToItem(item)

    # --- context menu --------------------------------------------------------------------

    def _context_menu(self, pos) -> None:
        item = self.itemAt(pos)
        ref = item.data(0, REF_ROLE) if item is not None else None
        if ref is not None and ref not in self._document.selection:
            self._document.set_selection([ref])
        menu = build_add_menu(self._document, self, ref)
        if not menu.isEmpty():
            self.exec_menu(menu, self.viewport().mapToGlobal(pos))

    def exec_menu(self, menu: QtWidgets.QMenu, at) -> None:
        """Show ``menu`` modally at global position ``at`` (tests replace this)."""
        menu.exec(at)
