"""Render the editor's, teaching and analysis screenshots of the README into docs/screenshots/.

Run under a virtual X server:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tools/teaching_screenshots.py [SHOT...]

(``SHOT``: ``demo``, ``humanoid``... to render only those.)

Each shot opens a scene in the editor window, sets the view up as a teacher would, and saves
the whole window (the OpenGL viewport and its labels composed in).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.editor.document import Document  # noqa: E402
from app.editor.tutorials import load_tutorials  # noqa: E402
from app.scene.rig.editing import Ref  # noqa: E402
from app.widgets.viewport.teaching_drawing import TrailSettings  # noqa: E402
from app.window.main_window import MainWindow  # noqa: E402
from app.window.qt_app import application  # noqa: E402
from app.window.render import window_image  # noqa: E402

SCENES = ROOT / "resources" / "scenes"
OUT = ROOT / "docs" / "screenshots"
SIZE = (1440, 900)


def settle(app, n: int = 15) -> None:
    for _ in range(n):
        app.processEvents()


def open_window(app, scene: str, frame: float = 0.0, size=SIZE):
    document = Document.from_file(SCENES / scene)
    document.set_frame(frame)
    window = MainWindow(document, restore_settings=False)
    window.resize(*size)
    window.show()
    settle(app)
    return window


def save(app, window, name: str, frame_all: bool = True) -> None:
    settle(app)
    if frame_all:
        window.viewport.frame_all()
        settle(app)
    path = OUT / name
    if not window_image(window).save(str(path)):
        raise SystemExit(f"cannot write {path}")
    print(path.relative_to(ROOT))
    window.document.undo_stack.clear()
    window.autosaver.stop()
    window.close()
    window.deleteLater()
    settle(app)


def bottom(window, dock, height: int) -> None:
    from PySide6 import QtCore

    dock.show()
    dock.raise_()
    window.resizeDocks([dock], [height], QtCore.Qt.Orientation.Vertical)


def curve_view(app) -> None:
    w = open_window(app, "foot_roll.json", 44.0)
    w.document.set_selection([Ref.pivot_of("foot_roll", "heel")])
    bottom(w, w.curves_dock, 400)
    save(app, w, "curve-view-pivot.png")
    w = open_window(app, "tumbling_box.json", 40.0)
    w.document.set_selection([Ref.constraint("tumble")])
    bottom(w, w.curves_dock, 470)
    save(app, w, "curve-view-driven.png")


def matrix_chain(app) -> None:
    w = open_window(app, "calf_points_at_ankle.json", 37.0)
    w.document.set_space("world")
    w.document.set_selection([Ref.bone("calf.l")])
    bottom(w, w.matrix_dock, 440)
    save(app, w, "matrix-chain-world.png")
    w = open_window(app, "legs.json", 12.0)
    bottom(w, w.matrix_dock, 440)
    w.matrix_panel.set_bones("calf.r", "calf.l")
    save(app, w, "matrix-chain-right-to-left.png")


def step_through(app) -> None:
    w = open_window(app, "fabrik_arm.json", 17.0)
    w.document.set_selection([Ref.constraint("arm reaches")])
    w.actions_by_name["stepThrough"].trigger()
    w.step_through.set_index(3)
    save(app, w, "step-through-fabrik.png")
    w = open_window(app, "foot_roll.json", 40.0)
    w.document.set_selection([Ref.pivot_of("foot_roll", "ball")])
    w.actions_by_name["stepThrough"].trigger()
    w.step_through.set_index(2)
    settle(app)
    st = w.step_through.trace  # frame the body's head, its pivots and the arrows
    w.viewport.frame_points(np.concatenate([st.position[:1], st.pivot_positions[2],
                                            w.document.pose().heads[0]]))  # fmt: skip
    save(app, w, "step-through-multi-parent.png", frame_all=False)


def trails(app) -> None:
    w = open_window(app, "tumbling_box.json", 40.0)
    w.set_trails(TrailSettings(enabled=True, before=40, after=40, ghosts=True, every=20))
    save(app, w, "trails-tumbling-box.png")
    w = open_window(app, "fabrik_arm.json", 40.0)
    w.set_trails(TrailSettings(enabled=True, before=20, after=20, ghosts=True, every=5))
    save(app, w, "trails-fabrik-arm.png")


def tutorial(app) -> None:
    w = open_window(app, "legs.json")
    basis = next(t for t in load_tutorials() if t.id == "basis_change")
    w.open_tutorial(basis)
    save(app, w, "tutorial-basis-change.png")


def demo(app) -> None:
    """The demo as ``make run`` shows it, at its last frame (the feet in view: the camera
    frames the whole animation), in the authored object space, world space and Compare."""
    from app.window.application import render_screenshot

    scene = SCENES / "foot_roll.json"
    last = float(Document.from_file(scene).scene.frame_end)
    common = dict(frame=last, size=SIZE, select=["foot_roll/toe"])
    for name, extra in (("foot-roll-object.png", {}), ("foot-roll-world.png", {"space": "world"}),
                        ("foot-roll-compare.png", {"compare": True})):  # fmt: skip
        print(Path(render_screenshot(scene, OUT / name, **common, **extra)).relative_to(ROOT))


def humanoid(app) -> None:
    """The worked example (README, "Your own character"): the glTF humanoid with the foot-roll
    rig on both legs and the left roll keyed (``tools/add_foot_roll.py``), at frame 20: the
    whole figure with the left ball pivot selected, then the legs in object space, world
    space and Compare with the left thigh selected too."""
    import tempfile

    from app.scene.io import save_scene
    from app.window.application import render_screenshot

    sys.path.insert(0, str(ROOT / "tools"))
    from add_foot_roll import add_foot_roll

    document = Document.from_file(SCENES / "humanoid.glb")
    roll = add_foot_roll(document)
    with tempfile.TemporaryDirectory() as folder:
        scene = Path(folder) / "humanoid_foot_roll.json"
        save_scene(document.scene, scene)
        ball = f"{roll}/ball"
        common = dict(frame=20, size=(1280, 800), space="object")
        shots = [("humanoid-gltf.png", dict(select=[ball])),
                 ("humanoid-object.png", dict(select=["thigh.L", ball], frame_selection=True)),
                 ("humanoid-world.png", dict(select=["thigh.L", ball], frame_selection=True,
                                             space="world")),
                 ("humanoid-compare.png", dict(select=["thigh.L", ball], frame_selection=True,
                                               compare=True))]  # fmt: skip
        for name, extra in shots:
            path = render_screenshot(scene, OUT / name, **{**common, **extra})
            print(Path(path).relative_to(ROOT))


def main() -> None:
    app = application()
    OUT.mkdir(parents=True, exist_ok=True)
    chosen = set(sys.argv[1:])  # names of shots to render (default: every one)
    for shot in (demo, curve_view, matrix_chain, step_through, trails, tutorial, humanoid):
        if not chosen or shot.__name__ in chosen:
            shot(app)


if __name__ == "__main__":
    main()
