"""A child editor session for ``tests/widgets/test_kill.py``: it saves (File > Save As, through the
editor's FileController) or autosaves (the Autosaver) in a tight loop, with an edit before
each write, until it is killed.

    python -m tests.helpers.kill_child save|autosave SCENE OUT
"""

from __future__ import annotations

import sys


def main(mode: str, scene: str, out: str) -> None:
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication([])  # noqa: F841  (the widgets need it)
    from app.editor.document import Document
    from app.editor.files import FileController
    from app.editor.operations import key_operations
    from app.editor.recovery import Autosaver
    from app.scene.rig.refs import Ref

    document = Document.from_file(scene)
    files = FileController(QtWidgets.QWidget(), document)
    autosaver = Autosaver(document, interval_ms=10**8)  # PIVOTAL_RECOVERY_DIR names the place
    bones = document.scene.bone_names()
    n = 0

    def edit_and_write():
        nonlocal n
        document.set_frame(n % 97)
        key_operations.set_key(document, [Ref.bone(bones[n % len(bones)])])
        n += 1
        ok = files.save_as(out) if mode == "save" else autosaver.autosave()
        assert ok

    edit_and_write()  # one complete write before the parent starts its clock
    print("ready", flush=True)
    while True:
        edit_and_write()


if __name__ == "__main__":
    main(*sys.argv[1:4])
