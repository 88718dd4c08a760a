"""The inspector's key fields: how a keyed property runs from key to key, and a bone's scale.

Each keyed property (a bone's rotation, translation and scale, a pivot's quaternion and
position, a position target) shows the interpolation of the key whose segment holds the
current frame (the key at or before it, :func:`app.scene.rig.key_edits.key_at_or_before`):
scrubbing onto each key reaches each key's interpolation, as the timeline's diamonds do.
Choosing another one is one undo step. The row hides while the property has no keys.

A bone's scale shows its value at the current frame, like its translation: an edit sets a
key there when the scale is animated, else the static scale for the whole timeline; its
spin boxes merge into one undo step per edit session (``key_operations.set_bone_scale``).
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.editor.operations import key_operations
from app.editor.operations.key_operations import INTERPOLATION_WORDS
from app.scene.rig import key_edits
from app.scene.rig.keys import INTERPOLATIONS
from app.scene.rig.refs import Ref, resolve
from app.widgets.fields import VectorEdit
from app.widgets.text_keys import keep_keys


def interpolation_row(panel, form, ref: Ref, field: str) -> QtWidgets.QComboBox:
    """Add to ``form`` the interpolation of ``ref``'s ``field`` keys at the current frame.

    Parameters
    ----------
    panel : Inspector
        Gives the document, runs operations and keeps the refreshers.
    field : str
        ``"rotation_keys"``, ``"translation_keys"``, ``"scale_keys"`` or ``"position_keys"``.

    Returns
    -------
    QComboBox
        Named ``interpolation_<property>`` (``interpolation_rotation``...).
    """
    doc = panel.document
    what = field.removesuffix("_keys")
    row = QtWidgets.QWidget()
    row.setObjectName(f"interpolationRow_{what}")
    layout = QtWidgets.QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    label = QtWidgets.QLabel()
    label.setObjectName(f"interpolationLabel_{what}")
    label.setWordWrap(True)  # two lines in a narrow inspector rather than cut off
    label.setMinimumWidth(80)
    combo = keep_keys(QtWidgets.QComboBox())
    combo.setObjectName(f"interpolation_{what}")
    combo.setToolTip(f"How the {what} runs from this key to the next (T in the curve view)")
    for kind in INTERPOLATIONS:
        combo.addItem(INTERPOLATION_WORDS[kind], kind)
    layout.addWidget(label, 1)
    layout.addWidget(combo)
    form.addRow(row)
    combo.currentIndexChanged.connect(
        lambda _: panel.run(
            key_operations.set_key_interpolation, doc, ref, field, combo.currentData()
        )
    )

    def refresh():
        keys = getattr(resolve(doc.scene, ref), field)
        row.setVisible(keys is not None)
        if keys is None:
            return
        i = key_edits.key_at_or_before(keys, doc.frame)
        label.setText(f"{what.capitalize()} key at frame {keys.frames[i]:g} → next:")
        with QtCore.QSignalBlocker(combo):
            combo.setCurrentIndex(combo.findData(keys.interpolation[i]))

    panel.add_refresher(refresh)
    return combo


def scale_group(panel, ref: Ref) -> None:
    """A bone's scale at the current frame (keyed when animated) and its keys' interpolation."""
    doc = panel.document
    form = panel.group("Scale (along the bone's own axes)")
    scale = VectorEdit(3, "scale")
    form.addRow(scale)
    scale.edited.connect(lambda v: panel.run(key_operations.set_bone_scale, doc, ref.name, v))
    panel.add_refresher(
        lambda: scale.set_value(key_edits.scale_at(doc.scene.bone(ref.name), doc.frame))
    )
    panel.note(
        form,
        lambda: (
            "keyed: edits set a key at the current frame"
            if doc.scene.bone(ref.name).scale_keys is not None
            else "not animated: edits apply to the whole timeline (the rest scale)"
        ),
    )
    interpolation_row(panel, form, ref, "scale_keys")
