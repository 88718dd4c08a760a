"""``multi_parent`` in the scene file (``docs/scene-format.md``)."""

from __future__ import annotations

from app.scene import bounds
from app.scene.constraints.multi_parent.model import RELATIVE_TO, MultiParent
from app.scene.errors import SceneError
from app.scene.formats.json_values import check_name, read_array, read_integer, read_name
from app.scene.formats.kinds.base import SCHEMAS, KindSchema
from app.scene.formats.kinds.parts import (
    check_count,
    pivot_from_json,
    pivot_to_json,
    required,
    unique,
)
from app.scene.rig.model import Scene


def read(obj: dict, path: str, common: dict) -> MultiParent:
    pivots = read_array(required(obj, "pivots", path), f"{path}.pivots")
    if not pivots:
        raise SceneError("a multi_parent constraint needs at least one pivot", f"{path}.pivots")
    check_count(obj.get("substeps"), bounds.check_steps, f"{path}.substeps")
    substeps = read_integer(obj.get("substeps", 4), f"{path}.substeps")
    if substeps < 1:
        raise SceneError(f"substeps must be >= 1, got {substeps}", f"{path}.substeps")
    integrator = obj.get("integrator", "seed")
    if integrator not in ("seed", "twist", "exact"):
        raise SceneError(
            f'integrator must be "seed", "twist" or "exact", got {integrator!r}',
            f"{path}.integrator",
        )
    relative_to = obj.get("relative_to", "world")
    if relative_to not in RELATIVE_TO:
        raise SceneError(
            f'relative_to must be "world" or "parent", got {relative_to!r}', f"{path}.relative_to"
        )
    parsed = tuple(pivot_from_json(p, f"{path}.pivots[{i}]") for i, p in enumerate(pivots))
    unique([p.name for p in parsed], f"{path}.pivots", "pivot")
    return MultiParent(
        body=read_name(required(obj, "body", path), f"{path}.body"),
        pivots=parsed,
        substeps=substeps,
        integrator=integrator,
        relative_to=relative_to,
        **common,
    )


def write(c: MultiParent) -> dict:
    out = dict(body=c.body, substeps=c.substeps, integrator=c.integrator)
    if c.relative_to != "world":  # the default is not written: older files save as they were
        out["relative_to"] = c.relative_to
    out["pivots"] = [pivot_to_json(p) for p in c.pivots]
    return out


def check(scene: Scene, c: MultiParent, index: dict, path: str) -> None:
    """Pivot names, and a grid (``frame_start`` to the pivots' last key, at ``substeps`` per
    frame) no longer than the bound on integration steps."""
    for k, pivot in enumerate(c.pivots):
        check_name(pivot.name, f"{path}.pivots[{k}].name")
    bounds.check_steps(c.substeps, f"{path}.substeps")
    last = [k.frames[-1] for p in c.pivots for k in (p.rotation_keys, p.position_keys) if k]
    if last:
        steps = (float(max(last)) - float(scene.frame_start)) * c.substeps
        bounds.check_steps(max(0.0, steps), f"{path}.pivots")


KEYS = frozenset({"body", "pivots", "substeps", "integrator", "relative_to"})
SCHEMA = SCHEMAS.register(KindSchema(MultiParent, KEYS, read, write, check))
