"""The rotate and move gizmos and the modal G/R transforms, driven with real mouse and key
events on real OpenGL (Xvfb). Checked: the scene afterwards (against scipy's Rotation and
the evaluator), the undo stack, and the pixels."""

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest
from scipy.spatial.transform import Rotation

from app.scene.rig import key_edits
from app.scene.rig.refs import Ref, resolve
from tests.helpers import gui
from tests.helpers.gui import CTRL, LEFT, NO_MODS, click, drag, framebuffer, key, point
from tests.helpers.paths import SCENES

FRAME = 10


def open_legs(qtbot):
    return gui.open_window(qtbot, SCENES / "legs.json", FRAME)


def choose(win, mode, local=False):
    """Click the toolbar's Move / Rotate (and Local) buttons."""
    click(win.gizmo_toolbar.buttons[mode], (8, 8))
    if local:
        click(win.gizmo_toolbar.local_button, (8, 8))
    assert win.viewport.gizmo.mode == mode and win.viewport.gizmo.local == local


def R(q):
    return Rotation.from_quat(q, scalar_first=True)


def world_rotation(pose, i):
    return Rotation.from_matrix(pose.bone_to_world[0, i, :3, :3])


def part(vp, name):
    return next(p for p in vp.gizmo.parts() if p.name == name)


def ring_grab(vp, name, steps=8):
    """Two pixels on the visible half of a ring, ``steps`` segments (5° each) apart in the
    positive direction about its axis."""
    p = part(vp, name)
    shown = np.flatnonzero(p.mask[:-1])
    k = shown[len(shown) // 2 - steps // 2]
    screen = vp.project(p.points)
    return p, screen[k], screen[k + steps]


def ctrl_drag(vp, start, end, qtbot, steps=8):
    """A drag with Ctrl held on every event (QTest's moves carry no modifiers)."""
    QTest.mousePress(vp, LEFT, CTRL, point(start))
    for t in np.linspace(0, 1, steps + 1)[1:]:
        at = QtCore.QPointF(point(np.asarray(start) + t * (np.asarray(end) - start)))
        ev = QtGui.QMouseEvent(
            QtCore.QEvent.Type.MouseMove, at, vp.mapToGlobal(at), LEFT, LEFT, CTRL
        )
        QtWidgets.QApplication.sendEvent(vp, ev)
        qtbot.wait(5)
    QTest.mouseRelease(vp, LEFT, CTRL, point(end))


def color_near(image, pixels, dpr, rgb, tol=70):
    """Fraction of ``pixels`` with a pixel of colour ``rgb`` (0..255) within 2 px."""
    hits = 0
    bgr = np.array(rgb[::-1])
    for x, y in pixels * dpr:
        x, y = int(round(x)), int(round(y))
        patch = image[max(y - 2, 0) : y + 3, max(x - 2, 0) : x + 3].reshape(-1, 3)
        hits += bool((np.abs(patch - bgr).max(axis=1) < tol).any())
    return hits / len(pixels)


def type_keys(widget, keys):
    for k in keys:
        name = {"-": "Minus", ".": "Period"}.get(k, k)
        key(widget, name)


# --- rotate gizmo -------------------------------------------------------------------------


def test_rotate_rings_are_drawn_and_a_ring_drag_turns_a_bone_about_its_axis(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    before_scene = doc.scene.copy()
    doc.set_selection([Ref.bone("thigh.l")])
    plain = framebuffer(vp, qtbot)
    choose(win, "rotate")
    qtbot.wait(30)
    image = framebuffer(vp, qtbot)
    dpr = vp.devicePixelRatioF()
    parts = {p.name: p for p in vp.gizmo.parts()}
    assert set(parts) == {"x", "y", "z", "view"}
    for name, rgb in (
        ("x", (255, 77, 92)),
        ("y", (133, 230, 51)),
        ("z", (66, 143, 255)),
        ("view", (237, 237, 237)),
    ):
        p = parts[name]
        shown = vp.project(p.points[p.mask])
        assert color_near(image, shown, dpr, rgb) > 0.8, name  # drawn where it is picked
        assert color_near(plain, shown, dpr, rgb) < 0.2, name  # and not before
    # the X ring's axis is the world's (Global), drag along it in the positive direction
    i = doc.scene.bone_index("thigh.l")
    pose = doc.pose()
    x_ring, start, end = ring_grab(vp, "x")
    assert np.allclose(x_ring.axis, [1, 0, 0])
    drag(vp, start, end, qtbot=qtbot)
    after = doc.pose()
    turn = world_rotation(after, i) * world_rotation(pose, i).inv()
    rotvec = turn.as_rotvec()
    assert np.degrees(np.linalg.norm(rotvec)) > 5
    assert rotvec[0] > 0 and np.allclose(rotvec[1:], 0, atol=1e-9)  # about +X only
    assert np.allclose(after.heads[0, i], pose.heads[0, i])  # about the bone's head
    thigh = doc.scene.bone("thigh.l")
    assert thigh.rotation_keys is None  # not animated: the rest rotation changed
    assert R(thigh.rotation).magnitude() > np.radians(5)
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Rotate bone thigh.l"
    doc.undo_stack.undo()
    assert doc.scene == before_scene


def test_ctrl_snaps_a_local_ring_drag_to_5_degrees_and_keys_an_animated_bone(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("thigh.r")])
    choose(win, "rotate", local=True)
    i = doc.scene.bone_index("thigh.r")
    pose = doc.pose()
    r0 = key_edits.rotation_at(doc.scene.bone("thigh.r"), FRAME)
    bone_axes = pose.bone_to_world[0, i, :3, :3]
    z_ring, start, end = ring_grab(vp, "z", steps=9)
    assert np.allclose(z_ring.axis, bone_axes[:, 2])  # Local: the bone's own z
    ctrl_drag(vp, start, end, qtbot)
    thigh = doc.scene.bone("thigh.r")
    assert FRAME in thigh.rotation_keys.frames  # animated: keyed at the current frame
    local_turn = R(r0).inv() * R(key_edits.rotation_at(thigh, FRAME))
    degrees = np.degrees(local_turn.magnitude())
    assert degrees > 4 and abs(degrees / 5 - round(degrees / 5)) < 1e-6  # snapped to 5°
    # a turn about the bone's own z is r0 * Rz(angle)
    expected = R(r0) * Rotation.from_euler(
        "z", np.sign(local_turn.as_rotvec()[2]) * degrees, degrees=True
    )
    assert (expected.inv() * R(key_edits.rotation_at(thigh, FRAME))).magnitude() < 1e-9
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == f"Rotate bone thigh.r at frame {FRAME}"


def test_the_view_ring_turns_about_the_line_of_sight(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("calf.l")])
    choose(win, "rotate")
    i = doc.scene.bone_index("calf.l")
    pose = doc.pose()
    ring, start, end = ring_grab(vp, "view", steps=6)
    drag(vp, start, end, qtbot=qtbot)
    turn = (world_rotation(doc.pose(), i) * world_rotation(pose, i).inv()).as_rotvec()
    toward_viewer = ring.axis / np.linalg.norm(ring.axis)
    assert np.degrees(np.linalg.norm(turn)) > 15  # 30° along the ring, face-on
    assert np.allclose(turn / np.linalg.norm(turn), toward_viewer, atol=1e-6)  # counter-clockwise


# --- move gizmo ---------------------------------------------------------------------------


def test_an_arrow_drag_moves_a_bone_along_its_axis_and_ctrl_snaps(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("hip")])
    choose(win, "move")
    qtbot.wait(30)
    image = framebuffer(vp, qtbot)
    z = part(vp, "z")  # the camera looks nearly along X here; Z is broadside
    shaft = vp.project(z.points)
    samples = shaft[0] + np.linspace(0.1, 0.9, 9)[:, None] * (shaft[1] - shaft[0])
    assert color_near(image, samples, vp.devicePixelRatioF(), (66, 143, 255)) > 0.8
    before = doc.scene.bone("hip").translation
    direction = (shaft[1] - shaft[0]) / np.linalg.norm(shaft[1] - shaft[0])
    grab = (shaft[0] + shaft[1]) / 2
    ctrl_drag(vp, grab, grab + 70 * direction, qtbot)
    after = np.array(doc.scene.bone("hip").translation)
    moved = after[2] - before[2]
    assert moved > 0.05 and np.isclose(moved * 10, round(moved * 10))  # 0.1 steps
    assert np.allclose(after[:2], before[:2])  # only along Z
    assert doc.undo_stack.undoText() == "Move bone hip"
    assert doc.scene.bone("hip").translation_keys is None  # rest translation


def test_an_arrow_drag_moves_a_pivot_along_world_y_in_object_space(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", 14)
    doc, vp = win.document, win.viewport
    ref = Ref.pivot_of("foot_roll", "heel")
    doc.set_selection([ref])
    choose(win, "move")
    body = doc.scene.bone_index("foot")
    body_to_world = doc.pose().bone_to_world[0, body].copy()
    p0 = vp.handle_position(ref).copy()
    y = part(vp, "y")
    shaft = vp.project(y.points)
    grab = (shaft[0] + shaft[1]) / 2
    direction = (shaft[1] - shaft[0]) / np.linalg.norm(shaft[1] - shaft[0])
    drag(vp, grab, grab + 40 * direction, qtbot=qtbot)
    heel = resolve(doc.scene, ref)
    world = body_to_world[:3, :3] @ np.array(heel.position) + body_to_world[:3, 3]
    offset = world - p0  # where the pivot went, read in the frame it had at the press
    assert offset[1] > 0.01 and np.allclose(offset[[0, 2]], 0, atol=1e-9)
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Move pivot heel"


# --- modal transforms ---------------------------------------------------------------------


def test_r_z_90_enter_turns_a_bone_90_degrees_about_world_z(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("thigh.l")])
    i = doc.scene.bone_index("thigh.l")
    pose = doc.pose()
    before = framebuffer(vp, qtbot)
    key(vp, "R")
    assert vp.transform_mode.active
    key(vp, "Z")
    type_keys(vp, "90")
    header = vp.findChild(QtWidgets.QLabel, "transformHeader")
    assert header.isVisible() and "Z global" in header.text() and "90" in header.text()
    assert "Z global" in win.statusBar().currentMessage()
    qtbot.wait(30)
    image = framebuffer(vp, qtbot)
    # the locked axis is drawn through the bone's head, in the axis colour (blue)
    head = vp.project(pose.heads[0, i : i + 1])[0]
    up = vp.project(pose.heads[0, i : i + 1] + [0, 0, 0.3])[0]
    line = head + np.linspace(0.3, 1.0, 6)[:, None] * (up - head)
    assert color_near(image, line, vp.devicePixelRatioF(), (66, 143, 255)) > 0.8
    key(vp, "Return")
    assert not vp.transform_mode.active and not header.isVisible()
    turn = world_rotation(doc.pose(), i) * world_rotation(pose, i).inv()
    assert (turn * Rotation.from_euler("z", 90, degrees=True).inv()).magnitude() < 1e-9
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Rotate bone thigh.l"
    qtbot.wait(30)
    after = framebuffer(vp, qtbot)
    assert (np.abs(after - before).max(axis=2) > 40).sum() > 50  # the leg swung out


def test_r_z_z_locks_the_local_axis_and_typed_numbers_edit_like_blender(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("thigh.r")])
    r0 = key_edits.rotation_at(doc.scene.bone("thigh.r"), FRAME)
    space = doc.space
    key(vp, "R")
    key(vp, "Z")
    key(vp, "Z")  # twice: the bone's own Z
    type_keys(vp, "12")  # 1 is typed, not the World Space shortcut
    assert doc.space == space
    key(vp, "Backspace")
    type_keys(vp, "5-")  # 15, then the sign flips
    assert "Z local" in vp.transform_mode.text() and "[-15|]" in vp.transform_mode.text()
    key(vp, "Enter")
    q = key_edits.rotation_at(doc.scene.bone("thigh.r"), FRAME)
    expected = R(r0) * Rotation.from_euler("z", -15, degrees=True)
    assert (expected.inv() * R(q)).magnitude() < 1e-9
    assert doc.undo_stack.undoText() == f"Rotate bone thigh.r at frame {FRAME}"
    # X three times: world X, local X, no lock
    key(vp, "R")
    for _ in range(3):
        key(vp, "X")
    assert vp.transform_mode.axis is None and "view axis" in vp.transform_mode.text()
    key(vp, "Escape")


def test_esc_and_right_click_cancel_leaving_no_trace(qtbot, monkeypatch):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    menus = []
    monkeypatch.setattr(vp, "exec_menu", lambda menu, at: menus.append(menu))
    doc.set_selection([Ref.bone("calf.l")])
    before = doc.scene.copy()
    center = vp.project(doc.pose().heads[0, doc.scene.bone_index("calf.l")][None])[0]
    QTest.mouseMove(vp, point(center + (60, -30)))
    for mode, end in (("R", "Escape"), ("G", None)):
        key(vp, mode)
        for t in np.linspace(0, 1, 5)[1:]:
            QTest.mouseMove(vp, point(center + (60, -30) + t * np.array([-50, 70])))
            qtbot.wait(5)
        assert doc.scene != before  # the preview follows the mouse
        if end:
            key(vp, end)
        else:
            QTest.mouseClick(
                vp, QtCore.Qt.MouseButton.RightButton, NO_MODS, point(center + (10, 40))
            )
        assert doc.scene == before and doc.undo_stack.count() == 0
        assert not vp.transform_mode.active
    assert menus == []  # the right click cancelled; it opened no menu
    # changing the frame (the timeline, the transport keys) ends a transform too
    key(vp, "R")
    type_keys(vp, "30")
    assert doc.scene != before
    doc.set_frame(FRAME + 5)
    assert not vp.transform_mode.active and doc.scene == before


def test_x_locks_an_axis_during_g_and_deletes_nothing(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", 14)
    doc, vp = win.document, win.viewport
    ref = Ref.pivot_of("foot_roll", "heel")
    doc.set_selection([ref])
    body_to_world = doc.pose().bone_to_world[0, doc.scene.bone_index("foot")].copy()
    p0 = vp.handle_position(ref).copy()
    names = [p.name for p in doc.scene.constraint("foot_roll").pivots]
    key(vp, "G")
    key(vp, "X")
    type_keys(vp, ".05")
    key(vp, "Return")
    assert [p.name for p in doc.scene.constraint("foot_roll").pivots] == names
    heel = resolve(doc.scene, ref)
    world = body_to_world[:3, :3] @ np.array(heel.position) + body_to_world[:3, 3]
    assert np.allclose(world - p0, [0.05, 0, 0])
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Move pivot heel"


def test_ctrl_snaps_a_modal_move_to_tenths(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("hip")])
    before = np.array(doc.scene.bone("hip").translation)
    center = vp.project(before[None])[0]
    QTest.mouseMove(vp, point(center + (40, 40)))
    key(vp, "G")
    key(vp, "Y")
    QTest.keyPress(vp, QtCore.Qt.Key.Key_Control, CTRL)
    for dy in range(0, -121, -20):
        QTest.mouseMove(vp, point(center + (40, 40 + dy)))
        qtbot.wait(5)
    assert "snap 0.1" in vp.transform_mode.text()
    QTest.keyRelease(vp, QtCore.Qt.Key.Key_Control, NO_MODS)
    QTest.keyPress(vp, QtCore.Qt.Key.Key_Control, CTRL)
    click(vp, center + (40, -80), CTRL)  # a left click confirms
    QTest.keyRelease(vp, QtCore.Qt.Key.Key_Control, NO_MODS)
    after = np.array(doc.scene.bone("hip").translation)
    moved = after - before
    assert moved[1] >= 0.1 and np.isclose(moved[1] * 10, round(moved[1] * 10))
    assert np.allclose(moved[[0, 2]], 0)
    assert doc.undo_stack.count() == 1 and doc.undo_stack.undoText() == "Move bone hip"


def test_pivot_rotation_in_world_and_object_space(qtbot):
    """R X 30 on a pivot: read about world axes in world space (q' = D q), in the body's
    frame in object space (q' = P^-1 D P q, P the body's rotation at the press)."""
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", 30)
    doc, vp = win.document, win.viewport
    ref = Ref.pivot_of("foot_roll", "ball")
    doc.set_selection([ref])
    turn = Rotation.from_euler("x", 30, degrees=True)
    results = {}
    for space_key, space in (("1", "world"), ("2", "object")):
        key(vp, space_key)
        assert doc.space == space
        q0 = R(key_edits.rotation_at(resolve(doc.scene, ref), 30))
        P = world_rotation(doc.pose(), doc.scene.bone_index("foot"))
        key(vp, "R")
        key(vp, "X")
        type_keys(vp, "30")
        key(vp, "Return")
        q = R(key_edits.rotation_at(resolve(doc.scene, ref), 30))
        expected = turn * q0 if space == "world" else P.inv() * turn * P * q0
        assert (expected.inv() * q).magnitude() < 1e-9, space
        assert doc.undo_stack.undoText() == "Rotate pivot ball at frame 30"
        results[space] = q
        doc.undo_stack.undo()
    assert (results["world"].inv() * results["object"]).magnitude() > 1e-3


def test_g_r_x_y_z_are_text_in_a_text_field(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("thigh.l")])
    qtbot.wait(20)
    spin = win.inspector.findChild(QtWidgets.QDoubleSpinBox, "translation0")
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    for letter in "GRXYZ":
        key(spin, letter)
    assert not vp.transform_mode.active and doc.undo_stack.count() == 0
    assert doc.scene.bone("thigh.l") is not None
    # X, Y, Z do nothing to the viewport's transform when none runs
    vp.setFocus()
    key(vp, "Y")
    assert not vp.transform_mode.active
    # a transform needs something it can turn
    doc.set_selection([])
    key(vp, "R")
    assert not vp.transform_mode.active
    assert "R turns the selected bones and pivots: select some" in win.statusBar().currentMessage()


def test_a_ring_seen_nearly_edge_on_turns_by_the_drag_along_it_and_esc_cancels(qtbot):
    """The camera looks 15° down: the Y ring is a thin ellipse, turned by the cursor's travel
    along its tangent (30° of ring dragged is close to 30° turned); Esc puts it back."""
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("calf.l")])
    choose(win, "rotate")
    before = doc.scene.copy()
    i = doc.scene.bone_index("calf.l")
    pose = doc.pose()
    ring, start, end = ring_grab(vp, "y", steps=6)
    eye = np.linalg.inv(vp.world_to_eye())[:3, 3]
    facing = abs(ring.axis @ (eye - pose.heads[0, i])) / np.linalg.norm(eye - pose.heads[0, i])
    assert facing < 0.4  # seen nearly edge-on
    drag(vp, start, end, qtbot=qtbot)
    turn = (world_rotation(doc.pose(), i) * world_rotation(pose, i).inv()).as_rotvec()
    assert turn[1] > 0 and np.allclose(turn[[0, 2]], 0, atol=1e-9)
    assert 20 < np.degrees(turn[1]) < 40
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    # Esc during a ring drag: the scene exactly as before, nothing on the stack
    QTest.mousePress(vp, LEFT, NO_MODS, point(start))
    for t in np.linspace(0, 1, 5)[1:]:
        QTest.mouseMove(vp, point(start + t * (end - start)))
    assert doc.scene != before
    key(vp, "Escape")
    QTest.mouseRelease(vp, LEFT, NO_MODS, point(end))
    assert doc.scene == before and doc.undo_stack.index() == 0
    # and a right click during the drag cancels too
    QTest.mousePress(vp, LEFT, NO_MODS, point(start))
    QTest.mouseMove(vp, point(end))
    assert doc.scene != before
    QTest.mousePress(vp, QtCore.Qt.MouseButton.RightButton, NO_MODS, point(end))
    QTest.mouseRelease(vp, QtCore.Qt.MouseButton.RightButton, NO_MODS, point(end))
    QTest.mouseRelease(vp, LEFT, NO_MODS, point(end))
    assert doc.scene == before and doc.undo_stack.index() == 0


def test_hovering_a_ring_lights_it_and_g_moves_a_keyed_target_in_the_view_plane(qtbot):
    win = gui.open_window(qtbot, SCENES / "fabrik_arm.json", FRAME)
    doc, vp = win.document, win.viewport
    ref = Ref.target_of("arm reaches")
    doc.set_selection([Ref.bone("hand")])
    choose(win, "rotate")
    ring, start, _ = ring_grab(vp, "x")
    QTest.mouseMove(vp, point(start))
    qtbot.wait(30)
    assert vp.gizmo.hovered == "x"
    image = framebuffer(vp, qtbot)
    shown = vp.project(ring.points[ring.mask])
    assert color_near(image, shown, vp.devicePixelRatioF(), (255, 230, 89)) > 0.8  # lit
    # G on the (animated) target: a free move in the plane facing the camera, keyed
    doc.set_selection([ref])
    p0 = vp.handle_position(ref).copy()
    at = vp.project([p0])[0]
    QTest.mouseMove(vp, point(at + (30, 30)))
    key(vp, "G")
    assert vp.gizmo.parts() == []  # the gizmo hides while G runs
    for t in np.linspace(0, 1, 5)[1:]:
        QTest.mouseMove(vp, point(at + (30, 30) + t * np.array([40, -25])))
        qtbot.wait(5)
    click(vp, at + (70, 5))
    target = resolve(doc.scene, ref)
    assert FRAME in target.position_keys.frames
    offset = key_edits.position_at(target, FRAME) - p0
    forward = np.linalg.inv(vp.world_to_eye())[:3, 2]
    assert np.linalg.norm(offset) > 0.01 and abs(offset @ forward) < 1e-6 * np.linalg.norm(forward)
    # the target now projects where the cursor was dragged to
    assert np.allclose(
        vp.project([key_edits.position_at(target, FRAME)])[0], at + (40, -25), atol=1.0
    )
    assert doc.undo_stack.undoText() == f"Move target of arm reaches at frame {FRAME}"


def test_r_turns_every_selected_bone_about_its_own_head_in_one_undo_step(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    before = doc.scene.copy()
    names = ["thigh.l", "calf.l", "thigh.r"]  # calf.l follows its selected parent
    doc.set_selection([Ref.bone(n) for n in names])
    pose = doc.pose()
    calf_rotation = doc.scene.bone("calf.l").rotation
    key(vp, "R")
    key(vp, "X")
    type_keys(vp, "20")
    key(vp, "Return")
    after = doc.pose()
    turn = Rotation.from_euler("x", 20, degrees=True)
    for name in names:
        i = doc.scene.bone_index(name)
        got = world_rotation(after, i) * world_rotation(pose, i).inv()
        assert (got * turn.inv()).magnitude() < 1e-9, name
    for name in ("thigh.l", "thigh.r"):
        i = doc.scene.bone_index(name)
        assert np.allclose(after.heads[0, i], pose.heads[0, i])  # each about its own head
    assert doc.scene.bone("calf.l").rotation == calf_rotation  # carried, not turned twice
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == f"Rotate bone thigh.l, bone thigh.r at frame {FRAME}"
    doc.undo_stack.undo()
    assert doc.scene == before


def test_g_moves_two_pivots_of_one_constraint_together(qtbot):
    win = gui.open_window(qtbot, SCENES / "foot_roll.json", 14)
    doc, vp = win.document, win.viewport
    refs = [Ref.pivot_of("foot_roll", "heel"), Ref.pivot_of("foot_roll", "toe")]
    doc.set_selection(refs)
    body_to_world = doc.pose().bone_to_world[0, doc.scene.bone_index("foot")].copy()
    starts = [vp.handle_position(r).copy() for r in refs]
    before = doc.scene.copy()
    key(vp, "G")
    key(vp, "Y")
    type_keys(vp, ".1")
    key(vp, "Return")
    for ref, p0 in zip(refs, starts):
        pivot = resolve(doc.scene, ref)
        world = body_to_world[:3, :3] @ np.array(pivot.position) + body_to_world[:3, 3]
        assert np.allclose(world - p0, [0, 0.1, 0]), ref.part_name
    assert doc.undo_stack.count() == 1
    assert doc.undo_stack.undoText() == "Move pivot heel, pivot toe"
    doc.undo_stack.undo()
    assert doc.scene == before


def test_g_z_z_moves_along_the_bone_own_z_and_keys_an_animated_translation(qtbot):
    win = open_legs(qtbot)
    doc, vp = win.document, win.viewport
    doc.set_selection([Ref.bone("calf.r")])
    i = doc.scene.bone_index("calf.r")
    pose = doc.pose()
    own_z = pose.bone_to_world[0, i, :3, 2]
    key(vp, "G")
    key(vp, "Z")
    key(vp, "Z")
    type_keys(vp, ".2")
    assert "Z local" in vp.transform_mode.text()
    key(vp, "Return")
    head = doc.pose().heads[0, i]
    assert np.allclose(head - pose.heads[0, i], 0.2 * own_z)  # along its own (turned) z
    assert abs(own_z[2] - 1) > 0.01  # which is not the world's here
    calf = doc.scene.bone("calf.r")
    assert calf.translation_keys is None  # static translation: the rest value moved
    assert doc.undo_stack.undoText() == "Move bone calf.r"


def test_a_frame_change_redraws_the_rotate_gizmo_once_and_it_follows_the_pivot(qtbot, monkeypatch):
    """Playing with the rotate gizmo on a pivot: each new frame rebuilds its rings once (it
    was twice: once for the frame, once more for the same pose), and the rings stay centred
    on the pivot's handle as the foot rolls."""
    from app.widgets.viewport.gizmo_items import GizmoLayer
    from app.widgets.viewport.scene_drawing import handle_at

    win = gui.open_window(qtbot, SCENES / "foot_roll.json", 0)
    doc, vp = win.document, win.viewport
    heel = Ref.pivot_of("foot_roll", "heel")
    doc.set_selection([heel])
    vp.gizmo.set_mode("rotate")
    qtbot.wait(20)
    drawn = []
    real = GizmoLayer._draw
    monkeypatch.setattr(GizmoLayer, "_draw", lambda self: (drawn.append(doc.frame), real(self)))
    for frame in range(1, 25):
        doc.set_frame(float(frame))
        qtbot.wait(5)
        (ring,) = [p for p in vp.gizmo.parts() if p.name == "x"]
        center = ring.points[:-1].mean(axis=0)  # a circle's points average to its centre
        np.testing.assert_allclose(center, handle_at(doc, heel), atol=1e-9)
    assert drawn == [float(f) for f in range(1, 25)]
