"""Rendering the editor to a PNG without a person at the screen (``main.py screenshot``)."""

from __future__ import annotations

from pathlib import Path


def render_screenshot(
    scene_path,
    out_path,
    frame=None,
    size=(1280, 800),
    space=None,
    compare=False,
    select=(),
    axes=False,
    viewport_only=False,
    show="both",
    xray=True,
    orbit=(0.0, 0.0),
    frame_selection=False,
) -> str:
    """Open ``scene_path`` in the main window, render it, save the window as a PNG.

    Needs an X display with OpenGL (Xvfb and Mesa's llvmpipe will do).

    Parameters
    ----------
    frame : float, optional
        The frame to show (default: the first).
    space : {"world", "object"}, optional
        The evaluation override (default: as authored).
    compare : bool
        Compare mode: the other space as a ghost, and the table of differences.
    select : sequence of str
        Names to select: a bone, a constraint, or ``constraint/pivot``.
    axes : bool
        Draw each bone's frame axes.
    viewport_only : bool
        Save only the viewport instead of the whole window.
    show : {"both", "mesh", "bones"}
        What to draw of a scene with skinned meshes.
    xray : bool
        Draw the bones over the meshes.
    orbit : (float, float)
        Degrees to turn the camera (azimuth, elevation) after framing everything.
    frame_selection : bool
        Point the camera at the selection (F) instead of everything.

    Returns
    -------
    str
        The absolute path of the PNG.

    Raises
    ------
    ValueError
        If the scene cannot be loaded (a :class:`~app.scene.errors.SceneError`), a name to
        select does not exist, or the image cannot be written.
    """
    from app.editor.document import Document
    from app.scene.rig.editing import Ref
    from app.window.main_window import MainWindow
    from app.window.qt_app import application, has_display

    if not has_display():
        raise ValueError("no display to render on; run under xvfb-run")
    app = application()
    document = Document.from_file(scene_path)
    if frame is not None:
        document.set_frame(frame)
    document.set_space(space)
    refs = []
    for name in select:
        constraint, _, pivot = name.partition("/")
        if pivot:
            refs.append(Ref.pivot_of(constraint, pivot))
        elif name in document.scene.bone_names():
            refs.append(Ref.bone(name))
        elif name in [c.name for c in document.scene.constraints]:
            refs.append(Ref.constraint(name))
        else:
            raise ValueError(f"--select {name!r}: no bone, constraint or pivot of that name")
    document.set_selection(refs)
    window = MainWindow(document, restore_settings=False)
    window.resize(*size)
    window.show()
    document.set_compare(compare)
    window.actions_by_name["boneAxes"].setChecked(axes)
    choice = {"both": "showBoth", "mesh": "showMesh", "bones": "showBones"}.get(show)
    if choice is None:
        raise ValueError(f"show must be both, mesh or bones, not {show!r}")
    window.actions_by_name[choice].trigger()
    window.actions_by_name["xray"].setChecked(xray)
    for _ in range(10):
        app.processEvents()
    window.viewport.frame_all()
    if frame_selection:
        window.viewport.frame_selection()
    window.viewport.orbit(float(orbit[0]), float(orbit[1]))
    for _ in range(10):
        app.processEvents()
    from app.window.image_export import viewport_image

    image = viewport_image(window.viewport) if viewport_only else window_image(window)
    out = Path(out_path).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out)):
        raise ValueError(f"{out}: cannot write the PNG")
    window.autosaver.stop()
    window.close()
    return str(out)


def window_image(window):
    """The whole window as the user sees it, as a ``QImage``.

    ``QWidget.grab()`` composes the window but not the OpenGL viewport's own framebuffer, nor
    the labels drawn over it: both are painted in at the viewport's place.
    """
    from PySide6 import QtCore, QtGui

    from app.window.image_export import viewport_image

    image = window.grab().toImage()
    painter = QtGui.QPainter(image)
    at = window.viewport.mapTo(window, QtCore.QPoint(0, 0))
    painter.drawImage(QtCore.QRect(at, window.viewport.size()), viewport_image(window.viewport))
    painter.end()
    return image
