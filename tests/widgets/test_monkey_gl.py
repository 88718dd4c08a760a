"""A GUI monkey (issue 10): seeded random actions with real mouse and key events on the demo
and on the FABRIK arm — clicks and drags in the viewport, scrubbing, keying and deleting
keys, spaces and Compare, adding and removing constraints and pivots through the outliner's
and viewport's context menus, undo and redo. Then undo everything: the scene equals the
loaded one; redo everything: it equals the final one. No exception may reach Qt's event loop
and no Qt warning may be logged (``qt_log_level_fail``).

``make test`` runs 120 actions on each scene; ``make fuzz`` sets
``PIVOTAL_MONKEY_ACTIONS=1000`` (``PIVOTAL_MONKEY_SEED`` picks other sequences).
"""

import os
import random
import sys
import traceback

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from tests.helpers import gui
from tests.helpers.gui import CTRL, NO_MODS, SHIFT, click, drag, key
from tests.helpers.paths import SCENES

ACTIONS = int(os.environ.get("PIVOTAL_MONKEY_ACTIONS", "120"))
#: Added to each scene's seed: another run of the monkey, another sequence of actions.
SEED = int(os.environ.get("PIVOTAL_MONKEY_SEED", "0"))


class Monkey:
    """The random actions on one main window, each through real events."""

    def __init__(self, win, qtbot, rng: random.Random):
        self.win, self.qtbot, self.rng = win, qtbot, rng
        self.doc, self.vp = win.document, win.viewport
        self.log: list[str] = []

    # --- where things are on screen ------------------------------------------------------

    def _inside(self, xy) -> bool:
        return 2 <= xy[0] < self.vp.width() - 2 and 2 <= xy[1] < self.vp.height() - 2

    def _random_pixel(self):
        return (self.rng.uniform(5, self.vp.width() - 5), self.rng.uniform(5, self.vp.height() - 5))

    def _something_on_screen(self):
        """A bone's middle or a handle, as a widget pixel (else a random pixel)."""
        pose = self.doc.pose()
        points = list(0.5 * (pose.heads[0] + pose.tails[0]))
        points += [p for _, p in self.vp.handles()]
        screen = [xy for xy in self.vp.project(np.array(points)) if np.all(np.isfinite(xy))]
        screen = [xy for xy in screen if self._inside(xy)]
        return tuple(self.rng.choice(screen)) if screen else self._random_pixel()

    # --- the actions ---------------------------------------------------------------------

    def click_in_viewport(self):
        target = self._something_on_screen() if self.rng.random() < 0.8 else self._random_pixel()
        click(self.vp, target, SHIFT if self.rng.random() < 0.2 else NO_MODS)

    def drag_in_viewport(self):
        start = self._something_on_screen() if self.rng.random() < 0.8 else self._random_pixel()
        offset = np.array([self.rng.uniform(-120, 120), self.rng.uniform(-120, 120)])
        end = np.clip(np.array(start) + offset, 3, [self.vp.width() - 3, self.vp.height() - 3])
        # Ctrl+drag turns a bone (the arcball), Shift keeps a handle at its height.
        mods = self.rng.choices([NO_MODS, CTRL, SHIFT], [0.55, 0.3, 0.15])[0]
        drag(self.vp, start, end, mods, steps=self.rng.randint(2, 6))

    def scrub(self):
        bar = self.win.timeline.scrub_bar
        x0 = self.rng.uniform(0, bar.width())
        if self.rng.random() < 0.5:
            click(bar, (x0, bar.height() / 2))
        else:
            drag(
                bar,
                (x0, bar.height() / 2),
                (self.rng.uniform(0, bar.width()), bar.height() / 2),
                steps=4,
            )

    def step_frames(self):
        key(self.vp, self.rng.choice(["Left", "Right", "Home", "End", "Up", "Down"]))

    def key_selection(self):
        key(self.vp, "K")

    def delete_key(self):
        key(self.vp, "K", SHIFT)

    def toggle_space(self):
        key(self.vp, self.rng.choice(["1", "2", "3"]))

    def toggle_compare(self):
        key(self.vp, "C")

    def select_in_outliner(self):
        outliner = self.win.outliner
        items = [outliner.item_for(r) for r in list(outliner._items)]
        item = self.rng.choice([i for i in items if i is not None])
        outliner.scrollToItem(item)
        rect = outliner.visualItemRect(item)
        if rect.isValid():
            mods = CTRL if self.rng.random() < 0.2 else NO_MODS
            click(outliner.viewport(), rect.center(), mods)

    def _pick_from_menu(self, chosen):
        def exec_menu(menu, at):
            enabled = [a for a in menu.actions() if a.isEnabled() and a.text()]
            if enabled:
                action = self.rng.choice(enabled)
                chosen.append(action.text())
                action.trigger()

        return exec_menu

    def viewport_menu(self, monkeypatch):
        """Right-click in the viewport (real press and release) and pick from its menu."""
        chosen = []
        monkeypatch.setattr(self.vp, "exec_menu", self._pick_from_menu(chosen))
        QTest.mouseClick(
            self.vp,
            QtCore.Qt.MouseButton.RightButton,
            NO_MODS,
            gui.point(self._something_on_screen()),
        )
        self.log[-1] += f" {chosen}"

    def outliner_menu(self, monkeypatch):
        """Right-click an outliner item (a real context-menu event) and pick one of the menu's
        enabled actions: adding and removing constraints and pivots, retargeting."""
        outliner = self.win.outliner
        refs = list(outliner._items)
        if not refs:
            return
        item = outliner.item_for(self.rng.choice(refs))
        outliner.scrollToItem(item)
        rect = outliner.visualItemRect(item)
        chosen = []
        monkeypatch.setattr(outliner, "exec_menu", self._pick_from_menu(chosen))
        pos = rect.center()
        event = QtGui.QContextMenuEvent(
            QtGui.QContextMenuEvent.Reason.Mouse, pos, outliner.viewport().mapToGlobal(pos)
        )
        QtWidgets.QApplication.sendEvent(outliner.viewport(), event)
        self.log[-1] += f" {chosen}"

    def delete_selected(self):
        key(self.vp, self.rng.choice(["Delete", "X"]))

    def undo(self):
        key(self.vp, "Z", CTRL)

    def redo(self):
        key(self.vp, "Z", CTRL | SHIFT) if self.rng.random() < 0.5 else key(self.vp, "Y", CTRL)


WEIGHTS = {
    "click_in_viewport": 10,
    "drag_in_viewport": 14,
    "scrub": 6,
    "step_frames": 5,
    "key_selection": 8,
    "delete_key": 5,
    "toggle_space": 4,
    "toggle_compare": 3,
    "select_in_outliner": 8,
    "outliner_menu": 6,
    "viewport_menu": 4,
    "delete_selected": 3,
    "undo": 8,
    "redo": 5,
}


@pytest.mark.parametrize("name, seed", [("foot_roll.json", 101), ("fabrik_arm.json", 202)])
def test_the_monkey_then_undo_all_and_redo_all(qtbot, monkeypatch, name, seed):
    errors = []
    # Any exception that reaches Qt's event loop (a slot, a paint) goes to sys.excepthook.
    monkeypatch.setattr(sys, "excepthook", lambda *info: errors.append(info))
    win = gui.open_window(qtbot, SCENES / name, frame=0)
    doc = win.document
    rng = random.Random(seed + SEED)
    # Deleting bones asks what happens to their children (a modal box): answer at random.
    monkeypatch.setattr(win, "ask_children", lambda names: rng.choice(["reparent", "delete", None]))
    # Any other modal dialog would block the monkey: close it and fail the test.
    modals = []

    def close_modal():
        modal = QtWidgets.QApplication.activeModalWidget()
        if modal is not None:
            modals.append(modal.objectName() or type(modal).__name__)
            modal.reject()

    watchdog = QtCore.QTimer()
    watchdog.timeout.connect(close_modal)
    watchdog.start(200)
    stack = doc.undo_stack
    loaded = doc.scene.copy()
    states = [loaded]  # states[i]: the scene at undo index i
    monkey = Monkey(win, qtbot, rng)
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    for n in range(ACTIONS):
        action = rng.choices(names, weights)[0]
        monkey.log.append(f"{n}: {action}")
        if action in ("outliner_menu", "viewport_menu"):
            getattr(monkey, action)(monkeypatch)
        else:
            getattr(monkey, action)()
        QtWidgets.QApplication.processEvents()
        index = stack.index()
        if action in ("undo", "redo") or stack.count() > index:
            # Undo and redo give back exactly the scene each command left; an action that
            # pushed no command (redo is still possible) changed nothing.
            assert doc.scene == states[index], "\n".join(monkey.log[-10:])
        else:
            states = states[:index] + [doc.scene.copy()]
        assert not errors, "".join(traceback.format_exception(*errors[0][:3]))
        assert not modals, f"an unexpected modal dialog: {modals} after {monkey.log[-1]}"
    qtbot.wait(30)  # let the last repaint and any deferred evaluation run

    final, final_index = doc.scene.copy(), stack.index()
    assert final_index >= ACTIONS // 20  # the monkey did edit (not only look around)
    for _ in range(final_index):
        key(win.viewport, "Z", CTRL)
    assert stack.index() == 0
    assert doc.scene == loaded and not doc.dirty
    for _ in range(final_index):
        key(win.viewport, "Z", CTRL | SHIFT)
    assert stack.index() == final_index
    assert doc.scene == final
    qtbot.wait(30)
    assert not errors, "".join(traceback.format_exception(*errors[0][:3]))


def test_the_guard_sees_an_exception_in_a_slot(qtbot, monkeypatch):
    """The excepthook guard above is not vacuous: a raising slot reaches it."""
    errors = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: errors.append(info))
    timer = QtCore.QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(lambda: 1 / 0)
    timer.start(0)
    qtbot.waitUntil(lambda: bool(errors), timeout=2000)
    assert errors[0][0] is ZeroDivisionError
