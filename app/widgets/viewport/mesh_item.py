"""The scene's skinned meshes in the viewport, deformed by the pose, shaded under the bones.

:class:`SkinnedMeshItem` draws one mesh with the lit shader from two vertex buffers
(positions, normals) that each pose rewrites in place (``QOpenGLBuffer.write``; the index
buffer is uploaded once). :class:`MeshLayer` keeps one item per ``Scene.meshes`` entry (and a
translucent one per mesh for Compare's ghost), skins them with
:mod:`app.scene.rig.skinning` on every pose change, and applies the View menu's choices:
what is shown (:data:`MESH`, :data:`BONES` or :data:`BOTH`) and X-ray, which draws the bones
over the mesh (the depth buffer is cleared just before the bones, so the bones still hide
each other correctly).
"""

from __future__ import annotations

import importlib

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.Qt import QT_LIB, QtGui

from app.scene.rig.skinning import bind
from app.widgets.viewport.shading import LIT

QtOpenGL = importlib.import_module(f"{QT_LIB}.QtOpenGL")

MESH, BONES, BOTH = "mesh", "bones", "both"
DISPLAYS = (MESH, BONES, BOTH)
MESH_COLOR = (0.78, 0.64, 0.52, 1.0)  # warm clay: apart from the grey bones and blue ghost
GHOST_MESH_COLOR = (0.55, 0.75, 1.0, 0.28)
#: Back faces culled, as glTF asks of a material that is not ``doubleSided`` (its default);
#: it also spares llvmpipe half the triangles (about 1.4× the frame rate on a 50k mesh).
SOLID_OPTIONS = {GL.GL_DEPTH_TEST: True, GL.GL_BLEND: False, GL.GL_CULL_FACE: True}
#: The same, for a mesh whose ``extra`` says ``double_sided``.
DOUBLE_SIDED_OPTIONS = {GL.GL_DEPTH_TEST: True, GL.GL_BLEND: False, GL.GL_CULL_FACE: False}
#: Back faces culled and depth still written: a translucent shell without sorting. Drawn
#: right after the solid mesh with a strict depth test, so where both spaces put the skin at
#: the same place (same vertices, same depth) the ghost does not cover it: it shows only
#: where the spaces part.
GHOST_OPTIONS = {
    GL.GL_DEPTH_TEST: True,
    GL.GL_BLEND: True,
    GL.GL_CULL_FACE: True,
    "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA),
    "glDepthFunc": (GL.GL_LESS,),
}


class SkinnedMeshItem(gl.GLGraphicsItem.GLGraphicsItem):
    """One skinned mesh; :meth:`set_pose` deforms it, the next paint uploads it.

    Parameters
    ----------
    skinning : app.scene.rig.skinning.Skinning
        The mesh bound to the skeleton's bone order (float32).
    indices : ndarray, shape (T, 3), int
    color : RGBA
    ghost : bool
        Translucent (Compare's other space).
    double_sided : bool
        Draw back faces too (else they are culled, glTF's default).
    """

    def __init__(self, skinning, indices, color=MESH_COLOR, ghost: bool = False,
                 double_sided: bool = False, parentItem=None):  # fmt: skip
        super().__init__(parentItem=parentItem)
        if ghost:
            self.setGLOptions(GHOST_OPTIONS)
        else:
            self.setGLOptions(DOUBLE_SIDED_OPTIONS if double_sided else SOLID_OPTIONS)
        self.skinning = skinning
        self._indices = np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1)
        self._color = tuple(float(c) for c in color)
        self.positions = np.asarray(skinning.positions, dtype=np.float32)
        self.normals = np.asarray(skinning.normals, dtype=np.float32)
        self._dirty = True
        self._uploaded_indices = False
        buffer = QtOpenGL.QOpenGLBuffer
        self._vbo_position = buffer(buffer.Type.VertexBuffer)
        self._vbo_normal = buffer(buffer.Type.VertexBuffer)
        self._ibo = buffer(buffer.Type.IndexBuffer)
        for vbo in (self._vbo_position, self._vbo_normal):
            vbo.setUsagePattern(buffer.UsagePattern.DynamicDraw)

    def set_pose(self, bone_to_world) -> None:
        """Deform by ``bone_to_world`` (B, 4, 4), the skeleton's bones in bind order."""
        self.positions, self.normals = self.skinning.deform(bone_to_world)
        self._dirty = True
        self.update()

    def _upload(self) -> None:
        for vbo, array in ((self._vbo_position, self.positions),
                           (self._vbo_normal, self.normals)):  # fmt: skip
            if not vbo.isCreated():
                vbo.create()
            vbo.bind()
            if vbo.size() != array.nbytes:
                vbo.allocate(array, array.nbytes)
            else:  # the same buffer, rewritten in place
                vbo.write(0, array, array.nbytes)
            vbo.release()
        if not self._uploaded_indices:
            self._ibo.create()
            self._ibo.bind()
            self._ibo.allocate(self._indices, self._indices.nbytes)
            self._ibo.release()
            self._uploaded_indices = True
        self._dirty = False

    def paint(self):
        if not len(self._indices):
            return
        self.setupGLState()
        if self._dirty:
            self._upload()
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        normal = np.array(self.modelViewMatrix().normalMatrix().data(), dtype=np.float32)
        context = QtGui.QOpenGLContext.currentContext()
        program = LIT.program(es2_compat=context.hasExtension(b"GL_ARB_ES2_compatibility"))
        enabled = []
        for name, vbo in (("a_position", self._vbo_position), ("a_normal", self._vbo_normal)):
            loc = GL.glGetAttribLocation(program, name)
            if loc == -1:
                continue
            vbo.bind()
            GL.glVertexAttribPointer(loc, 3, GL.GL_FLOAT, False, 0, None)
            vbo.release()
            GL.glEnableVertexAttribArray(loc)
            enabled.append(loc)
        if (loc := GL.glGetAttribLocation(program, "a_color")) != -1:
            GL.glVertexAttrib4f(loc, *self._color)
        with LIT:
            GL.glUniformMatrix4fv(GL.glGetUniformLocation(program, "u_mvp"), 1, False, mvp)
            GL.glUniformMatrix3fv(GL.glGetUniformLocation(program, "u_normal"), 1, False, normal)
            self._ibo.bind()
            GL.glDrawElements(GL.GL_TRIANGLES, self._indices.size, GL.GL_UNSIGNED_INT, None)
            self._ibo.release()
        for loc in enabled:
            GL.glDisableVertexAttribArray(loc)
        GL.glDisable(GL.GL_CULL_FACE)  # the next items do not expect it


class DepthClear(gl.GLGraphicsItem.GLGraphicsItem):
    """Clears the depth buffer where it is drawn in the item order (X-ray: just before the
    bones, so the mesh drawn earlier cannot hide them)."""

    def paint(self):
        GL.glDepthMask(GL.GL_TRUE)
        GL.glClear(GL.GL_DEPTH_BUFFER_BIT)


class MeshLayer:
    """The viewport's skinned meshes and the Mesh / Bones / Both and X-ray choices.

    Parameters
    ----------
    root : GLGraphicsItem
        The world's root item (Y-up to the view's Z-up).
    bones : GLGraphicsItem
        The skeleton item (hidden in :data:`MESH`; X-ray clears depth just before it).
    ghost_bones : GLGraphicsItem
        Compare's ghost skeleton (hidden with the bones).
    """

    def __init__(self, root, bones, ghost_bones):
        self._root = root
        self._bones = bones
        self._ghost_bones = ghost_bones
        self.display = BOTH
        self.xray = True
        self._clear = DepthClear(parentItem=bones)
        self._clear.setDepthValue(-100)  # before the bones' own items
        self._meshes: tuple = ()
        self._names: tuple = ()
        self._skinned = (None, None)
        self.items: list[SkinnedMeshItem] = []
        self.ghost_items: list[SkinnedMeshItem] = []

    def _rebuild(self, meshes, bone_names) -> None:
        for item in self.items + self.ghost_items:
            item.setParentItem(None)
        self.items, self.ghost_items = [], []
        for mesh in meshes:
            skinning = bind(mesh, bone_names, dtype=np.float32)
            double = bool(mesh.extra.get("double_sided", False))
            solid = SkinnedMeshItem(skinning, mesh.indices, double_sided=double,
                                    parentItem=self._root)  # fmt: skip
            solid.setDepthValue(-3)  # before the grid (which it hides) and the bones
            ghost = SkinnedMeshItem(skinning, mesh.indices, GHOST_MESH_COLOR, ghost=True,
                                    parentItem=self._root)  # fmt: skip
            ghost.setDepthValue(-2)  # right after the solid mesh (see GHOST_OPTIONS)
            self.items.append(solid)
            self.ghost_items.append(ghost)

    def drawn_points(self) -> np.ndarray:
        """World positions of the vertices of the meshes shown, (N, 3) (for framing)."""
        shown = [item.positions for item in self.items + self.ghost_items if item.visible()]
        return np.concatenate(shown).astype(float) if shown else np.zeros((0, 3))

    def draw(self, document, pose, ghost=None) -> None:
        """Skin every mesh to ``pose`` (and ``ghost``, Compare's other space, or ``None``)
        and show what the display choices ask for."""
        meshes = tuple(document.scene.meshes)
        names = tuple(str(n) for n in pose.bone_names)
        same = len(meshes) == len(self._meshes) and all(
            a is b for a, b in zip(meshes, self._meshes)
        )  # identity: the meshes are immutable, comparing their arrays would cost a frame
        if not same or names != self._names:
            self._rebuild(meshes, names)
            self._meshes, self._names = meshes, names
            self._skinned = (None, None)
        # The document hands out one pose object until the pose changes: a redraw for a
        # selection or a hover does not skin again.
        fresh = not (pose is self._skinned[0] and ghost is self._skinned[1])
        show_mesh = self.display != BONES and bool(self.items)
        show_bones = self.display != MESH or not self.items
        for item in self.items:
            item.setVisible(show_mesh)
            if show_mesh and fresh:
                item.set_pose(pose.bone_to_world[0])
        for item in self.ghost_items:
            item.setVisible(show_mesh and ghost is not None)
            if show_mesh and ghost is not None and fresh:
                item.set_pose(ghost.bone_to_world[0])
        self._skinned = (pose, ghost) if show_mesh else (None, None)
        self._bones.setVisible(show_bones)
        if not show_bones:
            self._ghost_bones.setVisible(False)
        self._clear.setVisible(self.xray and show_mesh)
