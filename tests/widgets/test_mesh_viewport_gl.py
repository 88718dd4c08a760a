"""The skinned mesh in a real OpenGL viewport (Xvfb + llvmpipe): its pixels sit where its
skinned vertices project, follow the pose when the frame changes, and go with View ▸ Bones
Only; X-ray draws the bones over it."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from app.editor.document import Document
from app.scene.evaluate import bake
from app.scene.io import load_scene
from app.scene.rig.envelope import tube_mesh
from app.scene.rig.skinning import bind
from app.widgets.viewport.interaction.drag import HANDLE_RADIUS_PX
from app.window.main_window import MainWindow
from tests.helpers.gui import LEFT, NO_MODS, framebuffer, key
from tests.helpers.paths import SCENES


def scene_with_body(name="foot_roll.json"):
    """The scene with closed tubes around its bones, bound at its first frame."""
    scene = load_scene(SCENES / name)
    pose = bake(scene, np.array([float(scene.frame_start)]))
    lengths = np.linalg.norm(pose.tails[0] - pose.heads[0], axis=1)
    mesh = tube_mesh(
        pose.bone_to_world[0],
        pose.heads[0],
        pose.tails[0],
        [str(n) for n in pose.bone_names],
        radius=np.clip(0.2 * lengths, 0.02, 0.08),
        sides=16,
        rings=8,
    )
    scene.meshes = (mesh,)
    return scene


@pytest.fixture
def window(qtbot):
    return body_window(qtbot)


def body_window(qtbot):
    """The main window on :func:`scene_with_body`, shown and active."""
    win = MainWindow(Document(scene_with_body()), restore_settings=False)
    win.resize(1100, 760)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    qtbot.waitActive(win)
    qtbot.wait(30)
    return win


def clay(pixels) -> np.ndarray:
    """Where the image shows the mesh's warm clay (BGR ints). Shading scales the three
    channels alike, so green/red stays near 0.82 and blue/red near 0.67, which neither the
    grey bones, the dark ground, the blue ghost, the orange handles nor the red axis blended
    over the ground have."""
    b, g, r = (pixels[..., i].astype(float) for i in range(3))
    return (r > 60) & (b > 0.58 * r) & (b < 0.75 * r) & (g > 0.75 * r) & (g < 0.9 * r)


def mesh_pixels(window) -> np.ndarray:
    """Where the mesh's skinned vertices project now (widget pixels, (V, 2)), leaving out
    those under a handle or a label (drawn over everything)."""
    doc, viewport = window.document, window.viewport
    skin = bind(doc.scene.meshes[0], doc.pose().bone_names)
    points = viewport.project(skin.deform(doc.pose().bone_to_world[0], normals=False))
    handles = viewport.project(np.array([p for _, p in viewport.handles()]).reshape(-1, 3))
    if len(handles):
        gap = np.linalg.norm(points[:, None] - handles[None], axis=-1).min(axis=1)
        points = points[gap > 1.5 * HANDLE_RADIUS_PX]
    # ... and those under a label (drawn over everything too, into the same image).
    for box, *_ in viewport._drawing.labels.layout():
        inside = (
            (points[:, 0] > box.left() - 2)
            & (points[:, 0] < box.right() + 2)
            & (points[:, 1] > box.top() - 2)
            & (points[:, 1] < box.bottom() + 2)
        )
        points = points[~inside]
    return points


def on_clay(pixels, points) -> float:
    """The share of ``points`` (x, y) that land on (or next to) clay-coloured pixels."""
    return on_mask(clay(pixels), points)


def on_mask(mask, points) -> float:
    """The share of ``points`` (x, y) in the image that land on (or next to) ``mask``."""
    h, w = mask.shape
    xy = np.round(points).astype(int)
    inside = (xy[:, 0] >= 1) & (xy[:, 0] < w - 1) & (xy[:, 1] >= 1) & (xy[:, 1] < h - 1)
    xy = xy[inside]
    near = np.zeros(len(xy), dtype=bool)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            near |= mask[xy[:, 1] + dy, xy[:, 0] + dx]
    return float(near.mean()) if len(near) else 0.0


def test_the_mesh_is_drawn_where_its_vertices_project_and_follows_the_frame(window, qtbot):
    viewport = window.viewport
    viewport.set_xray(False)  # bones inside the mesh: nothing covers it
    first = framebuffer(viewport, qtbot)
    assert clay(first).sum() > 2000
    assert len(mesh_pixels(window)) > 300
    assert on_clay(first, mesh_pixels(window)) > 0.97
    # scrub forward with the transport keys: the pose changes and the mesh with it
    for _ in range(30):
        key(window, "Right")
    qtbot.wait(50)
    assert window.document.frame == window.document.scene.frame_start + 30
    later = framebuffer(viewport, qtbot)
    moved = clay(first) != clay(later)
    assert moved.sum() > 1000
    assert on_clay(later, mesh_pixels(window)) > 0.97


def test_playback_skins_each_pose_once_on_the_card_as_numpy_does(window, qtbot):
    """The vertices drawn (read back from the card) are numpy's skinning of each frame's
    pose, the solid mesh's and Compare's ghost's, to float32 rounding."""
    doc, layer, viewport = window.document, window.viewport.drawing.meshes, window.viewport
    viewport.set_xray(False)
    doc.set_compare(True)
    doc.prepare_timeline()  # what Play does
    (item,) = layer.items
    (ghost,) = layer.ghost_items
    mesh = doc.scene.meshes[0]
    skin = bind(mesh, doc.pose().bone_names)  # float64: the reference
    size = np.ptp(mesh.positions, axis=0).max()
    for _ in range(3):
        key(window, "Right")
        passes = (item.skinned_on_card, ghost.skinned_on_card)
        framebuffer(viewport, qtbot)  # a frame drawn: the new pose skinned
        assert (item.skinned_on_card, ghost.skinned_on_card) == (passes[0] + 1, passes[1] + 1)
        for shown, pose in ((item, doc.pose()), (ghost, doc.ghost_pose())):
            positions, normals = skin.deform(pose.bone_to_world[0])
            drawn = shown.drawn_vertices()
            assert np.abs(drawn[:, :3] - positions).max() <= 1e-5 * size
            assert np.abs(drawn[:, 3:] - normals).max() <= 1e-5
    # a redraw without a new pose (a selection, an orbit) skins nothing
    passes = item.skinned_on_card
    viewport.orbit(20.0, 0.0)
    framebuffer(viewport, qtbot)
    assert item.skinned_on_card == passes


def _choose(window, qtbot, action_name) -> None:
    """Open View in the menu bar and click ``action_name`` with the mouse."""
    bar = window.menuBar()
    view_menu = next(a.menu() for a in bar.actions() if a.text() == "&View")
    QTest.mouseClick(bar, LEFT, NO_MODS, bar.actionGeometry(view_menu.menuAction()).center())
    qtbot.waitUntil(view_menu.isVisible)
    action = window.actions_by_name[action_name]
    QTest.mouseClick(view_menu, LEFT, NO_MODS, view_menu.actionGeometry(action).center())
    qtbot.waitUntil(lambda: not view_menu.isVisible())
    qtbot.wait(30)


def test_bones_only_removes_the_mesh_and_mesh_only_the_bones(window, qtbot):
    viewport = window.viewport
    both = framebuffer(viewport, qtbot)
    _choose(window, qtbot, "showBones")
    assert viewport.mesh_display == "bones"
    assert window.actions_by_name["showBones"].isChecked()
    bones = framebuffer(viewport, qtbot)
    assert clay(bones).sum() < 0.02 * clay(both).sum()
    grey = bones.min(axis=2) > 110  # the light grey bones are there
    assert grey.sum() > 300
    _choose(window, qtbot, "showMesh")
    assert viewport.mesh_display == "mesh"
    mesh = framebuffer(viewport, qtbot)
    assert clay(mesh).sum() > 0.9 * clay(both).sum()
    assert (mesh.min(axis=2) > 150).sum() < 0.1 * (bones.min(axis=2) > 150).sum()
    _choose(window, qtbot, "showBoth")
    assert np.abs(framebuffer(viewport, qtbot) - both).max(axis=2).astype(bool).sum() < 50


def test_xray_draws_the_bones_over_the_mesh(window, qtbot):
    viewport, doc = window.viewport, window.document
    assert viewport.xray
    pose = doc.pose()
    middles = viewport.project(0.5 * (pose.heads[0] + pose.tails[0]))
    long_bones = np.linalg.norm(pose.tails[0] - pose.heads[0], axis=1) > 0.2  # calf, thigh
    xray = framebuffer(viewport, qtbot)
    assert on_clay(xray, middles[long_bones]) == 0.0  # the bones cover their middles
    key(window, "Z", QtCore.Qt.KeyboardModifier.AltModifier)
    qtbot.wait(30)
    assert not viewport.xray and not window.actions_by_name["xray"].isChecked()
    inside = framebuffer(viewport, qtbot)
    assert on_clay(inside, middles[long_bones]) == 1.0  # hidden inside the mesh


def test_back_faces_are_culled_unless_the_mesh_is_double_sided(window, qtbot):
    """glTF culls the back of a material that is not doubleSided (its default)."""
    from app.scene.analysis import projection
    from app.scene.rig.mesh import SkinnedMesh

    doc, viewport = window.document, window.viewport
    pose = doc.pose()
    right, up, _ = projection.camera_axes(viewport.world_to_eye())
    center = pose.heads[0].mean(axis=0)
    corners = np.array([center, center + 0.3 * right, center + 0.3 * up])  # CCW as seen

    def show(indices, extra):
        scene = doc.scene.copy()
        scene.meshes = (
            SkinnedMesh(
                name="tri",
                positions=corners,
                indices=indices,
                joints=(scene.bones[0].name,),
                joint_indices=np.zeros((3, 4)),
                weights=np.tile([1.0, 0, 0, 0], (3, 1)),
                inverse_bind=np.linalg.inv(pose.bone_to_world[0, :1]),
                extra=extra,
            ),
        )
        doc.replace_scene(scene, None)
        viewport.set_mesh_display("mesh")
        viewport.setCameraPosition(azimuth=azimuth, elevation=elevation, distance=distance)
        qtbot.wait(30)
        return clay(framebuffer(viewport, qtbot)).sum()

    azimuth, elevation = viewport.opts["azimuth"], viewport.opts["elevation"]
    distance = viewport.opts["distance"]
    viewport.set_show_labels(False)  # orange pivot names are of a hue near the clay's
    front = show([[0, 1, 2]], {})
    back = show([[0, 2, 1]], {})
    both = show([[0, 2, 1]], {"double_sided": True})
    assert front > 2000
    assert back < 0.05 * front  # a few handle-edge pixels of a similar hue, no triangle
    assert both > 0.95 * front
    viewport.set_show_labels(True)


def test_the_mesh_follows_a_bone_while_it_is_dragged(window, qtbot):
    from tests.helpers.gui import CTRL, point

    doc, viewport = window.document, window.viewport
    viewport.set_xray(False)
    qtbot.wait(30)
    before = clay(framebuffer(viewport, qtbot))
    thigh = doc.scene.bone_index("thigh")
    pose = doc.pose()
    middle = viewport.project((0.5 * (pose.heads[0, thigh] + pose.tails[0, thigh]))[None])[0]
    commands = doc.undo_stack.count()
    QTest.mousePress(viewport, LEFT, CTRL, point(middle))
    for t in np.linspace(0, 1, 9)[1:]:
        QTest.mouseMove(viewport, point(middle + t * np.array([90.0, 30.0])))
        qtbot.wait(5)
    qtbot.wait(30)
    during = framebuffer(viewport, qtbot)  # still held: the preview, not the command
    assert doc.undo_stack.count() == commands
    assert (clay(during) != before).sum() > 500
    assert on_clay(during, mesh_pixels(window)) > 0.97  # where the dragged pose puts it
    QTest.mouseRelease(viewport, LEFT, CTRL, point(middle + np.array([90.0, 30.0])))
    qtbot.wait(30)
    assert doc.undo_stack.count() == commands + 1


def _png_pixels(path) -> np.ndarray:
    from PySide6 import QtGui

    image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    data = np.frombuffer(image.constBits(), np.uint8, image.bytesPerLine() * image.height())
    rows = data.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4]
    return rows.reshape(image.height(), image.width(), 4)[..., :3].astype(int)


def test_the_screenshot_command_shows_the_glb_humanoid_as_asked(qtbot, tmp_path):
    from app.window.application import render_screenshot

    shots = {}
    for show in ("both", "bones"):
        out = render_screenshot(
            SCENES / "humanoid.glb",
            tmp_path / f"{show}.png",
            frame=20,
            size=(900, 700),
            viewport_only=True,
            show=show,
        )
        shots[show] = clay(_png_pixels(out)).sum()
    assert shots["both"] > 3000
    assert shots["bones"] < 0.02 * shots["both"]


def test_compares_ghost_mesh_shows_where_the_other_space_puts_the_skin(window, qtbot):
    """Compare: the translucent blue ghost mesh lies where numpy skins the other space's
    pose, and where the two spaces part from the solid mesh it is seen."""
    doc, viewport = window.document, window.viewport
    viewport.set_mesh_display("mesh")
    doc.set_compare(True)
    for frame in range(doc.scene.frame_start, doc.scene.frame_end + 1, 2):
        doc.set_frame(frame)
        if doc.differences()[0].max() > 0.3:  # the spaces part (and the ghost is in view)
            break
    pixels = framebuffer(viewport, qtbot)
    skin = bind(doc.scene.meshes[0], doc.pose().bone_names)
    solid = viewport.project(skin.deform(doc.pose().bone_to_world[0], normals=False))
    ghost = viewport.project(skin.deform(doc.ghost_pose().bone_to_world[0], normals=False))
    # the ghost's vertices at least 6 pixels from every solid vertex: only the ghost is there
    near = np.linalg.norm(ghost[:, None] - solid[None], axis=-1).min(axis=1)
    apart = ghost[near > 6]
    assert len(apart) > 50

    def on_ghost(image) -> float:  # translucent blue over the dark ground, at or next to it
        b, g, r = (image[..., i] for i in range(3))
        return on_mask((b - r > 15) & (b > g), apart)

    assert on_ghost(pixels) > 0.95
    doc.set_compare(False)
    assert on_ghost(framebuffer(viewport, qtbot)) < 0.05  # no ghost without Compare
