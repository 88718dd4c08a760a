"""Journeys through the window's layout: open and close every panel from the View menu and
with its close button, restart, restore a saved layout that would hide the viewport, reset
the layout, make the window as narrow as a small screen. What is asserted is what a person
sees: how much of the window the viewport fills, which panel is on top, what is inside the
window."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.editor import settings
from tests.journeys._layout import (
    LEFT,
    central_rect,
    choose,
    clear_settings,
    click_close,
    close_button,
    dock_titled,
    height_share,
    seen_viewport,
    start,
    view_items,
)


@pytest.fixture(autouse=True)
def fresh_settings():
    """Each journey starts without saved settings and leaves none (windows save theirs as
    they close, before this clears them)."""
    clear_settings()
    yield
    clear_settings()


def on_top(dock) -> bool:
    """Whether a person sees the dock: shown, in the window, not behind another's tab."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def close(qtbot, window, dock) -> None:
    """Close ``dock`` with its close button, or from the View menu when it has none."""
    button = close_button(dock)
    if button is not None and button.isVisible():
        click_close(qtbot, dock)
    else:
        choose(qtbot, window, "View", dock.windowTitle(), dock=True)


def test_closing_curves_and_matrix_gives_the_viewport_back_also_after_a_restart(qtbot):
    window = start(qtbot)
    height = seen_viewport(window).height()
    timeline = dock_titled(window, "Timeline").height()
    choose(qtbot, window, "View", "Curves", dock=True)
    choose(qtbot, window, "View", "Matrix Chain", dock=True)
    assert on_top(dock_titled(window, "Curves")) and on_top(dock_titled(window, "Matrix Chain"))
    qtbot.waitUntil(lambda: height_share(window) >= 0.49, timeout=1000)  # keeps half
    click_close(qtbot, dock_titled(window, "Curves"))
    choose(qtbot, window, "View", "Matrix Chain", dock=True)
    assert seen_viewport(window).height() >= 0.9 * height
    assert dock_titled(window, "Timeline").height() <= timeline + 30, "no empty timeline"
    window.close()
    again = start(qtbot)
    assert again.restored_geometry
    assert seen_viewport(again).height() >= 0.9 * height


def test_every_dock_opened_and_closed_leaves_the_viewport_also_after_a_restart(qtbot):
    window = start(qtbot)
    height = seen_viewport(window).height()
    titles = view_items(window)
    assert {"Outliner", "Inspector", "Curves", "Matrix Chain", "History", "Compare"} <= set(titles)
    for title in titles:
        dock = dock_titled(window, title)
        if dock.isVisible():  # close it, then bring it back from the View menu
            close(qtbot, window, dock)
            assert not dock.isVisible(), title
            assert seen_viewport(window).height() >= 0.9 * height, f"{title} closed"
            choose(qtbot, window, "View", title, dock=True)
        else:  # open it from the View menu, then close it
            choose(qtbot, window, "View", title, dock=True)
            assert on_top(dock), f"{title} opened from the View menu is on top"
            qtbot.waitUntil(lambda: height_share(window) >= 0.49, timeout=1000)
            close(qtbot, window, dock)
        assert on_top(dock) or not dock.isVisible(), title
        assert seen_viewport(window).height() >= 0.9 * height, f"after {title}"
    window.close()
    again = start(qtbot)
    assert seen_viewport(again).height() >= 0.9 * height


def current_version() -> int:
    from app.window import layout  # (not there before the layout had a version)

    return layout.STATE_VERSION


def test_a_saved_layout_that_would_hide_the_viewport_is_not_restored(qtbot):
    """Saved layouts whose Curves panel takes most of the window's height: one saved before
    the viewport's share was kept (version 0), one saved now, and a corrupt one."""
    window = start(qtbot, restore=False)
    height = seen_viewport(window).height()
    choose(qtbot, window, "View", "Curves", dock=True)
    curves = dock_titled(window, "Curves")
    window.resizeDocks([curves], [int(0.8 * window.height())], QtCore.Qt.Orientation.Vertical)
    geometry = window.saveGeometry()
    saved = {
        "old version": window.saveState(0),
        "current version": window.saveState(current_version()),
        "corrupt": QtCore.QByteArray(b"\x00\x00\x00\xffnot a layout" * 4),
    }
    window.close()
    for name, state in saved.items():
        store = settings.settings()
        store.setValue("window/geometry", geometry)
        store.setValue("window/state", state)
        store.sync()
        again = start(qtbot)
        qtbot.wait(60)
        assert not dock_titled(again, "Curves").isVisible(), f"{name}: the built-in layout"
        assert seen_viewport(again).height() >= 0.9 * height, name
        assert height_share(again) >= 0.5, name
        again.hide()  # out of the way of the next one


def test_reset_layout_restores_the_panels_and_fits_the_window(qtbot):
    window = start(qtbot)
    height = seen_viewport(window).height()
    choose(qtbot, window, "View", "Curves", dock=True)
    choose(qtbot, window, "View", "Matrix Chain", dock=True)
    choose(qtbot, window, "View", "Step Through", dock=True)
    outliner = dock_titled(window, "Outliner")
    title_bar = QtCore.QPoint(outliner.width() // 3, 8)
    QTest.mouseDClick(outliner, LEFT, pos=title_bar)  # a double-click floats a dock
    qtbot.waitUntil(outliner.isFloating, timeout=2000)
    window.resize(1000, 600)
    window.move(500, 450)  # partly off the 1600×1000 screen
    qtbot.wait(100)
    choose(qtbot, window, "View", "Reset Layout")
    qtbot.wait(100)
    for title in ("Curves", "Matrix Chain", "Step Through"):
        assert not dock_titled(window, title).isVisible(), title
    assert not outliner.isFloating() and on_top(outliner)
    assert on_top(dock_titled(window, "Inspector"))
    screen = window.screen().availableGeometry()
    assert screen.contains(window.frameGeometry()), "the window fits the screen again"
    assert seen_viewport(window).height() >= 0.9 * height


def test_a_reopened_dock_is_on_top(qtbot):
    window = start(qtbot)
    outliner, history = dock_titled(window, "Outliner"), dock_titled(window, "History")
    assert on_top(outliner) and not on_top(history)
    click_close(qtbot, outliner)
    assert on_top(history)
    choose(qtbot, window, "View", "Outliner", dock=True)
    assert on_top(outliner) and not on_top(history)
    choose(qtbot, window, "View", "History", dock=True)  # closes it
    choose(qtbot, window, "View", "History", dock=True)
    assert on_top(history) and not on_top(outliner)


def test_the_window_narrows_to_a_small_screen_with_every_control_inside(qtbot):
    window = start(qtbot)
    window.resize(1024, 700)
    qtbot.wait(150)
    assert window.width() <= 1024
    inside = central_rect(window)
    controls = [
        w
        for w in window.timeline.findChildren(QtWidgets.QWidget)
        if w.isVisible() and isinstance(w, (QtWidgets.QAbstractButton, QtWidgets.QAbstractSpinBox))
    ]
    assert len(controls) >= 12
    for control in controls:
        rect = QtCore.QRect(control.mapTo(window, QtCore.QPoint(0, 0)), control.size())
        assert inside.contains(rect), control.objectName()
    assert window.rect().contains(window.statusBar().geometry())
    assert seen_viewport(window).width() >= 0.5 * inside.width()


def test_dragging_a_separator_or_shrinking_the_window_cannot_hide_the_viewport(qtbot):
    window = start(qtbot)
    choose(qtbot, window, "View", "Curves", dock=True)
    qtbot.waitUntil(lambda: height_share(window) >= 0.49, timeout=1000)
    viewport = seen_viewport(window)
    curves = dock_titled(window, "Curves").geometry()
    grip = QtCore.QPoint(viewport.center().x(), (viewport.bottom() + curves.top()) // 2 + 1)
    QTest.mousePress(window, LEFT, QtCore.Qt.KeyboardModifier.NoModifier, grip)
    top = QtCore.QPoint(grip.x(), viewport.top() + 10)
    for y in range(grip.y(), top.y(), -40):  # the separator dragged to the top
        QTest.mouseMove(window, QtCore.QPoint(grip.x(), y))
        qtbot.wait(10)
    QTest.mouseMove(window, top)
    assert seen_viewport(window).height() < 0.3 * viewport.height(), "the drag took effect"
    QTest.mouseRelease(window, LEFT, QtCore.Qt.KeyboardModifier.NoModifier, top)
    qtbot.waitUntil(lambda: height_share(window) >= 0.49, timeout=1000)
    window.resize(1100, 560)
    qtbot.waitUntil(lambda: height_share(window) >= 0.49, timeout=1000)
    assert dock_titled(window, "Curves").isVisible()
