"""A session on a small screen, run in its own X server (``xvfb-run -s "-screen 0 1280x720x24"``)
by :mod:`tests.journeys.test_small_screen`: the editor starts as ``main.py`` starts it (no saved
layout), then every dialog a newcomer meets is opened with the key or menu a person would use.
Prints, as JSON, the screen's available area, the window's frame and the global rectangles of
what must be visible: the timeline's controls, the status bar, each dialog and its buttons.
On a large screen (``PIVOTAL_JOURNEY_WINDOW_ONLY``) only the first window is measured.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "resources" / "scenes" / "foot_roll.json"
Key = QtCore.Qt.Key


def rect(r: QtCore.QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def global_rect(widget: QtWidgets.QWidget) -> list[int]:
    return rect(QtCore.QRect(widget.mapToGlobal(QtCore.QPoint(0, 0)), widget.size()))


def settle(ms: int = 150) -> None:
    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QtWidgets.QApplication.processEvents()
        time.sleep(0.005)


def shown_dialogs() -> list[QtWidgets.QDialog]:
    return [
        w
        for w in QtWidgets.QApplication.topLevelWidgets()
        if isinstance(w, QtWidgets.QDialog) and w.isVisible()
    ]


def dialog_from(trigger) -> dict | None:
    """Run ``trigger`` (a key or a menu action) and measure the dialog it shows, modal or not,
    once it has settled; then close it."""
    window = QtWidgets.QApplication.instance().property("journey_window")
    window.activateWindow()  # as a person's click on the window would
    settle(60)
    before = set(map(id, shown_dialogs()))
    found: dict = {}

    def poll(tries=[0]):  # noqa: B006 (a counter across the polls)
        new = [d for d in shown_dialogs() if id(d) not in before]
        if not new:
            tries[0] += 1
            if tries[0] < 150:
                QtCore.QTimer.singleShot(20, poll)
            else:
                found["missing"] = True
            return
        dialog = new[-1]

        def measure():
            buttons = [
                b
                for b in dialog.findChildren(QtWidgets.QAbstractButton)
                if b.isVisible() and b.text()
            ]
            found.update(
                title=dialog.windowTitle(),
                frame=rect(dialog.frameGeometry()),
                buttons={b.text().replace("&", ""): global_rect(b) for b in buttons},
            )
            dialog.done(0)

        QtCore.QTimer.singleShot(60, measure)

    QtCore.QTimer.singleShot(0, poll)
    trigger()
    end = time.monotonic() + 5
    while not found and time.monotonic() < end:
        settle(20)
    return None if not found or found.get("missing") else found


def journey() -> None:
    app = QtWidgets.QApplication.instance()
    window = next(w for w in app.topLevelWidgets() if isinstance(w, QtWidgets.QMainWindow))
    app.setProperty("journey_window", window)
    settle(300)
    window.activateWindow()
    settle(100)
    timeline = window.timeline
    report = {
        "available": rect(window.screen().availableGeometry()),
        "window": rect(window.frameGeometry()),
        "client": global_rect(window),
        "minimum_width": window.minimumSizeHint().width(),
        "status_bar": global_rect(window.statusBar()),
        "timeline_controls": {
            (w.objectName() or w.text() if isinstance(w, QtWidgets.QLabel) else w.objectName())
            or type(w).__name__: global_rect(w)
            for w in timeline.findChildren(QtWidgets.QWidget)
            if w.isVisible()
            and isinstance(
                w, (QtWidgets.QAbstractButton, QtWidgets.QAbstractSpinBox, QtWidgets.QLabel)
            )
            and not (isinstance(w, QtWidgets.QLabel) and not w.text())
        },
        "scrub_bar": global_rect(timeline.scrub_bar),
        "viewport": global_rect(window.viewport),
        "dialogs": {},
    }
    if os.environ.get("PIVOTAL_JOURNEY_WINDOW_ONLY"):  # the large screen: how big it starts
        print("JOURNEY " + json.dumps(report), flush=True)
        os._exit(0)
    dialogs = report["dialogs"]
    actions = window.actions_by_name
    viewport = window.viewport
    from app.scene.rig.refs import Ref

    dialogs["controls (F1)"] = dialog_from(lambda: QTest.keyClick(window, Key.Key_F1))
    dialogs["about"] = dialog_from(actions["about"].trigger)
    document = window.document
    document.set_selection([Ref.bone(document.scene.bones[0].name)])  # a bone with children

    def on_viewport(key):
        viewport.setFocus()
        QTest.keyClick(viewport, key)

    dialogs["delete bones (X)"] = dialog_from(lambda: on_viewport(Key.Key_X))
    dialogs["rename (F2)"] = dialog_from(lambda: on_viewport(Key.Key_F2))
    dialogs["open (Ctrl+O)"] = dialog_from(
        lambda: QTest.keyClick(window, Key.Key_O, QtCore.Qt.KeyboardModifier.ControlModifier)
    )
    dialogs["save as (Ctrl+Shift+S)"] = dialog_from(actions["saveAs"].trigger)
    dialogs["export BVH"] = dialog_from(actions["export_bvh"].trigger)
    dialogs["export PNG sequence"] = dialog_from(actions["export_png-sequence"].trigger)
    bad = Path(os.environ["PIVOTAL_JOURNEY_TMP"]) / "notes.txt"
    bad.write_text("not a scene\n" * 40)
    dialogs["cannot open"] = dialog_from(lambda: window.files.open(str(bad)))
    tutorial = next(a for name, a in actions.items() if name.startswith("tutorial_"))
    tutorial.trigger()  # Help ▸ Tutorials ▸ the first one
    settle(200)
    dock = window.tutorial_dock
    report["tutorial_panel"] = global_rect(dock) if dock.isVisible() else None
    window.activateWindow()
    settle(60)
    document.set_selection([Ref.bone(document.scene.bones[0].name)])
    on_viewport(Key.Key_K)  # an edit, so that New asks about it
    settle(50)
    dialogs["unsaved changes (Ctrl+N)"] = dialog_from(
        lambda: QTest.keyClick(window, Key.Key_N, QtCore.Qt.KeyboardModifier.ControlModifier)
    )
    print("JOURNEY " + json.dumps(report), flush=True)
    os._exit(0)


def main() -> int:
    QtCore.QSettings.setPath(
        QtCore.QSettings.Format.IniFormat,
        QtCore.QSettings.Scope.UserScope,
        os.environ["PIVOTAL_JOURNEY_TMP"],
    )
    from app.window.application import run_editor
    from app.window.qt_app import application

    application()
    QtCore.QTimer.singleShot(300, journey)
    return run_editor(str(SCENE))


if __name__ == "__main__":
    sys.exit(main())
