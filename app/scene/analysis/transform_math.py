"""Math of the rotate and move gizmos and of the modal G/R transforms (numpy only).

Rings and arrows are built in world coordinates and picked on screen from the same points,
so what is drawn is what is grabbed. A drag turns about an axis by the angle the cursor
sweeps around the ring's centre on screen (Blender's dial), or, when the ring is seen
edge-on and sweeps no angle, by the cursor's travel along the ring's tangent. A move along
an axis follows the point of the axis nearest the cursor's ray, so the grabbed point stays
under the cursor in perspective.

Conventions: pixels are widget coordinates (origin top-left, y down); angles in radians,
positive counter-clockwise about the axis (right-hand rule); world is Y-up.
"""

from __future__ import annotations

import numpy as np

#: Ctrl snaps rotations to this step (radians) and moves to this step (scene units).
ANGLE_STEP = np.radians(5.0)
DISTANCE_STEP = 0.1
#: A ring seen more edge-on than this (|cos| between its axis and the view) is turned by
#: the tangent drag; sweeping an angle around a squashed ellipse would jump.
DIAL_MIN_COSINE = 0.4


def ring_points(center, axis, radius: float, segments: int = 72) -> np.ndarray:
    """A closed circle of ``radius`` about ``axis`` through ``center``.

    Parameters
    ----------
    center, axis : array_like, shape (3,)
        World point and direction (need not be unit).
    radius : float

    Returns
    -------
    ndarray, shape (segments + 1, 3)
        The first point repeated at the end. Walking the points turns positively
        (counter-clockwise) about ``axis``.
    """
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    least = np.eye(3)[np.argmin(np.abs(a))]
    u = np.cross(a, least)
    u /= np.linalg.norm(u)
    v = np.cross(a, u)  # (u, v, a) right-handed: u -> v is a positive turn about a
    t = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    return np.asarray(center, dtype=float)[None] + radius * (
        np.cos(t)[:, None] * u[None] + np.sin(t)[:, None] * v[None]
    )


def facing_mask(points, center, eye, margin: float = 0.0) -> np.ndarray:
    """Which points of a ring lie on the half facing the camera (Blender hides the rest).

    Parameters
    ----------
    points : array_like, shape (M, 3)
    center, eye : array_like, shape (3,)
        The ring's centre and the camera position, world.
    margin : float
        Points up to this far (world units) behind the plane through ``center`` facing the
        camera still count: a ring seen face-on lies in that plane and stays whole.

    Returns
    -------
    ndarray, shape (M,), bool
    """
    p = np.asarray(points, dtype=float) - np.asarray(center, dtype=float)
    to_eye = np.asarray(eye, dtype=float) - np.asarray(center, dtype=float)
    to_eye = to_eye / np.linalg.norm(to_eye)
    return p @ to_eye >= -(margin + 1e-12)


def polyline_distance(pixel, points_px, mask=None) -> float:
    """Pixel distance from ``pixel`` to a polyline (only segments whose both ends are in
    ``mask``); ``inf`` if none.

    Parameters
    ----------
    pixel : array_like, shape (2,)
    points_px : array_like, shape (M, 2)
        ``nan`` rows (behind the camera) break the line.
    mask : array_like, shape (M,), bool, optional
    """
    p = np.asarray(points_px, dtype=float).reshape(-1, 2)
    if len(p) < 2:
        return float("inf")
    keep = np.ones(len(p), bool) if mask is None else np.asarray(mask, bool)
    a, b = p[:-1], p[1:]
    ok = keep[:-1] & keep[1:]
    if not ok.any():
        return float("inf")
    a, b = a[ok], b[ok]
    ab = b - a
    length2 = np.sum(ab * ab, axis=1)
    q = np.asarray(pixel, dtype=float)
    t = np.clip(np.sum((q - a) * ab, axis=1) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    d = np.linalg.norm(a + t[:, None] * ab - q, axis=1)
    d = np.where(np.isnan(d), np.inf, d)
    return float(d.min())


def nearest_part(distances, radius: float) -> int:
    """Index of the smallest of ``distances`` (N,) if it is within ``radius``, else -1."""
    d = np.asarray(distances, dtype=float).reshape(-1)
    if len(d) == 0:
        return -1
    i = int(np.argmin(d))
    return i if d[i] <= radius else -1


def screen_angle(center_px, start_px, pixel) -> float:
    """Signed angle (radians) swept on screen around ``center_px`` from ``start_px`` to
    ``pixel``, counter-clockwise as the user sees it (y points down in pixels), in (-pi, pi].
    """
    c = np.asarray(center_px, dtype=float)
    a = np.asarray(start_px, dtype=float) - c
    b = np.asarray(pixel, dtype=float) - c
    # y down: the on-screen counter-clockwise angle is that of (x, -y)
    cross = a[0] * (-b[1]) - (-a[1]) * b[0]
    dot = a[0] * b[0] + a[1] * b[1]
    return float(np.arctan2(cross, dot))


def unwrap(previous: float, angle: float) -> float:
    """``angle`` plus the multiple of 2 pi nearest ``previous``: a dial keeps counting past
    half a turn (two full turns of the cursor are 720 degrees)."""
    return float(angle + 2.0 * np.pi * np.round((previous - angle) / (2.0 * np.pi)))


def dial_sign(axis, center, eye) -> float:
    """+1 when ``axis`` points towards the camera (counter-clockwise on screen is a
    positive turn about it), -1 when away."""
    to_eye = np.asarray(eye, dtype=float) - np.asarray(center, dtype=float)
    return 1.0 if float(np.asarray(axis, dtype=float) @ to_eye) >= 0 else -1.0


def axis_facing(axis, center, eye) -> float:
    """|cos| of the angle between ``axis`` and the line of sight to ``center``: 1 face-on."""
    a = np.asarray(axis, dtype=float)
    to_eye = np.asarray(eye, dtype=float) - np.asarray(center, dtype=float)
    return float(abs(a @ to_eye) / (np.linalg.norm(a) * np.linalg.norm(to_eye)))


def tangent_angle(drag_px, tangent_px, radius: float) -> float:
    """The turn (radians) of a drag along a ring's tangent.

    Parameters
    ----------
    drag_px : array_like, shape (2,)
        Cursor travel since the press, pixels.
    tangent_px : array_like, shape (2,)
        Screen travel of the grabbed point per unit of world arc length when the ring
        turns positively (the projected tangent, pixels per world unit).
    radius : float
        The ring's world radius: arc length = radius * angle.
    """
    t = np.asarray(tangent_px, dtype=float)
    speed2 = float(t @ t)
    if speed2 < 1e-12 or radius <= 0:
        return 0.0
    return float(np.asarray(drag_px, dtype=float) @ t / speed2 / radius)


def axis_parameter(origin, direction, point, axis):
    """Where along the line ``point + s * axis`` the ray comes nearest: ``s``, or ``None``
    when the ray runs (nearly) along the line.

    Parameters
    ----------
    origin, direction : array_like, shape (3,)
        The cursor's ray.
    point, axis : array_like, shape (3,)
        The line; ``s`` is measured in units of ``|axis|`` (pass a unit axis for lengths).
    """
    o = np.asarray(origin, dtype=float)
    d = np.asarray(direction, dtype=float)
    p = np.asarray(point, dtype=float)
    a = np.asarray(axis, dtype=float)
    # minimise |p + s a - (o + t d)|: the 2x2 normal equations
    aa, ad, dd = a @ a, a @ d, d @ d
    denom = aa * dd - ad * ad
    if denom <= 1e-6 * aa * dd:
        return None
    w = p - o
    return float((ad * (w @ d) - dd * (w @ a)) / denom)


def snapped(value, step: float):
    """``value`` (scalar or array) rounded to the nearest multiple of ``step``."""
    return np.round(np.asarray(value, dtype=float) / step) * step
