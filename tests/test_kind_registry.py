"""A constraint kind is one registered type (issue 19 item 1).

Nothing outside the registries names a kind (checked by reading ``app/`` with ``ast``), and a
toy kind defined only here, registered in a fixture, loads, bakes, saves, shows in the
outliner and the inspector and renames with its bone: adding a kind touches no other module.
"""

from __future__ import annotations

import ast
import contextlib
import json
from dataclasses import dataclass

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from app.scene.constraints import registry as solvers
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.json_values import read_name, read_number
from app.scene.formats.kinds import registry as schemas
from app.scene.formats.kinds.parts import required, target_from_json, target_to_json
from app.scene.formats.schema import scene_from_json, scene_to_json, validate
from app.scene.rig import bone_edits, model
from app.scene.rig.editing import Ref
from app.scene.rig.model import Constraint, Target
from app.widgets.kinds import registry as views
from app.widgets.viewport import scene_drawing

from . import gui
from .conftest import ROOT

# --- nothing outside the registries names a kind --------------------------------------------

#: The modules that may name a constraint class or compare type strings: the model and the
#: registries with each kind's own modules.
ALLOWED = (
    "app/scene/rig/model.py",
    "app/scene/constraints/registry.py",
    "app/scene/formats/kinds/",
    "app/widgets/kinds/",
    "app/scene/constraints/limit_distance/",  # a kind as one package (issue 29)
)
#: Where a kind's model class may live besides the model: its own package (issue 29).
KIND_PACKAGES = ("app.scene.constraints.",)


def _kind_classes() -> dict[str, str]:
    """Class name -> type string of every constraint kind of the model."""
    found, todo = {}, [Constraint]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__ == model.__name__ or sub.__module__.startswith(KIND_PACKAGES):
                found[sub.__name__] = sub.type
                todo.append(sub)
    return found


def _names(node) -> set[str]:
    """The names in an ``isinstance`` class argument (a name, ``module.Name``, a tuple)."""
    if isinstance(node, ast.Tuple):
        return set().union(*(_names(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return set()


def _words(node, type_words: set[str]) -> bool:
    """Whether ``node`` is a kind's type string, or a tuple/list/set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in type_words
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_words(e, type_words) for e in node.elts)
    return False


def kind_checks(source: str, classes: set[str], type_words: set[str]) -> list[int]:
    """Lines of ``source`` that ask for a kind by name: ``isinstance(x, Kind)``,
    ``type(x) is Kind``, a comparison with a kind's type string (``x.type == "fabrik"``,
    ``kind in ("fabrik", ...)``), ``x.type`` compared with a named constant
    (``c.type in TRACEABLE``), or a table keyed by type strings."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("isinstance", "issubclass") and len(node.args) == 2:
                if _names(node.args[1]) & classes:
                    lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            typed = any(isinstance(s, ast.Attribute) and s.attr == "type" for s in sides)
            if any(_names(s) & classes for s in sides):
                lines.append(node.lineno)
            elif any(_words(s, type_words) for s in sides):
                lines.append(node.lineno)
            elif typed and any(isinstance(s, ast.Name) for s in sides):
                lines.append(node.lineno)
        elif isinstance(node, ast.Dict):  # a table keyed by type strings
            if any(k is not None and _words(k, type_words) for k in node.keys):
                lines.append(node.lineno)
    return lines


def test_the_checker_finds_each_way_of_naming_a_kind():
    classes, words = {"Fabrik", "PointsAt"}, {"fabrik", "points_at"}
    bad = (
        "isinstance(c, Fabrik)\n"
        "isinstance(c, (model.PointsAt, Bone))\n"
        "c.type == 'points_at'\n"
        "type(c) is Fabrik\n"
        "kind != 'fabrik'\n"
        "WORDS = {'fabrik': 'FABRIK'}\n"
        "c.type in TRACEABLE\n"
        "kind in ('points_at', 'x')\n"
    )
    assert kind_checks(bad, classes, words) == [1, 2, 3, 4, 5, 6, 7, 8]
    fine = (
        "isinstance(c, Constraint)\nc.label\nevent.type() == 3\nname = 'fabrik.arm'\n"
        "accessor.type == 'VEC3'\nnode.type in ('SCALAR', 'VEC4')\n"
    )
    assert kind_checks(fine, classes, words) == []


def test_no_module_outside_the_registries_names_a_constraint_kind():
    kinds = _kind_classes()
    assert {"MultiParent", "PointsAt", "Fabrik", "LimitDistance"} <= set(kinds)
    classes, words = set(kinds), {w for w in kinds.values() if not w.startswith("constraint")}
    found = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(ALLOWED):
            continue
        found += [f"{rel}:{line}" for line in kind_checks(path.read_text(), classes, words)]
    assert found == [], "ask the model's hooks or a registry instead: " + ", ".join(found)


# --- a toy kind, defined only here -------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Pin(Constraint):
    """The bone's head goes to the target's point, ``height`` above it (world z)."""

    type = "toy_pin"
    label = "toy pin"
    target_fields = ("target",)
    bone: str
    target: Target
    height: float = 0.0

    def driven_bones(self):
        return (self.bone,)

    def own_bone_fields(self):
        return (("bone", self.bone),)


class PinSolver:
    @staticmethod
    def apply(constraint: Pin, ctx) -> None:
        b = ctx.skeleton.index(constraint.bone)
        world = ctx.bone_to_world[:, b].copy()
        world[:, :3, 3] = ctx.target_positions(constraint.target) + [0, 0, constraint.height]
        ctx.set_world(b, world)


def _read(obj, path, common) -> Pin:
    return Pin(bone=read_name(required(obj, "bone", path), f"{path}.bone"),
               target=target_from_json(required(obj, "target", path), f"{path}.target"),
               height=read_number(obj.get("height", 0.0), f"{path}.height"), **common)  # fmt: skip


def _write(c: Pin) -> dict:
    return {"bone": c.bone, "target": target_to_json(c.target), "height": c.height}


def _section(form, c: Pin) -> None:
    form.label_row("Bones", c.bone)
    form.target_row(c)
    form.float_field("Height", "toyHeight", "height", 3, 0.1, -1e3, 1e3)


@contextlib.contextmanager
def toy_kind():
    """The toy kind registered on each side (the one line per registry of the recipe)."""
    solvers.register(Pin, PinSolver)
    schemas.register(schemas.KindSchema(Pin, frozenset({"bone", "target", "height"}),
                                        _read, _write))  # fmt: skip
    views.register(views.ConstraintView(Pin, section=_section))
    try:
        yield
    finally:
        views.unregister(Pin)
        schemas.unregister(Pin)
        solvers.unregister(Pin)


@pytest.fixture
def toy():
    with toy_kind():
        yield


GOAL_KEYS = [[0, [2.0, 3.0, 4.0]], [10, [4.0, 3.0, 1.0]]]
SCENE = {
    "format": "pivotal-scene",
    "version": 1,
    "fps": 24,
    "frame_start": 0,
    "frame_end": 10,
    "bones": [
        {"name": "root", "translation": [0, 0, 0], "rotation": [1, 0, 0, 0], "tail": [0, 1, 0]},
        {
            "name": "arm",
            "parent": "root",
            "translation": [0, 1, 0],
            "rotation": [1, 0, 0, 0],
            "tail": [1, 0, 0],
        },
        {
            "name": "goal",
            "translation": [2, 3, 4],
            "rotation": [1, 0, 0, 0],
            "translation_keys": GOAL_KEYS,
            "tail": [0, 0.5, 0],
        },
    ],  # fmt: skip
    "constraints": [
        {
            "type": "toy_pin",
            "name": "pin",
            "space": "world",
            "bone": "arm",
            "target": {"bone": "goal", "at": "head"},
            "height": 0.5,
            "note": "kept",
        },
    ],  # fmt: skip
}


def test_a_toy_kind_loads_bakes_saves_and_renames(toy):
    scene = scene_from_json(json.loads(json.dumps(SCENE)))
    (pin,) = scene.constraints
    assert type(pin) is Pin and pin.height == 0.5 and pin.extra == {"note": "kept"}
    result = bake(scene)
    goal = np.interp(result.frames, [0, 10], [0, 1])[:, None] * [2, 0, -3] + [2, 3, 4]
    arm = scene.bone_index("arm")
    np.testing.assert_allclose(result.heads[:, arm], goal + [0, 0, 0.5], atol=1e-12)
    assert scene_to_json(scene) == SCENE  # saved as it came, unknown key included
    renamed = bone_edits.rename_bone(scene, "goal", "aim")
    (moved,) = renamed.constraints
    assert moved.target.bone == "aim" and moved.bone == "arm"
    renamed = bone_edits.rename_bone(scene, "arm", "forearm")
    assert renamed.constraints[0].bone == "forearm"
    bad = scene.copy()
    bad.constraints = [Pin(name="pin", bone="arm", target=Target(bone="nobody"))]
    with pytest.raises(SceneError, match="'nobody' is not a bone") as e:
        validate(bad)
    assert e.value.path == "constraints[0].target.bone"


def test_the_toy_kind_is_unknown_outside_its_fixture():
    with toy_kind():
        scene_from_json(json.loads(json.dumps(SCENE)))
    with pytest.raises(SceneError, match="unknown constraint type 'toy_pin'"):
        scene_from_json(json.loads(json.dumps(SCENE)))
    pin = Pin(name="pin", bone="arm", target=Target(bone="goal"))
    scene = model.Scene(bones=[model.Bone(name="arm"), model.Bone(name="goal")], constraints=[pin])
    with pytest.raises(SceneError, match="cannot be evaluated"):
        bake(scene, [0.0])


def test_a_toy_kind_shows_in_the_outliner_and_the_inspector(toy, qtbot, tmp_path):
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(SCENE))
    win = gui.open_window(qtbot, path, frame=0)
    doc, outliner = win.document, win.outliner
    item = outliner.item_for(Ref.constraint("pin"))
    assert item.text(1) == "toy pin"
    assert [item.child(i).text(0) for i in range(item.childCount())] == ["target → goal head"]
    outliner.scrollToItem(item)
    gui.click(outliner.viewport(), outliner.visualItemRect(item).center())
    assert doc.active == Ref.constraint("pin")
    headers = [w.text() for w in win.inspector.findChildren(QtWidgets.QLabel)]
    assert any("toy pin constraint" in t for t in headers)
    assert any("bone goal head" in t for t in headers)
    height = win.inspector.findChild(QtWidgets.QDoubleSpinBox, "toyHeight")
    assert height is not None and height.value() == 0.5
    height.setFocus()
    QTest.keyClick(height, QtCore.Qt.Key.Key_A, QtCore.Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(height, "2")
    QTest.keyClick(height, QtCore.Qt.Key.Key_Return)
    assert doc.scene.constraint("pin").height == 2.0
    arm = doc.scene.bone_index("arm")
    np.testing.assert_allclose(doc.pose().heads[0, arm], [2, 3, 6], atol=1e-12)
    doc.undo_stack.undo()
    assert doc.scene.constraint("pin").height == 0.5
    handles = dict(scene_drawing.handles_of(doc))  # its target is drawn and dragged
    np.testing.assert_allclose(handles[Ref.target_of("pin")], [2, 3, 4])
