"""View ▸ Mesh and Bones / Mesh Only / Bones Only (one of three) and X-Ray Bones (Alt+Z);
View ▸ Frame Animation (Ctrl+F) and Follow (Ctrl+Shift+F), the camera's choices.

The choices live in the viewport (:meth:`~app.widgets.viewport.viewport.Viewport.set_mesh_display`,
:meth:`~app.widgets.viewport.viewport.Viewport.set_xray`), as Bone Axes does; they matter for
scenes with skinned meshes (an imported glTF character).
"""

from __future__ import annotations

from PySide6 import QtGui

CHOICES = (
    ("showBoth", "Mesh &and Bones", "both", "Draw the skinned meshes and the bones"),
    ("showMesh", "&Mesh Only", "mesh", "Draw the skinned meshes, hide the bones"),
    ("showBones", "&Bones Only", "bones", "Draw the bones, hide the skinned meshes"),
)


def build_mesh_actions(window) -> None:
    """Add the actions to ``window`` (a :class:`~app.window.actions.WindowActions`)."""
    viewport = window.viewport
    group = QtGui.QActionGroup(window)
    for name, text, display, tip in CHOICES:
        action = window.make_action(name, text, None, None, tip, checkable=True)
        action.setChecked(viewport.mesh_display == display)
        action.triggered.connect(lambda _=False, d=display: viewport.set_mesh_display(d))
        group.addAction(action)
    xray = window.make_action(
        "xray",
        "&X-Ray Bones",
        viewport.set_xray,
        "Alt+Z",
        "Draw the bones over the meshes",
        checkable=True,
    )
    xray.setChecked(viewport.xray)


def build_camera_actions(window) -> None:
    """Add Frame Animation and Follow to ``window`` (Follow's check mirrors the viewport's, which
    a scene turns on when it is opened)."""
    viewport = window.viewport
    window.make_action(
        "frameAnimation",
        "Frame A&nimation",
        viewport.frame_animation,
        "Ctrl+F",
        "Point the camera at every joint over the whole animation",
    )
    follow = window.make_action(
        "follow",
        "Fo&llow",
        viewport.set_follow,
        "Ctrl+Shift+F",
        "As it plays, the view's centre follows the selection (else the root)",
        checkable=True,
    )
    follow.setChecked(viewport.follow.enabled)
    viewport.follow_changed.connect(follow.setChecked)
