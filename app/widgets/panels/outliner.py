"""The outliner: bones as a hierarchy, constraints with their pivots and targets.

Selecting here selects in the document (and so in the viewport); the context menu adds and
removes pivots and constraints and sets targets, all through undoable operations.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from app.scene.rig import editing
from app.scene.rig.editing import BONE, CONSTRAINT, PIVOT, POLE, TARGET, TARGET_KINDS, Ref
from app.scene.rig.model import Fabrik, MultiParent, PointsAt
from app.widgets.add_menu import build_add_menu

REF_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
COLORS = {
    BONE: QtGui.QColor(220, 222, 228),
    CONSTRAINT: QtGui.QColor(150, 215, 140),
    PIVOT: QtGui.QColor(255, 160, 60),
    TARGET: QtGui.QColor(80, 220, 255),
    POLE: QtGui.QColor(200, 140, 255),
}
TYPE_WORDS = {"multi_parent": "multi-parent", "points_at": "points-at", "fabrik": "FABRIK"}


class Outliner(QtWidgets.QTreeWidget):
    """Takes the document; rebuilds on structural changes, mirrors the selection."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("outliner")
        self._document = document
        self._items: dict[Ref, QtWidgets.QTreeWidgetItem] = {}
        self.setHeaderLabels(["Name", ""])
        self.setColumnCount(2)
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        self.setUniformRowHeights(True)
        self.setAnimated(False)
        self.setIndentation(14)
        self.customContextMenuRequested.connect(self._context_menu)
        self.itemSelectionChanged.connect(self._on_item_selection)
        document.structure_changed.connect(self.rebuild)
        document.scene_changed.connect(self._update_texts)
        document.selection_changed.connect(self._on_document_selection)
        self.rebuild()

    def sizeHint(self):
        return QtCore.QSize(250, 400)

    def item_for(self, ref: Ref) -> QtWidgets.QTreeWidgetItem | None:
        return self._items.get(ref)

    # --- building ------------------------------------------------------------------------

    def _add(self, parent, ref: Ref, text: str) -> QtWidgets.QTreeWidgetItem:
        item = QtWidgets.QTreeWidgetItem(parent, [text, ""])
        item.setData(0, REF_ROLE, ref)
        item.setForeground(0, COLORS[ref.kind])
        self._items[ref] = item
        return item

    def rebuild(self) -> None:
        doc = self._document
        scene = doc.scene
        with QtCore.QSignalBlocker(self):
            self.clear()
            self._items = {}
            bones = QtWidgets.QTreeWidgetItem(self, ["Bones", ""])
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
                if isinstance(c, MultiParent):
                    for p in c.pivots:
                        self._add(item, Ref.pivot_of(c.name, p.name), p.name)
                elif isinstance(c, (PointsAt, Fabrik)):
                    self._add(item, Ref.target_of(c.name), "target")
                    if getattr(c, "pole", None) is not None:
                        self._add(item, Ref.pole_of(c.name), "pole")
            self.expandAll()
        self._update_texts()
        self._on_document_selection()

    def _update_texts(self) -> None:
        scene = self._document.scene
        for ref, item in self._items.items():
            if not editing.exists(scene, ref):
                continue
            thing = editing.resolve(scene, ref)
            if ref.kind == CONSTRAINT:
                words = TYPE_WORDS.get(thing.type, thing.type)
                item.setText(1, words)
                item.setToolTip(0, f"{thing.name}: {words}, authored in {thing.space} space")
            elif ref.kind in TARGET_KINDS:
                words = f"→ {thing.bone} {thing.at}" if thing.bone else "(position)"
                item.setText(0, f"{ref.kind} {words}")
                item.setText(1, "◆" if thing.position_keys is not None else "")
            else:
                keyed = len(editing.key_frames(scene, ref))
                item.setText(1, f"◆ {keyed}" if keyed else "")
                item.setToolTip(1, f"{keyed} key frames" if keyed else "not animated")

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
