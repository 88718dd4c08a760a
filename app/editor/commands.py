"""Undo commands: every edit of a scene is one of these, pushed on the document's stack.

Each command holds the old and the new item (items are frozen, so holding them is cheap and
safe); ``redo`` puts the new one in place, ``undo`` the old one. ``QUndoStack.push`` calls
``redo`` at once, and a drag has already previewed its new item, so ``redo`` must be
harmless to repeat: it only assigns. Edits from a spin box carry a ``merge_key`` and merge
with the command below them when the key matches, so dragging a spin box's arrows makes one
entry in the history, not fifty.
"""

from __future__ import annotations

from PySide6 import QtGui

#: ``QUndoCommand.id`` of mergeable item replacements.
MERGE_ID = 0x5049


class ReplaceItem(QtGui.QUndoCommand):
    """Replace ``scene.<collection>[index]`` (a bone or a constraint) by a new item."""

    def __init__(self, document, collection: str, index: int, old, new, text: str, merge_key=None):
        super().__init__(text)
        self.document = document
        self.collection = collection
        self.index = index
        self.old = old
        self.new = new
        self.merge_key = merge_key

    def redo(self):
        self.document.set_item(self.collection, self.index, self.new)

    def lists_after(self, scene):
        """The scene's ``(bones, constraints)`` after :meth:`redo`, when it changes the
        constraints or the hierarchy (``None`` otherwise): what the document checks first."""
        if self.collection == "bones" and getattr(self.old, "parent", None) == self.new.parent:
            return None
        return _with(scene, self.collection, lambda items: items.__setitem__(self.index, self.new))

    def undo(self):
        self.document.set_item(self.collection, self.index, self.old)

    def id(self):
        return MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other) -> bool:
        if not (
            isinstance(other, ReplaceItem)
            and other.merge_key == self.merge_key
            and (other.collection, other.index) == (self.collection, self.index)
        ):
            return False
        self.new = other.new
        self.setText(other.text())  # "Set space of roll to object", not the first value
        return True


class InsertItem(QtGui.QUndoCommand):
    """Insert a new item (a constraint) at ``index``."""

    def __init__(self, document, collection: str, index: int, item, text: str):
        super().__init__(text)
        self.document = document
        self.collection = collection
        self.index = index
        self.item = item

    def redo(self):
        items = getattr(self.document.scene, self.collection)
        if self.index < len(items) and items[self.index] is self.item:
            return
        self.document.insert_item(self.collection, self.index, self.item)

    def lists_after(self, scene):
        """See :meth:`ReplaceItem.lists_after`."""
        return _with(scene, self.collection, lambda items: items.insert(self.index, self.item))

    def undo(self):
        self.document.remove_item(self.collection, self.index)


class RemoveItem(QtGui.QUndoCommand):
    """Remove the item at ``index`` (a constraint)."""

    def __init__(self, document, collection: str, index: int, text: str):
        super().__init__(text)
        self.document = document
        self.collection = collection
        self.index = index
        self.item = getattr(document.scene, collection)[index]

    def redo(self):
        items = getattr(self.document.scene, self.collection)
        if self.index < len(items) and items[self.index] is self.item:
            self.document.remove_item(self.collection, self.index)

    def undo(self):
        self.document.insert_item(self.collection, self.index, self.item)


def _with(scene, collection: str, change):
    """``(bones, constraints)`` of ``scene`` with ``change(list)`` applied to a copy of
    ``collection``."""
    lists = {"bones": list(scene.bones), "constraints": list(scene.constraints)}
    change(lists[collection])
    return lists["bones"], lists["constraints"]


class SetTimeline(QtGui.QUndoCommand):
    """Change the scene's fps and frame range."""

    def __init__(self, document, new: tuple, text: str, merge_key=None):
        super().__init__(text)
        s = document.scene
        self.document = document
        self.old = (s.fps, s.frame_start, s.frame_end)
        self.new = tuple(new)
        self.merge_key = merge_key

    def redo(self):
        self.document.set_timeline(*self.new)

    def undo(self):
        self.document.set_timeline(*self.old)

    def id(self):
        return MERGE_ID + 1 if self.merge_key is not None else -1

    def mergeWith(self, other) -> bool:
        if not isinstance(other, SetTimeline) or other.merge_key != self.merge_key:
            return False
        self.new = other.new
        self.setText(other.text())
        return True
