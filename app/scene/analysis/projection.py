"""Camera projection on the CPU: world points to widget pixels, pixels to rays, picking.

The viewport draws with OpenGL, but it picks and drags with these functions, fed by the
same matrices the GPU uses (``world_to_clip = view_to_clip @ eye_from_view @ world_to_view``),
so a handle is found where it is drawn without asking the driver (``GL_SELECT`` is not
reliable). Pixels are widget coordinates: origin at the top left, y downwards, in logical
(device-independent) pixels; multiply by the device pixel ratio for framebuffer pixels.
"""

from __future__ import annotations

import numpy as np


def matrix_from_column_major(values) -> np.ndarray:
    """A ``(4, 4)`` matrix (column-vector convention) from 16 column-major numbers.

    OpenGL and ``QMatrix4x4.data()`` store matrices column by column.
    """
    return np.asarray(values, dtype=float).reshape(4, 4).T.copy()


def project(points_in_world, world_to_clip, width: float, height: float) -> np.ndarray:
    """Widget pixel coordinates of world points.

    Parameters
    ----------
    points_in_world : array_like, shape (N, 3)
    world_to_clip : array_like, shape (4, 4)
        Projection times view (times any model transform), column vectors.
    width, height : float
        The widget's size in logical pixels.

    Returns
    -------
    ndarray, shape (N, 2)
        ``(x, y)`` with the origin at the top-left corner and y pointing down. Points at or
        behind the camera plane (clip ``w <= 0``) get ``nan``.
    """
    points = np.asarray(points_in_world, dtype=float).reshape(-1, 3)
    m = np.asarray(world_to_clip, dtype=float)
    clip = points @ m[:3, :3].T + m[:3, 3]
    w = points @ m[3, :3] + m[3, 3]
    in_front = w > 1e-12
    safe_w = np.where(in_front, w, 1.0)
    ndc = clip[:, :2] / safe_w[:, None]
    out = np.empty((len(points), 2))
    out[:, 0] = (ndc[:, 0] + 1.0) * 0.5 * width
    out[:, 1] = (1.0 - ndc[:, 1]) * 0.5 * height
    out[~in_front] = np.nan
    return out


def pixel_ray(pixel, world_to_clip, width: float, height: float):
    """The world ray under a widget pixel.

    Parameters
    ----------
    pixel : array_like, shape (2,)
        Widget coordinates (top-left origin, y down).
    world_to_clip : array_like, shape (4, 4)
    width, height : float

    Returns
    -------
    origin : ndarray, shape (3,)
        On the near clipping plane.
    direction : ndarray, shape (3,)
        Unit vector away from the camera.
    """
    x, y = np.asarray(pixel, dtype=float)
    ndc = np.array([2.0 * x / width - 1.0, 1.0 - 2.0 * y / height])
    clip_to_world = np.linalg.inv(np.asarray(world_to_clip, dtype=float))
    ends = clip_to_world @ np.array([[ndc[0], ndc[1], -1.0, 1.0], [ndc[0], ndc[1], 1.0, 1.0]]).T
    near, far = (ends[:3] / ends[3]).T
    direction = far - near
    return near, direction / np.linalg.norm(direction)


def ray_plane(origin, direction, plane_point, plane_normal, min_cosine: float = 1e-4):
    """Where a ray meets a plane, or ``None`` when it runs (nearly) parallel or away.

    Parameters
    ----------
    origin, direction : array_like, shape (3,)
    plane_point, plane_normal : array_like, shape (3,)
    min_cosine : float
        Rays closer to parallel than this (cosine of their angle with the plane's normal)
        are refused: their hit would fly off towards the horizon.

    Returns
    -------
    ndarray, shape (3,) or None
    """
    origin = np.asarray(origin, dtype=float)
    direction = np.asarray(direction, dtype=float)
    normal = np.asarray(plane_normal, dtype=float)
    normal = normal / np.linalg.norm(normal)
    denom = float(direction @ normal) / float(np.linalg.norm(direction))
    if abs(denom) < min_cosine:
        return None
    t = float((np.asarray(plane_point, dtype=float) - origin) @ normal) / float(direction @ normal)
    if t < 0:
        return None
    return origin + t * direction


def camera_axes(world_to_eye) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The camera's right, up and forward (viewing) directions in world coordinates.

    Parameters
    ----------
    world_to_eye : array_like, shape (4, 4)
        The view matrix times any model transform (rigid up to a uniform scale). The eye
        looks down its ``-z`` axis, ``x`` to the right, ``y`` up.

    Returns
    -------
    right, up, forward : ndarray, shape (3,)
        Unit vectors.
    """
    eye_to_world = np.linalg.inv(np.asarray(world_to_eye, dtype=float))[:3, :3]
    axes = eye_to_world @ np.diag([1.0, 1.0, -1.0])
    axes = axes / np.linalg.norm(axes, axis=0)
    return axes[:, 0], axes[:, 1], axes[:, 2]


def facing_axis(frame_to_world, forward) -> np.ndarray:
    """The axis of a frame that faces the camera most, as a unit vector in world coordinates.

    A pivot dragged without Shift slides in the plane of its body through it whose normal is
    this axis: the body's own plane that is seen most nearly face on, so the pivot stays on
    the body instead of lifting off it towards the camera.

    Parameters
    ----------
    frame_to_world : array_like, shape (4, 4) or (3, 3)
        The frame's transform (its rotation columns are its axes in world; any scale).
    forward : array_like, shape (3,)
        The camera's viewing direction in world coordinates.

    Returns
    -------
    ndarray, shape (3,)
        The unit axis with the largest ``|axis · forward|``.
    """
    axes = np.asarray(frame_to_world, dtype=float)[:3, :3]
    lengths = np.linalg.norm(axes, axis=0)
    usable = lengths > 1e-12  # a zero-scaled axis has no direction
    if not usable.any():
        return np.asarray(forward, dtype=float) / np.linalg.norm(forward)
    units = axes[:, usable] / lengths[usable]
    best = int(np.argmax(np.abs(np.asarray(forward, dtype=float) @ units)))
    return units[:, best]


def eye_position(world_to_eye) -> np.ndarray:
    """The camera's position in world coordinates, shape (3,)."""
    return np.linalg.inv(np.asarray(world_to_eye, dtype=float))[:3, 3]


def nearest_within(pixels, click, radius: float) -> int:
    """Index of the pixel nearest ``click`` if within ``radius``, else ``-1``.

    Parameters
    ----------
    pixels : array_like, shape (N, 2)
        Candidates; ``nan`` rows (behind the camera) never match.
    click : array_like, shape (2,)
    radius : float
    """
    pixels = np.asarray(pixels, dtype=float).reshape(-1, 2)
    if len(pixels) == 0:
        return -1
    d = np.linalg.norm(pixels - np.asarray(click, dtype=float), axis=1)
    d = np.where(np.isnan(d), np.inf, d)
    i = int(np.argmin(d))
    return i if d[i] <= radius else -1


def segment_distances(click, starts, ends) -> np.ndarray:
    """Pixel distance from ``click`` to each 2D segment ``starts[i] -> ends[i]``.

    Parameters
    ----------
    click : array_like, shape (2,)
    starts, ends : array_like, shape (N, 2)
        ``nan`` in either end gives an infinite distance.

    Returns
    -------
    ndarray, shape (N,)
    """
    p = np.asarray(click, dtype=float)
    a = np.asarray(starts, dtype=float).reshape(-1, 2)
    b = np.asarray(ends, dtype=float).reshape(-1, 2)
    ab = b - a
    length2 = np.sum(ab * ab, axis=1)
    t = np.clip(np.sum((p - a) * ab, axis=1) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    d = np.linalg.norm(a + t[:, None] * ab - p, axis=1)
    return np.where(np.isnan(d), np.inf, d)


def segment_closest(click, starts, ends) -> tuple[np.ndarray, np.ndarray]:
    """Pixel distance from ``click`` to each 2D segment ``starts[i] -> ends[i]`` and where on
    it the closest point lies (0 at the start, 1 at the end).

    Parameters
    ----------
    click : array_like, shape (2,)
    starts, ends : array_like, shape (N, 2)
        ``nan`` in either end gives an infinite distance.

    Returns
    -------
    distances, along : ndarray, shape (N,)
    """
    p = np.asarray(click, dtype=float)
    a = np.asarray(starts, dtype=float).reshape(-1, 2)
    b = np.asarray(ends, dtype=float).reshape(-1, 2)
    ab = b - a
    length2 = np.sum(ab * ab, axis=1)
    t = np.clip(np.sum((p - a) * ab, axis=1) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    d = np.linalg.norm(a + t[:, None] * ab - p, axis=1)
    return np.where(np.isnan(d), np.inf, d), np.where(np.isnan(t), 0.0, t)


#: Screen distances (pixels) closer than this count as equal when two bones are under a click.
SAME_DISTANCE_PX = 0.75


def pick_order(
    click,
    handles_px,
    dot_radius,
    handle_radius: float,
    bone_d,
    bone_along,
    bone_px_length,
    bone_depth,
    bone_radius: float,
) -> list[tuple[str, int]]:
    """Everything under a click, what a click picks first: ``[("handle", i) | ("bone", i)]``.

    A handle's own dot comes first; then the bones whose body is under the click (a handle
    that merely sits on a bone does not take the click from it): of those as near, the one
    whose middle is under the click (a bone overlapping its child's, a zero-length bone at
    its parent's tail), then the one nearer the camera; then the handles near the click.
    A second click on the same spot picks the next one (as in Blender).

    Parameters
    ----------
    click : array_like, shape (2,)
    handles_px : array_like, shape (H, 2)
        The handles' pixels (``nan``: behind the camera).
    dot_radius : float or array_like, shape (H,)
        The radius of each handle's drawn dot, pixels.
    handle_radius : float
        How near a handle a click still picks it, pixels.
    bone_d, bone_along : array_like, shape (B,)
        Pixel distance from the click to each bone's segment and where on it the nearest
        point lies, 0 at the head, 1 at the tail (:func:`segment_closest`).
    bone_px_length : array_like, shape (B,)
        Each bone's length on screen, pixels.
    bone_depth : array_like, shape (B,)
        Distance from the camera to each bone's point under the click.
    bone_radius : float
        How near a bone's segment a click picks it, pixels.
    """
    click = np.asarray(click, dtype=float)
    handles_px = np.asarray(handles_px, dtype=float).reshape(-1, 2)
    hd = np.linalg.norm(handles_px - click, axis=1)
    hd = np.where(np.isnan(hd), np.inf, hd)
    on_dot = hd <= np.broadcast_to(np.asarray(dot_radius, dtype=float), hd.shape)
    order = [("handle", int(i)) for i in np.flatnonzero(on_dot)[np.argsort(hd[on_dot])]]
    bone_d = np.asarray(bone_d, dtype=float).reshape(-1)
    under = np.flatnonzero(bone_d <= bone_radius)
    if len(under):
        along = np.asarray(bone_along, dtype=float).reshape(-1)[under]
        short = np.asarray(bone_px_length, dtype=float).reshape(-1)[under] < 1.0
        off_middle = np.where(short, 0.0, np.abs(along - 0.5))  # a point is all middle
        depth = np.asarray(bone_depth, dtype=float).reshape(-1)[under]
        depth = np.where(np.isfinite(depth), depth, np.inf)
        tied = bone_d[under] <= bone_d[under].min() + SAME_DISTANCE_PX
        rank = np.lexsort((depth, off_middle, np.where(tied, 0.0, bone_d[under])))
        order += [("bone", int(under[k])) for k in rank]
    near = np.flatnonzero(~on_dot & (hd <= handle_radius))
    order += [("handle", int(i)) for i in near[np.argsort(hd[near])]]
    return order
