"""Render the editor's, teaching and analysis screenshots of the README into docs/screenshots/.

Run under a virtual X server:

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python tools/teaching_screenshots.py [SHOT...]

(``SHOT``: ``demo``, ``humanoid``, ``humanoid_gltf``... to render only those.)

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
from app.scene.rig.refs import Ref  # noqa: E402
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


def save(app, window, name: str, frame_all: bool = True, out: Path = OUT) -> None:
    settle(app)
    if frame_all:
        window.viewport.frame_all()
        settle(app)
    path = Path(out) / name
    if not window_image(window).save(str(path)):
        raise SystemExit(f"cannot write {path}")
    print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
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
    w.viewport.frame_points(
        np.concatenate([st.position[:1], st.pivot_positions[2], w.document.pose().heads[0]])
    )
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
    for name, extra in (
        ("foot-roll-object.png", {}),
        ("foot-roll-world.png", {"space": "world"}),
        ("foot-roll-compare.png", {"compare": True}),
    ):
        print(Path(render_screenshot(scene, OUT / name, **common, **extra)).relative_to(ROOT))


#: The worked example's shots: its frame (the ball's 28° held, the toe turning), its size,
#: and the camera turned (azimuth, elevation in degrees) from the broadside view to the
#: character's front, where a roll along the foot and a tip sideways read apart.
HUMANOID_FRAME, HUMANOID_SIZE, HUMANOID_ORBIT = 20.0, (1280, 800), (-40.0, 15.0)


def humanoid(app, out=OUT, orbit=HUMANOID_ORBIT) -> None:
    """The worked example (``tools/add_foot_roll.py``: the rig on both legs, the left roll
    keyed) at :data:`HUMANOID_FRAME`, the ball selected, the camera on the legs: object
    space, world space (the same keys about the world-aligned control's axes: the foot tips
    sideways), and Compare from object space with the world as the ghost."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "add_foot_roll", ROOT / "tools" / "add_foot_roll.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    source = Document.from_file(SCENES / "humanoid.glb")
    name = tool.add_foot_roll(source)
    legs = [
        source.scene.bone_index(b)
        for side in "LR"
        for b in (f"thigh.{side}", f"calf.{side}", f"foot.{side}", f"toes.{side}")
    ]
    for file, space, compare in (
        ("humanoid-object.png", "object", False),
        ("humanoid-world.png", "world", False),
        ("humanoid-compare.png", "object", True),
    ):
        document = Document(source.scene.copy())
        document.set_frame(HUMANOID_FRAME)
        document.set_space(space)
        document.set_selection([Ref.pivot_of(name, "ball")])
        window = MainWindow(document, restore_settings=False)
        window.resize(*HUMANOID_SIZE)
        window.show()
        document.set_compare(compare)
        settle(app)
        window.viewport.frame_all()
        points = []
        for shown in ("world", "object"):
            document.set_space(shown)
            pose = document.pose()
            points += [pose.heads[0, legs], pose.tails[0, legs]]
        document.set_space(space)
        window.viewport.frame_points(np.concatenate(points))
        window.viewport.orbit(*orbit)
        save(app, window, file, frame_all=False, out=out)


def humanoid_gltf(app) -> None:
    """The README's first picture of the worked example: the whole figure with the rig on
    both legs at :data:`HUMANOID_FRAME`, the left ball pivot selected, object space (every
    label beside its handle, none over another)."""
    import importlib.util
    import tempfile

    from app.scene.io import save_scene
    from app.window.application import render_screenshot

    spec = importlib.util.spec_from_file_location(
        "add_foot_roll", ROOT / "tools" / "add_foot_roll.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    document = Document.from_file(SCENES / "humanoid.glb")
    roll = tool.add_foot_roll(document)
    with tempfile.TemporaryDirectory() as folder:
        scene = Path(folder) / "humanoid_foot_roll.json"
        save_scene(document.scene, scene)
        path = render_screenshot(
            scene,
            OUT / "humanoid-gltf.png",
            frame=HUMANOID_FRAME,
            size=HUMANOID_SIZE,
            space="object",
            select=[f"{roll}/ball"],
        )
        print(Path(path).relative_to(ROOT))


def main() -> None:
    app = application()
    OUT.mkdir(parents=True, exist_ok=True)
    chosen = set(sys.argv[1:])  # names of shots to render (default: every one)
    for shot in (
        demo,
        curve_view,
        matrix_chain,
        step_through,
        trails,
        tutorial,
        humanoid,
        humanoid_gltf,
    ):
        if not chosen or shot.__name__ in chosen:
            shot(app)


if __name__ == "__main__":
    main()
