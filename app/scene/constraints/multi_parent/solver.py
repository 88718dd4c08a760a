"""The multi-parent constraint: a body rotating about several pivots at once.

The solver of ``docs/scene-format.md`` (``multi_parent``), loaded by
:mod:`app.scene.evaluate`. The body starts at ``frame_start`` where forward kinematics puts
it and moves by the seed's update equations (or their limit: ``integrator: "twist"`` step by step,
``"exact"`` in closed form, :mod:`app.scene.constraints.multi_parent.exact`) on the grid
``frame_start + k / substeps`` (whole frames for ``"exact"``):

- :mod:`app.scene.constraints.multi_parent.plan` lays the pivots' keys onto the grid (and subdivides
  large steps),
- :mod:`app.scene.constraints.multi_parent.increments` is one step of either integrator,
- :mod:`app.scene.constraints.multi_parent.scan` integrates the whole grid as two scans,
- :mod:`app.scene.constraints.multi_parent.cache` keeps the result between evaluations and decides
what
  an edit invalidates.

Here: the state at the requested frames (grid points from the cache; a frame between grid
points by one partial step from the grid point before it), written as the body's world
transform ``T(p0) R(q0) S(body scale)``. With ``relative_to: "parent"`` (a body that has a
parent) the state is the body's head and rotation in its parent's frame, integrated there by
the same equations, and written as ``parent_to_world(f) T(p0) R(q0) S`` with the parent as
the constraints before this one leave it: the cached integral never depends on the parent's
motion, only this last product does.

``context.cache[constraint.name]`` holds ``{"space": last space, "world"/"object":
Integral, "checked": (integral, inputs, staleness)}`` (the last :func:`is_stale` verdict,
which :func:`apply` uses rather than comparing the keys again);
``context.info[constraint.name]`` reports what the evaluation did.
"""

from __future__ import annotations

import numpy as np

from app.scene.constraints.multi_parent.cache import (
    Inputs,
    Integral,
    staleness,
    update,
)
from app.scene.constraints.multi_parent.exact import partial_steps
from app.scene.constraints.multi_parent.exact_terms import rotation_matrix
from app.scene.constraints.multi_parent.increments import MAX_PIVOTS, increment
from app.scene.constraints.multi_parent.model import MultiParent
from app.scene.constraints.multi_parent.plan import (
    grid_time,
    max_turn_rate,
    ordered_pivots,
    subdivisions,
)
from app.scene.constraints.multi_parent.scan import CHUNK
from app.scene.errors import SceneError
from app.scene.math.quat import (
    canonical,
    conj,
    mul,
    mul_components,
    normalize,
    normalize_components,
    rotate_components,
)
from app.scene.math.transforms import rotation_from_matrix
from app.scene.rig.keys import sample
from app.scene.rig.model import Scene
from app.scene.rig.prepared import prepare


def relative_parent(constraint: MultiParent, scene: Scene) -> str | None:
    """The parent whose frame the state is integrated in (contract §F3), or ``None``: a
    constraint ``relative_to`` the world, or a root body (both values then agree)."""
    if constraint.relative_to != "parent":
        return None
    return scene.bone(constraint.body).parent


def initial_state(scene: Scene, body: str, relative: bool = False):
    """The body's position and orientation at ``frame_start`` from forward kinematics.

    Returns
    -------
    position : ndarray, shape (3,)
        The body's head in world coordinates (with ``relative``: in its parent's frame, its
        animated translation there).
    rotation : ndarray, shape (4,)
        Its world rotation: the rotation part of ``bone_to_world`` with the body's own scale
        divided out (the nearest rotation, should an ancestor shear it). With ``relative``:
        its animated rotation in its parent's frame, so nothing the parent does enters it.
    """
    rig = prepare(scene)  # computed once per edit (and per frame_start)

    def state():
        index = rig.index[body] if body in rig.index else scene.bone_index(body)
        if relative:
            bone = scene.bones[index]
            at = np.array([float(scene.frame_start)])
            position = sample(bone.translation, bone.translation_keys, at)[0]
            rotation = sample(bone.rotation, bone.rotation_keys, at, rotation=True)[0]
            return position, rotation / np.linalg.norm(rotation)
        m = rig.world_at(float(scene.frame_start))[index]
        scale = np.asarray(scene.bones[index].scale, dtype=float)
        scale = np.where(scale == 0, 1.0, scale)  # a body scaled to 0: nothing to divide out
        return m[:3, 3].copy(), rotation_from_matrix(m[:3, :3] / scale)

    key = ("multi_parent.initial_state", body, scene.frame_start, relative)
    position, rotation = rig.memo(key, state)
    return position.copy(), rotation.copy()


def inputs_of(constraint: MultiParent, scene: Scene, space: str) -> Inputs:
    """The integral's inputs for ``constraint`` in ``space`` (see :class:`Inputs`)."""
    if len(constraint.pivots) > MAX_PIVOTS:
        where = f"constraints[{scene.constraints.index(constraint)}].pivots"
        raise SceneError(
            f"{len(constraint.pivots)} pivots: at most {MAX_PIVOTS} are supported (their "
            f"anticommutator sums every order of the pivots, {len(constraint.pivots)}! of them)",
            where,
        )
    # Built once per constraint item, space and frame_start while the bones stay the same.
    memo = prepare(scene).static(constraint, lambda c: {})
    inputs = memo.get((space, scene.frame_start))
    if inputs is None:
        relative = relative_parent(constraint, scene) is not None
        position, rotation = initial_state(scene, constraint.body, relative)
        inputs = memo[(space, scene.frame_start)] = Inputs(
            space=space,
            integrator=constraint.integrator,
            # The exact integrator has no substeps: its grid is whole frames.
            substeps=1 if constraint.integrator == "exact" else int(constraint.substeps),
            frame_start=int(scene.frame_start),
            scale=tuple(float(v) for v in scene.bone(constraint.body).scale),
            rotation=tuple(rotation.tolist()),
            position=tuple(position.tolist()),
            pivots=ordered_pivots(constraint.pivots),
        )
    return inputs


def _partial_steps(inputs: Inputs, t0, t1, q, p):
    """Integrate from grid times ``t0 (F,)`` to frames ``t1 (F,)`` in one (subdivided) step.

    ``q (4, F)`` and ``p (3, F)`` are the states at ``t0``; returns the states at ``t1``.
    """
    pivots = inputs.pivots
    scale = np.asarray(inputs.scale)
    rotations = [(pv.rotation, pv.rotation_keys) for pv in pivots]
    # The step's turn is bounded by each pivot's fastest key interval, as in the plan.
    m = subdivisions(np.array([max_turn_rate(keys, t0, t1) * (t1 - t0) for _, keys in rotations]))
    q, p = q.copy(), p.copy()
    for j in range(int(m.max(initial=0))):
        active = j < m
        a = np.where(active, t0 + (t1 - t0) * (j / m), t1)
        b = np.where(j + 1 >= m, t1, t0 + (t1 - t0) * ((j + 1) / m))
        R = np.stack(
            [
                canonical(
                    normalize(
                        mul(
                            sample(st, ks, b, rotation=True), conj(sample(st, ks, a, rotation=True))
                        )
                    )
                ).T
                for st, ks in rotations
            ],
            axis=1,
        )
        u = np.stack(
            [(sample(pv.position, pv.position_keys, a) * scale).T for pv in pivots], axis=1
        )
        inc = increment(R, inputs.integrator)
        if inputs.space == "world":
            d = inc.pivot_sum(rotate_components(q[:, None], u))
            q_next = mul_components(inc.rotation, q)
        else:
            d = rotate_components(q, inc.pivot_sum(u))
            q_next = mul_components(q, inc.rotation)
        q = np.where(active, normalize_components(q_next), q)
        p = np.where(active, p + d, p)
    return q, p


def states_at(integral: Integral, frames) -> tuple[np.ndarray, np.ndarray]:
    """The body's ``(q0, p0)`` at ``frames``, shapes ``(F, 4)`` and ``(F, 3)``.

    Frames before ``frame_start`` hold its state; whole frames read the per-frame cache;
    another frame on the grid is read from the pieces; a frame between grid points is one
    partial step from the grid point before it; after the grid's end (the pivots' last key)
    the body holds still.
    """
    inputs = integral.inputs
    fs, s, N = inputs.frame_start, inputs.substeps, integral.n_steps
    frames = np.asarray(frames, dtype=float).reshape(-1)
    if len(frames) == 1:  # the editor's frame: a whole frame on the grid is one cache read
        k = float(frames[0]) - fs
        if k == int(k) and 0 <= k * s <= N and k < integral.frame_rotation.shape[1]:
            k = int(k)
            return integral.frame_rotation[:, k][None], integral.frame_position[:, k][None]
    n = np.clip(np.floor((frames - fs) * s), 0, N).astype(np.intp)
    n -= (grid_time(fs, s, n) > frames) & (n > 0)
    n += (grid_time(fs, s, n + 1) <= frames) & (n < N)
    slots = integral.frame_rotation.shape[1]
    if len(frames) == slots and np.array_equal(frames, fs + np.arange(slots)):
        return integral.frame_rotation.T, integral.frame_position.T  # the whole cache
    rotation = np.empty((4, len(frames)))
    position = np.empty((3, len(frames)))
    cached = (n % s == 0) | (n == N)
    slot = np.minimum(-(-n[cached] // s), integral.frame_rotation.shape[1] - 1)
    rotation[:, cached] = integral.frame_rotation[:, slot]
    position[:, cached] = integral.frame_position[:, slot]
    if not np.all(cached):
        rotation[:, ~cached], position[:, ~cached] = integral.grid_states(n[~cached])
    partial = (frames > grid_time(fs, s, n)) & (n < N)
    if np.any(partial):
        t0 = grid_time(fs, s, n[partial])
        step = partial_steps if inputs.integrator == "exact" else _partial_steps
        rotation[:, partial], position[:, partial] = step(
            inputs, t0, frames[partial], rotation[:, partial], position[:, partial]
        )
    return rotation.T, position.T


def body_to_world(rotation, position, scale, out=None) -> np.ndarray:
    """``T(p0) R(q0) S(scale)`` for ``rotation (F, 4)``, ``position (F, 3)``: ``(F, 4, 4)``.

    Built entry by entry over all frames (as the forward kinematics does), a few thousand
    frames at a time, into ``out (F, 4, 4)`` when given (the context's own transforms: no
    temporary of the whole result).
    """
    rotation = np.asarray(rotation, dtype=float)
    position = np.asarray(position, dtype=float)
    scale = [float(v) for v in scale]
    out = np.empty((len(rotation), 4, 4)) if out is None else out
    out[:, :3, 3] = position
    out[:, 3, :3] = 0.0
    out[:, 3, 3] = 1.0
    for lo in range(0, len(rotation), CHUNK):
        R = rotation_matrix(rotation[lo : lo + CHUNK].T)
        m = out[lo : lo + CHUNK]
        for j in range(3):
            for k in range(3):
                np.multiply(R[j][k], scale[k], out=m[:, j, k])
    return out


def compose(parent_to_world, body_to_parent, out=None) -> np.ndarray:
    """``parent_to_world @ body_to_parent`` for affine ``(F, 4, 4)`` stacks, into ``out``.

    Entry by entry over all frames, each a fixed sum of products: a frame's bits do not
    depend on how many frames are evaluated with it (a batched ``matmul`` may take another
    path for another count).
    """
    a, b = parent_to_world, body_to_parent
    out = np.empty(np.shape(b)) if out is None else out
    if len(b) == 1 and len(a) == 1:  # the editor's frame: the same sums on Python floats
        out[0] = _compose_one(a[0].tolist(), b[0].tolist())  # (IEEE doubles, same order)
        return out
    for j in range(3):
        for k in range(4):
            out[:, j, k] = (
                a[:, j, 0] * b[:, 0, k] + a[:, j, 1] * b[:, 1, k] + a[:, j, 2] * b[:, 2, k]
            )
        out[:, j, 3] += a[:, j, 3]
    out[:, 3, :3] = 0.0
    out[:, 3, 3] = 1.0
    return out


def _compose_one(a, b) -> list:
    """:func:`compose` of one frame, ``a @ b`` as nested lists: each entry the same sum of
    products in the same order, so its bits are those of the stacked form, in a tenth of
    the time (no numpy call per entry)."""
    rows = []
    for j in range(3):
        aj0, aj1, aj2, aj3 = a[j]
        rows.append(
            [aj0 * b[0][k] + aj1 * b[1][k] + aj2 * b[2][k] for k in range(3)]
            + [aj0 * b[0][3] + aj1 * b[1][3] + aj2 * b[2][3] + aj3]
        )
    rows.append([0.0, 0.0, 0.0, 1.0])
    return rows


def _entry(cache: dict, name: str) -> dict:
    entry = cache.get(name)
    if not isinstance(entry, dict) or "space" not in entry:
        entry = cache[name] = {"space": None}
    return entry


def _staleness(entry: dict, space: str, inputs: Inputs) -> tuple[int, int]:
    """:func:`~app.scene.constraints.multi_parent.cache.staleness` of the entry's integral in
    ``space`` for ``inputs``, kept in the entry while both are the same objects: the editor
    asks :func:`is_stale` before an evaluation, whose :func:`apply` then reads the verdict."""
    integral = entry.get(space)
    kept = entry.get("checked")
    if kept is None or kept[0] is not integral or kept[1] is not inputs:
        kept = entry["checked"] = (integral, inputs, staleness(integral, inputs))
    return kept[2]


def cached_integral(cache: dict, name: str, space: str) -> Integral | None:
    """The integral the evaluation's ``cache`` holds for constraint ``name`` in ``space``
    (``None`` when it holds none): what the step-through reads instead of integrating."""
    entry = cache.get(name)
    return entry.get(space) if isinstance(entry, dict) else None


def _with_path(constraint, scene, error: SceneError) -> SceneError:
    return SceneError(
        error.reason, f"constraints[{scene.constraints.index(constraint)}].{error.path}"
    )


def apply(constraint: MultiParent, ctx) -> None:
    """Drive the body: its world transform at every context frame (see module docstring)."""
    space = ctx.space_of(constraint)
    inputs = inputs_of(constraint, ctx.scene, space)
    entry = _entry(ctx.cache, constraint.name)
    old = entry.get(space)
    try:
        integral = update(old, inputs, _staleness(entry, space, inputs))
    except SceneError as e:
        raise _with_path(constraint, ctx.scene, e) from None
    del entry["checked"]  # used: it would keep the old integral alive
    entry["space"] = space
    entry[space] = integral
    rotation, position = states_at(integral, ctx.frames)
    body = ctx.skeleton.index(constraint.body)
    # Written straight into the context's transforms; setting them to themselves copies
    # nothing (numpy skips an assignment of a view to itself) and moves the descendants.
    out = ctx.bone_to_world[:, body]
    parent = ctx.skeleton.parents[body] if constraint.relative_to == "parent" else -1
    if parent < 0:  # relative to the world, or a root body (relative_parent is None)
        world = body_to_world(rotation, position, inputs.scale, out=out)
    else:  # the state is in the parent's frame: the parent, as it is now, carries it (§F3)
        local = body_to_world(rotation, position, inputs.scale)
        world = compose(ctx.bone_to_world[:, parent], local, out=out)
    ctx.set_world(body, world)
    recomputed = integral is not old and integral.recomputed_from <= integral.n_steps
    ctx.info[constraint.name] = {
        "recomputed_from_frame": (
            float(grid_time(inputs.frame_start, inputs.substeps, integral.recomputed_from))
            if recomputed
            else None
        ),
        "grid_steps": integral.n_steps,
        "subdivided_steps": integral.subdivided,
    }


def is_stale(constraint: MultiParent, cache_entry, scene: Scene) -> bool:
    """Whether the next evaluation must integrate anything again.

    Compares the constraint's current inputs, in the space it was last evaluated in, with
    those of the cached integral. Relative to its parent, the inputs' start state is the
    body's own state in the parent's frame: an edit of the parent never makes it stale.
    """
    if not isinstance(cache_entry, dict) or cache_entry.get("space") is None:
        return True
    space = cache_entry["space"]
    integral = cache_entry.get(space)
    if integral is None:
        return True
    inputs = inputs_of(constraint, scene, space)
    try:
        steps, stale = _staleness(cache_entry, space, inputs)
    except SceneError:
        return True
    if not integral.inputs.same_start(inputs):
        return True
    return not (stale == integral.n_steps == steps)
