"""What the curve view plots: a rotation's quaternion components and angle over frames.

``q`` and ``-q`` are the same rotation, so sampled quaternions may change sign from one
frame to the next (slerp between keys on opposite hemispheres returns the negated end key).
Plotted raw, each flip is a jump in all four curves that the animation does not have.
:func:`rotation_curve` picks, frame by frame, the sign nearest the previous frame's, starting
with ``w >= 0``; its angle ``2 atan2(|v|, w)`` then runs continuously past 180 degrees (a
spin from 0 to 270 degrees reads 270, not 90). Key markers get the sign the curve has at
their frames, so they sit on the curve.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.scene.math import quat
from app.scene.rig.keys import CONSTANT, EASE, Keys, sample


@dataclass(frozen=True, eq=False)
class RotationCurve:
    """A rotation sampled for plotting.

    Attributes
    ----------
    frames : ndarray, shape (F,)
    quats : ndarray, shape (F, 4)
        ``[w, x, y, z]``, signs chosen for continuity.
    angle_deg : ndarray, shape (F,)
        ``2 atan2(|(x, y, z)|, w)`` in degrees, in ``[0, 360]``.
    key_frames : ndarray, shape (K,)
    key_quats : ndarray, shape (K, 4)
        The keys with the sign the curve has at their frames.
    key_angle_deg : ndarray, shape (K,)
    """

    frames: np.ndarray
    quats: np.ndarray
    angle_deg: np.ndarray
    key_frames: np.ndarray
    key_quats: np.ndarray
    key_angle_deg: np.ndarray


#: Samples inside each eased segment, so its S shape is drawn however long the timeline.
EASE_SAMPLES = 32


def plot_frames(start: float, end: float, keys_list, count: int) -> np.ndarray:
    """Frames at which to sample curves for drawing, ``(F,)`` sorted and unique.

    ``count`` evenly spaced frames over ``[start, end]``, plus what shows each segment's
    interpolation (format §B) at any zoom: every key's frame, a frame just before a key that
    ends a constant segment (so the step is drawn vertical, as a graph editor draws it), and
    :data:`EASE_SAMPLES` frames inside each eased segment. Linear keys add only their frames.

    Parameters
    ----------
    keys_list : iterable of Keys or None
    """
    parts = [np.linspace(start, end, max(int(count), 2))]
    for keys in keys_list:
        if keys is None:
            continue
        parts.append(keys.frames)
        if keys.codes is None:
            continue
        segment = keys.codes[:-1]
        f0, f1 = keys.frames[:-1], keys.frames[1:]
        held = segment == CONSTANT
        # Just before the next key: far below a pixel, far above the frames' rounding.
        parts.append(f1[held] - 1e-6 * (f1[held] - f0[held]))
        eased = segment == EASE
        u = np.linspace(0.0, 1.0, EASE_SAMPLES)
        parts.append((f0[eased, None] + u * (f1 - f0)[eased, None]).reshape(-1))
    frames = np.unique(np.concatenate(parts))
    return frames[(frames >= start) & (frames <= end)]


def continuous(quats) -> np.ndarray:
    """Quaternions ``(F, 4)`` with signs flipped so consecutive ones have ``dot >= 0``, and
    the first ``w >= 0``."""
    quats = np.asarray(quats, dtype=float)
    if len(quats) == 0:
        return quats.copy()
    step = np.where(np.einsum("fi,fi->f", quats[1:], quats[:-1]) < 0, -1.0, 1.0)
    first = -1.0 if quats[0, 0] < 0 else 1.0
    signs = first * np.concatenate([[1.0], np.cumprod(step)])
    return quats * signs[:, None]


def angle_deg(quats) -> np.ndarray:
    """``2 atan2(|v|, w)`` in degrees for quaternions ``(..., 4)``: in ``[0, 360]``."""
    quats = np.asarray(quats, dtype=float)
    return np.degrees(2.0 * np.arctan2(np.linalg.norm(quats[..., 1:], axis=-1), quats[..., 0]))


def rotation_curve(static, keys: Keys | None, frames) -> RotationCurve:
    """A bone's or pivot's rotation (``static`` value and ``keys``) at ``frames`` ``(F,)``.

    The key frames are sampled along with ``frames`` so that the sign choice runs through
    them too; ``frames`` should be dense enough to follow the motion (every frame is).
    """
    frames = np.asarray(frames, dtype=float).reshape(-1)
    key_frames = np.zeros(0) if keys is None else keys.frames
    everything, inverse = np.unique(np.concatenate([frames, key_frames]), return_inverse=True)
    quats = continuous(sample(static, keys, everything, rotation=True))
    on_curve = quats[inverse[: len(frames)]]
    if keys is None:
        key_quats = np.zeros((0, 4))
    else:
        at_keys = quats[inverse[len(frames) :]]
        # The key itself (not its slerp re-evaluation), with the curve's sign there.
        sign = np.where(np.einsum("ki,ki->k", keys.values, at_keys) < 0, -1.0, 1.0)
        key_quats = keys.values * sign[:, None]
    return RotationCurve(
        frames=frames,
        quats=on_curve,
        angle_deg=angle_deg(on_curve),
        key_frames=np.array(key_frames, dtype=float),
        key_quats=key_quats,
        key_angle_deg=angle_deg(key_quats),
    )


def accumulated_turn_deg(quats) -> np.ndarray:
    """How far a rotation has turned since its first sample, unwrapped, in degrees ``(F,)``.

    The sum of the frame-to-frame turns as rotation vectors, ``|sum_k log(q_k q_(k-1)^-1)|``
    (world axes): for a body turning about one axis it is the angle unwrapped past 360 degrees
    (a box tumbling four times reads 360, not 0), turning back brings it back, and in general
    it is the length of the integrated angular displacement. Samples must be dense enough
    that no step turns more than half a turn.

    Parameters
    ----------
    quats : array_like, shape (F, 4)
        World rotations ``[w, x, y, z]`` (either sign).
    """
    quats = np.asarray(quats, dtype=float)
    if len(quats) == 0:
        return np.zeros(0)
    steps = quat.canonical(quat.mul(quats[1:], quat.conj(quats[:-1])))
    total = np.concatenate([np.zeros((1, 3)), np.cumsum(quat.rotvec_from_quat(steps), axis=0)])
    return np.degrees(np.linalg.norm(total, axis=1))
