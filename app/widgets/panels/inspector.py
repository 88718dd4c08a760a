"""The inspector: properties of the active selection, edited through undoable operations.

A pivot or a bone shows its rotation at the current frame in three notations; editing any
of them keys it at that frame (K keys the current values, Shift+K deletes the key). A
pivot's position on its body and a position target are edited for the whole timeline, or
as a key at the current frame when they are animated; the form says which.

One idea: the inspector of the active selection.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor.files import is_shipped
from app.editor.operations import bone_operations, constraint_operations, key_operations
from app.editor.operations.base import OperationError
from app.editor.operations.follow_operations import set_follow_target
from app.editor.throttle import Throttle
from app.scene.rig import key_edits
from app.scene.rig.model import Target
from app.scene.rig.refs import BONE, CONSTRAINT, Ref, exists, resolve
from app.scene.words import plural
from app.widgets.fields import BIG, RotationEditor, VectorEdit
from app.widgets.kinds import registry as views
from app.widgets.kinds.base import choice_index, target_choices
from app.widgets.panels.constraint_section import ConstraintSection
from app.widgets.panels.key_fields import interpolation_row, scale_group
from app.widgets.text_keys import keep_keys


def _keys_text(keys, what: str) -> str:
    if keys is None:
        return f"{what}: not animated"
    return f"{what}: {plural(len(keys), 'key')}"


class Inspector(ConstraintSection, QtWidgets.QScrollArea):
    """Takes the document; rebuilds its form when the active item changes."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("inspector")
        self.setWidgetResizable(True)
        # A narrow dock (a small screen) scrolls its widest rows rather than cutting them.
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self._document = document
        self._ref: Ref | None = None
        self._refreshers: list = []
        document.selection_changed.connect(self._rebuild)
        document.structure_changed.connect(self._rebuild)
        document.scene_replaced.connect(self._rebuild)
        # Values follow scrubbing and playback ten times a second; edits (each step of a
        # drag) show at once, and once: the pose change an edit emits next is shown already.
        self._throttled = Throttle(
            self._refresh, 100, self, shows=lambda: (document.frame, document.space)
        )
        document.pose_changed.connect(self._throttled)
        document.scene_changed.connect(self._throttled.now)
        self._rebuild()

    def sizeHint(self):
        return QtCore.QSize(370, 480)

    # --- building ------------------------------------------------------------------------

    def _active(self) -> Ref | None:
        doc = self._document
        ref = doc.active
        return ref if ref is not None and exists(doc.scene, ref) else None

    def _rebuild(self) -> None:
        ref = self._ref = self._active()
        self._refreshers = []
        page = QtWidgets.QWidget()
        page.setObjectName("inspectorPage")
        self._form = QtWidgets.QVBoxLayout(page)
        self._form.setContentsMargins(8, 8, 8, 8)
        self._form.setSpacing(8)
        if ref is None:
            self._build_scene()
        elif ref.kind == BONE:
            self._build_bone(ref)
        elif ref.part is not None and ref.part.on_body:
            self._build_body_point(ref)
        elif ref.part is not None:
            self._build_target(ref)
        elif ref.kind == CONSTRAINT:
            self._build_constraint(ref)
        self._form.addStretch(1)
        old = self.takeWidget()
        if old is not None:
            old.deleteLater()
        self.setWidget(page)
        self._refresh()

    def _header(self, title: str, subtitle: str = "") -> None:
        label = QtWidgets.QLabel(
            f"<b style='font-size:12pt'>{title}</b>"
            + (f"<br><span style='color:#9aa0a8'>{subtitle}</span>" if subtitle else "")
        )
        label.setObjectName("inspectorTitle")
        label.setWordWrap(True)
        self._form.addWidget(label)

    def _group(self, title: str) -> QtWidgets.QFormLayout:
        """A framed group of rows under ``title``. The title is a label that wraps, above the
        frame where the style draws a group box's title: a box's own title never wraps, and a
        long one ("Translation in units (head in the parent's frame)") made every page wider
        than the inspector of a small screen."""
        group = QtWidgets.QWidget()
        column = QtWidgets.QVBoxLayout(group)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        heading = QtWidgets.QLabel(title)
        heading.setObjectName("groupTitle")
        heading.setWordWrap(True)
        box = QtWidgets.QGroupBox()
        form = QtWidgets.QFormLayout(box)
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setContentsMargins(6, 6, 6, 6)
        # A field goes under its label where both do not fit side by side (a narrow inspector).
        form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        column.addWidget(heading)
        column.addWidget(box)
        self._form.addWidget(group)
        return form

    def _note(self, form, fn) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel()
        label.setWordWrap(True)
        label.setStyleSheet("color: #9aa0a8;")
        form.addRow(label)
        self._refreshers.append(lambda: _set_text(label, fn()))
        return label

    # --- what the field builders (key_fields, limit_fields) build with --------------------

    @property
    def document(self):
        return self._document

    def group(self, title: str) -> QtWidgets.QFormLayout:
        """A titled group of fields added to the form."""
        return self._group(title)

    def note(self, form, fn) -> QtWidgets.QLabel:
        """A grey note in ``form`` whose text ``fn()`` gives at each refresh."""
        return self._note(form, fn)

    def run(self, fn, *args) -> None:
        """Run an operation; its refusal goes to the status bar and the fields refresh."""
        self._run(fn, *args)

    def add_refresher(self, fn) -> None:
        """Call ``fn()`` at each refresh (until the form is rebuilt)."""
        self._refreshers.append(fn)

    def refresh(self) -> None:
        """Show the document's values again (or rebuild for another active item)."""
        self._refresh()

    def _key_buttons(self, form, ref: Ref) -> None:
        row = QtWidgets.QHBoxLayout()
        key = QtWidgets.QPushButton("Key (K)")
        key.setObjectName("keyButton")
        key.setToolTip("Key the current values at the current frame")
        unkey = QtWidgets.QPushButton("Delete key (Shift+K)")
        unkey.setObjectName("deleteKeyButton")
        key.clicked.connect(lambda: self._run(key_operations.set_key, self._document, [ref]))
        unkey.clicked.connect(lambda: self._run(key_operations.delete_key, self._document, [ref]))
        for b in (key, unkey):
            b.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
            row.addWidget(b)
        form.addRow(row)

    def _int_field(self, form, label, object_name, ref: Ref, field: str, maximum: int) -> None:
        """A spin box for an integer field of the constraint ``ref`` (from 1 to ``maximum``)."""
        doc = self._document
        spin = keep_keys(QtWidgets.QSpinBox())
        spin.setObjectName(object_name)
        spin.setRange(1, maximum)
        spin.setKeyboardTracking(False)
        form.addRow(label, spin)
        spin.valueChanged.connect(
            lambda v: self._run(
                constraint_operations.set_constraint_field, doc, ref.name, field, int(v)
            )
        )
        self._refreshers.append(
            lambda: self._set_spin(spin, getattr(doc.scene.constraint(ref.name), field))
        )

    def _run(self, fn, *args) -> None:
        try:
            fn(*args)
        except OperationError as e:
            self._document.notify(str(e))
            self._refresh()

    def _rotation_group(self, ref: Ref, title: str, always_keys: bool = True):
        doc = self._document
        form = self._group(title)
        editor = RotationEditor("rotation")
        form.addRow(editor)
        editor.edited.connect(
            lambda q, source: self._run(key_operations.set_rotation, doc, ref, q, source)
        )
        self._refreshers.append(
            lambda: editor.set_value(key_edits.rotation_at(resolve(doc.scene, ref), doc.frame))
        )
        interpolation_row(self, form, ref, "rotation_keys")
        self._key_buttons(form, ref)
        self._note(form, lambda: self._key_state(ref))
        return form

    def _key_state(self, ref: Ref) -> str:
        doc = self._document
        item = resolve(doc.scene, ref)
        frames = key_edits.key_frames(doc.scene, ref)
        here = np.any(frames == doc.frame)
        parts = []
        if hasattr(item, "rotation_keys"):
            parts.append(_keys_text(item.rotation_keys, "rotation"))
        for field, words in (
            ("translation_keys", "translation"),
            ("scale_keys", "scale"),
            ("position_keys", "position"),
        ):
            if hasattr(item, field):
                parts.append(_keys_text(getattr(item, field), words))
        status = f"◆ key at frame {doc.frame:g}" if here else f"no key at frame {doc.frame:g}"
        return " · ".join(parts) + f"<br>{status}"

    def _build_scene(self) -> None:
        doc = self._document
        s = doc.scene
        where = doc.path or "untitled"
        if doc.path and is_shipped(doc.path):
            where += "<br>a shipped example, read-only: Save asks where to keep your copy"
        self._header("Scene", where)
        form = self._group("Contents")
        self._note(
            form,
            lambda: (
                f"{plural(len(s.bones), 'bone')}, {plural(len(s.constraints), 'constraint')}, "
                f"frames {s.frame_start}–{s.frame_end} at {s.fps:g} fps"
            ),
        )
        hint = QtWidgets.QLabel(
            "Click a bone, a pivot (orange) or a target (cyan) in the viewport or the "
            "outliner to edit it. Drag pivots and targets; Shift+drag keeps them on the "
            "ground plane; Ctrl+drag turns a pivot or bone (a key where it is animated)."
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #9aa0a8;")
        self._form.addWidget(hint)

    def _build_bone(self, ref: Ref) -> None:
        doc = self._document
        bone = doc.scene.bone(ref.name)
        driven = [c.name for c in doc.scene.constraints if ref.name in c.driven_bones()]
        sub = f"child of {bone.parent}" if bone.parent else "root bone"
        if driven:
            sub += f" · driven by {', '.join(driven)}"
        self._header(f"Bone {bone.name}", sub)
        self._rotation_group(ref, "Pose rotation at this frame (local) — edits key it")
        form = self._group("Translation in units (head in the parent's frame)")
        translation = VectorEdit(3, "translation")
        form.addRow(translation)
        translation.edited.connect(
            lambda v: self._run(key_operations.set_bone_translation, doc, ref.name, v)
        )
        self._refreshers.append(
            lambda: translation.set_value(
                key_edits.translation_at(doc.scene.bone(ref.name), doc.frame)
            )
        )
        self._note(
            form,
            lambda: (
                "keyed: edits set a key at the current frame"
                if doc.scene.bone(ref.name).translation_keys is not None
                else "not animated: edits apply to the whole timeline"
            ),
        )
        interpolation_row(self, form, ref, "translation_keys")
        scale_group(self, ref)
        form = self._group("Rest pose (limits are relative to it)")
        for field, label, n, dec, bound in (
            ("translation", "Translation (units)", 3, 4, BIG),
            ("rotation", "Rotation", 4, 4, 1.0),  # a unit quaternion's components
            ("scale", "Scale", 3, 4, BIG),
            ("tail", "Tail (units)", 3, 4, BIG),
        ):
            edit = VectorEdit(n, f"rest_{field}", decimals=dec, lo=-bound, hi=bound)
            form.addRow(label, edit)
            edit.edited.connect(
                lambda v, f=field: self._run(bone_operations.set_bone_rest, doc, ref.name, f, v)
            )
            self._refreshers.append(lambda e=edit, f=field: e.set_value(self._rest(ref, f)))
        form = self._group("World at the current frame")
        self._note(form, lambda: self._world_text(ref.name))

    def _rest(self, ref: Ref, field: str):
        doc = self._document
        if field == "tail":
            return doc.scene.tail_of(doc.scene.bone_index(ref.name))
        return getattr(doc.scene.bone(ref.name), field)

    def _world_text(self, name: str) -> str:
        doc = self._document
        pose = doc.pose()
        i = doc.scene.bone_index(name)
        head = ", ".join(f"{v:.3f}" for v in pose.heads[0, i])
        tail = ", ".join(f"{v:.3f}" for v in pose.tails[0, i])
        text = f"head ({head}) units<br>tail ({tail}) units"
        # Only a limit's bone can leave it: the others need no world-space evaluation (a
        # whole solve each refresh when the current space is not world).
        limited = any(b == name for c in doc.scene.constraints for b, _ in c.limits_by_bone())
        world = doc.evaluations.pose("world").limit_violation_deg[0, i] if limited else 0.0
        if world > 0.05:
            text += (
                f"<br><span style='color:#ff6650'>world space leaves its limit by "
                f"{world:.1f}°</span>"
            )
        return text

    def _build_body_point(self, ref: Ref) -> None:
        """A part that is a point on the body (a pivot): its name, where it sits on the
        body, and its rotation when it has one."""
        doc = self._document
        c = doc.scene.constraint(ref.name)
        body = c.driven_bones()[0]
        self._header(
            f"{ref.part.label} {ref.part_name}", f"of {c.name} · body {body} · {c.space} space"
        )
        name = keep_keys(QtWidgets.QLineEdit(ref.part_name))
        name.setObjectName("pivotName")
        name.editingFinished.connect(
            lambda: (
                name.text() != ref.part_name
                and self._run(constraint_operations.rename_part, doc, ref, name.text())
            )
        )
        self._group("Name").addRow(name)
        form = self._group("Position on the body in units (body frame)")
        position = VectorEdit(3, "position")
        form.addRow(position)
        position.edited.connect(lambda v: self._run(key_operations.set_position, doc, ref, v))
        self._refreshers.append(
            lambda: position.set_value(key_edits.position_at(resolve(doc.scene, ref), doc.frame))
        )
        self._note(
            form,
            lambda: (
                "keyed: edits and drags set a key at the current frame"
                if resolve(doc.scene, ref).position_keys is not None
                else "not animated: edits and drags move it for the whole timeline"
            ),
        )
        interpolation_row(self, form, ref, "position_keys")
        if ref.part.turns:
            self._rotation_group(ref, "Rotation qᵢ at this frame — edits key it")

    def _build_target(self, ref: Ref) -> None:
        doc = self._document
        c = doc.scene.constraint(ref.name)
        target = resolve(doc.scene, ref)
        sub = f"{views.words(c)} constraint"
        if ref.part.hint:
            sub += f" · {ref.part.hint}"
        self._header(f"{ref.part.label} of {c.name}", sub)
        form = self._group(ref.part.placed)
        kind = keep_keys(QtWidgets.QComboBox())
        kind.setObjectName("targetKind")
        view = views.view_for(c)
        for words, data in target_choices(view, c, doc.scene.bone_names()):
            kind.addItem(words, data)
        kind.setCurrentIndex(max(choice_index(kind, view, target), 0))
        kind.currentIndexChanged.connect(lambda _: self._set_target_kind(ref, kind.currentData()))
        form.addRow(kind)

        def show_kind():  # a refused choice (a cycle of constraints) goes back
            now = resolve(doc.scene, ref)
            index = max(choice_index(kind, view, now), 0)
            with QtCore.QSignalBlocker(kind):
                kind.setCurrentIndex(index)

        self._refreshers.append(show_kind)
        if target.bone is None:
            position = VectorEdit(3, "position")
            form.addRow("World position (units)", position)
            position.edited.connect(lambda v: self._run(key_operations.set_position, doc, ref, v))
            self._refreshers.append(
                lambda: position.set_value(
                    key_edits.position_at(resolve(doc.scene, ref), doc.frame)
                )
            )
            interpolation_row(self, form, ref, "position_keys")
            self._key_buttons(form, ref)
            self._note(form, lambda: self._key_state(ref))

    def _set_target_kind(self, ref: Ref, data) -> None:
        doc = self._document
        view = views.view_for(doc.scene.constraint(ref.name))
        if not view.target_position:
            # a kind following another bone: its own operation (its words, its refusals)
            at = data[1] if view.target_ends else None
            self._run(set_follow_target, doc, ref.name, data[0], at)
            return
        if data is None:
            target = constraint_operations.target_here(doc, ref.name, ref.kind)
        else:
            target = Target(bone=data[0], at=data[1])
        self._run(constraint_operations.set_target, doc, ref.name, target, ref.kind)

    @staticmethod
    def _set_combo(combo, text) -> None:
        with QtCore.QSignalBlocker(combo):
            combo.setCurrentText(text)

    @staticmethod
    def _set_spin(spin, value) -> None:
        if spin.cleanText() == spin.textFromValue(value):
            return  # shown already: no repaint
        with QtCore.QSignalBlocker(spin):
            spin.setValue(value)

    # --- refreshing ----------------------------------------------------------------------

    def _refresh(self) -> None:
        if self._ref != self._active():
            self._rebuild()
            return
        for refresh in self._refreshers:
            refresh()


def _set_text(label: QtWidgets.QLabel, text: str) -> None:
    """A note's new text; the same text sets nothing (a word-wrapped label lays the page out
    again, and repaints it, on every ``setText``)."""
    if label.text() != text:
        label.setText(text)
