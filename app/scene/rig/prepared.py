"""What evaluating a scene needs that does not change with the frame, prepared once per edit.

:func:`prepare` returns the :class:`PreparedRig` of a scene: its :class:`Skeleton`
(parents, depth levels, descendants), every bone's tail and scale, the key channels grouped
and stacked for sampling, and room for each constraint solver's own static data
(:meth:`PreparedRig.static`). It is kept with the scene (:attr:`Scene.derived`) and
rebuilt when any bone was replaced (items are immutable, so the identity of the bones is the
whole key); a constraint's entry is rebuilt when that constraint was replaced.

Evaluating one frame then costs what its arithmetic costs: no Python loop over bones or
keys runs per evaluation.
"""

from __future__ import annotations

import numpy as np

from app.scene.math.quat import slerp
from app.scene.rig.keys import bracket_at, sample_stacked
from app.scene.rig.model import Scene
from app.scene.rig.skeleton import Skeleton, compose_local, forward_kinematics, tails_in_bones


class _Channel:
    """Translation or rotation of every bone, sampled together: :func:`sample_many`'s
    grouping (bones whose keys share their key frames) done once."""

    def __init__(self, statics, keys_list, rotation: bool):
        self.n = len(keys_list)
        self.dim = 4 if rotation else 3
        self.rotation = rotation
        groups: dict = {}
        for i, keys in enumerate(keys_list):
            if keys is not None:
                codes = b"" if keys.codes is None else keys.codes.tobytes()
                groups.setdefault((len(keys), keys.frames.tobytes(), codes), []).append(i)
        self.groups = [
            (
                np.array(members, dtype=np.intp),
                keys_list[members[0]].frames,
                np.stack([keys_list[i].values for i in members]),
                keys_list[members[0]].codes,
            )
            for members in groups.values()
        ]
        self.whole = len(self.groups) == 1 and len(self.groups[0][0]) == self.n
        self.static_index = np.array(
            [i for i, k in enumerate(keys_list) if k is None], dtype=np.intp
        )
        self.static_values = np.array([statics[i] for i in self.static_index], dtype=float).reshape(
            -1, 1, self.dim
        )

    def sample(self, frames: np.ndarray) -> np.ndarray:
        """Every bone's value at ``frames`` (F,), shape ``(B, F, D)``."""
        if len(frames) == 1 and len(self.groups) > 1:
            return self._sample_at(float(frames[0]))
        if self.whole:
            return self._group(*self.groups[0][1:], frames)
        out = np.empty((self.n, len(frames), self.dim))
        if len(self.static_index):
            out[self.static_index] = self.static_values
        for members, key_frames, values, codes in self.groups:
            out[members] = self._group(key_frames, values, codes, frames)
        return out

    def _sample_at(self, frame: float) -> np.ndarray:
        """:meth:`sample` at one frame, ``(B, 1, D)``: every group's bracket found first,
        then one interpolation for all the bones between keys (the same arithmetic as each
        group's :func:`sample_stacked`, bit for bit, in one numpy pass instead of one per
        group)."""
        out = np.empty((self.n, 1, self.dim))
        if len(self.static_index):
            out[self.static_index] = self.static_values
        rows, starts, ends, weights = [], [], [], []
        for members, key_frames, values, codes in self.groups:
            if len(key_frames) == 1:
                out[members] = values
                continue
            k, t = bracket_at(key_frames, codes, frame)
            if t == 0:
                out[members] = values[:, k : k + 1]
                continue
            rows.append(members)
            starts.append(values[:, k])
            ends.append(values[:, k + 1])
            weights.append(np.full(len(members), t))
        if rows:
            a, b, t = np.concatenate(starts), np.concatenate(ends), np.concatenate(weights)
            between = np.concatenate(rows)
            if self.rotation:
                out[between, 0] = slerp(a, b, t)
            else:
                out[between, 0] = (1.0 - t[:, None]) * a + t[:, None] * b
        return out

    def _group(self, key_frames, values, codes, frames):
        return sample_stacked(key_frames, values, codes, frames, self.rotation)


class PreparedRig:
    """A scene's frame-independent evaluation data (see the module docstring).

    Attributes
    ----------
    skeleton : Skeleton
    tails_in_bone : ndarray, shape (B, 3)
        Each bone's tail in its own frame (the format's default filled in).
    """

    def __init__(self, scene: Scene):
        bones = scene.bones
        self.skeleton = Skeleton.from_scene(scene)
        #: Bone name -> index (``Scene.bone_index`` without its linear search).
        self.index = {name: i for i, name in enumerate(self.skeleton.names)}
        #: The names as the array every evaluation returns (read-only: results share it).
        self.name_array = np.array(self.skeleton.names)
        self.name_array.flags.writeable = False
        self.tails_in_bone = tails_in_bones(scene)
        self.scale = np.array([b.scale for b in bones], dtype=float).reshape(-1, 3).T[:, :, None]
        self._scale = None  # a channel only when some bone has scale keys
        if any(b.scale_keys is not None for b in bones):
            self._scale = _Channel(
                [b.scale for b in bones], [b.scale_keys for b in bones], rotation=False
            )
        self._translation = _Channel(
            [b.translation for b in bones], [b.translation_keys for b in bones], rotation=False
        )
        self._rotation = _Channel(
            [b.rotation for b in bones], [b.rotation_keys for b in bones], rotation=True
        )
        self._statics: dict = {}
        self._worlds: dict = {}
        self._memo: dict = {}

    def local_transforms(self, frames) -> np.ndarray:
        """:func:`app.scene.rig.skeleton.local_transforms` of the scene, shape (F, B, 4, 4)."""
        frames = np.asarray(frames, dtype=float).reshape(-1)
        scale = self.scale if self._scale is None else np.moveaxis(self._scale.sample(frames), 2, 0)
        return compose_local(self._translation.sample(frames), self._rotation.sample(frames), scale)

    def world_at(self, frame: float) -> np.ndarray:
        """Forward kinematics at one frame, ``(B, 4, 4)``, kept (read-only) for reuse: the
        multi-parent solver starts every evaluation from ``frame_start``."""
        world = self._worlds.get(frame)
        if world is None:
            world = forward_kinematics(self.skeleton, self.local_transforms([frame]))[0]
            world.setflags(write=False)
            self._worlds[frame] = world
        return world

    def memo(self, key, build):
        """``build()`` computed once per ``key`` (hashable) while the bones stay the same."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def static(self, item, build):
        """``build(item)`` for a constraint (or any immutable item), computed once while the
        same item object is in the scene."""
        entry = self._statics.get(id(item))
        if entry is None or entry[0] is not item:
            entry = self._statics[id(item)] = (item, build(item))
        return entry[1]


def prepare(scene: Scene) -> PreparedRig:
    """The scene's :class:`PreparedRig`, kept with the scene
    (:attr:`~app.scene.rig.model.Scene.derived`) and rebuilt when a bone was replaced, added
    or removed."""
    return scene.derived.get("prepared rig", (scene.bones,), lambda: PreparedRig(scene))
