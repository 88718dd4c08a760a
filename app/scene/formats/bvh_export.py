"""The evaluated animation as a BVH file that :mod:`app.scene.formats.bvh` reads back exactly.

BVH stores, per joint, a constant OFFSET, optional position channels and Euler rotation
channels relative to the parent joint; it has no scale. The export works from the baked
world transforms (after constraints), so whatever drove a bone (keys, points-at, FABRIK, a
multi-parent body moving in world space) ends up as plain joint motion:

- Each joint's frame is its bone's head and the rotation of its ``bone_to_world``
  (:func:`~app.scene.math.transforms.rotation_from_matrix`, the polar rotation: exact ``R`` for
  ``R @ diag(s)``). Its local rotation is ``R_parent^T R_bone``, written as three Euler
  channels in one fixed order (default ``Zrotation Xrotation Yrotation``), decomposed exactly
  through gimbal lock (:mod:`app.scene.math.euler`).
- Its local translation is ``R_parent^T (head - parent_head)``. When that is constant over the
  frames it is the OFFSET; when it changes (a root, a bone with translation keys, a body that
  a constraint moves in world space, a child of a non-uniformly scaled bone whose rotation is
  animated) the joint gets ``Xposition Yposition Zposition`` channels.
- Scale is **baked**, never refused: a scaled bone's children sit at their scaled positions, so
  joint (head) positions are always exact. A leaf's End Site is its tail in the joint frame;
  if that moves over time (shear from non-uniform scale in the chain under animated rotation)
  no End Site can express it and the export is refused, naming the bone.
- Only leaves get an End Site (the BVH convention): the tail of a bone with children is not
  written, and reads back as its first child's offset (the format's default).

The hierarchy is written depth first, children in file order; a scene with several roots
gets several ``ROOT`` blocks. Frames must be evenly spaced; ``Frame Time = step / fps``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.errors import SceneError
from app.scene.math.euler import euler_from_matrix
from app.scene.rig.model import Scene

#: Default rotation channel order, the classic Biovision one.
DEFAULT_ORDER = "ZXY"

# Values are rounded to this many decimals (so rounding noise prints as 0) and written with
# 15 significant digits: 5e-13 degrees and scene units, far below the 1e-6 the import needs.
_DECIMALS = 12
_FORMAT = "%.15g"


@dataclass(frozen=True)
class BvhExport:
    """A written BVH file and what the export had to decide.

    Attributes
    ----------
    text : str
        The whole file.
    joints : tuple of str
        Joint names in file (depth-first) order.
    position_joints : tuple of str
        Joints that got position channels.
    notes : tuple of str
        What the user should know (scale baked into offsets, tails not written).
    """

    text: str
    joints: tuple
    position_joints: tuple
    notes: tuple


def _check_name(name: str, index: int) -> None:
    if " ".join(name.split()) != name:
        raise SceneError(
            f"bone {name!r}: a BVH joint name cannot hold tabs, line breaks, or "
            "leading, trailing or repeated spaces; rename it to export BVH",
            f"bones[{index}].name",
        )


def frame_time(frames, fps: float) -> float:
    """Seconds between evenly spaced ``frames`` ``(F,)`` at ``fps``.

    Raises
    ------
    SceneError
        If the frames are not evenly spaced and increasing (BVH has one frame time).
    """
    frames = np.asarray(frames, dtype=float).reshape(-1)
    if len(frames) == 0:
        raise SceneError("no frames to export", "frames")
    if len(frames) == 1:
        return 1.0 / fps
    steps = np.diff(frames)
    if np.any(steps <= 0):
        raise SceneError("BVH needs increasing frames", "frames")
    uneven = np.flatnonzero(np.abs(steps - steps[0]) > 1e-9 * max(1.0, abs(steps[0])))
    if len(uneven):
        k = int(uneven[0])
        raise SceneError(
            f"BVH needs evenly spaced frames; the step from frame {frames[0]:g} to "
            f"{frames[1]:g} is {steps[0]:g} but from {frames[k]:g} to "
            f"{frames[k + 1]:g} it is {steps[k]:g}",
            "frames",
        )
    return (frames[-1] - frames[0]) / (len(frames) - 1) / fps


def _rotation_part(linear: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Polar rotations ``(..., 3, 3)`` of linear parts, and where those were not rotations."""
    gram = np.swapaxes(linear, -1, -2) @ linear
    scaled = np.abs(gram - np.eye(3)).max(axis=(-1, -2)) > 1e-12
    rotation = linear.copy()
    if np.any(scaled):
        u, _, vt = np.linalg.svd(linear[scaled])
        rotation[scaled] = u @ vt  # scale > 0, so the determinant is +1
    return rotation, scaled


def _local_frames(parents: np.ndarray, bone_to_world: np.ndarray):
    """Joint-frame rotations ``(F, B, 3, 3)``, heads ``(F, B, 3)``, local rotations and
    translations, and a ``(F, B)`` mask of scaled bones."""
    heads = bone_to_world[..., :3, 3]
    rotation, scaled = _rotation_part(bone_to_world[..., :3, :3])
    parent_rotation = rotation[:, parents]
    parent_head = heads[:, parents]
    roots = parents < 0
    parent_rotation[:, roots] = np.eye(3)
    parent_head[:, roots] = 0.0
    parent_rotation_t = np.swapaxes(parent_rotation, -1, -2)
    local_rotation = parent_rotation_t @ rotation
    local_translation = np.einsum("...ij,...j->...i", parent_rotation_t, heads - parent_head)
    return rotation, heads, local_rotation, local_translation, scaled


def _numbers(values) -> str:
    return " ".join(_FORMAT % v for v in (np.round(np.asarray(values, float), _DECIMALS) + 0.0))


def bvh_from_bake(scene: Scene, result, *, order: str = DEFAULT_ORDER) -> BvhExport:
    """BVH text of a bake of ``scene``.

    Parameters
    ----------
    scene : Scene
        The scene that was baked: hierarchy, static translations and tails, fps.
    result : BakeResult
        ``bake(scene, frames)``; ``frames`` must be evenly spaced.
    order : str
        Rotation channel order, one of :data:`app.scene.math.euler.ORDERS`; ``"ZXY"`` writes
        ``Zrotation Xrotation Yrotation`` (``R = R_z R_x R_y``).

    Returns
    -------
    BvhExport

    Raises
    ------
    SceneError
        Uneven frames, a non-finite transform, a bone name BVH cannot hold, or a leaf tail
        that moves within its bone (see the module docstring); each names where.
    """
    names = [b.name for b in scene.bones]
    if list(np.asarray(result.bone_names)) != names:
        raise SceneError("the bake does not belong to this scene (bone names differ)")
    order = order.upper()
    euler_from_matrix(order, np.eye(3))  # refuses an unknown order before any work
    dt = frame_time(result.frames, scene.fps)
    for i, name in enumerate(names):
        _check_name(name, i)
    bone_to_world = np.asarray(result.bone_to_world, dtype=float)
    finite = np.isfinite(bone_to_world).all(axis=(-1, -2))
    if not finite.all():
        f, b = np.argwhere(~finite)[0]
        raise SceneError(
            f"bone {names[b]!r} has a non-finite transform at frame {result.frames[f]:g}",
            f"bones[{b}]",
        )

    parents = np.array([-1 if b.parent is None else names.index(b.parent) for b in scene.bones])
    rotation, heads, local_rotation, local_translation, scaled = _local_frames(
        parents, bone_to_world
    )
    # Constant within rounding: far below the 1e-6 an import must reproduce, far above the
    # ~1e-15 relative noise of the products above.
    tol = 1e-10 * max(1.0, float(np.abs(heads).max()))
    moving = np.abs(local_translation - local_translation[:1]).max(axis=(0, 2)) > tol
    moving |= parents < 0
    scale_free = ~scaled.any(axis=0)
    chain_scale_free = np.array([p < 0 or scale_free[p] for p in parents])

    angles = np.degrees(euler_from_matrix(order, local_rotation))  # (F, B, 3)
    angles = np.unwrap(angles, period=360.0, axis=0)  # no +-180 jumps for other tools' curves

    notes = []
    for bone in scene.bones:
        if bone.scale_keys is not None:
            notes.append(
                f"bone {bone.name!r} has scale keys: BVH has no scale, so it is "
                "baked into the offsets below it (joint positions are exact)"
            )
        elif tuple(bone.scale) != (1.0, 1.0, 1.0):
            notes.append(
                f"bone {bone.name!r} has scale {tuple(bone.scale)}: BVH has no "
                "scale, so it is baked into the offsets below it (joint positions "
                "are exact)"
            )

    joint_order, lines, columns = [], ["HIERARCHY"], []
    children = [[] for _ in names]
    for i in range(len(names)):
        if parents[i] >= 0:
            children[parents[i]].append(i)
    roots = [i for i in range(len(names)) if parents[i] < 0]
    stack = [(i, 0, False) for i in reversed(roots)]
    while stack:  # depth first; a (bone, depth, True) entry closes the bone's block
        i, depth, closing = stack.pop()
        pad = "\t" * depth
        if closing:
            lines.append(pad + "}")
            continue
        bone = scene.bones[i]
        joint_order.append(i)
        lines += [f"{pad}{'JOINT' if parents[i] >= 0 else 'ROOT'} {bone.name}", pad + "{"]
        offset = local_translation[0, i]
        if moving[i] and chain_scale_free[i]:
            offset = np.asarray(bone.translation, float)  # the rest pose; channels move it
        elif not moving[i] and np.abs(offset - bone.translation).max() <= tol:
            offset = np.asarray(bone.translation, float)  # the file's own digits
        channels = [f"{a}rotation" for a in order]
        if moving[i]:
            channels = ["Xposition", "Yposition", "Zposition"] + channels
            columns.append(local_translation[:, i])
        columns.append(angles[:, i])
        lines += [
            f"{pad}\tOFFSET {_numbers(offset)}",
            f"{pad}\tCHANNELS {len(channels)} {' '.join(channels)}",
        ]
        if not children[i]:
            lines += _end_site(scene, i, rotation, bone_to_world, tol, pad)
        elif bone.tail is not None and bone.tail != scene.bones[children[i][0]].translation:
            notes.append(
                f"bone {bone.name!r}: its tail is not written (BVH has End Sites "
                "only at leaves); it reads back as its first child's offset"
            )
        stack.append((i, depth, True))
        stack.extend((c, depth + 1, False) for c in reversed(children[i]))

    motion = np.round(np.concatenate(columns, axis=1), _DECIMALS) + 0.0
    row = " ".join([_FORMAT] * motion.shape[1]) + "\n"
    lines += ["MOTION", f"Frames: {len(motion)}", f"Frame Time: {_FORMAT % dt}"]
    text = "\n".join(lines) + "\n" + (row * len(motion)) % tuple(motion.ravel().tolist())
    return BvhExport(
        text=text,
        joints=tuple(names[i] for i in joint_order),
        position_joints=tuple(names[i] for i in joint_order if moving[i]),
        notes=tuple(notes),
    )


def _end_site(scene, i, rotation, bone_to_world, tol, pad) -> list[str]:
    """The End Site block of leaf ``i``: its tail in the joint frame, which must be constant."""
    tail_in_bone = np.asarray(scene.tail_of(i), dtype=float)
    tail = np.einsum("fij,j->fi", bone_to_world[:, i, :3, :3], tail_in_bone)
    end = np.einsum("fji,fj->fi", rotation[:, i], tail)  # R^T (tail - head)
    if np.abs(end - end[:1]).max() > tol:
        raise SceneError(
            f"bone {scene.bones[i].name!r}: its tail moves within the bone over "
            "time (non-uniform scale in its chain under animated rotation), "
            "which a BVH End Site cannot express",
            f"bones[{i}].tail",
        )
    site = end[0]
    if np.abs(site - tail_in_bone).max() <= tol:
        site = tail_in_bone
    return [f"{pad}\tEnd Site", f"{pad}\t{{", f"{pad}\t\tOFFSET {_numbers(site)}", f"{pad}\t}}"]


def bvh_in_layout(layout, result, fps: float) -> str:
    """BVH text of a bake written into the hierarchy of the file ``layout`` came from
    (:class:`app.scene.formats.bvh.BvhLayout`): the same joints in the same order with the
    same offsets, end sites and channels, so that other tools read it as they read that file.

    Each joint's rotation channels hold its rotation relative to its parent in their own
    order (``Zrotation Yrotation Xrotation``: ``R = R_z R_y R_x``); its position channels its
    head relative to its parent (the components without a channel being the OFFSET's, as
    the import reads them). ``result`` is a bake of a scene holding bones named as the
    joints (others, a rig's controls, are left out).

    Raises
    ------
    SceneError
        A joint missing from the bake, or one whose motion its channels cannot hold (fewer
        than three rotation channels for a rotation about another axis, a position moved
        where it has no channel).
    """
    names = [str(n) for n in result.bone_names]
    index = {n: i for i, n in enumerate(names)}
    missing = [name for name, _, _ in layout.joints if name not in index]
    if missing:
        raise SceneError(f"the joint {missing[0]!r} of the BVH is not in the scene")
    columns_of = [index[name] for name, _, _ in layout.joints]
    parents = np.array([p for _, p, _ in layout.joints])
    to_world = np.asarray(result.bone_to_world, dtype=float)[:, columns_of]
    _, heads, local_rotation, local_translation, _ = _local_frames(parents, to_world)
    tol = 1e-6 * max(1.0, float(np.abs(heads).max()))
    columns = []
    for j, (name, _, channels) in enumerate(layout.joints):
        axes = "".join(c[0].upper() for c in channels if c.endswith("rotation"))
        if len(axes) == 3 and len(set(axes)) == 3:
            angles = np.unwrap(
                np.degrees(euler_from_matrix(axes, local_rotation[:, j])), period=360.0, axis=0
            )
        elif axes:
            angles = _few_rotations(axes, local_rotation[:, j], name, tol)
        elif np.abs(local_rotation[:, j] - np.eye(3)).max() > 1e-9:
            raise SceneError(f"the joint {name!r} has no rotation channels but turns")
        else:
            angles = np.zeros((len(to_world), 0))
        rotation_at = iter(range(len(axes)))
        for c in channels:
            axis = "XYZ".index(c[0].upper())
            if c.endswith("rotation"):
                columns.append(angles[:, next(rotation_at)])
            else:
                columns.append(local_translation[:, j, axis])
        moved = np.abs(local_translation[:, j] - np.asarray(layout.offsets[j])).max(axis=0)
        fixed = [a for a in range(3) if f"{'XYZ'[a]}position" not in channels]
        if any(moved[a] > tol for a in fixed):
            raise SceneError(f"the joint {name!r} moves where it has no position channel")
    motion = (
        np.round(np.stack(columns, axis=1), _DECIMALS) + 0.0
        if columns
        else np.zeros((len(to_world), 0))
    )
    row = " ".join([_FORMAT] * motion.shape[1]) + "\n"
    dt = frame_time(result.frames, fps)
    head = layout.hierarchy if layout.hierarchy.endswith("\n") else layout.hierarchy + "\n"
    return (
        head
        + f"MOTION\nFrames: {len(motion)}\nFrame Time: {_FORMAT % dt}\n"
        + (row * len(motion)) % tuple(motion.ravel().tolist())
    )


def _few_rotations(axes: str, rotation, name: str, tol: float) -> np.ndarray:
    """Angles (degrees) for a joint with one or two rotation channels (a hinge): refused
    when its rotation leaves them."""
    full = axes + "".join(a for a in "XYZ" if a not in axes)[: 3 - len(axes)]
    if len(set(full)) != 3:
        raise SceneError(f"the joint {name!r} repeats a rotation channel")
    angles = np.degrees(euler_from_matrix(full, rotation))
    if np.abs(angles[:, len(axes) :]).max() > 1e-6:
        raise SceneError(f"the joint {name!r} turns about an axis it has no channel for")
    return angles[:, : len(axes)]


def write_bvh(path, scene: Scene, result, *, order: str = DEFAULT_ORDER) -> BvhExport:
    """Write :func:`bvh_from_bake` to ``path`` atomically (nothing is written on refusal)."""
    from app.scene.formats.atomic import write_atomic

    export = bvh_from_bake(scene, result, order=order)
    write_atomic(path, export.text)
    return export
