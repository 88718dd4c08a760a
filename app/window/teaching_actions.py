"""The main window's teaching actions: the Trails bar, step-through and the Tutorials menu
(a part of :class:`~app.window.main_window.MainWindow`, like :mod:`app.window.actions`)."""

from __future__ import annotations

import dataclasses

from PySide6 import QtCore, QtWidgets

from app.editor import tutorials
from app.scene.errors import SceneError
from app.scene.io import load_scene
from app.widgets.text_keys import keep_keys


class TeachingActions:
    """Trails, ghosts, step-through and tutorials (a mixin: it uses the window's viewport,
    docks, actions and files)."""

    def _build_trails_bar(self) -> None:
        """Trails: how many frames before and after, ghosts every how many frames."""
        self.addToolBarBreak()
        bar = self.addToolBar("Trails")
        bar.setObjectName("trailsToolBar")
        bar.setMovable(False)
        m = self.actions_by_name
        bar.addAction(m["trails"])
        self.trail_spins = {}
        for key, label, tip in (
            ("before", " before ", "Frames of path before the current frame"),
            ("after", " after ", "Frames of path after the current frame"),
            ("every", " every ", "Frames between onion-skin ghosts"),
        ):
            if key == "every":
                bar.addSeparator()
                bar.addAction(m["ghosts"])
            bar.addWidget(QtWidgets.QLabel(label))
            spin = QtWidgets.QSpinBox()
            spin.setObjectName(f"trails_{key}")
            spin.setRange(1 if key == "every" else 0, 10000)
            spin.setToolTip(tip)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(lambda v, k=key: self._set_trail(**{k: int(v)}))
            keep_keys(spin)  # Up/Down step the value here, not the timeline
            bar.addWidget(spin)
            self.trail_spins[key] = spin
        self.trails_bar = bar
        bar.setVisible(False)

    def set_trails(self, trails) -> None:
        """Show ``trails`` (:class:`~app.widgets.viewport.teaching_drawing.TrailSettings`) and
        mirror them in the actions and the Trails bar."""
        self.viewport.set_trails(trails)
        for name, on in (("trails", trails.enabled), ("ghosts", trails.ghosts)):
            with QtCore.QSignalBlocker(self.actions_by_name[name]):
                self.actions_by_name[name].setChecked(on)
        for key, spin in self.trail_spins.items():
            with QtCore.QSignalBlocker(spin):
                spin.setValue(getattr(trails, key))
        self.trails_bar.setVisible(trails.enabled or trails.ghosts)

    def _set_trail(self, **changes) -> None:
        self.set_trails(dataclasses.replace(self.viewport.trails, **changes))

    def _toggle_trails(self, on: bool) -> None:
        self._set_trail(enabled=bool(on))

    def _toggle_ghosts(self, on: bool) -> None:
        self._set_trail(ghosts=bool(on))

    def _mirror_step_through(self) -> None:
        """The action shows whether the mode is on (without starting it over)."""
        action = self.actions_by_name["stepThrough"]
        with QtCore.QSignalBlocker(action):
            action.setChecked(self.step_through.active)

    def _toggle_step_through(self, on: bool) -> None:
        if on:
            self.step_dock.show()
            self.step_dock.raise_()
            if not self.step_through.start():
                self.statusBar().showMessage(self.step_through.error, 6000)
        else:
            self.step_through.stop()

    def _build_tutorials_menu(self) -> None:
        menu = self.tutorials_menu
        try:
            found = tutorials.load_tutorials()
        except SceneError as e:
            action = menu.addAction(f"Tutorials unavailable: {e}")
            action.setEnabled(False)
            return
        for t in found:
            action = menu.addAction(t.title)
            action.setObjectName(f"tutorial_{t.id}")
            action.setEnabled(t.available)
            action.setStatusTip(t.why_unavailable() or f"Open the tutorial scene {t.scene.name}")
            action.triggered.connect(lambda _=False, t=t: self.open_tutorial(t))
            self.actions_by_name[f"tutorial_{t.id}"] = action

    def open_tutorial(self, tutorial) -> bool:
        """Open ``tutorial``'s scene (read-only, as every shipped scene) and show its text."""
        try:
            scene = load_scene(tutorial.scene)
        except SceneError as e:
            from app.editor.files import error_text

            e = e if e.file else e.with_file(str(tutorial.scene))
            QtWidgets.QMessageBox.critical(self, "Cannot open the tutorial", error_text(e))
            return False
        if not self.files.maybe_save("opening a tutorial"):
            return False
        self.tutorial_panel.open(tutorial, scene)
        dock = self.tutorial_dock
        dock.show()
        dock.raise_()
        if not dock.isFloating():  # room to read, under the outliner (which stays in view)
            column = self.outliner_dock.height() + dock.height()
            self.resizeDocks([dock], [int(0.55 * column)], QtCore.Qt.Orientation.Vertical)
            self.layout_keeper.widen(dock, 320)
        self.statusBar().showMessage(f"Tutorial: {tutorial.title}", 6000)
        return True
