"""Rendering without a person at the screen: the window or the viewport as PNG images.

One renderer for every picture Pivotal writes: ``main.py screenshot``
(:func:`render_screenshot`, the whole window or its viewport), File ▸ Export's viewport image
and PNG sequence (:func:`write_png`, :func:`write_sequence`, :func:`render_at`), and
``main.py export --format png|png-sequence`` (the writers :func:`register_formats` adds to
:data:`app.editor.export.FORMATS`, which open a viewport of the given size and frame the
skeleton, under Xvfb when there is no screen).

Writes are atomic (:mod:`app.scene.formats.atomic`): a PNG goes to a temporary file and is
renamed over the target; a sequence is written into a temporary folder next to the target
folder and its files are moved in only when every frame rendered, so a cancelled or failed
sequence leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.export import ExportCancelled, ExportFormat, ExportRequest, register
from app.scene.errors import SceneError
from app.scene.evaluate import default_frames
from app.scene.formats.atomic import write_atomic
from app.scene.words import plural

#: The size of an image rendered from the command line, unless ``--size`` says otherwise.
DEFAULT_SIZE = (1280, 720)


def viewport_image(viewport) -> QtGui.QImage:
    """What the viewport shows: its OpenGL framebuffer (the text labels are drawn into it)."""
    return viewport.grabFramebuffer()


def png_bytes(image: QtGui.QImage) -> bytes:
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise SceneError("cannot encode the image as PNG")
    buffer.close()
    return bytes(data.data())


def write_png(image: QtGui.QImage, path) -> None:
    """Write ``image`` to ``path`` as a PNG, atomically."""
    write_atomic(path, png_bytes(image))


def sequence_names(frames) -> list[str]:
    """File names of a sequence: ``frame_0012.png`` by frame number when every frame is
    whole (Blender's habit), else ``frame_0000.png``, ``frame_0001.png``... in order."""
    frames = np.asarray(frames, dtype=float)
    whole = np.all(frames == np.round(frames)) and len(np.unique(frames)) == len(frames)
    numbers = frames.astype(int) if whole else np.arange(len(frames))
    return [f"frame_{n:04d}.png" for n in numbers]


def write_sequence(render_frame, frames, out_dir, progress=None) -> list[Path]:
    """Render ``frames`` with ``render_frame(frame) -> QImage`` into folder ``out_dir``.

    ``progress(done, total) -> bool`` after each frame; False cancels. Files already in
    ``out_dir`` with other names are left alone; those with the same names are replaced.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ExportCancelled
        Nothing was written.
    SceneError
        The folder cannot be written (nothing was).
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise SceneError("is a file; a PNG sequence needs a folder", file=str(out_dir))
    parent = out_dir.parent
    if not parent.is_dir():
        raise SceneError("cannot write: No such file or directory", file=str(out_dir))
    names = sequence_names(frames)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=parent))
    except OSError as e:
        raise SceneError(f"cannot write: {e.strerror or e}", file=str(out_dir)) from None
    try:
        for k, (frame, name) in enumerate(zip(frames, names)):
            (tmp / name).write_bytes(png_bytes(render_frame(float(frame))))
            if progress is not None and progress(k + 1, len(names)) is False:
                raise ExportCancelled("export cancelled")
        out_dir.mkdir(exist_ok=True)
        written = []
        for name in names:
            os.replace(tmp / name, out_dir / name)
            written.append(out_dir / name)
        return written
    except OSError as e:
        raise SceneError(f"cannot write: {e.strerror or e}", file=str(out_dir)) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def render_at(viewport, document, frame: float) -> QtGui.QImage:
    """The viewport's image with ``document`` at ``frame`` (the camera stays)."""
    document.set_frame(frame)
    viewport.refresh()
    QtWidgets.QApplication.processEvents()
    return viewport_image(viewport)


# --- the command line's writers (app.editor.export.FORMATS) -------------------------------


def _size(request: ExportRequest) -> tuple[int, int]:
    size = request.options.get("size") or DEFAULT_SIZE
    width, height = (int(v) for v in size)
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise ValueError(f"--size must be between 16x16 and 8192x8192, got {width}x{height}")
    return width, height


class _Offscreen:
    """A viewport of the request's size on the request's scene, framed on the skeleton."""

    def __init__(self, request: ExportRequest, whole_motion: bool = False):
        from app.editor.document import Document
        from app.widgets.viewport.viewport import Viewport
        from app.window.qt_app import application, has_display

        if not has_display():
            raise ValueError(
                "--format png needs a display to render on; run under xvfb-run "
                "('xvfb-run -a python main.py export ...')"
            )
        self.app = application()
        size = _size(request)
        self.document = Document(request.scene)
        self.document.set_space(request.space)
        frames = default_frames(request.scene) if request.frames is None else request.frames
        self.frames = np.asarray(frames, dtype=float)
        self.document.set_frame(float(self.frames[0]))
        self.viewport = Viewport(self.document)
        self.viewport.set_follow(False)  # a still camera, framed below
        self.viewport.resize(*size)
        self.viewport.show()
        for _ in range(5):
            self.app.processEvents()
        self.viewport.frame_all()
        if whole_motion:  # every frame of the sequence in the picture, not only the first
            motion = self.document.evaluations.evaluate(self.frames, request.space)
            self.viewport.frame_points(
                np.concatenate([motion.heads.reshape(-1, 3), motion.tails.reshape(-1, 3)])
            )
        for _ in range(5):
            self.app.processEvents()

    def close(self) -> None:
        """Destroy the viewport (its GL window and context) and the document now, while the
        application lives: left to the interpreter's exit, they could be destroyed after it,
        and the process crashed there (a segmentation fault after the PNG was written, one
        run in a few on a loaded machine)."""
        self.viewport.close()
        self.viewport.deleteLater()
        self.document.deleteLater()
        # processEvents() does not run deferred deletions; this does.
        QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        self.app.processEvents()


def write_png_request(request: ExportRequest) -> list[str]:
    """The viewport at the first of ``request.frames`` (default: the first frame)."""
    view = _Offscreen(request)
    try:
        write_png(render_at(view.viewport, view.document, view.frames[0]), request.out)
    finally:
        view.close()
    notes = []
    if len(view.frames) > 1:
        notes.append(f"png is one image: frame {view.frames[0]:g} (use png-sequence for all)")
    return notes


def write_png_sequence_request(request: ExportRequest) -> list[str]:
    """The viewport at every frame of ``request.frames`` into folder ``request.out``."""
    view = _Offscreen(request, whole_motion=True)
    try:
        files = write_sequence(
            lambda f: render_at(view.viewport, view.document, f),
            view.frames,
            request.out,
            request.progress,
        )
    finally:
        view.close()
    return [f"{plural(len(files), 'image')} in {request.out}"]


def register_formats() -> None:
    """Add ``png`` and ``png-sequence`` to :data:`app.editor.export.FORMATS` (the window
    does at start-up, ``main.py export`` before it reads ``--format``); again is harmless."""
    register(
        ExportFormat(
            "png", ".png", "the viewport as an image (needs a display or Xvfb)", write_png_request
        )
    )
    register(
        ExportFormat(
            "png-sequence",
            "",
            "the animation as numbered PNG images in a folder",
            write_png_sequence_request,
        )
    )


def window_image(window):
    """The whole window as the user sees it, as a ``QImage``.

    ``QWidget.grab()`` composes the window's widgets but not the OpenGL viewport (a window
    of its own) nor the labels drawn into it: its image is painted in at its place, then
    what shows over it (the modal transform's header), as on screen.
    """
    image = window.grab().toImage()
    painter = QtGui.QPainter(image)
    viewport = window.viewport
    at = viewport.mapTo(window, QtCore.QPoint(0, 0))
    painter.drawImage(QtCore.QRect(at, viewport.size()), viewport_image(viewport))
    painter.end()
    for child in viewport.overlays():
        if child.isVisible():
            child.render(image, child.mapTo(window, QtCore.QPoint(0, 0)))
    return image
