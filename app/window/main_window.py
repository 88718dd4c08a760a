"""The main window: viewport in the centre, outliner, inspector, timeline and compare docks,
the toolbar, the menus and the status bar, all wired to one document.

The window builds things and connects them; the widgets only talk to the document. Its
actions, menus and toolbar are in :mod:`app.window.actions`; file handling in
:mod:`app.editor.files`.

One idea: the main window's layout of docks, menus and their wiring.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from app.editor import settings
from app.editor.document import Document
from app.editor.files import FileController
from app.editor.recovery import Autosaver
from app.editor.step_through import StepThrough
from app.scene.rig.refs import BONE, exists
from app.widgets.kinds import registry as views
from app.widgets.panels.compare_table import CompareTable
from app.widgets.panels.inspector import Inspector
from app.widgets.panels.outliner import Outliner
from app.widgets.timeline import ElidedLabel, TimelineWidget
from app.widgets.viewport.teaching_drawing import TrailSettings
from app.widgets.viewport.viewport import Viewport
from app.window import layout, theme
from app.window.actions import WindowActions
from app.window.bone_actions import BoneActions
from app.window.export_actions import ExportController
from app.window.teaching_actions import TeachingActions


class MainWindow(WindowActions, TeachingActions, BoneActions, QtWidgets.QMainWindow):
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
        self.exports = ExportController(self, document)
        self.step_through = StepThrough(document)
        self.actions_by_name: dict[str, QtGui.QAction] = {}
        self.viewport = Viewport(document)
        self.viewport.set_step_through(self.step_through)
        self.setCentralWidget(self.viewport)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self._build_docks()
        self._build_actions()
        self._build_bone_actions()
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
        document.message.connect(lambda text: layout.show_message(self, text))
        self._undo_index = document.undo_stack.index()
        document.undo_stack.indexChanged.connect(self._on_undo_index)
        document.evaluation_failed.connect(self._on_evaluation_failed)
        document.scene_changed.connect(self._update_status)
        self.files.recent_changed.connect(self._update_recent_menu)
        self._update_title()
        self._update_status()
        self._update_hint()
        self.restored_geometry = self._restored_state = False
        self._persist = restore_settings
        self.dialog_fitter = layout.DialogFitter(self)
        #: Keeps the viewport its share of the window; holds the built-in layout.
        self.layout_keeper = layout.LayoutKeeper(self)
        document.structure_changed.connect(self.layout_keeper.fit_names)
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
        self.outliner.setMinimumWidth(160)
        self.inspector = Inspector(doc)
        self.inspector.setMinimumWidth(300)
        # At the narrowest window the viewport is still half of it (the rule the layout
        # keeper keeps), and that window fits a 1024-pixel screen.
        self.viewport.setMinimumWidth(160 + 300 + 12)
        self.timeline = TimelineWidget(doc)
        # The timeline's height is its controls' and scrub bar's: room a dock gives up goes
        # to the viewport, never to an empty timeline.
        self.timeline.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed
        )
        self.compare_table = CompareTable(doc)
        self._makers: dict = {}
        self.history = QtWidgets.QUndoView(doc.undo_stack)
        self.history.setObjectName("history")
        self.history.setEmptyLabel("Opened")
        self.outliner_dock = self._dock(
            "Outliner", "outlinerDock", self.outliner, area.LeftDockWidgetArea
        )
        self.history_dock = self._dock(
            "History", "historyDock", self.history, area.LeftDockWidgetArea
        )
        self.inspector_dock = self._dock(
            "Inspector", "inspectorDock", self.inspector, area.RightDockWidgetArea
        )
        self.compare_dock = self._dock(
            "Compare", "compareDock", self.compare_table, area.RightDockWidgetArea
        )
        self.splitDockWidget(self.inspector_dock, self.compare_dock, QtCore.Qt.Orientation.Vertical)
        self.compare_dock.hide()
        # Teaching and analysis, hidden until asked for (View menu, Help ▸ Tutorials); each
        # panel is built the first time its dock shows, so they cost nothing at startup.
        self.curves_dock = self._lazy_dock(
            "Curves", "curvesDock", self._make_curve_view, area.BottomDockWidgetArea
        )
        self.timeline_dock = self._dock(
            "Timeline", "timelineDock", self.timeline, area.BottomDockWidgetArea
        )
        # The curves above the timeline, sharing its width; the matrix chain beside them.
        self.splitDockWidget(self.curves_dock, self.timeline_dock, QtCore.Qt.Orientation.Vertical)
        self.matrix_dock = self._lazy_dock(
            "Matrix Chain", "matrixDock", self._make_matrix_panel, area.BottomDockWidgetArea
        )
        self.splitDockWidget(self.curves_dock, self.matrix_dock, QtCore.Qt.Orientation.Horizontal)
        self.step_dock = self._lazy_dock(
            "Step Through", "stepDock", self._make_step_panel, area.RightDockWidgetArea
        )
        self.tutorial_dock = self._lazy_dock(
            "Tutorial", "tutorialDock", self._make_tutorial_panel, area.RightDockWidgetArea
        )
        self.tabifyDockWidget(self.inspector_dock, self.step_dock)
        # Below the outliner (split before History joins its tabs), not over the inspector.
        self.splitDockWidget(self.outliner_dock, self.tutorial_dock, QtCore.Qt.Orientation.Vertical)
        self.tabifyDockWidget(self.outliner_dock, self.history_dock)
        self.outliner_dock.raise_()
        for dock in (self.curves_dock, self.matrix_dock, self.step_dock, self.tutorial_dock):
            dock.hide()
        for dock in (self.curves_dock, self.matrix_dock):
            dock.visibilityChanged.connect(lambda shown, d=dock: self._give_room(d, shown))
        self.inspector_dock.raise_()
        self.timeline_dock.setFeatures(
            self.timeline_dock.features()
            & ~QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.setCorner(QtCore.Qt.Corner.BottomLeftCorner, area.LeftDockWidgetArea)
        self.setCorner(QtCore.Qt.Corner.BottomRightCorner, area.RightDockWidgetArea)
        self._sized_docks = False

    def _lazy_dock(self, title: str, name: str, make, area) -> QtWidgets.QDockWidget:
        """A dock whose widget ``make()`` builds the first time it shows (or is asked for)."""
        placeholder = QtWidgets.QWidget()
        placeholder.setProperty("pivotal_placeholder", True)
        dock = self._dock(title, name, placeholder, area)
        self._makers[name] = make
        dock.visibilityChanged.connect(lambda shown, d=dock: shown and self._panel(d))
        return dock

    def _panel(self, dock: QtWidgets.QDockWidget):
        """The dock's panel, built now if it was not yet."""
        make = self._makers.pop(dock.objectName(), None)
        if make is not None:
            dock.widget().deleteLater()
            dock.setWidget(make())
        return dock.widget()

    def _make_curve_view(self):
        from app.widgets.panels.curve_view import CurveView

        return CurveView(self.document)

    def _make_matrix_panel(self):
        from app.widgets.panels.matrix_panel import MatrixPanel

        return MatrixPanel(self.document)

    def _make_step_panel(self):
        from app.widgets.panels.step_panel import StepPanel

        return StepPanel(self.document, self.step_through)

    def _make_tutorial_panel(self):
        from app.widgets.panels.tutorial_panel import TutorialPanel

        panel = TutorialPanel(self.document)
        panel.closed.connect(self.tutorial_dock.hide)
        return panel

    @property
    def curve_view(self):
        return self._panel(self.curves_dock)

    @property
    def matrix_panel(self):
        return self._panel(self.matrix_dock)

    @property
    def step_panel(self):
        return self._panel(self.step_dock)

    @property
    def tutorial_panel(self):
        return self._panel(self.tutorial_dock)

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.frame_label = QtWidgets.QLabel()
        self.frame_label.setObjectName("frameStatus")
        # A fixed size: a label that may change size re-lays out the status bar on every
        # frame of playback, and the status bar then repaints itself, its labels and the
        # window under them (Qt skips the layout only for a widget of fixed size).
        self.frame_label.setText("Frame 00000  (00000–00000)")
        self.frame_label.setFixedSize(
            self.frame_label.fontMetrics().horizontalAdvance("Frame 00000  (00000–00000)") + 8,
            self.frame_label.sizeHint().height(),
        )
        self.space_label = QtWidgets.QLabel()
        self.space_label.setObjectName("spaceStatus")
        self.hint_label = ElidedLabel()  # a long hint ends in "…", not in a wider window
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
        status.messageChanged.connect(lambda text: layout.fit_message(self, text))

    # --- status --------------------------------------------------------------------------

    def _update_title(self, *_) -> None:
        doc = self.document
        name = Path(doc.path).name if doc.path else "untitled"
        # A shipped scene is read-only: Save asks where, the file that ships stays as it is.
        shipped = " — shipped example, read-only" if self.files.shipped() else ""
        self.setWindowTitle(f"{name}[*]{shipped} — Pivotal")
        self.setWindowModified(doc.dirty)

    def _update_status(self, *_) -> None:
        doc = self.document
        s = doc.scene
        self.frame_label.setText(f"Frame {doc.frame:g}  ({s.frame_start}–{s.frame_end})")
        if doc.space is None:
            spaces = sorted({c.space for c in s.constraints if c.space_matters})
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
        elif ref.is_part and exists(self.document.scene, ref):
            hint = views.view_for(self.document.scene.constraint(ref.name)).hint_for(ref)
        elif ref.kind == BONE:
            hint = "Ctrl+drag: rotate · Shift+click: add bones · Edit ▸ Add for constraints"
        else:
            hint = "Right-click in the outliner to add pivots or set the target"
        self.hint_label.setText(hint)

    def _on_undo_index(self, index: int) -> None:
        """Every edit, undo and redo says what it did in the status bar, in place of the
        message before it (an inspector edit after "Opened …"); an operation that says more
        says it after this. A stack cleared (a scene opened, the window closing) says nothing."""
        stack, last, self._undo_index = self.document.undo_stack, self._undo_index, index
        if index != last and shiboken6.isValid(stack) and stack.count():
            layout.show_message(
                self,
                f"Undone: {stack.text(index)} (Ctrl+Shift+Z redoes)"
                if index < last
                else f"{stack.text(index - 1)} (Ctrl+Z undoes)",
            )

    def _on_compare(self, on: bool) -> None:
        self.compare_dock.setVisible(on)
        if on:
            self.compare_dock.raise_()
            if not self.compare_dock.isFloating():  # room for a row per bone
                rows = min(len(self.document.scene.bones), 12)
                self.resizeDocks(
                    [self.compare_dock], [90 + 30 * rows], QtCore.Qt.Orientation.Vertical
                )
        self._update_status()

    def _give_room(self, dock, shown: bool) -> None:
        """A bottom panel that opens gets up to two fifths of the height (it holds plots
        and matrices, which a sliver of a dock would clip), as far as the viewport keeps its
        half (:mod:`app.window.layout`)."""
        if shown and not dock.isFloating() and dock.height() < 0.3 * self.height():
            self.resizeDocks([dock], [int(0.4 * self.height())], QtCore.Qt.Orientation.Vertical)
            self.layout_keeper.schedule()

    def _on_evaluation_failed(self, reason: str) -> None:
        self.error_label.setVisible(bool(reason))
        short = reason if len(reason) < 90 else reason[:87] + "…"
        self.error_label.setText(
            f"⚠ {short} — showing the skeleton without constraints" if reason else ""
        )
        self.error_label.setToolTip(reason)

    # --- events --------------------------------------------------------------------------

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if not self._sized_docks:
            self._sized_docks = True
            if not self._restored_state:
                self.size_docks()
            # A geometry saved on a larger screen, or a frame larger than estimated.
            QtCore.QTimer.singleShot(0, self, lambda: layout.keep_on_screen(self))
        self.layout_keeper.schedule()

    def size_docks(self) -> None:
        """The default dock sizes: room for names on the left, for the inspector's fields
        on the right (less of both in a narrow window), and a compact timeline below; the
        outliner a little wider for long or deep names while the viewport keeps its half."""
        width = self.width()
        inspector = min(370, max(300, int(0.29 * width)))
        names = min(230, max(160, int(0.18 * width)))
        spare = width // 2 - inspector - names - 16
        names += max(0, min(self.outliner.fit_width() - names, spare))
        self.resizeDocks(
            [self.outliner_dock, self.inspector_dock],
            [names, inspector],
            QtCore.Qt.Orientation.Horizontal,
        )
        self.resizeDocks([self.timeline_dock], [92], QtCore.Qt.Orientation.Vertical)

    def childEvent(self, ev) -> None:  # noqa: N802 (Qt's name)
        super().childEvent(ev)
        fitter = getattr(self, "dialog_fitter", None)
        if fitter is not None and ev.type() == QtCore.QEvent.Type.ChildPolished:
            fitter.watch(ev.child())

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
        s.setValue("window/state", self.saveState(layout.STATE_VERSION))
        s.setValue("view/bone_axes", self.viewport.show_axes)
        s.setValue("view/labels", self.viewport.show_labels)
        trails = self.viewport.trails
        for key in ("enabled", "before", "after", "ghosts", "every"):
            s.setValue(f"view/trails_{key}", getattr(trails, key))

    def _restore_settings(self) -> None:
        s = settings.settings()
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        #: Whether a saved window geometry was restored (else the caller picks a size).
        self.restored_geometry = geometry is not None and self.restoreGeometry(geometry)
        # A layout saved by another version of the built-in one is not restored, nor one
        # that leaves the viewport less than its share once shown (the keeper checks).
        self._restored_state = state is not None and self.restoreState(state, layout.STATE_VERSION)
        if self._restored_state:
            self.compare_dock.setVisible(self.document.compare)
            self.layout_keeper.check_restored = True
        axes = s.value("view/bone_axes", False)
        self.actions_by_name["boneAxes"].setChecked(axes in (True, "true"))
        self.actions_by_name["labels"].setChecked(s.value("view/labels", True) in (True, "true"))
        default = TrailSettings()
        try:
            trails = TrailSettings(
                *(
                    (s.value(f"view/trails_{k}", getattr(default, k)) in (True, "true"))
                    if isinstance(getattr(default, k), bool)
                    else int(s.value(f"view/trails_{k}", getattr(default, k)))
                    for k in ("enabled", "before", "after", "ghosts", "every")
                )
            )
        except (TypeError, ValueError):
            trails = default
        self.set_trails(trails)
