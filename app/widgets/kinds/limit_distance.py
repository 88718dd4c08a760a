"""The limit-distance constraint in the editor (:mod:`app.scene.constraints.limit_distance`):
its inspector rows (target bone, head or tail, mode, distance with Reset Distance), its
add-menu entry, its "Set Target" menu, its operations (one undo step each) and the sphere
the viewport draws about its target.

The target point is drawn and dragged as every kind's target is (the model's ``parts()``);
the sphere is three great circles of radius ``d`` about it, in the bone's parent's frame in
object space (where ``d`` is in the parent's units, so a scaled parent draws an ellipsoid).
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.editor.operations.base import OperationError, replace
from app.editor.operations.constraint_operations import add_constraint, target_world
from app.scene.constraints.limit_distance import edits
from app.scene.constraints.limit_distance.model import MODE_WORDS, LimitDistance
from app.scene.rig.constraint_edits import identical_in
from app.scene.rig.refs import Ref
from app.widgets.fields import spin_box
from app.widgets.kinds.base import ConstraintView, act
from app.widgets.text_keys import keep_keys

#: The sphere's colour: the guide lines' cyan, fainter.
SPHERE_COLOR = (0.3, 0.9, 1.0, 0.45)
#: Segments of each great circle.
SEGMENTS = 64

# --- operations -------------------------------------------------------------------------------


def _limit(document, name: str) -> LimitDistance:
    try:
        c = document.scene.constraint(name)
    except KeyError:
        raise OperationError(f"There is no constraint named {name}") from None
    if type(c) is not LimitDistance:
        raise OperationError(f"{name} is not a limit distance")
    return c


def add_limit_distance(document, bones=None) -> Ref:
    """A limit distance on the active bone about the other selected bone's head (Blender's
    way: the target first, then the bone), keeping the distance the two have at frame_start
    (nothing moves until the distance or mode is changed). Selects it."""
    bones = list(bones) if bones is not None else document.selected_bones()
    if not bones:
        raise OperationError("Select the target bone, then the bone to keep at a distance")
    bone = bones[-1]
    others = [b for b in bones[:-1] if b != bone]
    if not others:
        raise OperationError(f"Select a target bone too: {bone} keeps a distance from it")
    scene = document.scene
    new = edits.new_limit_distance(scene, bone, others[-1])
    return add_constraint(document, new, f"Add {new.name} about {others[-1]}")


def _edit(document, name: str, change, text: str, merge_key=None) -> None:
    c = _limit(document, name)
    try:
        new = change(c)
    except ValueError as e:
        raise OperationError(str(e)) from None
    if new != c:
        replace(document, Ref.constraint(name), new, text, merge_key=merge_key)


def set_target(document, name: str, bone: str | None = None, at: str | None = None) -> None:
    """Keep ``name`` at a distance from another bone (``bone``) or its other end (``at``)."""
    if bone is not None and bone not in document.scene.bone_names():
        raise OperationError(f"There is no bone named {bone}")
    c = _limit(document, name)
    words = f"{bone or c.target.bone} {at or c.target.at}"
    _edit(
        document, name, lambda c: edits.with_target(c, bone, at), f"Set target of {name} to {words}"
    )


def set_mode(document, name: str, mode: str) -> None:
    """Inside, outside or on the surface of the sphere."""
    _edit(
        document,
        name,
        lambda c: edits.with_mode(c, mode),
        f"Set {name} to {MODE_WORDS.get(mode, mode)}",
    )


def set_distance(document, name: str, distance: float | None) -> None:
    """The sphere's radius (spin-box edits merge); ``None``: measured at frame_start again."""
    if distance is None:
        _edit(document, name, lambda c: edits.with_distance(c, None), f"Reset distance of {name}")
        return
    _edit(
        document,
        name,
        lambda c: edits.with_distance(c, distance),
        f"Set distance of {name} to {distance:g}",
        merge_key=(Ref.constraint(name), "distance"),
    )


def distance_used(document, c: LimitDistance) -> float | None:
    """The distance ``c`` keeps: its own, or the one its solver measured at frame_start
    (``None`` when the pose does not have it, e.g. after an evaluation error)."""
    if c.distance is not None:
        return c.distance
    info = document.pose().info.get(c.name)
    return float(info["radius"]) if isinstance(info, dict) and "radius" in info else None


# --- the inspector ----------------------------------------------------------------------------


def section(form, c: LimitDistance) -> None:
    doc, name = form.document, c.name

    def constraint() -> LimitDistance:
        return doc.scene.constraint(name)

    form.label_row("Bone", c.bone)
    form.choice_field(
        "Target bone",
        "limitTarget",
        lambda: [(b, b) for b in doc.scene.bone_names() if b != constraint().bone],
        lambda: constraint().target.bone,
        lambda bone: set_target(doc, name, bone=bone),
        "The bone whose head or tail is the sphere's centre",
    )
    form.choice_field(
        "Target point",
        "limitAt",
        lambda: [("head", "head"), ("tail", "tail")],
        lambda: constraint().target.at,
        lambda at: set_target(doc, name, at=at),
        "Which end of the target bone is the sphere's centre",
    )
    form.choice_field(
        "Mode",
        "limitMode",
        lambda: [(w, v) for v, w in MODE_WORDS.items()],
        lambda: constraint().mode,
        lambda mode: set_mode(doc, name, mode),
        "Inside: the head stays within the distance. Outside: it stays beyond it. "
        "On Surface: it stays exactly at it.",
    )
    spin = spin_box(3, 0.05, 0.0, 1e6)
    spin.setObjectName("limitDistance")
    spin.setToolTip(
        "The sphere's radius (in the bone's parent's units in object space). Unset, it is "
        "the distance at the first frame (frame start)."
    )
    reset = keep_keys(QtWidgets.QPushButton("Reset"))
    reset.setObjectName("limitResetDistance")
    reset.setToolTip("Reset Distance: measure it again at the first frame (frame start)")
    row = QtWidgets.QHBoxLayout()
    row.addWidget(spin, 1)
    row.addWidget(reset)
    form.row("Distance", row)
    measured = QtWidgets.QLabel()
    measured.setObjectName("limitDistanceNote")
    measured.setWordWrap(True)
    form.row("", measured)
    spin.valueChanged.connect(lambda v: form.run(set_distance, doc, name, float(v)))
    reset.clicked.connect(lambda: form.run(set_distance, doc, name, None))

    def refresh() -> None:
        c = constraint()
        value = distance_used(doc, c)
        if value is not None and spin.cleanText() != spin.textFromValue(value):
            with QtCore.QSignalBlocker(spin):
                spin.setValue(value)
        reset.setEnabled(c.distance is not None)
        measured.setText(
            f"measured at frame {doc.scene.frame_start}" if c.distance is None else "as set"
        )

    form.refresher(refresh)
    refresh()


# --- menus ------------------------------------------------------------------------------------


def add_on_bone(menu, document, bone: str, bones) -> None:
    others = [b for b in bones if b != bone]
    words = f" about {others[-1]}" if others else f" (select the target bone, then also {bone})"
    same = None
    if others:
        same = identical_in(
            document.scene, edits.new_limit_distance(document.scene, bone, others[-1])
        )
    if same is not None:
        words += f" ({same.name} does this already)"
    act(
        menu,
        f"Add Limit Distance Constraint on {bone}{words}",
        add_limit_distance,
        document,
        bones or [bone],
        enabled=bool(others) and same is None,
    )


def on_constraint(menu, document, c: LimitDistance, ref) -> None:
    """The "Set Target of …" menu: any other bone's head or tail."""
    target_menu = menu.addMenu(f"Set Target of {c.name}")
    for b in document.scene.bones:
        if b.name == c.bone:
            continue
        for at in ("head", "tail"):
            act(target_menu, f"To {b.name} {at}", set_target, document, c.name, b.name, at)


# --- the viewport -----------------------------------------------------------------------------


def sphere_points(center, radius: float, frame_to_world=None, segments: int = SEGMENTS):
    """Three great circles ``(3, segments, 3)`` of ``radius`` about ``center`` (both in the
    frame ``frame_to_world`` maps to the world, ``(4, 4)``; the world when ``None``)."""
    angles = np.linspace(0.0, 2 * np.pi, segments, endpoint=False)
    cos, sin, zero = np.cos(angles), np.sin(angles), np.zeros(segments)
    rings = np.stack(
        [
            np.stack([cos, sin, zero], axis=1),
            np.stack([zero, cos, sin], axis=1),
            np.stack([sin, zero, cos], axis=1),
        ]
    )
    points = np.asarray(center, float) + radius * rings
    if frame_to_world is not None:
        m = np.asarray(frame_to_world, float)
        points = points @ m[:3, :3].T + m[:3, 3]
    return points


def shapes(document, c: LimitDistance) -> list:
    """The sphere of radius ``d`` about the target point at the current frame."""
    radius = distance_used(document, c)
    pose = document.pose()
    scene = document.scene
    if radius is None or c.target.bone not in scene.bone_names():
        return []
    center = np.asarray(target_world(document, c), float)
    space = document.space or c.space
    parent = scene.bone(c.bone).parent if c.bone in scene.bone_names() else None
    if space == "world" or parent is None:
        return [(ring, SPHERE_COLOR) for ring in sphere_points(center, radius)]
    parent_to_world = pose.bone_to_world[0, scene.bone_index(parent)]
    try:
        center_in_parent = np.linalg.solve(parent_to_world, np.append(center, 1.0))[:3]
    except np.linalg.LinAlgError:  # a parent scaled to nothing: no sphere to show
        return []
    rings = sphere_points(center_in_parent, radius, parent_to_world)
    return [(ring, SPHERE_COLOR) for ring in rings]


VIEW = ConstraintView(
    LimitDistance,
    section=section,
    add_on_bone=add_on_bone,
    on_constraint=on_constraint,
    target_position=False,
    shapes=shapes,
)
