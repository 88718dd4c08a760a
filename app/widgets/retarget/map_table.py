"""The humanoid map as a table: one row per canonical bone, grouped (body, each leg, arm and
hand), and a column of drop-down lists per skeleton shown (the character's; in an import
the clip's too), each naming the bone mapped there or "—"."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.scene.retarget.canonical import ARM, BODY, FINGER_JOINTS, LEG, SIDES, label, part_of
from app.scene.retarget.humanoid import HumanoidMap

UNMAPPED = "—"

#: The table's groups: (title, canonical bones), in the order shown.
GROUPS = [("Body", BODY)] + [
    (f"{side.capitalize()} {what}", tuple(f"{side}_{p}" for p in parts))
    for what, parts in (("leg", LEG), ("arm", ARM), ("hand", FINGER_JOINTS))
    for side in SIDES
]


class HumanoidTable(QtWidgets.QTreeWidget):
    """Canonical bones and, per column, the bone of each skeleton mapped to them.

    Parameters
    ----------
    columns : list of (key, title, bone names)
        One column of drop-down lists per skeleton; ``key`` names it in :meth:`mapping`
        and in each list's object name (``"character.left_thigh"``).

    Signals
    -------
    changed(str)
        A list of column ``key`` was changed by the user (the row that had the bone chosen
        lets go of it: a bone is mapped once).
    """

    changed = QtCore.Signal(str)

    def __init__(self, columns, parent=None):
        super().__init__(parent)
        self.setObjectName("humanoidTable")
        self.setColumnCount(1 + len(columns))
        self.setHeaderLabels(["Humanoid bone"] + [title for _, title, _ in columns])
        self.setRootIsDecorated(True)
        self.boxes: dict[str, dict[str, QtWidgets.QComboBox]] = {k: {} for k, _, _ in columns}
        self._groups = {}
        for title, bones in GROUPS:
            group = QtWidgets.QTreeWidgetItem(self, [title])
            group.setFlags(group.flags() & ~QtCore.Qt.ItemFlag.ItemIsSelectable)
            self._groups[title] = group
            for canonical in bones:
                row = QtWidgets.QTreeWidgetItem(group, [label(part_of(canonical))])
                row.setData(0, QtCore.Qt.ItemDataRole.UserRole, canonical)
                row.setToolTip(0, canonical)
                for k, (key, _, names) in enumerate(columns):
                    box = QtWidgets.QComboBox(objectName=f"{key}.{canonical}")
                    box.addItems([UNMAPPED, *names])
                    box.setSizeAdjustPolicy(
                        QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
                    )
                    box.setMinimumContentsLength(14)
                    box.currentIndexChanged.connect(
                        lambda _i, key=key, canonical=canonical: self._chosen(key, canonical)
                    )
                    self.setItemWidget(row, k + 1, box)
                    self.boxes[key][canonical] = box
                row.setSizeHint(0, QtCore.QSize(0, box.sizeHint().height()))
        words = max(
            self.fontMetrics().horizontalAdvance(t)
            for t in ("Humanoid bone", "Upper chest", "Middle 3")
        )
        self.header().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Interactive)
        self.setColumnWidth(0, words + 2 * self.indentation() + 12)
        for k in range(len(columns)):
            self.header().setSectionResizeMode(k + 1, QtWidgets.QHeaderView.ResizeMode.Stretch)

    def _chosen(self, key: str, canonical: str) -> None:
        """A bone is mapped once: the row that had the bone just chosen lets go of it."""
        bone = self.boxes[key][canonical].currentText()
        if bone != UNMAPPED:
            for other, box in self.boxes[key].items():
                if other != canonical and box.currentText() == bone:
                    with QtCore.QSignalBlocker(box):
                        box.setCurrentIndex(0)
        self.changed.emit(key)

    def mapping(self, key: str) -> HumanoidMap:
        """Column ``key``'s map."""
        return HumanoidMap(
            {
                c: box.currentText()
                for c, box in self.boxes[key].items()
                if box.currentText() != UNMAPPED
            }
        )

    def set_mapping(self, key: str, mapping: HumanoidMap) -> None:
        """Show ``mapping`` in column ``key`` (no :attr:`changed`); groups with a mapped
        bone open, the others (a hand without fingers) closed."""
        for canonical, box in self.boxes[key].items():
            with QtCore.QSignalBlocker(box):
                found = box.findText(mapping.get(canonical) or UNMAPPED)
                box.setCurrentIndex(max(found, 0))
        for title, bones in GROUPS:
            shown = any(
                self.boxes[k][c].currentText() != UNMAPPED for k in self.boxes for c in bones
            )
            self._groups[title].setExpanded(shown)
