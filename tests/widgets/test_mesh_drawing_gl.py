"""How the skinned mesh is drawn (app.widgets.viewport.mesh_item), in a real OpenGL viewport
(Xvfb + llvmpipe): skinned on the card, its shader draws the pixels the lit shader with a
per-vertex colour drew from numpy's skinning before (a reference item written here, the former
drawing), orbiting skins and uploads nothing, and a new frame uploads only its skin matrices
and skins into the one vertex buffer."""

from __future__ import annotations

import ctypes

import numpy as np
import pyqtgraph.opengl as gl
import pytest
from OpenGL import GL
from PySide6 import QtGui

from app.widgets.viewport.mesh_item import SOLID_OPTIONS, needs_glsl_es
from app.widgets.viewport.shading import LIT
from tests.helpers.gui import drag, framebuffer, key
from tests.widgets.test_mesh_viewport_gl import body_window, clay, mesh_pixels, on_clay


@pytest.fixture
def window(qtbot):
    return body_window(qtbot)


def _mesh_item(window):
    (item,) = window.viewport._drawing.meshes.items
    return item


class _FormerDrawing(gl.GLGraphicsItem.GLGraphicsItem):
    """The mesh as it was drawn before: the shared lit shader, the colour a constant vertex
    attribute, positions and normals in two tightly packed buffers, an index buffer."""

    def __init__(self, positions, normals, indices, color, parentItem):
        super().__init__(parentItem=parentItem)
        self.setGLOptions(SOLID_OPTIONS)
        self._arrays = [np.ascontiguousarray(a, dtype=np.float32) for a in (positions, normals)]
        self._indices = np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1)
        self._color = color
        self._buffers = None
        self.paints = 0

    def paint(self):
        self.paints += 1
        self.setupGLState()
        if self._buffers is None:
            self._buffers = GL.glGenBuffers(3)
            for buffer, array, target in zip(
                self._buffers,
                [*self._arrays, self._indices],
                [GL.GL_ARRAY_BUFFER] * 2 + [GL.GL_ELEMENT_ARRAY_BUFFER],
            ):
                GL.glBindBuffer(target, buffer)
                GL.glBufferData(target, array.nbytes, array, GL.GL_STATIC_DRAW)
                GL.glBindBuffer(target, 0)
        context = QtGui.QOpenGLContext.currentContext()
        program = LIT.program(es2_compat=context.hasExtension(b"GL_ARB_ES2_compatibility"))
        locations = [GL.glGetAttribLocation(program, n) for n in ("a_position", "a_normal")]
        for loc, buffer in zip(locations, self._buffers):
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, buffer)
            GL.glVertexAttribPointer(loc, 3, GL.GL_FLOAT, False, 0, ctypes.c_void_p(0))
            GL.glEnableVertexAttribArray(loc)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        GL.glVertexAttrib4f(GL.glGetAttribLocation(program, "a_color"), *self._color)
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        normal = np.array(self.modelViewMatrix().normalMatrix().data(), dtype=np.float32)
        with LIT:
            GL.glUniformMatrix4fv(GL.glGetUniformLocation(program, "u_mvp"), 1, False, mvp)
            GL.glUniformMatrix3fv(GL.glGetUniformLocation(program, "u_normal"), 1, False, normal)
            GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, self._buffers[2])
            GL.glDrawElements(GL.GL_TRIANGLES, self._indices.size, GL.GL_UNSIGNED_INT, None)
            GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, 0)
        for loc in locations:
            GL.glDisableVertexAttribArray(loc)
        GL.glDisable(GL.GL_CULL_FACE)


def _empty_corner(viewport) -> np.ndarray:
    """A press point in the viewport's lower left, away from the figure (a drag there orbits)."""
    return np.array([0.08 * viewport.width(), 0.9 * viewport.height()])


def test_the_mesh_shader_draws_the_pixels_of_the_former_lit_drawing(window, qtbot):
    viewport, doc = window.viewport, window.document
    viewport.set_mesh_display("mesh")  # the mesh alone: nothing drawn over it
    drag(viewport, _empty_corner(viewport), _empty_corner(viewport) + [70, -25], qtbot=qtbot)
    qtbot.wait(30)
    item = _mesh_item(window)
    now = framebuffer(viewport, qtbot)
    mesh = doc.scene.meshes[0]
    former = _FormerDrawing(
        item.positions, item.normals, mesh.indices, item._color, parentItem=item.parentItem()
    )
    former.setDepthValue(item.depthValue())
    item.setVisible(False)
    viewport.update()
    qtbot.wait(30)
    before = framebuffer(viewport, qtbot)
    assert former.paints and not item.visible()
    assert clay(before).sum() > 2000  # the former drawing shows the mesh
    differs = np.abs(now - before).max(axis=2)
    assert differs.max() <= 2  # the same shading, to rounding
    assert (differs > 0).mean() < 0.01
    # the same clay pixels, but for one on the edge of clay()'s ratios a rounding step flips
    assert (clay(now) != clay(before)).sum() <= max(1, 0.0005 * clay(before).sum())


def test_orbiting_skins_nothing_and_a_new_frame_uploads_only_the_palette(window, qtbot):
    viewport, doc = window.viewport, window.document
    viewport.set_xray(False)
    item = _mesh_item(window)
    first = framebuffer(viewport, qtbot)
    uploads, buffer_id = item.uploads, item._vbo.bufferId()
    gpu = item.gpu
    sent, passes = gpu.uploaded, gpu.passes
    assert uploads >= 1 and item.allocations == 1 and item.skinned_on_card >= 1
    drag(viewport, _empty_corner(viewport), _empty_corner(viewport) + [80, 30], qtbot=qtbot)
    qtbot.wait(30)
    orbited = framebuffer(viewport, qtbot)
    assert (clay(first) != clay(orbited)).sum() > 1000  # the view turned
    assert item.uploads == uploads and gpu.passes == passes  # the pose did not change
    assert gpu.uploaded == sent
    for _ in range(6):
        key(window, "Right")
    qtbot.wait(50)
    assert doc.frame == doc.scene.frame_start + 6
    later = framebuffer(viewport, qtbot)
    skinned = gpu.passes - passes
    assert 1 <= skinned <= 6  # each pose drawn skinned once, on the card...
    assert gpu.uploaded - sent == skinned * 48 * gpu.palette_rows  # ...from its palette only
    assert item.allocations == 1  # into the buffer allocated at the first paint
    assert item._vbo.bufferId() == buffer_id
    assert on_clay(later, mesh_pixels(window)) > 0.97  # where this frame's skinning puts it


def test_shaders_are_compiled_as_glsl_es_only_for_a_core_profile(window, qtbot):
    """pyqtgraph's test (``GL_ARB_ES2_compatibility``) is true of Mesa's compatibility profile
    too; only a core profile needs the ES dialect (and draws with it)."""
    viewport = window.viewport
    viewport.makeCurrent()
    context = QtGui.QOpenGLContext.currentContext()
    assert context.hasExtension(b"GL_ARB_ES2_compatibility")
    assert context.format().profile() != QtGui.QSurfaceFormat.OpenGLContextProfile.CoreProfile
    assert not needs_glsl_es(context)
    viewport.doneCurrent()
    core_format = QtGui.QSurfaceFormat()
    core_format.setVersion(4, 1)
    core_format.setProfile(QtGui.QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    surface = QtGui.QOffscreenSurface()
    surface.setFormat(core_format)
    surface.create()
    core = QtGui.QOpenGLContext()
    core.setFormat(core_format)
    assert core.create()
    assert core.makeCurrent(surface)
    try:
        assert core.format().profile() == QtGui.QSurfaceFormat.OpenGLContextProfile.CoreProfile
        assert needs_glsl_es(core)
    finally:
        core.doneCurrent()
