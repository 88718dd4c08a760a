"""Small widget helpers: the throttle of secondary panels, the scrub bar's ruler."""

from app.editor.throttle import Throttle
from app.widgets.scrub_bar import tick_step


def test_throttle_runs_at_once_then_once_more_at_the_end(qtbot):
    calls = []
    throttle = Throttle(lambda: calls.append(len(calls)), interval_ms=80)
    throttle()
    assert calls == [0]  # quiet before: immediately
    for _ in range(10):
        throttle()
    assert calls == [0]  # a burst waits...
    qtbot.waitUntil(lambda: len(calls) == 2, timeout=1000)  # ...and ends on one more call
    qtbot.wait(150)
    assert len(calls) == 2
    throttle()
    throttle()
    throttle.flush()
    assert len(calls) == 4


def test_tick_steps_keep_labels_apart():
    assert tick_step(60.0) == 1
    assert tick_step(10.0) == 5
    assert tick_step(1.0) == 50
    assert tick_step(0.05) == 1000
    for ppf in (0.01, 0.3, 2.7, 9.9, 48.0):
        step = tick_step(ppf)
        assert step * ppf >= 48 and str(step)[0] in "125"
