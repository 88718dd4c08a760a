"""Teaching layers: what a tutorial or a teaching view adds to the viewport is a registered
layer, drawn by the real viewport; the general drawing never names the tutorial, and a
pivot drag does not pass through it. Real OpenGL (Xvfb), real mouse events."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import numpy as np
import pytest

from app.scene.rig.refs import POINT, Ref
from app.widgets.viewport.layers import registry
from app.widgets.viewport.layers.base import Layer, LayerHandle
from tests.helpers import gui
from tests.helpers.paths import SCENES

ROOT = Path(__file__).resolve().parents[2]
VIEWPORT = ROOT / "app" / "widgets" / "viewport"
#: The one viewport module that knows the basis-change tutorial: its own layer.
TUTORIAL_LAYER = VIEWPORT / "layers" / "basis_change.py"
TUTORIAL_WORDS = ("basis_change_of", "point_in_frames", "tutorial")


def _imports(tree) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def test_the_general_drawing_does_not_know_the_tutorial():
    modules = [p for p in VIEWPORT.rglob("*.py") if p != TUTORIAL_LAYER]
    assert VIEWPORT / "scene_drawing.py" in modules and VIEWPORT / "handle_frames.py" in modules
    knows = {}
    for path in modules:
        tree = ast.parse(path.read_text())
        imported = {m for m in _imports(tree) if m.startswith("app.editor.tutorials")}
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        said = {w for w in TUTORIAL_WORDS if any(w in name for name in names)}
        if imported or said:
            knows[str(path.relative_to(ROOT))] = sorted(imported | said)
    assert knows == {}
    # ... and the tutorial's layer does (the test reads what it means to read).
    assert "app.editor.tutorials" in _imports(ast.parse(TUTORIAL_LAYER.read_text()))


MAGENTA = np.array([255, 0, 255])  # BGR as the framebuffer has it


class Beacon(Layer):
    """A toy layer: a big magenta dot and a grey label at the first bone's middle, and a
    green handle on the second bone's head; shown while :attr:`on`."""

    name = "test_beacon"

    def __init__(self, root):
        self.on = True
        self.dot = self.points(root, 13)

    def active(self, document) -> bool:
        return self.on

    def hide(self) -> None:
        self.dot.setVisible(False)

    @staticmethod
    def where(pose) -> np.ndarray:
        return 0.5 * (pose.heads[0, 0] + pose.tails[0, 0])

    def draw(self, document, pose, scale):
        self.dot.setData(
            pos=self.where(pose)[None], color=np.array([[1.0, 0, 1.0, 1.0]]), size=30.0
        )
        self.dot.setVisible(True)
        return [(self.where(pose), "the beacon says hello", (0.9, 0.9, 0.9, 1.0))]

    def handles(self, document, pose):
        bone = document.scene.bones[1].name
        return [
            LayerHandle(
                Ref(POINT, bone), pose.heads[0, 1], "beacon handle", np.array([0.0, 1.0, 0.0, 1.0])
            )
        ]


@pytest.fixture
def beacon_window(qtbot):
    registry.register(Beacon)
    try:
        win = gui.open_window(qtbot, SCENES / "legs.json", frame=12)
    finally:
        registry.unregister(Beacon.name)
    yield win


def _magenta(image) -> np.ndarray:
    return np.argwhere(np.abs(image - MAGENTA).max(axis=-1) < 40)


def test_a_registered_layer_is_drawn_labelled_and_handled_by_the_viewport(beacon_window, qtbot):
    win = beacon_window
    vp, doc = win.viewport, win.document
    layer = vp.teaching["test_beacon"]
    assert "test_beacon" not in registry.LAYERS  # built into this viewport only
    vp.refresh()
    shown = _magenta(gui.framebuffer(vp, qtbot))
    assert len(shown) > 200  # a 30-pixel dot
    ratio = vp.devicePixelRatioF()
    at = vp.project(Beacon.where(doc.pose())[None])[0]
    centre = shown.mean(axis=0)[::-1] / ratio  # (x, y) in logical pixels
    assert np.linalg.norm(centre - at) < 4.0
    assert "the beacon says hello" in vp.labels() and "beacon handle" in vp.labels()
    bone = doc.scene.bones[1].name
    handles = dict(vp.handles())
    np.testing.assert_array_equal(handles[Ref(POINT, bone)], doc.pose().heads[0, 1])
    np.testing.assert_array_equal(vp.handle_position(Ref(POINT, bone)), doc.pose().heads[0, 1])
    # Inactive: hidden, no label, no handle; active again on the next draw.
    layer.on = False
    vp.refresh()
    assert len(_magenta(gui.framebuffer(vp, qtbot))) == 0
    assert "the beacon says hello" not in vp.labels() and "beacon handle" not in vp.labels()
    assert Ref(POINT, bone) not in dict(vp.handles())
    layer.on = True
    vp.refresh()
    assert len(_magenta(gui.framebuffer(vp, qtbot))) == len(shown)


def test_a_pivot_drag_does_not_pass_through_the_tutorials(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", frame=20)
    vp, doc = win.viewport, win.document
    ref = Ref.pivot_of("foot_roll", "heel")
    before = vp.handle_position(ref).copy()
    start = vp.project(before[None])[0]
    app = str(ROOT / "app")
    visited = set()

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(app):
            visited.add(Path(frame.f_code.co_filename).relative_to(ROOT).as_posix())

    sys.settrace(tracer)
    try:
        gui.drag(vp, start, start + [40, -25], qtbot=qtbot)
    finally:
        sys.settrace(None)
    assert np.linalg.norm(vp.handle_position(ref) - before) > 1e-3  # the pivot moved
    assert doc.undo_stack.count() == 1  # one command on release
    assert "app/widgets/viewport/interaction/drag.py" in visited  # the trace saw the drag
    assert "app/editor/tutorials.py" not in visited
