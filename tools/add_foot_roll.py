"""The worked example, scripted: open the glTF humanoid, build the foot-roll rig (Rig ▸ Foot
Roll Rig…) on both legs, key the left foot's roll with the editor's own operations, save the
scene, export it back to glTF.

Each step is what the "Bring your own character" tutorial does by hand (the Rig menu, the
inspector, K); every one of them is an undoable command on the document.

    python tools/add_foot_roll.py [--glb resources/scenes/humanoid.glb]
        [--scene /tmp/humanoid_foot_roll.json] [--out /tmp/humanoid_rolled.glb]
        [--space world|object]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.editor.document import Document  # noqa: E402
from app.editor.export import ExportRequest, format_for, run_export  # noqa: E402
from app.editor.operations import key_operations  # noqa: E402
from app.editor.operations.rig_operations import add_foot_roll_rig, suggested_leg  # noqa: E402
from app.scene.io import save_scene  # noqa: E402
from app.scene.rig.refs import Ref  # noqa: E402

GLB = ROOT / "resources" / "scenes" / "humanoid.glb"
SCENE = Path("/tmp/humanoid_foot_roll.json")
#: pivot name, keys (frame, degrees about the control's own X, object space): the heel rises
#: about the ball, the foot goes on tiptoe about the toe tip, comes down the same way (one
#: pivot turning at a time, so the foot lands where it stood), and lifts its toes about the
#: heel.
KEYS = (
    ("heel", ((34, 0), (40, -14), (46, 0))),
    ("ball", ((2, 0), (12, 28), (30, 28), (34, 0))),
    ("toe", ((12, 0), (18, 12), (26, 12), (30, 0))),
)


def _about_x(degrees: float) -> tuple:
    half = np.radians(degrees) / 2
    return (float(np.cos(half)), float(np.sin(half)), 0.0, 0.0)


def add_foot_roll(document) -> str:
    """Build the foot-roll rig on both legs of ``document`` (its scene the humanoid), one
    undo step each, and key the left control's pivots; returns the left roll's name."""
    rolls = {}
    for side in ("right", "left"):
        rolls[side] = add_foot_roll_rig(document, suggested_leg(document, side)).roll
    name = rolls["left"]
    for pivot, keys in KEYS:
        ref = Ref.pivot_of(name, pivot)
        for frame, degrees in keys:
            document.set_frame(frame)
            key_operations.set_rotation(document, ref, _about_x(degrees))
    document.set_frame(document.scene.frame_start)
    return name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glb", default=str(GLB))
    parser.add_argument("--scene", default=str(SCENE), help="where to save the scene (.json)")
    parser.add_argument("--out", default="/tmp/humanoid_rolled.glb", help="the glTF export")
    parser.add_argument("--space", choices=("world", "object"), help="export in this space")
    args = parser.parse_args(argv)
    from PySide6 import QtCore

    app = QtCore.QCoreApplication.instance() or QtCore.QCoreApplication([])  # the document's timers
    document = Document.from_file(args.glb)
    name = add_foot_roll(document)
    save_scene(document.scene, args.scene)
    out = Path(args.out)
    run_export(format_for(None, out), ExportRequest(document.scene, out, space=args.space))
    print(
        f"{name}: {len(document.scene.constraint(name).pivots)} pivots keyed; "
        f"{document.undo_stack.count()} undoable commands; saved {args.scene}; "
        f"exported {out}"
    )
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
