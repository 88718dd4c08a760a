"""What every operation uses: the refusal, one item replaced as one undo command, and a
gesture's live preview.

Menus, the outliner's context menu, the inspector and the viewport call the operations of
this package, so each edit has one implementation and one readable name in Edit ▸ Undo. An
operation that cannot apply raises :class:`OperationError` with a sentence for the status
bar; nothing changes.
"""

from __future__ import annotations

from app.editor.commands import ReplaceItem
from app.scene.rig.refs import Ref, owner_of, replace_in, resolve


class OperationError(Exception):
    """The operation does not apply; the message says why, in the user's words."""


def replace(document, ref: Ref, new_item, text: str, merge_key=None) -> None:
    """Push one command replacing the item ``ref`` names by ``new_item``."""
    collection, index = owner_of(document.scene, ref)
    old = getattr(document.scene, collection)[index]
    new = replace_in(old, ref, new_item)
    if new == old:
        return
    document.push(ReplaceItem(document, collection, index, old, new, text, merge_key))


class LiveEdit:
    """A gesture (a drag) on one item: previews as it goes, one undo command at the end.

    Every preview is built from the item as it was when the gesture began, so errors do
    not accumulate and :meth:`cancel` restores it exactly.
    """

    def __init__(self, document, ref: Ref, text: str):
        self.document = document
        self.ref = ref
        self.text = text
        self.collection, self.index = owner_of(document.scene, ref)
        self.old_owner = getattr(document.scene, self.collection)[self.index]
        self.original = resolve(document.scene, ref)
        self.new_owner = self.old_owner

    @property
    def done_text(self) -> str:
        """What the status bar says when the gesture is done."""
        return self.text

    def preview(self, new_item) -> None:
        self.new_owner = replace_in(self.old_owner, self.ref, new_item)
        self.document.set_item(self.collection, self.index, self.new_owner)

    def commit(self) -> bool:
        """Push the command (if anything changed); returns whether it did."""
        if self.new_owner == self.old_owner:
            self.cancel()
            return False
        self.document.push(
            ReplaceItem(
                self.document,
                self.collection,
                self.index,
                self.old_owner,
                self.new_owner,
                self.text,
            )
        )
        return True

    def cancel(self) -> None:
        self.document.set_item(self.collection, self.index, self.old_owner)
