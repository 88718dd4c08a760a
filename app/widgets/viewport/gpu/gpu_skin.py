"""A skinned mesh's data on the graphics card, and the pass that skins a pose into the
buffer the mesh is drawn from.

:class:`GPUSkin` uploads once what does not change from frame to frame: each vertex's bind
position and normal, its palette entries and weights (padded to 4 or 8 with weight 0) in one
static buffer. A pose is then only its palette, ``S[j] = bone_to_world[bone of j] @
inverse_bind[j]`` (48 bytes per joint, :meth:`GPUSkin.palette`, numpy's own
:meth:`~app.scene.rig.skinning.Skinning.skin_matrices`), written into a buffer texture, and
one draw of the vertices as points through :mod:`.skin_program` with the rasterizer off,
its outputs captured by transform feedback into the ``(V, 6)`` float32 position-and-normal
buffer the viewport draws (:meth:`GPUSkin.skin`).

The solid mesh and Compare's ghost of one mesh share one :class:`GPUSkin` (one static
buffer); each skins into its own buffer, one after the other.
"""

from __future__ import annotations

import ctypes

import numpy as np
from OpenGL import GL
from PySide6 import QtOpenGL

from app.widgets.viewport.gl_batches import VertexArray
from app.widgets.viewport.gpu.skin_program import influence_set, transform_program


class GPUSkin:
    """What the card needs to skin one mesh: its static buffer, its palette, the pass.

    Parameters
    ----------
    skinning : app.scene.rig.skinning.Skinning
        The mesh bound to the skeleton's bone order.

    Attributes
    ----------
    vertex_count : int
    influences : int
        The influence set the vertices are padded to (4 or 8).
    passes : int
        Skinning passes run so far.
    uploaded : int
        Bytes written to the card so far (the static buffer once, then palettes).
    """

    def __init__(self, skinning):
        self.skinning = skinning
        slots = np.asarray(skinning.slots)
        self.vertex_count, used = slots.shape
        self.influences = influence_set(used)
        identity = len(skinning.bone_of_joint)  # the palette's last entry
        joints = np.full((self.vertex_count, self.influences), identity, dtype=np.float32)
        weights = np.zeros((self.vertex_count, self.influences), dtype=np.float32)
        joints[:, :used], weights[:, :used] = slots, skinning.weights
        sets = [
            a
            for s in range(self.influences // 4)
            for a in (joints[:, 4 * s : 4 * s + 4], weights[:, 4 * s : 4 * s + 4])
        ]
        columns = [skinning.positions, skinning.normals, *sets]
        self._static = np.ascontiguousarray(np.concatenate(columns, axis=1), dtype=np.float32)
        self.palette_rows = identity + 1
        self._buffers = None  # (static buffer, palette buffer, palette texture)
        self._vao = VertexArray()
        self._locations = None  # (program, u_palette, [(location, components, offset)])
        self.passes = 0
        self.uploaded = 0

    def palette(self, bone_to_world) -> np.ndarray:
        """The skin matrices of a pose, ``(J + 1, 3, 4)`` float32 (last: the identity).

        Parameters
        ----------
        bone_to_world : ndarray, shape (B, 4, 4)
            The skeleton's bones in the order the mesh was bound to.
        """
        return np.ascontiguousarray(self.skinning.skin_matrices(bone_to_world)[0], dtype=np.float32)

    def _make_buffers(self):
        buffer = QtOpenGL.QOpenGLBuffer
        static = buffer(buffer.Type.VertexBuffer)
        static.create()
        static.bind()
        static.allocate(self._static, self._static.nbytes)
        static.release()
        palette = buffer(buffer.Type.VertexBuffer)
        palette.setUsagePattern(buffer.UsagePattern.DynamicDraw)
        palette.create()
        palette.bind()
        palette.allocate(self.palette_rows * 48)
        palette.release()
        texture = int(GL.glGenTextures(1))  # a name: the storage is the palette buffer's
        GL.glBindTexture(GL.GL_TEXTURE_BUFFER, texture)
        GL.glTexBuffer(GL.GL_TEXTURE_BUFFER, GL.GL_RGBA32F, palette.bufferId())
        GL.glBindTexture(GL.GL_TEXTURE_BUFFER, 0)
        self.uploaded += self._static.nbytes
        return static, palette, texture

    def release(self) -> None:
        """Free what the card holds (the context current, or one sharing with it)."""
        if self._buffers is not None:
            static, palette, texture = self._buffers
            GL.glDeleteTextures([texture])
            static.destroy()
            palette.destroy()
            self._buffers = None
            self._vao = VertexArray()

    def _program(self):
        program = transform_program(self.influences)
        if self._locations is None or self._locations[0] != program:
            offsets = [("a_position", 3, 0), ("a_normal", 3, 12)]
            for s in range(self.influences // 4):
                offsets += [(f"a_joints{s}", 4, 24 + 32 * s), (f"a_weights{s}", 4, 40 + 32 * s)]
            attributes = [
                (GL.glGetAttribLocation(program, name), n, offset) for name, n, offset in offsets
            ]
            self._locations = (
                program,
                GL.glGetUniformLocation(program, "u_palette"),
                [a for a in attributes if a[0] >= 0],
            )
            self._vao.forget()
        return self._locations

    def skin(self, palette: np.ndarray, out) -> None:
        """Skin the vertices by ``palette`` (:meth:`palette`) into buffer ``out``
        (a ``QOpenGLBuffer`` of ``V * 24`` bytes): world position, then unit normal, float32.

        The context must be current (a paint), and :func:`.skin_program.supported`."""
        if self._buffers is None:
            self._buffers = self._make_buffers()
        static, palette_buffer, texture = self._buffers
        palette_buffer.bind()
        palette_buffer.write(0, palette, palette.nbytes)
        palette_buffer.release()
        self.uploaded += palette.nbytes
        program, u_palette, attributes = self._program()
        stride = self._static.shape[1] * 4

        def setup():
            static.bind()
            for loc, components, offset in attributes:
                GL.glVertexAttribPointer(
                    loc, components, GL.GL_FLOAT, False, stride, ctypes.c_void_p(offset)
                )
                GL.glEnableVertexAttribArray(loc)
            static.release()
            return [a[0] for a in attributes]

        self._vao.bind(setup)
        GL.glUseProgram(program)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_BUFFER, texture)
        GL.glUniform1i(u_palette, 0)
        GL.glEnable(GL.GL_RASTERIZER_DISCARD)
        GL.glBindBufferBase(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.bufferId())
        GL.glBeginTransformFeedback(GL.GL_POINTS)
        GL.glDrawArrays(GL.GL_POINTS, 0, self.vertex_count)
        GL.glEndTransformFeedback()
        GL.glBindBufferBase(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0)
        GL.glDisable(GL.GL_RASTERIZER_DISCARD)
        GL.glBindTexture(GL.GL_TEXTURE_BUFFER, 0)
        GL.glUseProgram(0)
        self._vao.release()
        self.passes += 1
