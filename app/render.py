"""Rendering the editor to a PNG without a person at the screen (``main.py screenshot``)."""

from __future__ import annotations

from pathlib import Path


def render_screenshot(scene_path, out_path, frame=None, size=(1280, 800)) -> str:
    """Open ``scene_path`` in the main window, render it, save the window as a PNG.

    Needs an X display with OpenGL (Xvfb and Mesa's llvmpipe will do).

    Returns
    -------
    str
        The absolute path of the PNG.

    Raises
    ------
    ValueError
        If the scene cannot be loaded (a :class:`~app.scene.errors.SceneError`) or the
        image cannot be written.
    """
    from app.application import application, has_display
    from app.document import Document
    from app.main_window import MainWindow

    if not has_display():
        raise ValueError("no display to render on; run under xvfb-run")
    app = application()
    document = Document.from_file(scene_path)
    if frame is not None:
        document.set_frame(frame)
    window = MainWindow(document)
    window.resize(*size)
    window.show()
    for _ in range(5):
        app.processEvents()
    image = window.grab().toImage()
    out = Path(out_path).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out)):
        raise ValueError(f"{out}: cannot write the PNG")
    window.close()
    return str(out)
