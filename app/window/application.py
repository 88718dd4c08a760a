"""Starting the editor: the window on a scene, or the error that stops it; and the window
started without a person at the screen to render a screenshot (``main.py screenshot``)."""

from __future__ import annotations

import os
import sys

from PySide6 import QtCore

from app.window.qt_app import application, has_display


def first_window(document):
    """The main window on ``document``, shown: with the saved layout and geometry, else
    fitted to the screen's available area (frame included)."""
    from app.window.layout import fit_to_screen
    from app.window.main_window import MainWindow

    window = MainWindow(document)
    if not window.restored_geometry:
        fit_to_screen(window)
    window.show()
    return window


def run_editor(path: str, play: bool = False, animation: str | None = None) -> int:
    """Open the editor on ``path``; exit status of the event loop (2 on bad input).

    ``play`` starts playback (looping) once the window is up: the demo scene plays.
    ``animation`` names a glTF animation or FBX take. What the file says about itself (the
    other animations it holds, ...) goes to standard error and the status bar.
    """
    if not has_display():
        print(
            "main.py: no display (DISPLAY is not set). To see the demo without a screen, run "
            "'xvfb-run -a python main.py screenshot --out demo.png', or 'make run', which "
            "does that for you.",
            file=sys.stderr,
        )
        return 2
    from app.editor.document import Document
    from app.scene.errors import SceneError

    app = application()
    try:
        document = Document.from_file(path, animation=animation)
    except SceneError as e:
        print(f"main.py: {e}", file=sys.stderr)
        return 2
    for message in document.scene.messages:
        print(f"main.py: {path}: {message}", file=sys.stderr)
    window = first_window(document)
    if window.files.shipped():  # the demo: say that Save keeps it as it is
        document.notify(f"{os.path.basename(path)}: {window.files.opened_note()}")
    elif document.scene.messages:
        document.notify(
            f"Opened {os.path.basename(path)} — " + "; ".join(map(str, document.scene.messages))
        )
    if not os.environ.get("PIVOTAL_EXIT_AFTER_FIRST_PAINT"):
        # After the window is up, offer what a crash left behind.
        def recover():
            if window.files.offer_recovery():
                window.autosaver.autosave()

        QtCore.QTimer.singleShot(0, recover)
    if play:
        QtCore.QTimer.singleShot(300, document.player.play)
    return app.exec()


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
    """``main.py screenshot``: open ``scene_path`` in the main window, render it with
    :mod:`app.window.render`, save the window (or its viewport) as a PNG, atomically.

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
    from pathlib import Path

    from app.editor.document import Document
    from app.scene.rig.refs import Ref
    from app.window.main_window import MainWindow
    from app.window.render import viewport_image, window_image, write_png

    if not has_display():
        raise ValueError("no display to render on; run under xvfb-run")
    app = application()
    document = Document.from_file(scene_path)
    if frame is not None:
        document.set_frame(frame)
    document.set_space(space)
    refs = []
    for name in select:
        constraint, _, part = name.partition("/")
        if part:  # a named part (a pivot) or an unnamed one by its word (a target)
            found = [
                Ref(word, constraint, named)
                for c in document.scene.constraints
                if c.name == constraint
                for word, named in c.parts()
                if part in (named, word)
            ]
            if constraint not in [c.name for c in document.scene.constraints]:
                raise ValueError(f"--select {name!r}: no constraint named {constraint!r}")
            if not found:
                raise ValueError(f"--select {name!r}: {constraint!r} has no part called {part!r}")
            refs.append(found[0])
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
    image = viewport_image(window.viewport) if viewport_only else window_image(window)
    out = Path(out_path).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    write_png(image, out)
    window.autosaver.stop()
    window.close()
    # Destroyed now, while the application lives (its GL window and context too), not at the
    # interpreter's exit, where the order is not ours (see render._Offscreen.close).
    window.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    return str(out)
