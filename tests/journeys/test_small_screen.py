"""A newcomer on a 1280×720 screen: the editor starts in an X server of that size (its own
``xvfb-run``, since the tests' X server is 1600×1000), and the window and every dialog it
opens fit the screen, with the timeline's controls, the status bar and every dialog's
buttons on it. The session itself is :mod:`tests.journeys._small_screen`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREEN = (1280, 720)
DIALOGS = [
    "controls (F1)",
    "about",
    "delete bones (X)",
    "rename (F2)",
    "open (Ctrl+O)",
    "save as (Ctrl+Shift+S)",
    "export BVH",
    "export PNG sequence",
    "cannot open",
    "unsaved changes (Ctrl+N)",
]


def _run(tmp_path_factory, screen, window_only=False) -> dict:
    """What the session (see :mod:`._small_screen`) measured on a screen of ``screen``."""
    tmp = tmp_path_factory.mktemp("screen")
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        PIVOTAL_JOURNEY_TMP=str(tmp),
        PIVOTAL_RECOVERY_DIR=str(tmp),
        QT_QPA_PLATFORM="xcb",
    )
    env.pop("PIVOTAL_GL_CHECKS", None)
    if window_only:
        env["PIVOTAL_JOURNEY_WINDOW_ONLY"] = "1"
    width, height = screen
    result = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            f"-screen 0 {width}x{height}x24",
            sys.executable,
            str(ROOT / "tests" / "journeys" / "_small_screen.py"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("JOURNEY ")]
    assert lines, f"the session did not finish:\n{result.stdout}\n{result.stderr}"
    return json.loads(lines[-1].removeprefix("JOURNEY "))


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """What the session on the small screen measured."""
    return _run(tmp_path_factory, SCREEN)


def inside(outer, inner) -> bool:
    ox, oy, ow, oh = outer
    x, y, w, h = inner
    return w > 0 and h > 0 and ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


def test_the_first_window_fits_the_screen(session):
    screen = session["available"]
    assert screen[2:] == list(SCREEN)
    assert inside(screen, session["window"]), session["window"]
    assert session["minimum_width"] <= 1024


def test_the_first_window_takes_four_fifths_of_a_large_screen(tmp_path_factory):
    """A 1920×1080 screen: the editor starts at about 80 % of it (issue 26 item 8: it opened
    at 1280×800, two thirds of the width), centred, all of it on the screen."""
    measured = _run(tmp_path_factory, (1920, 1080), window_only=True)
    screen, frame = measured["available"], measured["window"]
    assert inside(screen, frame), frame
    share = frame[2] / screen[2], frame[3] / screen[3]
    assert 0.75 <= share[0] <= 0.85 and 0.75 <= share[1] <= 0.9, (frame, screen)
    left, right = frame[0] - screen[0], screen[0] + screen[2] - frame[0] - frame[2]
    assert abs(left - right) <= 16, "centred"


def test_the_timeline_controls_and_status_bar_are_on_screen(session):
    screen = session["available"]
    controls = session["timeline_controls"]
    for name in ("playButton", "loopButton", "frameSpin", "startSpin", "endSpin", "fpsSpin"):
        assert name in controls, name
    for name, rect in controls.items():
        assert inside(screen, rect), f"{name} at {rect} is off the {SCREEN} screen"
    assert inside(screen, session["scrub_bar"])
    assert inside(screen, session["status_bar"]), session["status_bar"]
    assert session["viewport"][3] >= 300, "room left for the viewport"


def test_a_tutorial_opens_on_screen(session):
    panel = session["tutorial_panel"]
    assert panel is not None, "Help ▸ Tutorials opened no panel"
    assert inside(session["available"], panel), panel


def test_every_dialog_fits_with_its_buttons_on_screen(session):
    screen = session["available"]
    cut = []
    for name in DIALOGS:
        dialog = session["dialogs"][name]
        if dialog is None:
            cut.append(f"{name}: no dialog opened")
            continue
        if not dialog["buttons"]:
            cut.append(f"{name}: no buttons")
        if not inside(screen, dialog["frame"]):
            cut.append(f"{name}: {dialog['title']} at {dialog['frame']}")
        for text, rect in dialog["buttons"].items():
            if not inside(screen, rect):
                cut.append(f"{name}: its {text} button at {rect}")
    assert not cut, f"off the {SCREEN} screen: " + "; ".join(cut)
