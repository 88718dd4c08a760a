"""Every bone of a pose in one set of vertex buffers: two draw calls, rewritten in place.

:class:`BoneMeshItem` draws the octahedral bones of :mod:`app.scene.analysis.bone_shapes`
(flat-lit faces and their outlines) from vertex buffers it owns. A new pose is written with
numpy into arrays kept between frames and copied into the same GL buffers
(``QOpenGLBuffer.write``); the buffers are reallocated only when the number of bones grows.
Colours are uploaded only when they change (playback mostly keeps them). The edge index
buffer depends on the bone count alone and is built once.

It replaces a ``GLMeshItem`` fed a new ``MeshData`` per frame, which rebuilt face normals,
face-indexed copies and edge lists in Python on every pose.
"""

from __future__ import annotations

import importlib

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.opengl import shaders
from pyqtgraph.Qt import QT_LIB

from app.scene.analysis.bone_shapes import _FACES
from app.widgets.viewport.bone_frames import face_corners
from app.widgets.viewport.gl_batches import VertexArray, _Context, bind_attributes

QtOpenGL = importlib.import_module(f"{QT_LIB}.QtOpenGL")

#: The 12 edges of one octahedron (vertex 0 the head, 5 the tail, 1..4 the ring).
_EDGES = np.array(
    [[0, 1], [0, 2], [0, 3], [0, 4], [5, 1], [5, 2], [5, 3], [5, 4], [1, 2], [2, 3], [3, 4], [4, 1]]
)
#: Each edge as two corners of the face-vertex array (24 corners per bone, face by face).
_EDGE_CORNERS = np.array(
    [
        [3 * f + list(face).index(a), 3 * f + list(face).index(b)]
        for a, b in _EDGES
        for f, face in enumerate(_FACES.tolist())
        if a in face and b in face
    ][::2]
)
_CORNERS = 24  # 8 faces x 3 corners per bone


def _buffer(kind=QtOpenGL.QOpenGLBuffer.Type.VertexBuffer):
    return QtOpenGL.QOpenGLBuffer(kind)


class BoneMeshItem(gl.GLGraphicsItem.GLGraphicsItem):
    """Octahedral bones from one position, normal and colour buffer.

    Parameters
    ----------
    shader : ShaderProgram
        The faces' program (attributes ``a_position``, ``a_normal``, ``a_color``; uniforms
        ``u_mvp``, ``u_normal``).
    edge_color : RGBA or None
        Outline colour; ``None`` draws no outlines.
    """

    def __init__(self, parentItem=None, shader=None, glOptions="opaque", edge_color=None):
        super().__init__(parentItem=parentItem)
        self.setGLOptions(glOptions)
        self._shader = shader
        self._edge_color = edge_color
        self._capacity = 0  # bones the host arrays and GL buffers hold
        self._count = 0  # bones drawn now
        self._positions = np.zeros((0, 3), np.float32)
        self._normals = np.zeros((0, 3), np.float32)
        self._colors = np.zeros((0, 4), np.float32)
        self._edges = np.zeros(0, np.uint32)
        self._vbo = {name: _buffer() for name in ("position", "normal", "color")}
        self._ibo = _buffer(QtOpenGL.QOpenGLBuffer.Type.IndexBuffer)
        self._dirty: set = set()
        self._locations = None
        self._face_vao = VertexArray()
        self._edge_vao = VertexArray()

    @property
    def count(self) -> int:
        """Bones drawn (those of non-zero length)."""
        return self._count

    def _reserve(self, bones: int) -> None:
        if bones <= self._capacity:
            return
        capacity = max(bones, 2 * self._capacity, 8)
        corners = _CORNERS * capacity
        self._positions = np.zeros((corners, 3), np.float32)
        self._normals = np.zeros((corners, 3), np.float32)
        self._colors = np.zeros((corners, 4), np.float32)
        offsets = _CORNERS * np.arange(capacity, dtype=np.uint32)
        self._edges = (_EDGE_CORNERS[None].astype(np.uint32) + offsets[:, None, None]).reshape(-1)
        self._capacity = capacity
        self._dirty = {"allocate"}

    def set_bones(self, heads, tails, colors) -> None:
        """Bones from world ``heads`` to ``tails`` (B, 3), RGBA ``colors`` (B, 4)."""
        self.set_shapes(*face_corners(heads, tails), colors)

    def set_shapes(self, corners, normals, bones, colors) -> None:
        """Bones already meshed (:func:`~app.widgets.viewport.bone_frames.face_corners`,
        or a frame of :class:`~app.widgets.viewport.bone_frames.TimelineShapes`): ``corners``
        and ``normals`` (24 M, 3), ``bones`` (M,) indexing the RGBA ``colors`` (B, 4)."""
        count = len(bones)
        self._reserve(count)
        n = _CORNERS * count
        np.copyto(self._positions[:n], corners, casting="same_kind")
        np.copyto(self._normals[:n], normals, casting="same_kind")
        bone_colors = np.asarray(colors, dtype=np.float32).reshape(-1, 4)[bones]
        drawn = self._colors[:n].reshape(-1, _CORNERS, 4)
        if count != self._count or not np.array_equal(drawn[:, 0], bone_colors):
            drawn[:] = bone_colors[:, None, :]
            self._dirty.add("color")
        self._dirty.update(("position", "normal"))
        self._count = count
        self.update()

    def _upload(self) -> None:
        allocate = "allocate" in self._dirty
        for name, array in (
            ("position", self._positions),
            ("normal", self._normals),
            ("color", self._colors),
        ):
            if not (allocate or name in self._dirty):
                continue
            vbo = self._vbo[name]
            if not vbo.isCreated():
                vbo.create()
            vbo.bind()
            if allocate:
                vbo.allocate(array, array.nbytes)
            else:  # the same buffer, only the bones drawn
                vbo.write(0, array, _CORNERS * self._count * array.shape[1] * 4)
            vbo.release()
        if allocate:
            if not self._ibo.isCreated():
                self._ibo.create()
            self._ibo.bind()
            self._ibo.allocate(self._edges, self._edges.nbytes)
            self._ibo.release()
        self._dirty.clear()

    def _programs(self):
        """(faces program, its locations), (edges program, its locations): looked up once
        per program, not per frame."""
        es2, _ = _Context.current()
        faces = self._shader.program(es2_compat=es2)
        edges = shaders.getShaderProgram(None).program(es2_compat=es2)
        if self._locations is None or self._locations[0] != (faces, edges):

            def where(program, names):
                return {n: GL.glGetAttribLocation(program, n) for n in names}

            self._locations = (
                (faces, edges),
                where(faces, ("a_position", "a_normal", "a_color")),
                GL.glGetUniformLocation(faces, "u_mvp"),
                GL.glGetUniformLocation(faces, "u_normal"),
                where(edges, ("a_position", "a_color")),
                GL.glGetUniformLocation(edges, "u_mvp"),
            )
            self._face_vao.forget()
            self._edge_vao.forget()
        return self._locations

    def paint(self):
        if self._count == 0:
            return
        self.setupGLState()
        if self._dirty:
            self._upload()
        (faces, edges), face_locs, u_mvp, u_normal, edge_locs, edge_mvp = self._programs()
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        normal = np.array(self.modelViewMatrix().normalMatrix().data(), dtype=np.float32)
        sizes = {"a_position": 3, "a_normal": 3, "a_color": 4}
        self._face_vao.bind(
            lambda: bind_attributes(
                {n: (self._vbo[n[2:]], sizes[n], loc) for n, loc in face_locs.items()}
            )
        )
        GL.glUseProgram(faces)
        GL.glUniformMatrix4fv(u_mvp, 1, False, mvp)
        GL.glUniformMatrix3fv(u_normal, 1, False, normal)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, _CORNERS * self._count)
        self._face_vao.release()
        if self._edge_color is None:
            GL.glUseProgram(0)
            return

        def edge_setup():
            enabled = bind_attributes(
                {"a_position": (self._vbo["position"], 3, edge_locs["a_position"])}
            )
            self._ibo.bind()  # the element buffer is part of the vertex array's state
            return enabled

        self._edge_vao.bind(edge_setup)
        self._ibo.bind()
        if edge_locs["a_color"] != -1:  # one colour: a constant attribute
            GL.glVertexAttrib4f(edge_locs["a_color"], *self._edge_color)
        GL.glUseProgram(edges)
        GL.glUniformMatrix4fv(edge_mvp, 1, False, mvp)
        GL.glDrawElements(GL.GL_LINES, 24 * self._count, GL.GL_UNSIGNED_INT, None)
        GL.glUseProgram(0)
        self._edge_vao.release()
        self._ibo.release()
