"""Gizmo math: the arcball that turns a mouse drag into a rotation, and applying it.

The arcball is a sphere drawn around the rotated item on screen. A pixel inside the circle
lifts onto the sphere's front half; a pixel outside lies on its rim. Dragging from ``a`` to
``b`` turns the sphere by the shortest arc taking ``a`` to ``b``, so the point under the
cursor follows the cursor (unlike Shoemake's original, which turns by twice the angle).
"""

from __future__ import annotations

import numpy as np

from app.scene.math import quat


def arcball_point(pixel, center, radius: float) -> np.ndarray:
    """A widget pixel lifted onto the unit arcball, in eye coordinates.

    Parameters
    ----------
    pixel, center : array_like, shape (2,)
        Widget coordinates (y down); ``center`` is the arcball's centre on screen.
    radius : float
        The arcball's radius in pixels (> 0).

    Returns
    -------
    ndarray, shape (3,)
        Unit vector: ``x`` right, ``y`` up, ``z`` towards the viewer.
    """
    d = (np.asarray(pixel, dtype=float) - np.asarray(center, dtype=float)) / radius
    x, y = d[0], -d[1]
    r2 = x * x + y * y
    if r2 <= 1.0:
        return np.array([x, y, np.sqrt(1.0 - r2)])
    r = np.sqrt(r2)
    return np.array([x / r, y / r, 0.0])


def arcball_rotation(start_pixel, end_pixel, center, radius: float) -> np.ndarray:
    """The rotation, in eye coordinates, of a drag from ``start_pixel`` to ``end_pixel``.

    Returns
    -------
    ndarray, shape (4,)
        Unit quaternion ``[w, x, y, z]``.
    """
    a = arcball_point(start_pixel, center, radius)
    b = arcball_point(end_pixel, center, radius)
    return quat.shortest_arc(a, b)


def rotation_in_world(rotation_in_eye, eye_to_world) -> np.ndarray:
    """An eye-frame rotation expressed about world axes: ``E q E^-1``.

    Parameters
    ----------
    rotation_in_eye : array_like, shape (4,)
    eye_to_world : array_like, shape (3, 3) or (4, 4)
        Its rotation part is used (the camera is rigid).

    Returns
    -------
    ndarray, shape (4,)
    """
    m = np.asarray(eye_to_world, dtype=float)[:3, :3]
    e = quat.quat_from_matrix(m / np.cbrt(np.linalg.det(m)))
    return quat.normalize(quat.mul(quat.mul(e, rotation_in_eye), quat.conj(e)))


def turn_in_frame(rotation, delta_in_world, frame_rotation) -> np.ndarray:
    """``rotation`` turned by ``delta_in_world``, where ``rotation`` is read in a frame.

    A bone's local rotation ``r`` sits under its parent, whose world rotation is
    ``frame_rotation`` ``P``: the bone's world rotation is ``P r``. Turning it by ``D``
    about world axes gives ``D P r = P (P^-1 D P) r``, so ``r' = (P^-1 D P) r``. A pivot
    quaternion read about world axes has ``P = 1``; one read in the body's frame has
    ``P = q0``, the body's world rotation.

    Parameters
    ----------
    rotation, delta_in_world, frame_rotation : array_like, shape (4,)

    Returns
    -------
    ndarray, shape (4,)
        Unit quaternion, in the same hemisphere as ``rotation`` (keys stay continuous).
    """
    p = np.asarray(frame_rotation, dtype=float)
    local_delta = quat.mul(quat.mul(quat.conj(p), delta_in_world), p)
    out = quat.normalize(quat.mul(local_delta, rotation))
    return out if float(out @ np.asarray(rotation, dtype=float)) >= 0 else -out


def broadside_direction(points, turn_degrees: float = 25.0) -> np.ndarray:
    """A horizontal direction from which a camera sees a pose broadside (Y up).

    The horizontal direction in which the points spread least is the one to look along:
    a walk seen from the side, an arm seen across its swing. The sign puts the camera in
    front (+Z, else +X); the direction is then turned by ``turn_degrees`` about Y (a
    three-quarter view shows depth).

    Parameters
    ----------
    points : array_like, shape (N, 3)
        World points (the skeleton's joints over its timeline).

    Returns
    -------
    ndarray, shape (3,)
        Unit vector from the points towards the camera, with ``y = 0``.
    """
    p = np.asarray(points, dtype=float).reshape(-1, 3)[:, [0, 2]]
    p = p - p.mean(axis=0)
    _, vectors = np.linalg.eigh(p.T @ p)  # ascending eigenvalues
    x, z = vectors[:, 0]
    if z < -1e-9 or (abs(z) <= 1e-9 and x < 0):
        x, z = -x, -z
    t = np.radians(turn_degrees)
    # turn about +Y: (x, z) -> (x cos t + z sin t, -x sin t + z cos t)
    d = np.array([x * np.cos(t) + z * np.sin(t), 0.0, -x * np.sin(t) + z * np.cos(t)])
    return d / np.linalg.norm(d)
