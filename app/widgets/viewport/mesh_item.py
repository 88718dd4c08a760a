"""The scene's skinned meshes in the viewport, deformed by the pose, shaded under the bones.

:class:`SkinnedMeshItem` draws one mesh with :data:`MESH_SHADER` from one interleaved float32
vertex buffer (position, normal) and an index buffer uploaded once (``glDrawElements``, so
llvmpipe's vertex cache shades each vertex once). A new pose is skinned into that buffer once,
at the next paint, on the graphics card (:mod:`app.widgets.viewport.gpu`: the bind-space
vertices, joints and weights uploaded once, then per pose only the skin matrices, and a
transform-feedback pass), or with :mod:`app.scene.rig.skinning` where the context cannot
(OpenGL below 3.1, OpenGL ES). Orbiting skins and uploads nothing. :class:`MeshLayer` keeps one
item per ``Scene.meshes`` entry (and a translucent one per mesh for Compare's ghost, sharing
its data on the card) and applies the View menu's choices: what is shown (:data:`MESH`,
:data:`BONES` or :data:`BOTH`) and X-ray, which draws the bones over the mesh (the depth
buffer is cleared just before the bones, so the bones still hide each other correctly).
The numpy skinning stays what framing, exports, picking and the tests read.
"""

from __future__ import annotations

import ctypes
import importlib

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.opengl import shaders
from pyqtgraph.Qt import QT_LIB, QtGui

from app.scene.rig.skinning import bind
from app.widgets.viewport.gl_batches import VertexArray
from app.widgets.viewport.gpu import skin_program
from app.widgets.viewport.gpu.gpu_skin import GPUSkin
from app.widgets.viewport.shading import LIGHTING

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
#: Bytes per vertex in the interleaved buffer: position (3 float32), then normal (3 float32).
STRIDE = 6 * 4

#: The lighting of :data:`app.widgets.viewport.shading.LIT` (key light from the viewer's upper
#: left, ambient and a rim, per fragment from the interpolated smooth normal), with the colour a
#: uniform instead of a per-vertex attribute: llvmpipe still carries a constant attribute
#: through every vertex, triangle setup and fragment (about a tenth of a 50k-vertex mesh's
#: drawing time). The pixels are the same (a test draws both).
MESH_SHADER = shaders.ShaderProgram(
    "pivotal_mesh",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            uniform mat3 u_normal;
            attribute vec4 a_position;
            attribute vec3 a_normal;
            varying vec3 v_normal;
            void main() {
                v_normal = normalize(u_normal * a_normal);
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            uniform vec4 u_color;
            varying vec3 v_normal;
            """
            + LIGHTING
            + """
            void main() {
                gl_FragColor = vec4(lit(u_color.rgb, v_normal), u_color.a);
            }
            """
        ),
    ],
)


def needs_glsl_es(context) -> bool:
    """Whether shaders must be compiled as GLSL ES 1.00 (pyqtgraph's ``es2_compat``).

    Only a core profile (macOS's OpenGL 4.1) refuses the legacy GLSL 1.10 our shaders are
    written in; pyqtgraph's own test, ``GL_ARB_ES2_compatibility``, is also true of Mesa's
    compatibility profile, where the ES dialect makes llvmpipe draw the 50k-vertex mesh about
    1.3× slower (docs/performance.md, "Skinned mesh").
    """
    core = QtGui.QSurfaceFormat.OpenGLContextProfile.CoreProfile
    return context.format().profile() == core and context.hasExtension(b"GL_ARB_ES2_compatibility")


class SkinnedMeshItem(gl.GLGraphicsItem.GLGraphicsItem):
    """One skinned mesh; :meth:`set_pose` gives it a pose, the next paint skins and draws it.

    The mesh is drawn with :data:`MESH_SHADER` from one ``(V, 6)`` float32 vertex buffer
    (position, normal) and an index buffer uploaded once. A new pose is skinned into that
    buffer once, at the next paint: on the card when the context can
    (:mod:`app.widgets.viewport.gpu`: only the palette is uploaded), else with numpy into
    :attr:`vertices` and uploaded whole. Orbiting skins and uploads nothing.

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
    gpu : GPUSkin, optional
        The mesh's data on the card (shared with the other item of the same mesh); made
        here when not given.
    """

    def __init__(
        self,
        skinning,
        indices,
        color=MESH_COLOR,
        ghost: bool = False,
        double_sided: bool = False,
        gpu: GPUSkin | None = None,
        parentItem=None,
    ):
        super().__init__(parentItem=parentItem)
        if ghost:
            self.setGLOptions(GHOST_OPTIONS)
        else:
            self.setGLOptions(DOUBLE_SIDED_OPTIONS if double_sided else SOLID_OPTIONS)
        self.skinning = skinning
        self.gpu = gpu if gpu is not None else GPUSkin(skinning)
        self._indices = np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1)
        self._color = tuple(float(c) for c in color)
        #: numpy's skinning of the pose, (V, 6) float32 (position, normal): what is uploaded
        #: without skinning on the card, and what :attr:`positions` reads.
        self.vertices = np.empty((skinning.vertex_count, 6), dtype=np.float32)
        self.vertices[:, :3] = skinning.positions
        self.vertices[:, 3:] = skinning.normals
        self._bone_to_world = None  # the pose shown, (B, 4, 4)
        self._on_cpu = True  # self.vertices holds the skinning of that pose
        self._dirty = True
        self.uploads = 0  # buffer writes so far (allocations, rewrites, skinning passes)
        self.allocations = 0  # of which (re)allocations of the vertex buffer
        self.skinned_on_card = 0  # poses skinned on the card so far
        self._locations = None  # (program, a_position, a_normal, u_mvp, u_normal, u_color)
        self._vao = VertexArray()
        buffer = QtOpenGL.QOpenGLBuffer
        self._vbo = buffer(buffer.Type.VertexBuffer)
        self._vbo.setUsagePattern(buffer.UsagePattern.DynamicDraw)
        self._ibo = buffer(buffer.Type.IndexBuffer)

    def _skinned_on_cpu(self) -> np.ndarray:
        if not self._on_cpu:
            self.skinning.deform(
                self._bone_to_world, out=(self.vertices[:, :3], self.vertices[:, 3:])
            )
            self._on_cpu = True
        return self.vertices

    @property
    def positions(self) -> np.ndarray:
        """The deformed vertices in world space, (V, 3) float32: numpy's skinning of the pose
        shown (what framing reads; the card draws the same to float32 rounding)."""
        return self._skinned_on_cpu()[:, :3]

    @property
    def normals(self) -> np.ndarray:
        """Their unit normals, (V, 3) float32, as :attr:`positions`."""
        return self._skinned_on_cpu()[:, 3:]

    def set_pose(self, bone_to_world) -> None:
        """Deform by ``bone_to_world`` (B, 4, 4), the skeleton's bones in bind order."""
        self._bone_to_world = np.array(bone_to_world, dtype=float)
        self._on_cpu = False
        self._dirty = True
        self.update()

    def drawn_vertices(self) -> np.ndarray:
        """The vertex buffer as the card holds it, (V, 6) float32 (read back: tests)."""
        view = self.view()
        if view is not None:
            view.makeCurrent()
        self._vbo.bind()
        try:
            data = GL.glGetBufferSubData(GL.GL_ARRAY_BUFFER, 0, self.vertices.nbytes)
        finally:
            self._vbo.release()
        return np.frombuffer(data, dtype=np.float32).reshape(-1, 6).copy()

    def _allocate(self, data=None) -> None:
        vbo = self._vbo
        if not vbo.isCreated():
            vbo.create()
        vbo.bind()
        if vbo.size() != self.vertices.nbytes:
            if data is None:
                vbo.allocate(self.vertices.nbytes)
            else:
                vbo.allocate(data, data.nbytes)
            self.allocations += 1
        elif data is not None:  # the same buffer, rewritten in place
            vbo.write(0, data, data.nbytes)
        vbo.release()
        if not self._ibo.isCreated():
            self._ibo.create()
            self._ibo.bind()
            self._ibo.allocate(self._indices, self._indices.nbytes)
            self._ibo.release()

    def _upload(self) -> None:
        if self._bone_to_world is not None and skin_program.supported():
            self._allocate()
            self.gpu.skin(self.gpu.palette(self._bone_to_world), self._vbo)
            self.skinned_on_card += 1
        else:  # numpy's skinning (or the bind pose), uploaded whole
            self._allocate(self._skinned_on_cpu())
        self.uploads += 1
        self._dirty = False

    def _program(self) -> tuple:
        """The shader program and its attribute and uniform locations, looked up once."""
        if self._locations is None:
            context = QtGui.QOpenGLContext.currentContext()
            program = MESH_SHADER.program(es2_compat=needs_glsl_es(context))
            self._locations = (
                program,
                *(GL.glGetAttribLocation(program, n) for n in ("a_position", "a_normal")),
                *(GL.glGetUniformLocation(program, n) for n in ("u_mvp", "u_normal", "u_color")),
            )
            self._vao.forget()
        return self._locations

    def paint(self):
        if not len(self._indices):
            return
        self.setupGLState()
        if self._dirty:
            self._upload()
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        normal = np.array(self.modelViewMatrix().normalMatrix().data(), dtype=np.float32)
        program, a_position, a_normal, u_mvp, u_normal, u_color = self._program()

        def setup():
            attributes = [
                (loc, offset) for loc, offset in ((a_position, 0), (a_normal, 12)) if loc != -1
            ]
            self._vbo.bind()
            for loc, offset in attributes:
                GL.glVertexAttribPointer(
                    loc, 3, GL.GL_FLOAT, False, STRIDE, ctypes.c_void_p(offset)
                )
                GL.glEnableVertexAttribArray(loc)
            self._vbo.release()
            self._ibo.bind()  # the element buffer is part of the vertex array's state
            return [loc for loc, _ in attributes]

        self._vao.bind(setup)
        self._ibo.bind()
        GL.glUseProgram(program)
        try:
            GL.glUniformMatrix4fv(u_mvp, 1, False, mvp)
            GL.glUniformMatrix3fv(u_normal, 1, False, normal)
            GL.glUniform4f(u_color, *self._color)
            GL.glDrawElements(GL.GL_TRIANGLES, self._indices.size, GL.GL_UNSIGNED_INT, None)
        finally:
            GL.glUseProgram(0)
            self._vao.release()
            self._ibo.release()
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
        self._clear.setVisible(False)  # until a mesh is shown
        self._meshes: tuple = ()
        self._names: tuple = ()
        self._names_of = None  # the bone names array ``_names_now`` was read from
        self._names_now: tuple = ()
        self._skinned = (None, None)
        self.items: list[SkinnedMeshItem] = []
        self.ghost_items: list[SkinnedMeshItem] = []
        self.skinned = 0  # poses given to the items so far (each skinned once, when drawn)

    def _rebuild(self, meshes, bone_names) -> None:
        view = self._root.view()
        if view is not None and view.isValid() and self.items:
            view.makeCurrent()  # to free what the card held for the meshes replaced
            for item in self.items:
                item.gpu.release()
        for item in self.items + self.ghost_items:
            item.setParentItem(None)
        self.items, self.ghost_items = [], []
        for mesh in meshes:
            skinning = bind(mesh, bone_names, dtype=np.float32)
            gpu = GPUSkin(skinning)  # one static buffer for the mesh and its ghost
            double = bool(mesh.extra.get("double_sided", False))
            solid = SkinnedMeshItem(
                skinning, mesh.indices, double_sided=double, gpu=gpu, parentItem=self._root
            )
            solid.setDepthValue(-3)  # before the grid (which it hides) and the bones
            ghost = SkinnedMeshItem(
                skinning, mesh.indices, GHOST_MESH_COLOR, ghost=True, gpu=gpu, parentItem=self._root
            )
            ghost.setDepthValue(-2)  # right after the solid mesh (see GHOST_OPTIONS)
            self.items.append(solid)
            self.ghost_items.append(ghost)

    def _pose(self, item, pose) -> None:
        item.set_pose(pose.bone_to_world[0])
        self.skinned += 1

    def drawn_points(self) -> np.ndarray:
        """World positions of the vertices of the meshes shown, (N, 3) (for framing)."""
        shown = [item.positions for item in self.items + self.ghost_items if item.visible()]
        return np.concatenate(shown).astype(float) if shown else np.zeros((0, 3))

    def draw(self, document, pose, ghost=None) -> None:
        """Skin every mesh to ``pose`` (and ``ghost``, Compare's other space, or ``None``)
        and show what the display choices ask for."""
        meshes = tuple(document.scene.meshes)
        if not meshes and not self._meshes:
            return  # nothing skinned, nothing to show or hide (a frame of the crowd)
        if pose.bone_names is not self._names_of:  # one array per timeline: read it once
            self._names_of = pose.bone_names
            self._names_now = tuple(str(n) for n in pose.bone_names)
        names = self._names_now
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
                self._pose(item, pose)
        for item in self.ghost_items:
            item.setVisible(show_mesh and ghost is not None)
            if show_mesh and ghost is not None and fresh:
                self._pose(item, ghost)
        self._skinned = (pose, ghost) if show_mesh else (None, None)
        self._bones.setVisible(show_bones)
        if not show_bones:
            self._ghost_bones.setVisible(False)
        self._clear.setVisible(self.xray and show_mesh)
