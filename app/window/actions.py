"""The main window's actions, menus and toolbar (a part of :class:`MainWindow`).

Every action has an object name (``actions_by_name["compare"]``), a shortcut where one is
expected, and a status tip. The transport keys (Space, Left/Right, Home/End, Up/Down, K,
Shift+K) are window shortcuts, so they work wherever the focus is, except inside a text
field, which keeps its keys (:mod:`app.widgets.text_keys`).

One idea: the window's actions, each made by :meth:`WindowActions.make_action`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from app.editor import playback, settings
from app.editor.operations import key_operations
from app.editor.operations.base import OperationError
from app.widgets.add_menu import build_add_menu
from app.widgets.retarget.import_dialog import import_motion
from app.widgets.retarget.map_dialog import edit_map
from app.widgets.space_toggle import SpaceToggle
from app.widgets.viewport.gizmo_items import GizmoToolbar
from app.window.help_text import show_controls
from app.window.layout import show_message
from app.window.mesh_actions import build_camera_actions, build_mesh_actions
from app.window.rig_actions import build_rig_menu


class WindowActions:
    """Actions, menus and toolbar of :class:`app.window.main_window.MainWindow` (a mixin: it uses
    the
    window's document, files, viewport and docks)."""

    def _make_convergence_panel(self):
        from app.widgets.panels.convergence_panel import ConvergencePanel

        return ConvergencePanel(self.document)

    def make_action(
        self, name, text, slot=None, shortcut=None, tip="", checkable=False, icon=None
    ) -> QtGui.QAction:
        """A window action named ``name`` (``actions_by_name``), with its shortcut, tip,
        icon and slot (``toggled`` when checkable, else ``triggered``)."""
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

    _action = make_action  # the short name the action mixins build their menus with

    def _safely(self, fn, *args):
        """A slot that runs an operation and reports an OperationError in the status bar."""

        def run(*_):
            try:
                fn(*args)
            except OperationError as e:
                show_message(self, str(e))

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
            "Open a scene file, a BVH motion capture or a glTF character",
            icon=sp.SP_DialogOpenButton,
        )
        a(
            "importMotion",
            "&Import Motion onto Character…",
            self._import_motion,
            None,
            "Put a clip (BVH, glTF, FBX) on this character through the humanoid maps",
        )
        a(
            "humanoidMap",
            "&Humanoid Map…",
            lambda: edit_map(self, doc),
            None,
            "Which of the character's bones is each humanoid bone (read by the retarget and "
            "the foot-roll rig)",
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
            self._safely(key_operations.set_key, doc),
            "K",
            "Key the selection at the current frame",
        )
        a(
            "deleteKey",
            "&Delete Key",
            self._safely(key_operations.delete_key, doc),
            "Shift+K",
            "Delete the selection's key at the current frame",
        )
        a(
            "delete",
            "De&lete",
            self._delete_selected,
            ["Delete", "X"],
            "Delete the selected bones, pivots or constraints",
        )
        a(
            "grab",
            "&Move (G)",
            lambda: self.viewport.transform_mode.start("move"),
            "G",
            "Move the selected bone, pivot or target with the mouse (X/Y/Z lock an axis)",
        )
        a(
            "rotate",
            "&Rotate (R)",
            lambda: self.viewport.transform_mode.start("rotate"),
            "R",
            "Rotate the selected bone or pivot with the mouse (X/Y/Z lock an axis)",
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
            "Point the camera at the whole skeleton at this frame",
        )
        build_camera_actions(self)
        a(
            "boneAxes",
            "Bone &Axes",
            self.viewport.set_show_axes,
            None,
            "Draw each bone's frame axes (x red, y green, z blue)",
            checkable=True,
        )
        a(
            "labels",
            "&Labels",
            self.viewport.set_show_labels,
            "Alt+L",
            "Name the pivots, targets and poles beside them (the selection's first where they "
            "crowd)",
            checkable=True,
        )
        self.actions_by_name["labels"].setChecked(True)
        build_mesh_actions(self)
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
        a(
            "trails",
            "Motion &Trails",
            self._toggle_trails,
            "T",
            "Draw the paths of what the constraints move around the current frame",
            checkable=True,
        )
        a(
            "ghosts",
            "Onion-Skin &Ghosts",
            self._toggle_ghosts,
            "Shift+T",
            "Draw the poses every few frames around the current one",
            checkable=True,
        )
        a(
            "stepThrough",
            "&Step Through",
            self._toggle_step_through,
            "Alt+S",
            "Run the selected FABRIK or multi-parent constraint one pass or step at a time",
            checkable=True,
        )
        a(
            "nextPass",
            "Next Pass",
            self.step_through.next,
            "Alt+Right",
            "Step-through: the next pass or integration step",
        )
        a(
            "previousPass",
            "Previous Pass",
            self.step_through.previous,
            "Alt+Left",
            "Step-through: the previous pass or integration step",
        )
        self.step_through.changed.connect(self._mirror_step_through)
        for name, text, tip in (
            ("bvh", "&BVH…", "The evaluated animation as BVH motion capture"),
            ("csv", "&CSV…", "Heads, tails and world quaternions per frame and bone"),
            ("npz", "Baked &Arrays (NPZ)…", "World matrices, heads and tails per frame"),
            ("glb", "&glTF Binary (GLB)…", "Bones, skin, mesh and the baked animation"),
            ("gltf", "glTF (&JSON)…", "As GLB, in one .gltf file"),
            ("usda", "&USD…", "UsdSkel skeleton, animation and skinned meshes (.usda)"),
            ("usdc", "USD Binar&y…", "As USD, in the binary crate format (.usdc)"),
            ("png", "Viewport &Image (PNG)…", "The viewport as it is now"),
            ("png-sequence", "PNG &Sequence…", "Every frame through the viewport's camera"),
        ):
            a(f"export_{name}", text, lambda _=False, n=name: self.exports.export(n), tip=tip)
        a(
            "resetLayout",
            "Reset &Layout",
            lambda: self.layout_keeper.reset_layout(),
            None,
            "Put every panel back where it starts and fit the window to the screen",
        )
        a("controls", "&Controls", self._show_controls, "F1", "Mouse and keyboard controls")
        a("about", "&About Pivotal", self._show_about)
        doc.compare_changed.connect(self.actions_by_name["compare"].setChecked)
        doc.player.playing_changed.connect(self._on_playing)

    def _leaf_bones_menu(self, menu) -> None:
        """File ▸ Leaf Bones: how the next glTF or FBX file reads the bones an exporter adds
        at the ends of chains (Blender's "Ignore Leaf Bones", by default as the file says)."""
        menu.setObjectName("leafBonesMenu")
        group = QtGui.QActionGroup(self)
        for choice, text, tip in (
            (
                "auto",
                "Ignore &Blender's",
                "Ignore the leaf bones Blender's exporter adds at the "
                "ends of chains when the file says Blender wrote it",
            ),
            ("ignore", "&Ignore", "Ignore every bone that only marks where its parent ends"),
            ("keep", "&Keep", "Read every bone of the file, leaf bones too"),
        ):
            action = group.addAction(text)
            action.setObjectName(f"leafBones_{choice}")
            action.setCheckable(True)
            action.setChecked(settings.leaf_bones() == choice)
            action.setStatusTip(tip + " (from the next file opened)")
            action.triggered.connect(lambda _=False, c=choice: settings.set_leaf_bones(c))
            menu.addAction(action)
            self.actions_by_name[action.objectName()] = action

    def _import_motion(self) -> None:
        frame = self.actions_by_name["frameAnimation"].trigger
        said = import_motion(self, self.document, frame=frame)
        if said:
            self.document.notify(said)

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
        file.addAction(m["importMotion"])
        self._leaf_bones_menu(file.addMenu("&Leaf Bones"))
        file.addSeparator()
        for name in ("save", "saveAs"):
            file.addAction(m[name])
        export = file.addMenu("&Export")
        export.setObjectName("exportMenu")
        for name in (
            "bvh",
            "csv",
            "npz",
            "glb",
            "gltf",
            "usda",
            "usdc",
            None,
            "png",
            "png-sequence",
        ):
            export.addSeparator() if name is None else export.addAction(m[f"export_{name}"])
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
        for name in ("addBone", "extrude", "renameBone"):
            edit.addAction(m[name])
        pose = edit.addMenu("&Pose")
        for name in ("copyPose", "pastePose", "pastePoseFlipped", "clearRotation", "clearLocation"):
            pose.addAction(m[name])
        edit.addAction(m["grab"])
        edit.addAction(m["rotate"])
        edit.addAction(m["delete"])
        edit.addAction(m["selectNone"])
        build_rig_menu(self, bar).addAction(m["humanoidMap"])
        view = bar.addMenu("&View")
        for name in ("frameSelected", "frameAll", "frameAnimation", "follow", "boneAxes", "labels"):
            view.addAction(m[name])
        view.addSeparator()
        for name in ("showBoth", "showMesh", "showBones", "xray"):
            view.addAction(m[name])
        view.addSeparator()
        for name in ("spaceWorld", "spaceObject", "spaceAuthored", "compare"):
            view.addAction(m[name])
        view.addSeparator()
        for name in ("trails", "ghosts", "stepThrough", "previousPass", "nextPass"):
            view.addAction(m[name])
        view.addSeparator()
        self.convergence_dock = self._lazy_dock(
            "Convergence",
            "convergenceDock",
            self._make_convergence_panel,
            QtCore.Qt.DockWidgetArea.RightDockWidgetArea,
        )
        self.convergence_dock.hide()
        for dock in (
            self.outliner_dock,
            self.inspector_dock,
            self.timeline_dock,
            self.compare_dock,
            self.history_dock,
            self.curves_dock,
            self.matrix_dock,
            self.step_dock,
            self.tutorial_dock,
            self.convergence_dock,
        ):
            toggle = dock.toggleViewAction()
            toggle.setObjectName(f"show_{dock.objectName()}")
            view.addAction(toggle)
        view.addSeparator()
        view.addAction(m["resetLayout"])
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
        self.tutorials_menu = help_menu.addMenu("&Tutorials")
        self.tutorials_menu.setObjectName("tutorialsMenu")
        self._build_tutorials_menu()
        help_menu.addSeparator()
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
        self.gizmo_toolbar = GizmoToolbar(self.viewport.gizmo)
        bar.addWidget(self.gizmo_toolbar)
        bar.addAction(m["boneAxes"])
        bar.addAction(m["frameSelected"])
        bar.addSeparator()
        bar.addAction(m["play"])
        for name in ("new", "open", "save", "undo", "redo", "play"):  # icons say enough
            bar.widgetForAction(m[name]).setToolButtonStyle(
                QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly
            )
        self._build_trails_bar()

    def _on_playing(self, playing: bool) -> None:
        sp = QtWidgets.QStyle.StandardPixmap
        icon = sp.SP_MediaPause if playing else sp.SP_MediaPlay
        self.actions_by_name["play"].setIcon(self.style().standardIcon(icon))

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
        show_controls(self)

    def _show_about(self) -> None:
        QtWidgets.QMessageBox.about(
            self,
            "About Pivotal",
            "<h3>Pivotal</h3><p>A skeleton rig editor whose bodies rotate about several pivots "
            "at once (the multi-parent constraint and its normalized anticommutator), with "
            "points-at, FABRIK, child-of and copy constraints in world or object space, run "
            "in the order they depend on each other.</p><p>Rig ▸ Foot Roll Rig… builds a "
            "reverse foot on a leg. Opens scene files, BVH, glTF and FBX characters; writes "
            "scene files, glTF, USD, BVH, CSV and NPZ.</p>",
        )
