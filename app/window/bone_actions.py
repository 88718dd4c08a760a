"""The main window's bone and pose actions (a part of
:class:`~app.window.main_window.MainWindow`, like :mod:`app.window.actions`).

Shift+A (add menu), E (extrude), F2 (rename) and the pose keys act on the viewport or the
outliner, whichever has the keyboard focus: their shortcuts are scoped to those two
widgets, so the curve view keeps Ctrl+C/Ctrl+V for its keys. X / Delete stays a window
action; with bones selected it asks what to do with their children (Blender asks too).
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.operations import bone_operations, constraint_operations, pose_operations
from app.editor.operations.base import OperationError
from app.scene.rig.bone_edits import DELETE, REPARENT
from app.scene.rig.refs import BONE, CONSTRAINT
from app.widgets.add_menu import build_add_menu
from app.widgets.viewport import framing
from app.window.layout import show_message

SCOPED = QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut


class BoneActions:
    """Bone and pose actions (a mixin: it uses the window's document, viewport, outliner and
    ``actions_by_name``)."""

    def _scoped_action(self, name, text, slot, shortcut, tip) -> QtGui.QAction:
        """An action whose shortcut works while the viewport or the outliner has focus."""
        action = QtGui.QAction(text, self)
        action.setObjectName(name)
        action.setShortcut(QtGui.QKeySequence(shortcut))
        action.setShortcutContext(SCOPED)
        action.setStatusTip(tip)
        action.setToolTip(f"{tip} ({shortcut})")
        action.triggered.connect(slot)
        for widget in (self.viewport, self.outliner):
            widget.addAction(action)
        self.actions_by_name[name] = action
        return action

    def _build_bone_actions(self) -> None:
        doc = self.document
        a = self._scoped_action
        a(
            "addMenu",
            "&Add…",
            self._popup_add_menu,
            "Shift+A",
            "The add menu: a bone, constraints on the selected bones",
        )
        a(
            "addBone",
            "Add &Bone",
            lambda: self._safely(bone_operations.add_bone, doc)(),
            "Ctrl+Shift+A",
            "A new bone at the selected bone's tail (its child), or a root at the origin",
        )
        a(
            "extrude",
            "&Extrude Bone",
            self._safely(bone_operations.extrude, doc),
            "E",
            "A child bone from each selected bone's tail, continuing it",
        )
        a(
            "renameBone",
            "&Rename…",
            self._rename_active_bone,
            "F2",
            "Rename the active bone or pivot (every constraint naming it follows)",
        )
        a(
            "copyPose",
            "&Copy Pose",
            self._copy_pose,
            "Ctrl+C",
            "Copy the selected bones' pose at this frame",
        )
        a(
            "pastePose",
            "&Paste Pose",
            lambda: self._paste_pose(False),
            "Ctrl+V",
            "Paste the copied pose at this frame (keys it)",
        )
        a(
            "pastePoseFlipped",
            "Paste &Flipped Pose",
            lambda: self._paste_pose(True),
            "Ctrl+Shift+V",
            "Paste the copied pose mirrored onto the other side's bones",
        )
        a(
            "clearRotation",
            "Clear &Rotation",
            self._safely(pose_operations.clear, doc, True),
            "Alt+R",
            "The selected bones back to their rest rotation at this frame",
        )
        a(
            "clearLocation",
            "Clear &Location",
            self._safely(pose_operations.clear, doc, False),
            "Alt+G",
            "The selected bones back to their rest location at this frame",
        )
        self.outliner.reparent_requested.connect(self._reparent)
        self.outliner.rename_requested.connect(self._rename)

    def _copy_pose(self) -> None:
        try:
            text = pose_operations.copy_pose(self.document)
        except OperationError as e:
            show_message(self, str(e))
            return
        QtGui.QGuiApplication.clipboard().setText(text)

    def _paste_pose(self, flipped: bool) -> None:
        text = QtGui.QGuiApplication.clipboard().text()
        self._safely(pose_operations.paste_pose, self.document, text, flipped)()
        # what was pasted is in view
        framing.keep_in_view(self.viewport, framing.selection_points(self.viewport))

    def _popup_add_menu(self) -> None:
        """Shift+A: the add menu under the mouse, its first entry (Add Bone) active."""
        menu = build_add_menu(self.document, self)
        self._shown_add_menu = menu  # owned until it closes
        first = next((act for act in menu.actions() if act.isEnabled()), None)
        if first is not None:
            menu.setActiveAction(first)
        menu.popup(QtGui.QCursor.pos())

    def _rename(self, ref, new: str) -> None:
        doc = self.document
        if ref.kind == BONE:
            self._safely(bone_operations.rename_bone, doc, ref.name, new)()
        else:
            self._safely(constraint_operations.rename_part, doc, ref, new)()

    def _rename_active_bone(self) -> None:
        """F2: rename the active bone or pivot (in place in the outliner, else a dialog)."""
        doc = self.document
        ref = doc.active
        if ref is None or not (ref.kind == BONE or ref.is_named_part):
            self.statusBar().showMessage("Select a bone or a pivot to rename it", 4000)
            return
        item = self.outliner.item_for(ref)
        if self.outliner.hasFocus() and item is not None:
            self.outliner.editItem(item, 0)  # in place, as the outliner's own F2 would
            return
        name = ref.name if ref.kind == BONE else ref.part_name
        dialog = QtWidgets.QInputDialog(self)
        dialog.setObjectName("renameDialog")
        dialog.setWindowTitle("Rename")
        dialog.setLabelText(f"New name for {ref.label()}:")
        dialog.setTextValue(name)
        if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
            self._rename(ref, dialog.textValue())

    def _reparent(self, name: str, parent, keep: str) -> None:
        self._safely(bone_operations.reparent_bone, self.document, name, parent, keep)()

    def ask_children(self, names) -> str | None:
        """Ask what happens to the children of bones being deleted: ``"reparent"``,
        ``"delete"``, or ``None`` (cancelled)."""
        box = QtWidgets.QMessageBox(self)
        box.setObjectName("deleteBonesDialog")
        box.setIcon(QtWidgets.QMessageBox.Icon.Question)
        box.setWindowTitle("Delete Bones")
        box.setText(f"Delete {', '.join(names)}. What happens to the children?")
        box.setInformativeText(
            "Reparent: they move to the deleted bone's parent and keep their place.\n"
            "Delete: they are deleted too, with everything below them."
        )
        reparent = box.addButton("&Reparent Children", QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        reparent.setObjectName("reparentChildren")
        delete = box.addButton("&Delete Children", QtWidgets.QMessageBox.ButtonRole.DestructiveRole)
        delete.setObjectName("deleteChildren")
        box.addButton(QtWidgets.QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(reparent)
        box.exec()
        clicked = box.clickedButton()
        return REPARENT if clicked is reparent else DELETE if clicked is delete else None

    def _delete_selected(self) -> None:
        """X / Delete: the selected bones (asking about their children), pivots and
        constraints, as one undo step."""
        doc = self.document
        bones = doc.selected_bones()
        others = [r for r in doc.selection if r.kind == CONSTRAINT or r.is_named_part]
        if not bones:
            self._safely(constraint_operations.delete_selected, doc)()
            return
        children = REPARENT
        if bone_operations.has_children(doc, bones):
            children = self.ask_children(bones)
            if children is None:
                return
        if not others:
            self._safely(bone_operations.delete_bones, doc, bones, children)()
            return
        stack = doc.undo_stack
        stack.beginMacro(f"Delete {', '.join(r.label() for r in doc.selection)}")
        try:
            doc.set_selection(others)
            self._safely(constraint_operations.delete_selected, doc)()
            self._safely(bone_operations.delete_bones, doc, bones, children)()
        finally:
            stack.endMacro()
