"""Euler angles, for people: the inspector's "XYZ Euler" (Blender's default order).

"XYZ" means the X rotation is applied first, then Y, then Z, each about the fixed (world or
parent) axes: ``R = Rz(c) @ Ry(b) @ Rx(a)``. It is scipy's extrinsic ``"xyz"`` and
Blender's ``XYZ Euler``. Angles are in degrees.
"""

from __future__ import annotations

import numpy as np

from app.scene import quat

#: Below this distance of ``|sin b|`` from 1 the decomposition is in gimbal lock.
_GIMBAL = 1e-9


def quat_from_euler_xyz(degrees) -> np.ndarray:
    """Quaternions of XYZ Euler angles.

    Parameters
    ----------
    degrees : array_like, shape (..., 3)
        ``(a, b, c)``: angles about x, y and z, applied in that order about fixed axes.

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions ``q = qz(c) qy(b) qx(a)``.
    """
    a = np.radians(np.asarray(degrees, dtype=float))
    half = 0.5 * a
    c, s = np.cos(half), np.sin(half)
    zero = np.zeros(a.shape[:-1])
    qx = np.stack([c[..., 0], s[..., 0], zero, zero], axis=-1)
    qy = np.stack([c[..., 1], zero, s[..., 1], zero], axis=-1)
    qz = np.stack([c[..., 2], zero, zero, s[..., 2]], axis=-1)
    return quat.mul(qz, quat.mul(qy, qx))


def euler_xyz_from_quat(q) -> np.ndarray:
    """XYZ Euler angles in degrees of unit quaternions.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 3)
        ``a, c`` in ``(-180, 180]``, ``b`` in ``[-90, 90]``. In gimbal lock (``b = ±90``)
        only ``a ∓ c`` is determined; ``c`` is set to 0.
    """
    m = quat.matrix_from_quat(quat.normalize(q))
    # R = Rz(c) Ry(b) Rx(a): R[2,0] = -sin b, R[2,1] = cos b sin a, R[2,2] = cos b cos a,
    # R[1,0] = cos b sin c, R[0,0] = cos b cos c.
    sb = np.clip(-m[..., 2, 0], -1.0, 1.0)
    b = np.arcsin(sb)
    locked = np.abs(sb) > 1.0 - _GIMBAL
    a = np.arctan2(m[..., 2, 1], m[..., 2, 2])
    c = np.arctan2(m[..., 1, 0], m[..., 0, 0])
    # Gimbal lock: R = Rz(c) Ry(±90) Rx(a) depends on a ∓ c only; with c = 0 the entries
    # R[0,1] = ±sin(a) ... give a = atan2(±R[0,1], R[1,1]).
    a_locked = np.arctan2(np.sign(sb) * m[..., 0, 1], m[..., 1, 1])
    a = np.where(locked, a_locked, a)
    c = np.where(locked, 0.0, c)
    return np.degrees(np.stack([a, b, c], axis=-1))
