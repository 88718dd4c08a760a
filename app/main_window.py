"""The main window: viewport in the centre, outliner, inspector, timeline and compare docks,
the toolbar, the menus and the status bar, all wired to one document.

The window builds things and connects them; the widgets only talk to the document. The
transport keys (Space, Left/Right, Home/End, Up/Down, K, Shift+K) are window shortcuts, so
they work wherever the focus is, except inside a text field, which keeps its keys
(:mod:`app.widgets.text_keys`).
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from app import operations, playback, settings, theme
from app.document import Document
from app.files import FileController
from app.recovery import Autosaver
from app.scene.editing import BONE, PIVOT, TARGET_KINDS
from app.widgets.add_menu import build_add_menu
from app.widgets.compare_table import CompareTable
from app.widgets.inspector import Inspector
from app.widgets.outliner import Outliner
from app.widgets.space_toggle import SpaceToggle
from app.widgets.timeline import TimelineWidget
from app.widgets.viewport import Viewport

HELP_TEXT = """<h3>Pivotal controls</h3>
<table cellspacing=4>
<tr><td><b>Viewport</b></td><td></td></tr>
<tr><td>Drag on empty space</td><td>orbit · Ctrl: pan · wheel: zoom</td></tr>
<tr><td>Click</td><td>select a bone, pivot (orange), target (cyan) · Shift adds</td></tr>
<tr><td>Drag a pivot / target</td><td>move it facing you · Shift: along the ground</td></tr>
<tr><td>Ctrl+drag a pivot / bone</td><td>turn it with the arcball and key it at this frame</td></tr>
<tr><td>Esc while dragging</td><td>cancel the drag</td></tr>
<tr><td>F · Shift+F</td><td>frame the selection · frame everything</td></tr>
<tr><td><b>Timeline</b></td><td></td></tr>
<tr><td>Space</td><td>play / pause · L loop</td></tr>
<tr><td>Left / Right · Home / End</td><td>step a frame · jump to start / end</td></tr>
<tr><td>Up / Down</td><td>next / previous key of the selection</td></tr>
<tr><td>K · Shift+K</td><td>key the selection · delete its key at this frame</td></tr>
<tr><td><b>Spaces</b></td><td></td></tr>
<tr><td>1 · 2 · 3</td><td>evaluate in world · object · as authored (not an edit)</td></tr>
<tr><td>C</td><td>Compare: the other space as a ghost, differences per bone</td></tr>
</table>"""


class MainWindow(QtWidgets.QMainWindow):
    """Pivotal's main window for one document."""

    def __init__(
        self,
        document: Document,
        parent=None,
        autosave_ms: int | None = None,
        restore_settings: bool = True,
    ):
        super().__init__(parent)
        theme.apply(QtWidgets.QApplication.instance())
        self.setObjectName("mainWindow")
        self.document = document
        self.files = FileController(self, document)
        self.actions_by_name: dict[str, QtGui.QAction] = {}
        self.viewport = Viewport(document)
        self.setCentralWidget(self.viewport)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self._build_docks()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_status_bar()
        self.autosaver = Autosaver(
            document, **({"interval_ms": autosave_ms} if autosave_ms else {})
        )
        document.path_changed.connect(self._update_title)
        document.dirty_changed.connect(self._update_title)
        document.frame_changed.connect(self._update_status)
        document.space_changed.connect(self._update_status)
        document.compare_changed.connect(self._on_compare)
        document.selection_changed.connect(self._update_hint)
        document.message.connect(lambda text: self.statusBar().showMessage(text, 6000))
        document.evaluation_failed.connect(self._on_evaluation_failed)
        document.scene_changed.connect(self._update_status)
        self.files.recent_changed.connect(self._update_recent_menu)
        self._update_title()
        self._update_status()
        self._update_hint()
        self.restored_geometry = self._restored_state = False
        self._persist = restore_settings
        if restore_settings:
            self._restore_settings()

    # --- layout --------------------------------------------------------------------------

    def _dock(self, title: str, name: str, widget, area) -> QtWidgets.QDockWidget:
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        doc = self.document
        area = QtCore.Qt.DockWidgetArea
        self.outliner = Outliner(doc)
        self.outliner.setMinimumWidth(190)
        self.inspector = Inspector(doc)
        self.inspector.setMinimumWidth(320)
        self.timeline = TimelineWidget(doc)
        self.compare_table = CompareTable(doc)
        self.history = QtWidgets.QUndoView(doc.undo_stack)
        self.history.setObjectName("history")
        self.history.setEmptyLabel("Opened")
        self.outliner_dock = self._dock(
            "Outliner", "outlinerDock", self.outliner, area.LeftDockWidgetArea
        )
        self.history_dock = self._dock(
            "History", "historyDock", self.history, area.LeftDockWidgetArea
        )
        self.tabifyDockWidget(self.outliner_dock, self.history_dock)
        self.outliner_dock.raise_()
        self.inspector_dock = self._dock(
            "Inspector", "inspectorDock", self.inspector, area.RightDockWidgetArea
        )
        self.compare_dock = self._dock(
            "Compare", "compareDock", self.compare_table, area.RightDockWidgetArea
        )
        self.splitDockWidget(self.inspector_dock, self.compare_dock, QtCore.Qt.Orientation.Vertical)
        self.compare_dock.hide()
        self.timeline_dock = self._dock(
            "Timeline", "timelineDock", self.timeline, area.BottomDockWidgetArea
        )
        self.timeline_dock.setFeatures(
            self.timeline_dock.features()
            & ~QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.setCorner(QtCore.Qt.Corner.BottomLeftCorner, area.LeftDockWidgetArea)
        self.setCorner(QtCore.Qt.Corner.BottomRightCorner, area.RightDockWidgetArea)
        self._sized_docks = False

    def _action(
        self, name, text, slot=None, shortcut=None, tip="", checkable=False, icon=None
    ) -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        action.setObjectName(name)
        if shortcut:
            shortcuts = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QtGui.QKeySequence(s) for s in shortcuts])
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(f"{tip} ({action.shortcut().toString()})" if shortcut else tip)
        if icon is not None:
            action.setIcon(self.style().standardIcon(icon))
        action.setCheckable(checkable)
        if slot is not None:
            (action.toggled if checkable else action.triggered).connect(slot)
        self.addAction(action)
        self.actions_by_name[name] = action
        return action

    def _safely(self, fn, *args):
        """A slot that runs an operation and reports an OperationError in the status bar."""

        def run(*_):
            try:
                fn(*args)
            except operations.OperationError as e:
                self.statusBar().showMessage(str(e), 6000)

        return run

    def _build_actions(self) -> None:
        doc = self.document
        sp = QtWidgets.QStyle.StandardPixmap
        a = self._action
        a("new", "&New", self.files.new, "Ctrl+N", "Start a new scene", icon=sp.SP_FileIcon)
        a(
            "open",
            "&Open…",
            lambda: self.files.open(),
            "Ctrl+O",
            "Open a scene file or a BVH motion capture",
            icon=sp.SP_DialogOpenButton,
        )
        a("save", "&Save", self.files.save, "Ctrl+S", "Save the scene", icon=sp.SP_DialogSaveButton)
        a(
            "saveAs",
            "Save &As…",
            lambda: self.files.save_as(),
            "Ctrl+Shift+S",
            "Save the scene to another file",
        )
        a("quit", "&Quit", self.close, "Ctrl+Q", "Quit Pivotal")
        undo = doc.undo_stack.createUndoAction(self, "&Undo")
        undo.setObjectName("undo")
        undo.setShortcut(QtGui.QKeySequence("Ctrl+Z"))
        undo.setIcon(self.style().standardIcon(sp.SP_ArrowBack))
        redo = doc.undo_stack.createRedoAction(self, "&Redo")
        redo.setObjectName("redo")
        redo.setShortcuts([QtGui.QKeySequence("Ctrl+Shift+Z"), QtGui.QKeySequence("Ctrl+Y")])
        redo.setIcon(self.style().standardIcon(sp.SP_ArrowForward))
        for action in (undo, redo):
            self.addAction(action)
            self.actions_by_name[action.objectName()] = action
        a(
            "key",
            "Set &Key",
            self._safely(operations.set_key, doc),
            "K",
            "Key the selection at the current frame",
        )
        a(
            "deleteKey",
            "&Delete Key",
            self._safely(operations.delete_key, doc),
            "Shift+K",
            "Delete the selection's key at the current frame",
        )
        a(
            "delete",
            "De&lete",
            self._safely(operations.delete_selected, doc),
            ["Delete", "X"],
            "Remove the selected pivots or constraints",
        )
        a(
            "selectNone",
            "Select &None",
            lambda: doc.set_selection([]),
            "Alt+A",
            "Clear the selection",
        )
        a(
            "frameSelected",
            "&Frame Selected",
            self.viewport.frame_selection,
            "F",
            "Point the camera at the selection",
        )
        a(
            "frameAll",
            "Frame &All",
            self.viewport.frame_all,
            "Shift+F",
            "Point the camera at the whole skeleton",
        )
        a(
            "boneAxes",
            "Bone &Axes",
            self.viewport.set_show_axes,
            None,
            "Draw each bone's frame axes (x red, y green, z blue)",
            checkable=True,
        )
        a(
            "compare",
            "&Compare Spaces",
            doc.set_compare,
            "C",
            "Draw the other space as a ghost and list the differences",
            checkable=True,
        )
        a(
            "spaceWorld",
            "&World Space",
            lambda: doc.set_space("world"),
            "1",
            "Evaluate every constraint in world space (not an edit)",
        )
        a(
            "spaceObject",
            "&Object Space",
            lambda: doc.set_space("object"),
            "2",
            "Evaluate every constraint in object space (not an edit)",
        )
        a(
            "spaceAuthored",
            "As A&uthored",
            lambda: doc.set_space(None),
            "3",
            "Evaluate each constraint in its own space, as saved",
        )
        a(
            "play",
            "&Play / Pause",
            doc.player.toggle,
            "Space",
            "Play or pause",
            icon=sp.SP_MediaPlay,
        )
        a("loop", "&Loop", doc.player.set_loop, "L", "Loop playback", checkable=True)
        self.actions_by_name["loop"].setChecked(doc.player.loop)
        doc.player.loop_changed.connect(self.actions_by_name["loop"].setChecked)
        a("stepForward", "Step &Forward", lambda: playback.step(doc, 1), "Right", "Next frame")
        a("stepBack", "Step &Back", lambda: playback.step(doc, -1), "Left", "Previous frame")
        a("jumpStart", "Jump to &Start", lambda: playback.jump_start(doc), "Home", "First frame")
        a("jumpEnd", "Jump to &End", lambda: playback.jump_end(doc), "End", "Last frame")
        a(
            "nextKey",
            "&Next Key",
            lambda: playback.next_key(doc) or self._no_key("after"),
            "Up",
            "Next key of the selection",
        )
        a(
            "previousKey",
            "P&revious Key",
            lambda: playback.previous_key(doc) or self._no_key("before"),
            "Down",
            "Previous key of the selection",
        )
        a("controls", "&Controls", self._show_controls, "F1", "Mouse and keyboard controls")
        a("about", "&About Pivotal", self._show_about)
        doc.compare_changed.connect(self.actions_by_name["compare"].setChecked)
        doc.player.playing_changed.connect(self._on_playing)

    def _no_key(self, where: str) -> None:
        self.statusBar().showMessage(f"No key {where} frame {self.document.frame:g}", 3000)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        m = self.actions_by_name
        file = bar.addMenu("&File")
        for name in ("new", "open"):
            file.addAction(m[name])
        self.recent_menu = file.addMenu("Open &Recent")
        self.recent_menu.setObjectName("recentMenu")
        self._update_recent_menu()
        file.addSeparator()
        for name in ("save", "saveAs"):
            file.addAction(m[name])
        file.addSeparator()
        file.addAction(m["quit"])
        edit = bar.addMenu("&Edit")
        edit.addAction(m["undo"])
        edit.addAction(m["redo"])
        edit.addSeparator()
        edit.addAction(m["key"])
        edit.addAction(m["deleteKey"])
        edit.addSeparator()
        self.add_menu = edit.addMenu("&Add / Remove")
        self.add_menu.setObjectName("addMenu")
        self.add_menu.aboutToShow.connect(self._fill_add_menu)
        edit.addAction(m["delete"])
        edit.addAction(m["selectNone"])
        view = bar.addMenu("&View")
        for name in ("frameSelected", "frameAll", "boneAxes"):
            view.addAction(m[name])
        view.addSeparator()
        for name in ("spaceWorld", "spaceObject", "spaceAuthored", "compare"):
            view.addAction(m[name])
        view.addSeparator()
        for dock in (
            self.outliner_dock,
            self.inspector_dock,
            self.timeline_dock,
            self.compare_dock,
            self.history_dock,
        ):
            view.addAction(dock.toggleViewAction())
        play = bar.addMenu("&Playback")
        for name in (
            "play",
            "loop",
            None,
            "stepBack",
            "stepForward",
            "jumpStart",
            "jumpEnd",
            None,
            "previousKey",
            "nextKey",
        ):
            play.addSeparator() if name is None else play.addAction(m[name])
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(m["controls"])
        help_menu.addAction(m["about"])

    def _fill_add_menu(self) -> None:
        self.add_menu.clear()
        source = build_add_menu(self.document, self)
        for action in source.actions():
            self.add_menu.addAction(action)
        if not source.actions():
            hint = self.add_menu.addAction("Select a bone or a constraint first")
            hint.setEnabled(False)
        self._add_source = source  # keep the actions' owner alive while the menu shows

    def _build_toolbar(self) -> None:
        bar = self.addToolBar("Main")
        bar.setObjectName("mainToolBar")
        bar.setMovable(False)
        bar.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        m = self.actions_by_name
        for name in ("new", "open", "save"):
            bar.addAction(m[name])
        bar.addSeparator()
        bar.addAction(m["undo"])
        bar.addAction(m["redo"])
        bar.addSeparator()
        self.space_toggle = SpaceToggle(self.document)
        bar.addWidget(self.space_toggle)
        bar.addAction(m["compare"])
        bar.widgetForAction(m["compare"]).setObjectName("compareToggle")
        bar.addSeparator()
        bar.addAction(m["boneAxes"])
        bar.addAction(m["frameSelected"])
        bar.addSeparator()
        bar.addAction(m["play"])
        for name in ("new", "open", "save", "undo", "redo", "play"):  # icons say enough
            bar.widgetForAction(m[name]).setToolButtonStyle(
                QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly
            )

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.frame_label = QtWidgets.QLabel()
        self.frame_label.setObjectName("frameStatus")
        # A fixed width: a label that grows with its digits re-lays out the status bar on
        # every frame of playback.
        self.frame_label.setMinimumWidth(
            self.frame_label.fontMetrics().horizontalAdvance("Frame 00000  (00000–00000)") + 8
        )
        self.space_label = QtWidgets.QLabel()
        self.space_label.setObjectName("spaceStatus")
        self.hint_label = QtWidgets.QLabel()
        self.hint_label.setObjectName("hintStatus")
        self.hint_label.setStyleSheet("color: #9aa0a8;")
        self.error_label = QtWidgets.QLabel()
        self.error_label.setObjectName("errorStatus")
        self.error_label.setStyleSheet("color: #ff6650;")
        self.error_label.hide()
        status.addPermanentWidget(self.error_label)
        status.addPermanentWidget(self.hint_label)
        status.addPermanentWidget(self.space_label)
        status.addPermanentWidget(self.frame_label)

    # --- status --------------------------------------------------------------------------

    def _update_title(self, *_) -> None:
        doc = self.document
        name = Path(doc.path).name if doc.path else "untitled"
        self.setWindowTitle(f"{name}[*] — Pivotal")
        self.setWindowModified(doc.dirty)

    def _update_status(self, *_) -> None:
        doc = self.document
        s = doc.scene
        self.frame_label.setText(f"Frame {doc.frame:g}  ({s.frame_start}–{s.frame_end})")
        if doc.space is None:
            spaces = sorted({c.space for c in s.constraints})
            authored = "/".join(spaces) if spaces else "no constraints"
            text = f"Space: as authored ({authored})"
        else:
            text = f"Space: {doc.space} (override)"
        if doc.compare:
            text += f" · ghost: {doc.ghost_space()}"
        self.space_label.setText(text)

    def _update_hint(self) -> None:
        ref = self.document.active
        if ref is None:
            hint = "Click to select · drag to orbit · F frames · F1 lists the controls"
        elif ref.kind == PIVOT:
            hint = (
                "Drag: move on the body · Shift: on the ground · Ctrl+drag: rotate & key "
                "· K key · Shift+K delete key"
            )
        elif ref.kind in TARGET_KINDS:
            hint = f"Drag: move the {ref.kind} · Shift: on the ground · K key · Shift+K delete key"
        elif ref.kind == BONE:
            hint = "Ctrl+drag: rotate & key · Shift+click: add bones · Edit ▸ Add for constraints"
        else:
            hint = "Right-click in the outliner to add pivots or set the target"
        self.hint_label.setText(hint)

    def _on_compare(self, on: bool) -> None:
        self.compare_dock.setVisible(on)
        if on:
            self.compare_dock.raise_()
            if not self.compare_dock.isFloating():  # room for a row per bone
                rows = min(len(self.document.scene.bones), 12)
                self.resizeDocks([self.compare_dock], [90 + 30 * rows],
                                 QtCore.Qt.Orientation.Vertical)  # fmt: skip
        self._update_status()

    def _on_playing(self, playing: bool) -> None:
        sp = QtWidgets.QStyle.StandardPixmap
        icon = sp.SP_MediaPause if playing else sp.SP_MediaPlay
        self.actions_by_name["play"].setIcon(self.style().standardIcon(icon))

    def _on_evaluation_failed(self, reason: str) -> None:
        self.error_label.setVisible(bool(reason))
        short = reason if len(reason) < 90 else reason[:87] + "…"
        self.error_label.setText(
            f"⚠ {short} — showing the skeleton without constraints" if reason else ""
        )
        self.error_label.setToolTip(reason)

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = settings.recent_files()
        for i, path in enumerate(files):
            action = self.recent_menu.addAction(f"&{i + 1} {Path(path).name}")
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _=False, p=path: self.files.open_recent(p))
        self.recent_menu.setEnabled(bool(files))

    def _show_controls(self) -> None:
        QtWidgets.QMessageBox.information(self, "Controls", HELP_TEXT)

    def _show_about(self) -> None:
        QtWidgets.QMessageBox.about(
            self,
            "About Pivotal",
            "<h3>Pivotal</h3><p>A skeleton rig editor whose bodies rotate about several pivots "
            "at once (the multi-parent constraint and its normalized anticommutator), with "
            "points-at and FABRIK constraints evaluated in world or object space.</p>",
        )

    # --- events --------------------------------------------------------------------------

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if not self._sized_docks and not self._restored_state:
            self._sized_docks = True
            self.size_docks()

    def size_docks(self) -> None:
        """The default dock sizes: room for names on the left, for the inspector's fields
        on the right, and a compact timeline below."""
        self.resizeDocks(
            [self.outliner_dock, self.inspector_dock], [230, 370], QtCore.Qt.Orientation.Horizontal
        )
        self.resizeDocks([self.timeline_dock], [92], QtCore.Qt.Orientation.Vertical)

    def dragEnterEvent(self, ev) -> None:
        if ev.mimeData().hasUrls() and any(u.isLocalFile() for u in ev.mimeData().urls()):
            ev.acceptProposedAction()

    def dropEvent(self, ev) -> None:
        files = [u.toLocalFile() for u in ev.mimeData().urls() if u.isLocalFile()]
        if files:
            ev.acceptProposedAction()
            # Open after the drop returns: a dialog inside a drop handler blocks the source.
            QtCore.QTimer.singleShot(0, lambda: self.files.open(files[0]))

    def closeEvent(self, ev) -> None:
        if not self.files.maybe_save("closing"):
            ev.ignore()
            return
        self.document.player.pause()
        if self._persist:
            self._save_settings()
        self.autosaver.stop()
        self.autosaver.discard()
        super().closeEvent(ev)

    def _save_settings(self) -> None:
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("view/bone_axes", self.viewport.show_axes)

    def _restore_settings(self) -> None:
        s = settings.settings()
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        #: Whether a saved window geometry was restored (else the caller picks a size).
        self.restored_geometry = geometry is not None and self.restoreGeometry(geometry)
        self._restored_state = state is not None and self.restoreState(state)
        if self._restored_state:
            self.compare_dock.setVisible(self.document.compare)
        axes = s.value("view/bone_axes", False)
        self.actions_by_name["boneAxes"].setChecked(axes in (True, "true"))
