"""The viewport's OpenGL view as a window of its own inside a widget, outside Qt's
composition of the widgets.

Why: a ``QOpenGLWidget`` (pyqtgraph's ``GLViewWidget``) draws into a texture that Qt then
composes with every other widget of the window through OpenGL, every frame, and any raster
widget repainting in the same frame (the timeline's spin box while playing) makes it upload
the viewport's rectangle again. On Mesa's llvmpipe that composition of a 1280×800 window
costs about 10 ms of processor time a frame before anything is drawn (docs/performance.md,
"The viewport out of the composition"). A ``QWindow`` with its own ``QOpenGLContext``,
embedded with ``QWidget.createWindowContainer``, swaps straight to its own native window;
the rest of the window is composed in raster as if no OpenGL were there.

:class:`GLSurface` is pyqtgraph's ``GLViewMixin`` (camera, items, drawing) on such a window.
It draws when asked (any number of requests before the event loop runs give one frame), when
exposed, and into an offscreen framebuffer for :meth:`GLView.grabFramebuffer`. It is
transparent for input (``Qt.WindowTransparentForInput``): the window system hands every mouse
event to the window under it, so the widget that holds it gets them as any widget does, and
focus, shortcuts, cursors and events that tests send to the widget behave as before.

:class:`GLView` is that widget, the one the rest of the application knows: it offers the
``GLViewWidget`` calls the viewport uses (camera, items, ``grabFramebuffer``,
``frameSwapped``, ``makeCurrent``), forwards them to the surface, and runs pyqtgraph's
orbit, pan and zoom on the surface from its own mouse, wheel and key events.

What cannot stay a plain child widget: anything drawn over the view (the modal transform's
header) lies under the native window unless it has a native window of its own, stacked
above; :meth:`GLView.overlay` gives it one. Such an overlay is opaque (no window system
composition blends it over the view).
"""

from __future__ import annotations

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl.GLViewWidget import GLViewMixin
from PySide6 import QtCore, QtGui, QtOpenGL, QtWidgets

#: The event a surface posts to itself to draw the next frame (once per batch of requests),
#: at low priority as Qt's own update requests (input events first).
_RENDER = QtCore.QEvent.Type(QtCore.QEvent.registerEventType())
_LOW = QtCore.Qt.EventPriority.LowEventPriority.value


def surface_format() -> QtGui.QSurfaceFormat:
    """The application's default format with the depth and stencil buffers a
    ``QOpenGLWidget``'s framebuffer has (24 and 8 bits)."""
    fmt = QtGui.QSurfaceFormat(QtGui.QSurfaceFormat.defaultFormat())
    fmt.setDepthBufferSize(24)
    fmt.setStencilBufferSize(8)
    return fmt


class GLSurface(GLViewMixin, QtGui.QWindow):
    """pyqtgraph's camera and item tree drawn into a native window with its own context.

    Parameters
    ----------
    paint : callable
        Draws one frame with the context current and the viewport set (the host's
        ``paintGL``).
    """

    #: A frame was drawn and swapped to the screen.
    frameSwapped = QtCore.Signal()

    def __init__(self, paint):
        super().__init__()
        self._paint = paint
        self._host = None
        self._context: QtGui.QOpenGLContext | None = None
        self._initialized = False
        self._pending = False
        self._adopted = False
        #: Frames drawn and swapped so far.
        self.frames = 0
        self.setSurfaceType(QtGui.QSurface.SurfaceType.OpenGLSurface)
        self.setFlag(QtCore.Qt.WindowType.WindowTransparentForInput, True)
        self.setFormat(surface_format())

    def set_host(self, host) -> None:
        """The widget whose :meth:`~GLView.update` a camera move or an item calls."""
        self._host = host

    # --- what pyqtgraph's mixin asks of a QOpenGLWidget -------------------------------------

    def devicePixelRatioF(self) -> float:
        return float(self.devicePixelRatio())

    def context(self) -> QtGui.QOpenGLContext | None:
        return self._context

    def isValid(self) -> bool:
        """Whether the context exists and the items were initialized in it."""
        return self._initialized

    def update(self) -> None:
        """Redraw soon (pyqtgraph calls this after every camera move and item change);
        the host's ``update`` also lays out its labels and gizmos."""
        host = getattr(self, "_host", None)
        if host is not None:
            host.update()
        else:
            self.request_frame()

    def makeCurrent(self) -> bool:
        """Make the context current on this window (creating both the first time)."""
        if self._context is None:
            self.create()  # the native window (nothing if it exists)
            context = QtGui.QOpenGLContext(self)
            context.setShareContext(QtGui.QOpenGLContext.globalShareContext())
            context.setFormat(self.requestedFormat())
            if not context.create():
                raise RuntimeError("cannot create an OpenGL context for the viewport")
            self._context = context
        if not self._context.makeCurrent(self):
            return False
        if not self._initialized:
            self._initialized = True
            self.initializeGL()
        return True

    def doneCurrent(self) -> None:
        if self._context is not None:
            self._context.doneCurrent()

    # --- frames ---------------------------------------------------------------------------

    def request_frame(self) -> None:
        """Draw a frame when the event loop next runs (once for many requests)."""
        if not getattr(self, "_pending", True):
            self._pending = True
            QtCore.QCoreApplication.postEvent(self, QtCore.QEvent(_RENDER), _LOW)

    def event(self, ev) -> bool:
        if ev.type() == _RENDER:
            self._pending = False
            self.render()
            return True
        return super().event(ev)

    def exposeEvent(self, ev) -> None:
        parent = self.parent()
        if parent is not None and not self._adopted:
            # The container set this window's parent (in C++) and deletes it with itself;
            # the same parent, set again from Python, tells Python so (else Python would
            # delete it first at exit, under the container's feet).
            QtCore.QObject.setParent(self, parent)
            self._adopted = True
        if self.isExposed():  # shown, or uncovered: the window system kept nothing of it
            self.render()

    def resizeEvent(self, ev) -> None:
        self.request_frame()

    def _device_size(self) -> tuple[int, int]:
        ratio = self.devicePixelRatio()
        return max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))

    def render(self) -> None:
        """Draw a frame now and swap it to the screen (nothing while not exposed)."""
        if not self.isExposed() or not self.makeCurrent():
            return
        GL.glViewport(0, 0, *self._device_size())
        self._paint()
        self._context.swapBuffers(self)
        self.frames += 1
        self.frameSwapped.emit()

    def grab(self) -> QtGui.QImage:
        """A frame drawn now into an offscreen framebuffer of the window's size, as an
        opaque ``Format_RGB32`` image (as ``QOpenGLWidget.grabFramebuffer`` gives it)."""
        if not self.makeCurrent():
            return QtGui.QImage()
        width, height = self._device_size()
        attachment = QtOpenGL.QOpenGLFramebufferObject.Attachment.CombinedDepthStencil
        fbo = QtOpenGL.QOpenGLFramebufferObject(width, height, attachment)
        fbo.bind()
        try:
            GL.glViewport(0, 0, width, height)
            self._paint()
            GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 4)
            data = GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
        finally:
            fbo.release()
        rgba = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 4)[::-1]
        bgra = np.empty_like(rgba)
        bgra[..., 0], bgra[..., 1], bgra[..., 2] = rgba[..., 2], rgba[..., 1], rgba[..., 0]
        bgra[..., 3] = 255  # the window has no alpha: what is shown is opaque
        image = QtGui.QImage(
            bgra.data, width, height, 4 * width, QtGui.QImage.Format.Format_RGB32
        ).copy()
        image.setDevicePixelRatio(self.devicePixelRatio())
        return image


class GLView(QtWidgets.QWidget):
    """A widget showing a :class:`GLSurface`, with the ``GLViewWidget`` calls the viewport
    makes (subclass it as one would ``GLViewWidget``; override :meth:`paintGL` and call the
    base to draw the items)."""

    #: A frame was drawn and swapped to the screen (``QOpenGLWidget.frameSwapped``).
    frameSwapped = QtCore.Signal()

    def __init__(self, parent=None):
        # The container below is a native widget; its siblings (the main window's docks)
        # need not become native too (each would be a window menus must be transient for).
        QtCore.QCoreApplication.setAttribute(
            QtCore.Qt.ApplicationAttribute.AA_DontCreateNativeWidgetSiblings
        )
        super().__init__(parent)
        # The native window covers every pixel: nothing to paint or fill under it.
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        self._overlays: list[QtWidgets.QWidget] = []
        self.surface = GLSurface(self.paintGL)
        self.surface.set_host(self)
        self.surface.frameSwapped.connect(self.frameSwapped)
        self._container = QtWidgets.QWidget.createWindowContainer(self.surface, self)
        self._container.setObjectName("viewportSurface")
        # Mouse events are this widget's: the window system passes them through the surface
        # and the container to the window below, and those Qt delivers to the container
        # itself (a native widget: QTest's moves, say) are sent on here.
        self._container.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._container.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self._container.setMouseTracking(True)  # else Qt drops its hover moves unseen
        self._container.installEventFilter(self)

    # --- the camera and the items (pyqtgraph's GLViewWidget calls) -------------------------

    @property
    def opts(self) -> dict:
        """The camera: ``center``, ``distance``, ``fov``, ``elevation``, ``azimuth``..."""
        return self.surface.opts

    @property
    def items(self) -> list:
        return self.surface.items

    def addItem(self, item) -> None:
        self.surface.addItem(item)

    def removeItem(self, item) -> None:
        self.surface.removeItem(item)

    def orbit(self, azim: float, elev: float) -> None:
        self.surface.orbit(azim, elev)

    def pan(self, dx, dy, dz, relative="global") -> None:
        self.surface.pan(dx, dy, dz, relative)

    def setCameraPosition(self, **camera) -> None:
        self.surface.setCameraPosition(**camera)

    def cameraPosition(self):
        return self.surface.cameraPosition()

    def viewMatrix(self) -> QtGui.QMatrix4x4:
        return self.surface.viewMatrix()

    def projectionMatrix(self, region, viewport) -> QtGui.QMatrix4x4:
        return self.surface.projectionMatrix(region, viewport)

    def pixelSize(self, pos) -> float:
        return self.surface.pixelSize(pos)

    def setBackgroundColor(self, *args, **kwds) -> None:
        self.surface.setBackgroundColor(*args, **kwds)

    # --- the context and frames -------------------------------------------------------------

    def isValid(self) -> bool:
        return self.surface.isValid()

    def makeCurrent(self) -> bool:
        return self.surface.makeCurrent()

    def doneCurrent(self) -> None:
        self.surface.doneCurrent()

    def update(self) -> None:
        """Draw a new frame soon. The widget itself paints nothing (the surface covers it):
        no raster repaint, no composition."""
        self.surface.request_frame()

    def paintGL(self) -> None:
        """Draw the items (the viewport is set); the surface calls it for each frame."""
        GLViewMixin.paintGL(self.surface)

    def grabFramebuffer(self) -> QtGui.QImage:
        """The view drawn now (``Format_RGB32``, device pixels)."""
        return self.surface.grab()

    def overlay(self, widget: QtWidgets.QWidget) -> None:
        """Show child ``widget`` over the view: it gets a native window of its own, stacked
        above the surface's (a plain child would be painted under it)."""
        widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontCreateNativeAncestors)
        widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_NativeWindow)
        self._overlays.append(widget)

    def overlays(self) -> list[QtWidgets.QWidget]:
        """The widgets shown over the view (:meth:`overlay`), for pictures of the window."""
        return list(self._overlays)

    # --- events -----------------------------------------------------------------------------

    _MOUSE = frozenset(
        {
            QtCore.QEvent.Type.MouseButtonPress,
            QtCore.QEvent.Type.MouseMove,
            QtCore.QEvent.Type.MouseButtonRelease,
            QtCore.QEvent.Type.Wheel,
            QtCore.QEvent.Type.MouseButtonDblClick,
        }
    )

    def eventFilter(self, obj, ev) -> bool:
        if obj is self._container and ev.type() in self._MOUSE:
            # The container lies at (0, 0) with this widget's size: the same positions.
            QtWidgets.QApplication.sendEvent(self, ev)
            return True
        return super().eventFilter(obj, ev)

    def resizeEvent(self, ev) -> None:
        self._container.setGeometry(self.rect())
        super().resizeEvent(ev)

    def paintEvent(self, ev) -> None:
        pass  # under the surface

    def mousePressEvent(self, ev) -> None:
        GLViewMixin.mousePressEvent(self.surface, ev)

    def mouseMoveEvent(self, ev) -> None:
        GLViewMixin.mouseMoveEvent(self.surface, ev)  # orbit (Ctrl: pan), middle: pan

    def mouseReleaseEvent(self, ev) -> None:
        GLViewMixin.mouseReleaseEvent(self.surface, ev)

    def wheelEvent(self, ev) -> None:
        GLViewMixin.wheelEvent(self.surface, ev)  # zoom (Ctrl: field of view)

    def keyPressEvent(self, ev) -> None:
        GLViewMixin.keyPressEvent(self.surface, ev)  # arrows orbit

    def keyReleaseEvent(self, ev) -> None:
        GLViewMixin.keyReleaseEvent(self.surface, ev)
