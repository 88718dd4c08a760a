"""Journey: a character exported by Blender with leaf bones opens as a body, not as a speck
under spikes (issue 26 item 7): its ``_end`` bones are ignored as Blender's importer does with
"Ignore Leaf Bones" (File ▸ Leaf Bones, by default as the file says), and the camera frames
the body even when they are kept. The file: assimp's huesitos.fbx (Blender 2.79) with its
leaves written 100 times too far, as Mixamo's Xbot exported from Blender has them."""

from __future__ import annotations

import numpy as np

from app.cli import DEMO_SCENE
from app.editor import settings
from app.scene.rig.refs import Ref
from tests.helpers.gui import drop_file
from tests.helpers.leaf_bones_files import LEAVES, far_leaves_fbx
from tests.journeys import _fields


def _body_on_screen(win) -> float:
    """How much of the viewport's height the drawn body takes (its vertices' extent), and
    that all of it is in view."""
    vp = win.viewport
    xy = vp.project(vp.drawing.meshes.drawn_points())
    assert len(xy) and np.isfinite(xy).all()
    assert (xy >= 0).all() and (xy[:, 0] <= vp.width()).all() and (xy[:, 1] <= vp.height()).all()
    return float(np.ptp(xy[:, 1]) / vp.height())


def test_a_blender_fbx_with_leaf_bones_opens_as_its_body(window, qtbot, tmp_path):
    path = far_leaves_fbx(tmp_path / "huesitos_leafbones.fbx")
    doc = window.document
    try:
        drop_file(window, path)
        qtbot.waitUntil(lambda: doc.path == str(path))
        names = set(doc.scene.bone_names())
        assert not set(LEAVES) & names and {"Bone.006", "Bone.008"} <= names
        for name in names:
            assert window.outliner.item_for(Ref.bone(name)) is not None
        assert "ignored 2 leaf bones" in window.statusBar().currentMessage()
        assert _body_on_screen(window) >= 0.25  # as opening frames it, not a speck (1 %)
        # File ▸ Leaf Bones ▸ Keep, and the file again: the leaves are bones, far off, and
        # the camera still frames the body
        window.actions_by_name["leafBones_keep"].trigger()
        drop_file(window, path)
        qtbot.waitUntil(lambda: set(LEAVES) <= set(doc.scene.bone_names()))
        assert _body_on_screen(window) >= 0.25
    finally:
        settings.set_leaf_bones("auto")
        _fields.fresh(window, DEMO_SCENE)
