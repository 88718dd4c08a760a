"""A bone's ``bone_to_world`` as the seed writes it: an ordered product of labelled factors.

The seed "change of basis" writes the left calf's basis change as
``T_hip R_hip T_thigh.l R_thigh.l T_calf.l R_calf.l``: for each bone from the root down, its
translation, its rotation (and ``S_bone`` where the bone has a scale other than 1). Each
:class:`Factor` carries its label, kind, bone and live 4x4 matrix at the requested frames,
taken from the animated local transforms, so the product of the factors is forward
kinematics.

Where a constraint drives a bone, the chain also shows the constraint's correction, computed
generically from the evaluated pose: with ``U = parent_to_world' @ bone_to_parent`` (the bone
as its possibly constrained parent and its own keys put it) and ``W`` the evaluated
``bone_to_world``,

- world space (option 1 of the seed): ``W = C U`` with ``C = W U^-1``, written as
  ``T(head') R_c T(-head) [chain]``; for a points-at, ``head' = head`` is the knee of the seed;
- object space (option 2): ``W = U C`` with ``C = U^-1 W``, written ``[chain] R_c`` (with a
  ``T_c`` in front of ``R_c`` when the constraint also moved the head, as a multi-parent
  body does). A correction that is no rotation is one general linear factor ``L_c``.

:func:`a_to_b_chain` writes ``a_to_b = (b_to_world)^-1 a_to_world`` as factors and marks the
factors that cancel: ``X^-1`` next to ``X`` after free reduction, which for bones with a
common ancestor are exactly the ancestors' factors (the hip terms of the seed's
right-calf-to-left-calf transform). The product of the remaining factors equals the full
product. Pure data and numpy: the editor draws it (cancelled factors struck through).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from app.scene.math.transforms import R, S, T, inverse
from app.scene.rig.keys import sample
from app.scene.rig.model import Scene

#: Factor kinds: translation, rotation, axis scale, and a general linear correction (a
#: constraint's correction that is not a rotation, under non-uniform scale).
KINDS = ("T", "R", "S", "L")


@dataclass(frozen=True, eq=False)
class Factor:
    """One factor of a matrix chain.

    Attributes
    ----------
    name : str
        The factor without inversion: ``"T_hip"``, ``"R_c(calf.l)"``, ``"T(calf.l head)"``.
    kind : str
        One of :data:`KINDS`.
    bone : str
        The bone it belongs to.
    matrix : ndarray, shape (..., 4, 4)
        Its value at the chain's frames (already inverted when ``inverted``).
    inverted : bool
        The factor appears as ``name^-1``.
    constraint : str or None
        The constraint(s) whose correction this factor is (``None`` for a bone's own T, R, S).
    cancelled : bool
        Cancelled against its inverse next to it (only in :func:`a_to_b_chain`).
    """

    name: str
    kind: str
    bone: str
    matrix: np.ndarray
    inverted: bool = False
    constraint: str | None = None
    cancelled: bool = False

    @property
    def label(self) -> str:
        """``name``, or ``name^-1`` when inverted."""
        return f"{self.name}^-1" if self.inverted else self.name

    def inverse(self) -> Factor:
        """The factor ``X^-1``, with its matrix inverted exactly for T, R and S."""
        m = self.matrix
        if self.kind == "T":
            inv = m.copy()
            inv[..., :3, 3] = -m[..., :3, 3]
        elif self.kind == "R":
            inv = np.swapaxes(m, -1, -2).copy()
        elif self.kind == "S":
            inv = m.copy()
            for i in range(3):
                inv[..., i, i] = 1.0 / m[..., i, i]
        else:
            inv = inverse(m)
        return replace(self, matrix=inv, inverted=not self.inverted)


@dataclass(frozen=True, eq=False)
class MatrixChain:
    """An ordered product of factors, left to right as written.

    Attributes
    ----------
    factors : tuple of Factor
    frames : ndarray, shape (F,) or ()
        The frames the matrices belong to; a scalar frame gives ``(4, 4)`` matrices.
    brackets : tuple of (int, int)
        ``[start, stop)`` spans of ``factors`` written in square brackets, as the seed
        brackets the chain a constraint's correction applies to.
    """

    factors: tuple
    frames: np.ndarray
    brackets: tuple = field(default=())

    def product(self, *, skip_cancelled: bool = False) -> np.ndarray:
        """The product of the factors, ``(..., 4, 4)``; the identity for none."""
        out = np.broadcast_to(np.eye(4), np.shape(self.frames) + (4, 4)).copy()
        for f in self.factors:
            if not (skip_cancelled and f.cancelled):
                out = out @ f.matrix
        return out

    def labels(self) -> list[str]:
        return [f.label for f in self.factors]

    def text(self, *, hide_cancelled: bool = False, word=None) -> str:
        """The chain in the seed's notation, brackets included; cancelled factors are
        ``~~struck~~`` (or left out, with the brackets around nothing but them), and an
        empty product is ``I``.

        ``word(factor) -> str`` writes each factor instead (the editor's rich text)."""
        shown = [i for i, f in enumerate(self.factors) if not (hide_cancelled and f.cancelled)]
        opens, closes = [0] * len(self.factors), [0] * len(self.factors)
        for start, stop in self.brackets:
            inside = [i for i in shown if start <= i < stop]
            if inside:
                opens[inside[0]] += 1
                closes[inside[-1]] += 1
        words = []
        for i in shown:
            f = self.factors[i]
            if word is not None:
                text = word(f)
            else:
                text = f"~~{f.label}~~" if f.cancelled else f.label
            words.append("[" * opens[i] + text + "]" * closes[i])
        return " ".join(words) or "I"


def _frames(frames) -> tuple[np.ndarray, bool]:
    frames = np.asarray(frames, dtype=float)
    return frames.reshape(-1), frames.ndim == 0


def _own_factors(scene: Scene, index: int, frames: np.ndarray) -> list[Factor]:
    """``T_bone R_bone [S_bone]`` at ``frames`` ``(F,)``."""
    bone = scene.bones[index]
    t = sample(bone.translation, bone.translation_keys, frames)
    q = sample(bone.rotation, bone.rotation_keys, frames, rotation=True)
    out = [
        Factor(f"T_{bone.name}", "T", bone.name, T(t)),
        Factor(f"R_{bone.name}", "R", bone.name, R(q)),
    ]
    if tuple(bone.scale) != (1.0, 1.0, 1.0) or bone.scale_keys is not None:
        s = sample(bone.scale, bone.scale_keys, frames)
        out.append(Factor(f"S_{bone.name}", "S", bone.name, S(s)))
    return out


def _drivers(scene: Scene, space: str | None) -> dict:
    """Bone name -> (constraint names, space of the last constraint that drives it)."""
    out: dict = {}
    for c in scene.constraints:
        for name in c.driven_bones():
            names = out.get(name, ((), None))[0] + (c.name,)
            out[name] = (names, space or c.space)
    return out


def _is_rotation(linear) -> bool:
    m = linear[..., :3, :3]
    return np.abs(np.swapaxes(m, -1, -2) @ m - np.eye(3)).max(initial=0.0) <= 1e-9


def _correction(name, constraints, space, unconstrained, constrained, tol):
    """Factors of the correction ``C`` that takes ``unconstrained`` to ``constrained``."""
    label = ", ".join(constraints)
    if space == "world":
        c = constrained @ inverse(unconstrained)
    else:
        c = inverse(unconstrained) @ constrained
    linear = c.copy()
    linear[..., :3, 3] = 0.0
    if space == "world":
        kind = "R" if _is_rotation(linear) else "L"
        head_before = unconstrained[..., :3, 3]
        head_after = constrained[..., :3, 3]
        moved = np.abs(head_after - head_before).max(initial=0.0) > tol
        after = f"T({name} head{chr(39) if moved else ''})"
        return [
            Factor(after, "T", name, T(head_after), constraint=label),
            Factor(f"{kind}_c({name})", kind, name, linear, constraint=label),
            Factor(f"T(-{name} head)", "T", name, T(-head_before), constraint=label),
        ]
    out = []
    if np.abs(c[..., :3, 3]).max(initial=0.0) > tol:
        out.append(Factor(f"T_c({name})", "T", name, T(c[..., :3, 3]), constraint=label))
    kind = "R" if _is_rotation(linear) else "L"
    return out + [Factor(f"{kind}_c({name})", kind, name, linear, constraint=label)]


def bone_chain(
    scene: Scene, bone: str, frames, *, bone_to_world=None, space: str | None = None
) -> MatrixChain:
    """``bone``'s ``bone_to_world`` written as factors, root first.

    Parameters
    ----------
    scene : Scene
    bone : str
    frames : float or array_like, shape (F,)
    bone_to_world : array_like, shape (F, B, 4, 4) or (B, 4, 4), optional
        The evaluated world transforms at ``frames`` (``BakeResult.bone_to_world``). When
        given, the chain includes the corrections of the constraints that drive the bones
        on it, and its product equals this; without it the chain is forward kinematics.
    space : {"world", "object"}, optional
        Writes every correction in this space (the editor's toggle); by default each in the
        space of the (last) constraint that drives the bone.

    Returns
    -------
    MatrixChain
    """
    frames, scalar = _frames(frames)
    index = scene.bone_index(bone)
    path = [index]
    while scene.bones[path[-1]].parent is not None:
        path.append(scene.bone_index(scene.bones[path[-1]].parent))
    path.reverse()
    evaluated = None
    if bone_to_world is not None:
        evaluated = np.asarray(bone_to_world, dtype=float).reshape(len(frames), -1, 4, 4)
        if evaluated.shape[1] != len(scene.bones):
            raise ValueError(
                f"bone_to_world has {evaluated.shape[1]} bones, the scene {len(scene.bones)}"
            )
        tol = 1e-10 * max(1.0, float(np.abs(evaluated[..., :3, 3]).max(initial=0.0)))
    drivers = _drivers(scene, space) if evaluated is not None else {}

    factors: list[Factor] = []
    brackets: list[tuple[int, int]] = []
    parent_to_world = np.broadcast_to(np.eye(4), (len(frames), 4, 4))
    for i in path:
        own = _own_factors(scene, i, frames)
        factors += own
        name = scene.bones[i].name
        if name in drivers:
            local = own[0].matrix
            for f in own[1:]:
                local = local @ f.matrix
            constraints, bone_space = drivers[name]
            extra = _correction(
                name, constraints, bone_space, parent_to_world @ local, evaluated[:, i], tol
            )
            if bone_space == "world":  # C [chain so far]
                brackets = [(s + len(extra), e + len(extra)) for s, e in brackets]
                brackets.append((len(extra), len(extra) + len(factors)))
                factors = extra + factors
            else:  # [chain so far] C
                brackets.append((0, len(factors)))
                factors = factors + extra
        if evaluated is not None:
            parent_to_world = evaluated[:, i]
    if scalar:
        factors = [replace(f, matrix=f.matrix[0]) for f in factors]
    return MatrixChain(tuple(factors), frames[0] if scalar else frames, tuple(brackets))


def chain_from_bake(scene: Scene, bone: str, result, *, space: str | None = None) -> MatrixChain:
    """:func:`bone_chain` of a bake (``result`` from ``bake(scene, frames)``), constraints
    included."""
    return bone_chain(scene, bone, result.frames, bone_to_world=result.bone_to_world, space=space)


def _reduce(factors: list[Factor]) -> list[Factor]:
    """Mark ``X^-1 X`` and ``X X^-1`` pairs cancelled, innermost first (free reduction)."""
    out = list(factors)
    stack: list[int] = []
    for i, f in enumerate(out):
        if stack:
            top = out[stack[-1]]
            if top.name == f.name and top.bone == f.bone and top.inverted != f.inverted:
                out[stack.pop()] = replace(top, cancelled=True)
                out[i] = replace(f, cancelled=True)
                continue
        stack.append(i)
    return out


def a_to_b_chain(
    scene: Scene, a: str, b: str, frames, *, bone_to_world=None, space: str | None = None
) -> MatrixChain:
    """``a_to_b = (b_to_world)^-1 @ a_to_world`` as factors, with the cancelling ones marked.

    For the seed's right calf to left calf this is
    ``R_calf.l^-1 T_calf.l^-1 R_thigh.l^-1 T_thigh.l^-1 ~~R_hip^-1 T_hip^-1 T_hip R_hip~~
    T_thigh.r R_thigh.r T_calf.r R_calf.r``. A world-space correction on one side sits at
    the far left of that side's chain and stops the ancestors' factors from meeting their
    inverses: nothing cancels there, which is the seed's point about option 1.

    Parameters are those of :func:`bone_chain`.

    Returns
    -------
    MatrixChain
        Its ``product()`` is ``a_to_b``; ``product(skip_cancelled=True)`` is the same matrix.
    """
    chain_a = bone_chain(scene, a, frames, bone_to_world=bone_to_world, space=space)
    chain_b = bone_chain(scene, b, frames, bone_to_world=bone_to_world, space=space)
    n = len(chain_b.factors)
    inverse_b = [f.inverse() for f in reversed(chain_b.factors)]
    brackets = [(n - e, n - s) for s, e in chain_b.brackets]
    brackets += [(s + n, e + n) for s, e in chain_a.brackets]
    factors = _reduce(inverse_b + list(chain_a.factors))
    return MatrixChain(tuple(factors), chain_a.frames, tuple(brackets))
