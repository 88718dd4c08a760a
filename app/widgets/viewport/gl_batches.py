"""Points and line segments of one kind in one vertex buffer set, one draw call, rewritten
in place.

:class:`PointSprites` draws round screen-space points (joints, handles with their outline,
trail dots) as ``GL_POINTS`` sprites: the fill, an outline ring and each point's size come
from per-vertex attributes, so a handle's outline and fill are one sprite (pyqtgraph drew
them as two scatter items). :class:`SegmentLines` draws ``GL_LINES`` (or a strip) with a
colour per vertex (the ground grid, axes, guides, trails).

Both keep host arrays (float32) and GL buffers between frames: :meth:`setData` writes into
the same arrays with numpy and the next paint copies the rows drawn into the same buffers
(``QOpenGLBuffer.write``). Arrays and buffers are reallocated only when the count grows
past their capacity (doubling), and an attribute that did not change (most colours and
sizes during playback) is not uploaded. ``setData`` takes pyqtgraph's keywords (``pos``,
``color``, ``size``) so the items replace ``GLScatterPlotItem``/``GLLinePlotItem`` where
they were.

The shader programs and their attribute and uniform locations are looked up once per
program, not per frame; the GL state is set from a list made once.

One idea: one kind of point or segment in one buffer set, one draw call.
"""

from __future__ import annotations

import importlib

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.opengl import shaders
from pyqtgraph.opengl.items.GLScatterPlotItem import _is_compatibility_profile
from pyqtgraph.Qt import QT_LIB, QtGui

QtOpenGL = importlib.import_module(f"{QT_LIB}.QtOpenGL")

_POINTS = shaders.ShaderProgram(
    "pivotal_points",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            attribute vec4 a_position;
            attribute vec4 a_color;
            attribute vec4 a_edge;
            attribute vec2 a_size;
            varying vec4 v_color;
            varying vec4 v_edge;
            varying float v_inner;
            void main() {
                gl_Position = u_mvp * a_position;
                float diameter = a_size.x + 2.0 * a_size.y;
                gl_PointSize = diameter;
                v_inner = a_size.x / max(diameter, 1e-6);
                v_color = a_color;
                v_edge = a_edge;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            varying vec4 v_color;
            varying vec4 v_edge;
            varying float v_inner;
            void main() {
                vec2 xy = (gl_PointCoord - 0.5) * 2.0;
                float r2 = dot(xy, xy);
                if (r2 > 1.0) discard;
                gl_FragColor = r2 <= v_inner * v_inner ? v_color : v_edge;
            }
            """
        ),
    ],
)

_LINES = shaders.ShaderProgram(
    "pivotal_lines",
    [
        shaders.VertexShader(
            """
            uniform mat4 u_mvp;
            attribute vec4 a_position;
            attribute vec4 a_color;
            varying vec4 v_color;
            void main() {
                v_color = a_color;
                gl_Position = u_mvp * a_position;
            }
            """
        ),
        shaders.FragmentShader(
            """
            #ifdef GL_ES
            precision mediump float;
            #endif
            varying vec4 v_color;
            void main() {
                gl_FragColor = v_color;
            }
            """
        ),
    ],
)

_BUFFER = QtOpenGL.QOpenGLBuffer.Type.VertexBuffer


class _Context:
    """Per-context facts read once: ES2 compatibility and whether the profile needs
    ``GL_POINT_SPRITE`` (a compatibility profile)."""

    _by_context: dict = {}

    @classmethod
    def current(cls) -> tuple[bool, bool]:
        context = QtGui.QOpenGLContext.currentContext()
        key = id(context.shareGroup())
        facts = cls._by_context.get(key)
        if facts is None:
            compat = not context.isOpenGLES() and _is_compatibility_profile(context)
            facts = (context.hasExtension(b"GL_ARB_ES2_compatibility"), compat)
            cls._by_context[key] = facts
        return facts


def gl_state(options) -> list:
    """The calls that set pyqtgraph-style ``glOptions`` (a dict), made once."""
    calls = []
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(key, str):
            calls.append((getattr(GL, key), tuple(value)))
        else:
            calls.append((GL.glEnable if value is True else GL.glDisable, (key,)))
    return calls


class _Batch(gl.GLGraphicsItem.GLGraphicsItem):
    """Host arrays and GL buffers of named float attributes, ``count`` vertices drawn."""

    #: attribute name -> components per vertex
    ATTRIBUTES: dict = {}
    PROGRAM: shaders.ShaderProgram = None

    def __init__(self, parentItem=None, glOptions="opaque"):
        super().__init__(parentItem=parentItem)
        self.setGLOptions(glOptions)
        self._state = gl_state(self._GLGraphicsItem__glOpts)
        self._capacity = 0
        self.count = 0
        self.host = {name: np.zeros((0, k), np.float32) for name, k in self.ATTRIBUTES.items()}
        self._vbo = {name: QtOpenGL.QOpenGLBuffer(_BUFFER) for name in self.ATTRIBUTES}
        self._held = dict.fromkeys(self.ATTRIBUTES, 0)  # vertices each GL buffer holds
        self._dirty: set = set()
        self._locations = None  # (program, {attribute: location}, u_mvp location)
        self._vao = VertexArray()
        #: Buffer (re)allocations so far, host and GL (tests check playback adds none).
        self.allocations = 0

    def setVisible(self, vis) -> None:
        """As pyqtgraph's, without asking the view to repaint when nothing changes (the
        scene drawing sets every item's visibility on every frame)."""
        if bool(vis) != self.visible():
            super().setVisible(vis)

    def setGLOptions(self, opts):
        super().setGLOptions(opts)
        self._state = gl_state(self._GLGraphicsItem__glOpts)

    def _reserve(self, n: int) -> None:
        if n <= self._capacity:
            return
        capacity = max(n, 2 * self._capacity, 16)
        for name, k in self.ATTRIBUTES.items():
            old = self.host[name]
            self.host[name] = np.zeros((capacity, k), np.float32)
            self.host[name][: len(old)] = old
        self._capacity = capacity
        self._dirty.update(self.ATTRIBUTES)  # every GL buffer must grow with them
        self.allocations += 1

    def _set_positions(self, pos) -> tuple[int, bool]:
        """Write ``pos`` (N, 3) into the position rows (growing the buffers if needed);
        returns ``N`` and whether it is more rows than were drawn (``count`` is the
        caller's to set)."""
        pos = np.asarray(pos, dtype=np.float32).reshape(-1, 3)
        n = len(pos)
        grew = n > self.count
        self._reserve(n)
        self.host["position"][:n] = pos
        self._dirty.add("position")
        return n, grew

    def _write(self, name: str, values, n: int, always: bool = True) -> None:
        """Rows ``:n`` of attribute ``name`` from ``values`` (broadcast), in place; marks it
        for upload if it changed (or ``always``)."""
        rows = self.host[name][:n]
        values = np.asarray(values, dtype=np.float32)
        if (
            not always
            and n <= self.count
            and np.array_equal(
                rows,
                np.broadcast_to(
                    values.reshape(-1, rows.shape[1]) if values.ndim else values, rows.shape
                ),
            )
        ):
            return
        rows[:] = values.reshape(-1, rows.shape[1]) if values.ndim else values
        self._dirty.add(name)

    def _upload(self) -> None:
        for name in self._dirty:
            vbo, array = self._vbo[name], self.host[name]
            if not vbo.isCreated():
                vbo.create()
            vbo.bind()
            if self._held[name] < self._capacity:
                vbo.allocate(array, array.nbytes)
                self._held[name] = self._capacity
                self.allocations += 1
            else:  # the same buffer: only the rows drawn
                vbo.write(0, array, self.count * array.shape[1] * 4)
            vbo.release()
        self._dirty.clear()

    def buffer_ids(self) -> dict:
        """GL buffer object ids by attribute (0 before the first paint)."""
        return {name: int(vbo.bufferId()) for name, vbo in self._vbo.items()}

    def _program(self):
        es2, _ = _Context.current()
        program = self.PROGRAM.program(es2_compat=es2)
        if self._locations is None or self._locations[0] != program:
            attrs = {name: GL.glGetAttribLocation(program, f"a_{name}") for name in self.ATTRIBUTES}
            self._locations = (program, attrs, GL.glGetUniformLocation(program, "u_mvp"))
            self._vao.forget()
        return self._locations

    def _draw(self, mode) -> None:
        for call, args in self._state:
            call(*args)
        if self._dirty:
            self._upload()
        program, attrs, u_mvp = self._program()
        self._vao.bind(
            lambda: bind_attributes(
                {name: (self._vbo[name], self.ATTRIBUTES[name], loc) for name, loc in attrs.items()}
            )
        )
        GL.glUseProgram(program)
        mvp = np.array(self.mvpMatrix().data(), dtype=np.float32)
        GL.glUniformMatrix4fv(u_mvp, 1, False, mvp)
        GL.glDrawArrays(mode, 0, self.count)
        GL.glUseProgram(0)
        self._vao.release()


def bind_attributes(attributes) -> list:
    """Point and enable float attributes ``{name: (QOpenGLBuffer, components, location)}``
    (location -1: not in the program); returns the locations enabled."""
    enabled = []
    for vbo, components, loc in attributes.values():
        if loc < 0:
            continue
        vbo.bind()
        GL.glVertexAttribPointer(loc, components, GL.GL_FLOAT, False, 0, None)
        vbo.release()
        GL.glEnableVertexAttribArray(loc)
        enabled.append(loc)
    return enabled


class VertexArray:
    """A vertex array object holding an item's attribute bindings, set up once (and again
    when the program changes), so a paint binds one object instead of pointing and enabling
    each attribute (PyOpenGL's ``glVertexAttribPointer`` wrapper alone is ~20 µs a call).

    Without VAO support (or in another context than the one it was made in) it points the
    attributes on every paint and disables them after, as pyqtgraph's items do.
    """

    def __init__(self):
        self._vao = None
        self._context = None
        self._ready = False
        self._enabled: list = []

    def forget(self) -> None:
        """The bindings must be made again (new program or locations)."""
        self._ready = False

    def bind(self, setup) -> None:
        """Bind, running ``setup() -> enabled locations`` when the bindings are not made."""
        context = QtGui.QOpenGLContext.currentContext()
        if self._vao is None or self._context is not context:
            self._vao = QtOpenGL.QOpenGLVertexArrayObject()
            self._vao.create()
            self._context, self._ready = context, False
        if not self._vao.isCreated():
            self._enabled = setup()
            return
        self._vao.bind()
        if not self._ready:
            setup()
            self._ready = True

    def release(self) -> None:
        if self._vao is not None and self._vao.isCreated():
            self._vao.release()
        else:
            for loc in self._enabled:
                GL.glDisableVertexAttribArray(loc)


class PointSprites(_Batch):
    """Round points of a size in pixels, optionally ringed by an outline.

    Parameters
    ----------
    size : float
        Default fill diameter in pixels.
    outline : float
        Outline width in pixels around the fill (0: none).
    """

    ATTRIBUTES = {"position": 3, "color": 4, "edge": 4, "size": 2}
    PROGRAM = _POINTS

    def __init__(
        self,
        parentItem=None,
        glOptions="opaque",
        size: float = 10.0,
        color=(1.0, 1.0, 1.0, 1.0),
        outline: float = 0.0,
    ):
        super().__init__(parentItem=parentItem, glOptions=glOptions)
        self._size = float(size)
        self._color = color
        self._outline = float(outline)

    def setData(self, pos=None, color=None, size=None, edge=None) -> None:
        """Points at ``pos`` (N, 3) with fill ``color`` (N, 4) or one RGBA, fill diameter
        ``size`` (N,) or one value, outline colour ``edge`` (N, 4) or one RGBA. Omitted
        attributes keep their values (their defaults for new points)."""
        if pos is not None:
            n, grew = self._set_positions(pos)
            if grew:  # new rows take the defaults until given
                self._write("color", self._color, n)
                self._write("size", (self._size, self._outline), n)
                self._write("edge", (0.0, 0.0, 0.0, 0.0), n)
            self.count = n
        n = self.count
        if color is not None:
            self._write("color", color, n, always=False)
        if size is not None:
            size = np.asarray(size, dtype=np.float32)
            sizes = np.empty((n, 2), np.float32) if size.ndim else None
            if sizes is None:
                self._write("size", (float(size), self._outline), n, always=False)
            else:
                sizes[:, 0] = size
                sizes[:, 1] = self._outline
                self._write("size", sizes, n, always=False)
        if edge is not None:
            self._write("edge", edge, n, always=False)
        self.update()

    def paint(self):
        if self.count == 0:
            return
        _, sprites = _Context.current()
        if sprites:
            GL.glEnable(GL.GL_POINT_SPRITE)
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        self._draw(GL.GL_POINTS)


class SegmentLines(_Batch):
    """Line segments (``mode="lines"``: pairs of vertices) or a strip, a colour per vertex.

    Parameters
    ----------
    width : float
        Line width in pixels.
    antialias : bool
        Smooth lines (``GL_LINE_SMOOTH``, blended). Under llvmpipe a smooth line costs
        several times an aliased one per pixel: the ground grid, which crosses the whole
        view, is drawn aliased.
    """

    ATTRIBUTES = {"position": 3, "color": 4}
    PROGRAM = _LINES

    def __init__(
        self,
        parentItem=None,
        glOptions="opaque",
        width: float = 1.0,
        antialias: bool = False,
        mode: str = "lines",
    ):
        super().__init__(parentItem=parentItem, glOptions=glOptions)
        self.width = float(width)
        self.antialias = bool(antialias)
        self._mode = GL.GL_LINE_STRIP if mode == "line_strip" else GL.GL_LINES

    def setData(self, pos=None, color=None) -> None:
        """Vertices ``pos`` (N, 3); ``color`` (N, 4) or one RGBA for all."""
        if pos is not None:
            n, grew = self._set_positions(pos)
            if grew and color is None:
                self._write("color", (1.0, 1.0, 1.0, 1.0), n)
            self.count = n
        if color is not None:
            self._write("color", color, self.count, always=False)
        self.update()

    def paint(self):
        if self.count == 0:
            return
        if self.antialias:
            GL.glEnable(GL.GL_LINE_SMOOTH)
            GL.glEnable(GL.GL_BLEND)
            GL.glBlendFuncSeparate(
                GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA, GL.GL_ONE, GL.GL_ONE_MINUS_SRC_ALPHA
            )
        if self.width != 1.0:
            GL.glLineWidth(self.width)
        self._draw(self._mode)
        if self.antialias:
            GL.glDisable(GL.GL_LINE_SMOOTH)
        if self.width != 1.0:
            GL.glLineWidth(1.0)
