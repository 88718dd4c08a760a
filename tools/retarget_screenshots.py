"""The README's pictures of File ▸ Import Motion onto Character…: CMU's walk (``01_01.bvh``
of ``assimp-testmodels``) on a Mixamo-named character (the A-pose, centimetre character the
tests build, ``tests/helpers/retarget_judge.py``, with a skinned body of envelope tubes), the
dialog showing both maps while the clip plays as a ghost beside the character.

Run under a display (``xvfb-run -a -s "-screen 0 1600x1000x24" python
tools/retarget_screenshots.py``); writes ``docs/screenshots/retarget-import.png`` (the screen:
window and dialog) and ``docs/screenshots/retarget-walk.png`` (the viewport after Import, a
few frames into the walk, the character alone).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

from PySide6 import QtCore, QtGui  # noqa: E402

QtCore.QCoreApplication.setAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

import app.window.gl_checks  # noqa: E402, F401

OUT = ROOT / "docs" / "screenshots"
CLIP = Path("/usr/share/assimp/models/BVH/01_01.bvh")
FRAME = 700


def main() -> None:
    from app.editor.document import Document
    from app.scene.formats.gltf.export import write_meshes_glb
    from app.widgets.retarget.import_dialog import MotionImportDialog
    from app.window.main_window import MainWindow
    from app.window.qt_app import application
    from tests.helpers.retarget_judge import mixamo_body, mixamo_character

    qapp = application()
    character = mixamo_character()
    character.meshes = (mixamo_body(character, 9000),)
    path = ROOT / "build" / "mixamo_like.glb"
    path.parent.mkdir(exist_ok=True)
    write_meshes_glb(character, path)
    document = Document.from_file(path)
    window = MainWindow(document, restore_settings=False)
    window.setGeometry(0, 0, 1600, 1000)
    window.show()
    done = {}

    def open_dialog():
        dialog = MotionImportDialog(
            document, CLIP, window, window.actions_by_name["frameAnimation"].trigger
        )
        dialog.setGeometry(1000, 90, 590, 820)
        dialog.show()
        done["dialog"] = dialog
        QtCore.QTimer.singleShot(1200, hold)

    def hold():
        document.player.pause()
        document.set_frame(FRAME)
        window.actions_by_name["frameAnimation"].trigger()
        QtCore.QTimer.singleShot(800, shoot_import)

    def shoot_import():
        screen = QtGui.QGuiApplication.primaryScreen()
        screen.grabWindow(0).save(str(OUT / "retarget-import.png"))
        done["dialog"].accept()
        window.actions_by_name["showMesh"].trigger()
        document.set_frame(FRAME + 40)
        QtCore.QTimer.singleShot(800, shoot_walk)

    def shoot_walk():
        window.viewport.grabFramebuffer().save(str(OUT / "retarget-walk.png"))
        print(OUT / "retarget-import.png", OUT / "retarget-walk.png", flush=True)
        os._exit(0)  # the window has unsaved work: leave without asking

    QtCore.QTimer.singleShot(800, open_dialog)
    qapp.exec()


if __name__ == "__main__":
    main()
