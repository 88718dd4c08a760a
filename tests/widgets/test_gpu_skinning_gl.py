"""Skinning on the graphics card (app.widgets.viewport.gpu) against numpy's skinning
(app.scene.rig.skinning, float64), read back from the buffer the viewport draws: in a real
OpenGL context (Xvfb + llvmpipe), on a rig past the uniform limit with eight influences,
non-uniform scale and mirrored joints, and on a character another tool made (Blender's FBX
export, up to six influences)."""

from __future__ import annotations

import numpy as np
import pytest
from OpenGL import GL
from PySide6 import QtGui, QtOpenGL
from scipy.spatial.transform import Rotation

from app.scene.rig.mesh import SkinnedMesh
from app.scene.rig.skinning import bind
from app.widgets.viewport.gpu import skin_program
from app.widgets.viewport.gpu.gpu_skin import GPUSkin
from tests.helpers.gui import framebuffer, key, open_window

FBX = "tests/data/fbx/animation_with_skeleton.fbx"


@pytest.fixture(scope="module")
def context(qapp):
    """A current OpenGL context of the application's share group, on an offscreen surface."""
    surface = QtGui.QOffscreenSurface()
    surface.create()
    context = QtGui.QOpenGLContext()
    context.setShareContext(QtGui.QOpenGLContext.globalShareContext())
    assert context.create()
    assert context.makeCurrent(surface)
    yield context
    context.doneCurrent()


def _skinned_on_card(skinning, bone_to_world) -> np.ndarray:
    gpu = GPUSkin(skinning)
    out = QtOpenGL.QOpenGLBuffer(QtOpenGL.QOpenGLBuffer.Type.VertexBuffer)
    out.create()
    out.bind()
    out.allocate(skinning.vertex_count * 24)
    out.release()
    gpu.skin(gpu.palette(bone_to_world), out)
    out.bind()
    data = GL.glGetBufferSubData(GL.GL_ARRAY_BUFFER, 0, skinning.vertex_count * 24)
    out.release()
    assert gpu.passes == 1
    return np.frombuffer(data, dtype=np.float32).reshape(-1, 6)


def test_the_context_has_what_skinning_on_the_card_relies_on(context):
    """OpenGL 3.1 (buffer textures, transform feedback), as llvmpipe's 4.5 does; the
    palette of 2,000 joints below does not fit the vertex uniforms, and does a buffer texture."""
    assert skin_program.supported(context)
    assert tuple(context.format().version()) >= (3, 1) and not context.isOpenGLES()
    assert 12 * 2001 > GL.glGetIntegerv(GL.GL_MAX_VERTEX_UNIFORM_COMPONENTS)
    assert GL.glGetIntegerv(GL.GL_MAX_TEXTURE_BUFFER_SIZE) >= 3 * 2001


def test_eight_influences_of_two_thousand_joints_skin_as_numpy_does(context):
    rng = np.random.default_rng(7)
    joints, vertices = 2000, 3000
    names = tuple(f"j{k}" for k in range(joints))
    # Half the joints mirrored (a negative scale), half not; a vertex blends joints of one
    # half only (a blend across a mirror is singular somewhere: no normal to compare).
    mirrored = np.arange(joints) % 2 == 1
    half = rng.integers(0, 2, size=vertices)
    slots = 2 * rng.integers(0, joints // 2, size=(vertices, 8)) + half[:, None]
    weights = rng.random((vertices, 8)) ** 2
    weights[rng.random((vertices, 8)) < 0.2] = 0.0  # some unused slots
    weights[:50] = 0.0  # weighed by no joint: stay where they are
    sums = weights.sum(axis=1, keepdims=True)
    weights = np.divide(weights, sums, out=np.zeros_like(weights), where=sums > 0)
    positions = rng.uniform(-0.5, 0.5, size=(vertices, 3))
    normals = rng.normal(size=(vertices, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    bind_pose = np.tile(np.eye(4), (joints, 1, 1))
    bind_pose[:, :3, 3] = rng.uniform(-0.5, 0.5, size=(joints, 3))
    mesh = SkinnedMesh(
        name="many",
        positions=positions,
        indices=np.zeros((1, 3), int),
        joints=names,
        joint_indices=slots,
        weights=weights,
        inverse_bind=np.linalg.inv(bind_pose),
        normals=normals,
    )
    reference, on_card = bind(mesh, names), bind(mesh, names, dtype=np.float32)
    assert reference.slots.shape[1] == 8
    common = Rotation.from_rotvec(rng.normal(size=3))
    for _ in range(3):
        pose = np.tile(np.eye(4), (joints, 1, 1))
        turn = common * Rotation.from_rotvec(0.4 * rng.normal(size=(joints, 3)))
        scale = rng.uniform(0.7, 1.4, size=(joints, 3))
        scale[mirrored, 0] *= -1.0
        pose[:, :3, :3] = turn.as_matrix() * scale[:, None, :]  # non-uniform scale
        pose[:, :3, 3] = rng.uniform(-1.0, 1.0, size=(joints, 3))
        want_p, want_n = reference.deform(pose)
        got = _skinned_on_card(on_card, pose)
        size = np.ptp(want_p, axis=0).max()
        assert np.abs(got[:, :3] - want_p).max() <= 1e-5 * size
        assert np.abs(got[:, 3:] - want_n).max() <= 1e-5
        assert np.array_equal(got[:50, :3], positions[:50].astype(np.float32))
        flipped = np.einsum("vi,vi->v", got[50:, 3:], want_n[50:]) > 0.999
        assert flipped.all()  # mirrored vertices' normals face out, as numpy's


def test_a_character_from_blender_plays_skinned_on_the_card_as_numpy_skins_it(qtbot):
    """Blender's FBX export of a 4,224-vertex character (up to six influences per vertex):
    frame after frame, the vertices the viewport draws are numpy's."""
    win = open_window(qtbot, FBX, size=(900, 640))
    doc, layer = win.document, win.viewport.drawing.meshes
    (item,) = layer.items
    mesh = doc.scene.meshes[0]
    assert mesh.weights.shape[1] == 6 and item.gpu.influences == 8
    reference = bind(mesh, doc.pose().bone_names)
    size = np.ptp(mesh.positions, axis=0).max()
    for _ in range(4):
        for _ in range(4):
            key(win, "Right")
        framebuffer(win.viewport, qtbot)
        positions, normals = reference.deform(doc.pose().bone_to_world[0])
        drawn = item.drawn_vertices()
        assert np.abs(drawn[:, :3] - positions).max() <= 1e-5 * size
        assert np.abs(drawn[:, 3:] - normals).max() <= 1e-5
    assert doc.frame == doc.scene.frame_start + 16
    assert item.skinned_on_card >= 4


def test_without_opengl_3_1_the_viewport_skins_with_numpy(qtbot, monkeypatch):
    """A context that cannot skin on the card (OpenGL ES, or older than 3.1) draws numpy's
    float32 skinning, uploaded whole, bit for bit."""
    from app.widgets.viewport import mesh_item
    from tests.widgets.test_mesh_viewport_gl import body_window, clay, mesh_pixels, on_clay

    monkeypatch.setattr(mesh_item.skin_program, "supported", lambda context=None: False)
    win = body_window(qtbot)
    doc, viewport = win.document, win.viewport
    viewport.set_xray(False)
    (item,) = viewport.drawing.meshes.items
    key(win, "Right")
    image = framebuffer(viewport, qtbot)
    assert item.skinned_on_card == 0 and item.gpu.passes == 0
    numpy32 = bind(doc.scene.meshes[0], doc.pose().bone_names, dtype=np.float32)
    positions, normals = numpy32.deform(doc.pose().bone_to_world[0])
    drawn = item.drawn_vertices()
    assert np.array_equal(drawn[:, :3], positions) and np.array_equal(drawn[:, 3:], normals)
    assert clay(image).sum() > 2000 and on_clay(image, mesh_pixels(win)) > 0.97
