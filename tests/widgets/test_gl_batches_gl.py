"""Own-buffer point and line items (app.widgets.viewport.gl_batches) draw where and what
they are told, in one draw call each, and playback rewrites the same arrays and GL buffers.

Pixels are read back from a real llvmpipe framebuffer; where a point lands is computed by
the CPU projection the picking uses (app.scene.analysis.projection), not by the item.
"""

import subprocess
import sys

import numpy as np
import pyqtgraph.opengl as gl

from app.scene.constraints.multi_parent.model import PIVOT_PART
from app.widgets.viewport.gl_batches import PointSprites, SegmentLines
from app.widgets.viewport.scene_drawing import grid_lines
from app.widgets.viewport.skeleton_item import JOINT_COLOR
from tests.helpers.gui import framebuffer, open_window
from tests.helpers.paths import ROOT, SCENES

PIVOT_COLOR = np.array(PIVOT_PART.color)

BACKGROUND = (0, 0, 0)


def bgr(rgba) -> np.ndarray:
    return np.round(np.asarray(rgba[:3])[::-1] * 255).astype(int)


def bare_view(qtbot, *items):
    view = gl.GLViewWidget()
    view.setBackgroundColor(BACKGROUND)
    view.resize(200, 160)
    view.setCameraPosition(distance=10, elevation=90, azimuth=0)  # looking down -z
    for item in items:
        view.addItem(item)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_a_point_sprite_is_a_disk_of_its_fill_ringed_by_its_outline(qtbot):
    fill, edge = (1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 1.0)
    points = PointSprites(size=12.0, outline=3.0)
    points.setData(pos=[[0.0, 0.0, 0.0]], color=fill, edge=edge)
    view = bare_view(qtbot, points)
    pixels = framebuffer(view, qtbot)
    h, w, _ = pixels.shape
    cy, cx = h // 2, w // 2  # the camera looks at the origin
    assert np.array_equal(pixels[cy, cx], bgr(fill))
    # 12 px across: fill to radius 6, outline to radius 9, background beyond.
    assert np.array_equal(pixels[cy, cx + 4], bgr(fill))
    assert np.array_equal(pixels[cy, cx + 7], bgr(edge))
    assert np.array_equal(pixels[cy + 7, cx], bgr(edge))
    assert np.array_equal(pixels[cy, cx + 11], BACKGROUND)
    # A disk, not a square: the corner of its bounding square is background.
    assert np.array_equal(pixels[cy + 8, cx + 8], BACKGROUND)


def test_segment_lines_draw_each_pair_in_its_colour(qtbot):
    lines = SegmentLines(width=1.0)
    red, blue = (1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)
    lines.setData(pos=[[-3, 0, 0], [3, 0, 0], [0, -3, 0], [0, 3, 0]], color=[red, red, blue, blue])
    view = bare_view(qtbot, lines)
    pixels = framebuffer(view, qtbot)
    h, w, _ = pixels.shape
    runs = []
    for color in (red, blue):
        ys, xs = np.nonzero((pixels == bgr(color)).all(axis=-1))
        assert len(ys) > 90  # 6 units of 10 at 60 degrees across 200 x 160 pixels
        vertical = np.ptp(xs) <= 1
        assert vertical or np.ptp(ys) <= 1  # one straight run
        across = xs if vertical else ys
        assert abs(across.mean() - (w if vertical else h) / 2) <= 1.5  # through the middle
        runs.append(vertical)
    assert runs[0] != runs[1]  # the two pairs cross
    assert np.array_equal(pixels[h // 4, w // 4], BACKGROUND)


def test_the_same_count_rewrites_the_same_arrays_and_a_larger_one_grows_them(qtbot):
    points = PointSprites()
    points.setData(pos=np.zeros((5, 3)), color=(1, 1, 1, 1))
    view = bare_view(qtbot, points)
    framebuffer(view, qtbot)  # painted once: GL buffers exist
    arrays = {name: a for name, a in points.host.items()}
    ids = points.buffer_ids()
    allocations = points.allocations
    assert all(ids.values())
    rng = np.random.default_rng(3)
    for _ in range(5):
        points.setData(pos=rng.normal(size=(5, 3)), color=rng.random((5, 4)))
        framebuffer(view, qtbot)
    assert all(points.host[n] is arrays[n] for n in arrays)
    assert points.buffer_ids() == ids and points.allocations == allocations
    new = rng.normal(size=(40, 3))
    points.setData(pos=new)
    framebuffer(view, qtbot)
    assert points.allocations > allocations and points.count == 40
    assert np.allclose(points.host["position"][:40], new.astype(np.float32))


def test_the_grid_is_pyqtgraphs_grid_laid_on_the_ground():
    pos = grid_lines(1.0, -2.0, extent=2.0, spacing=1.0).reshape(-1, 2, 3)
    assert np.all(pos[..., 1] == 0)  # on the ground
    along_z = pos[pos[:, 0, 0] == pos[:, 1, 0]]
    along_x = pos[pos[:, 0, 2] == pos[:, 1, 2]]
    assert sorted(along_z[:, 0, 0]) == [-1, 0, 1, 2, 3]  # x = cx - 2 .. cx + 2
    assert sorted(along_x[:, 0, 2]) == [-4, -3, -2, -1, 0]
    assert np.allclose(np.abs(along_z[:, 1, 2] - along_z[:, 0, 2]), 4.0)


def test_handles_are_drawn_at_their_projection_with_a_dark_outline(qtbot):
    win = open_window(qtbot, SCENES / "foot_roll.json")
    vp = win.viewport
    qtbot.wait(50)
    pixels = framebuffer(vp, qtbot)
    handles = vp.handles()
    screen = vp.project(np.array([p for _, p in handles]))
    ratio = vp.devicePixelRatioF()
    # The handle farthest from the others (labels are a separate widget, not in the GL image).
    gaps = np.linalg.norm(screen[:, None] - screen[None], axis=-1) + 1e9 * np.eye(len(screen))
    i = int(np.argmax(gaps.min(axis=1)))
    assert handles[i][0].kind == "pivot"
    x, y = np.round(screen[i] * ratio).astype(int)
    assert np.abs(pixels[y, x] - bgr(PIVOT_COLOR)).max() <= 2
    ring = pixels[y, x + round(6 * ratio)]  # fill radius 5 px, outline 2 px
    assert ring.max() < 40  # the dark outline


def test_playback_rewrites_the_same_buffers(qtbot):
    win = open_window(qtbot, SCENES / "foot_roll.json")
    doc, vp = win.document, win.viewport
    doc.set_compare(True)
    doc.prepare_timeline()
    drawing = vp._drawing
    skeleton = drawing._skeleton
    batches = [skeleton._joints, drawing._handles, drawing._guides]
    qtbot.wait(50)
    framebuffer(vp, qtbot)

    def state():
        mesh = skeleton._mesh
        return (
            [{n: id(a) for n, a in b.host.items()} for b in batches],
            [b.buffer_ids() for b in batches],
            [b.allocations for b in batches],
            [id(b._vao._vao) for b in batches],  # one vertex array object, kept
            id(mesh._positions),
            int(mesh._vbo["position"].bufferId()),
        )

    before = state()
    images = []
    for frame in range(doc.scene.frame_start, doc.scene.frame_start + 12):
        doc.set_frame(frame)
        images.append(framebuffer(vp, qtbot))
    assert state() == before
    assert all(all(ids.values()) for ids in before[1])
    # ... and the drawing moved: joints, handles and guides follow the frame.
    assert np.abs(images[0] - images[-1]).max() > 100
    # The joints were uploaded at the heads, the amber of the solid skeleton.
    pose = doc.pose()
    joints = skeleton._joints
    assert np.allclose(joints.host["position"][: joints.count], pose.heads[0], atol=1e-6)
    assert np.allclose(joints.host["color"][: joints.count], JOINT_COLOR)


def run_python(code: str, env_value=None):
    import os

    env = dict(os.environ)
    env.pop("PIVOTAL_GL_CHECKS", None)
    if env_value is not None:
        env["PIVOTAL_GL_CHECKS"] = env_value
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
    )


def test_pyopengl_error_checks_are_off_unless_asked_for():
    import OpenGL

    # the tests check every GL call (conftest); the editor, started without the variable,
    # does not
    assert OpenGL.ERROR_CHECKING is True
    code = "import app.window.gl_checks, OpenGL, OpenGL.GL; print(OpenGL.ERROR_CHECKING)"
    assert run_python(code).stdout.strip() == "False"
    assert run_python(code, "1").stdout.strip() == "True"
    assert run_python(code, "0").stdout.strip() == "False"
    # Too late once OpenGL.GL is in (PyOpenGL read the flag): said, not silently ignored.
    late = run_python("import OpenGL.GL; import app.window.gl_checks")
    assert late.returncode != 0 and "before OpenGL.GL" in late.stderr


def test_joints_are_drawn_at_the_projected_heads_in_their_colour(qtbot):
    win = open_window(qtbot, SCENES / "legs.json")
    vp = win.viewport
    qtbot.wait(50)
    pixels = framebuffer(vp, qtbot)
    heads = vp.project(win.document.pose().heads[0]) * vp.devicePixelRatioF()
    amber = np.abs(pixels - bgr(JOINT_COLOR)).max(axis=-1) <= 1  # unlit: its colour
    found = 0
    for x, y in np.round(heads).astype(int):
        found += bool(amber[y - 3 : y + 4, x - 3 : x + 4].any())
    assert found >= 0.6 * len(heads)  # the others hide behind a bone (depth-tested)
    # Nowhere else: amber pixels lie within a joint's radius of a projected head.
    ys, xs = np.nonzero(amber)
    near = np.linalg.norm(np.stack([xs, ys], 1)[:, None] - heads[None], axis=-1).min(axis=1)
    assert len(xs) > 0 and near.max() <= 5.0
