"""A constraint kind is one registered type (issue 19 item 1).

Nothing outside the registries names a kind (checked by reading ``app/`` with ``ast``), and a
toy kind defined only here, registered in a fixture, loads, bakes, saves, shows in the
outliner and the inspector and renames with its bone: adding a kind touches no other module.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import json
from dataclasses import dataclass

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from app.editor.operations import constraint_operations
from app.scene.constraints import registry as solvers
from app.scene.errors import SceneError
from app.scene.evaluate import bake
from app.scene.formats.json_values import read_name, read_number
from app.scene.formats.kinds import registry as schemas
from app.scene.formats.kinds.parts import required, target_from_json, target_to_json
from app.scene.formats.schema import scene_from_json, scene_to_json, validate
from app.scene.rig import bone_edits, model
from app.scene.rig.model import Constraint, Target
from app.scene.rig.refs import Ref, new_constraint_name
from app.widgets.kinds import registry as views
from app.widgets.kinds.base import act
from app.widgets.viewport import scene_drawing
from tests.helpers import gui
from tests.helpers.paths import ROOT

# --- nothing outside the registries names a kind --------------------------------------------

#: The modules that may name a constraint class or compare type strings: the
#: registries, each kind's package and its view.
ALLOWED = (
    "app/scene/constraints/registry.py",
    "app/scene/formats/kinds/",
    "app/widgets/kinds/",
    # each kind's package (every package in constraints/): its model, solver, schema, trace
    *sorted(
        f"{init.parent.relative_to(ROOT).as_posix()}/"
        for init in (ROOT / "app/scene/constraints").glob("*/__init__.py")
    ),
)


def _kind_classes() -> dict[str, str]:
    """Class name -> type string of every constraint kind of the app (the model's, and a
    model in a kind's own package)."""
    found, todo = {}, [Constraint]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub.__module__.startswith("app."):  # the model's, or in a kind's package
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
    tree = source if isinstance(source, ast.AST) else ast.parse(source)
    for node in ast.walk(tree):
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


# --- nor asks a kind's fields, parts or solver results (issue 29) ---------------------------

#: The modules of the kinds themselves may also know their own fields, parts and results.
KIND_MODULES = ALLOWED

#: The names of a constraint's parts as ``Ref`` kinds (``app.scene.rig.refs``) and the
#: words they stand for: branching on them is asking which kind's part a handle is.
PART_NAMES = frozenset({"PIVOT", "TARGET", "POLE", "TARGET_KINDS"})
PART_WORDS = frozenset({"pivot", "target", "pole"})
#: The other ``Ref`` kinds, which a table keyed by part words may also hold.
REF_WORDS = frozenset({"bone", "constraint", "point"})


@dataclass(frozen=True)
class Vocabulary:
    """What names a kind in source: its classes and type words, its own fields (not the
    ones every constraint has), the classes its solver returns (a step-through trace)."""

    classes: frozenset
    type_words: frozenset
    fields: frozenset
    results: frozenset


def _solver_classes() -> set[str]:
    """The classes defined in the kinds' packages (traces, results)."""
    names = set()
    for prefix in KIND_MODULES:
        if not prefix.startswith("app/scene/constraints/"):
            continue
        for path in sorted((ROOT / prefix).rglob("*.py")):
            tree = ast.parse(path.read_text())
            names |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    return names


def vocabulary() -> Vocabulary:
    """The vocabulary of the real kinds of the model."""
    kinds = _kind_classes()
    common = {f.name for f in dataclasses.fields(Constraint)}
    own = set()
    todo = [Constraint]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("app."):  # the model's, or in a kind's package
                own |= {f.name for f in dataclasses.fields(sub)} - common
                todo.append(sub)
    words = frozenset(w for w in kinds.values() if not w.startswith("constraint"))
    results = frozenset(_solver_classes()) - set(kinds)  # the kinds' own classes aside
    return Vocabulary(frozenset(kinds), words, frozenset(own), results)


def _part(node) -> bool:
    """Whether ``node`` names a part: ``PIVOT``, ``POLE``, ``"target"``, or a
    tuple/list/set (or a starred one) holding one."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_part(e) for e in node.elts)
    if isinstance(node, ast.Starred):
        return _part(node.value)
    if isinstance(node, ast.Name):
        return node.id in PART_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in PART_NAMES
    return isinstance(node, ast.Constant) and node.value in PART_WORDS


def _named_part(node) -> bool:
    """``_part`` for a name, not a plain string (``(BONE, PIVOT)`` is a table of parts;
    ``("pole", "tgt")`` may be words of another kind, a bone naming convention)."""
    return isinstance(node, (ast.Name, ast.Attribute, ast.Starred)) and _part(node)


def _part_table(node: ast.Dict) -> bool:
    """A dict keyed by part names, or by part words and other ``Ref`` kinds only."""
    keys = [k for k in node.keys if k is not None]
    if any(_named_part(k) for k in keys):
        return True
    words = {k.value for k in keys if isinstance(k, ast.Constant)}
    only_refs = words <= PART_WORDS | REF_WORDS
    return len(words) == len(keys) > 0 and bool(words & PART_WORDS) and only_refs


def _asks_field_names(node) -> bool:
    """Whether ``node`` is a call of ``something.field_names()``."""
    call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    return call and node.func.attr == "field_names"


def _imported_from_elsewhere(tree) -> set[str]:
    """Names a module imports from outside the kinds' solvers (``numbers.Integral`` is not
    the multi-parent cache's ``Integral``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if not (node.module or "").startswith("app.scene.constraints"):
                names |= {a.asname or a.name for a in node.names}
    return names


def sins(source: str, words: Vocabulary) -> dict[str, list[int]]:
    """The lines of ``source`` that ask which kind a thing is, by what they ask.

    ``kind``: an ``isinstance`` on a kind's class or a comparison with its type word (see
    :func:`kind_checks`); ``field``: a kind's own field asked for by name
    (``"pivots" in c.field_names()``, ``hasattr(c, "relative_to")``, ``getattr(c,
    "target", None)``); ``part``: a branch or a table on a part (``ref.kind == PIVOT``,
    ``r.kind in TARGET_KINDS``, ``{PIVOT: ...}``, ``MOVABLE = (BONE, PIVOT)``); ``result``:
    an ``isinstance`` on what a kind's solver returns (``isinstance(trace, ChainTrace)``).
    """
    tree = ast.parse(source)
    kinds = kind_checks(tree, set(words.classes), set(words.type_words))
    found = {"kind": kinds, "field": [], "part": [], "result": []}
    results = words.results - _imported_from_elsewhere(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_asks_field_names(s) for s in sides):
                found["field"].append(node.lineno)
            if any(_part(s) for s in sides):
                found["part"].append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name, args = node.func.id, node.args
            if name in ("hasattr", "getattr") and len(args) >= 2:
                if isinstance(args[1], ast.Constant) and args[1].value in words.fields:
                    found["field"].append(node.lineno)
            elif name in ("isinstance", "issubclass") and len(args) == 2:
                if _names(args[1]) & results:
                    found["result"].append(node.lineno)
        elif isinstance(node, ast.Dict) and _part_table(node):
            found["part"].append(node.lineno)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            if any(_named_part(e) for e in node.elts):
                found["part"].append(node.lineno)
    return {what: sorted(set(lines)) for what, lines in found.items() if lines}


def tree_sins(root, words: Vocabulary, allowed=KIND_MODULES) -> dict[str, dict[str, int]]:
    """``{module: {what: count}}`` of the sins under ``root/app`` outside ``allowed``."""
    out = {}
    for path in sorted((root / "app").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(allowed):
            found = sins(path.read_text(), words)
            if found:
                out[rel] = {what: len(lines) for what, lines in found.items()}
    return out


def test_no_module_outside_the_kinds_asks_a_kind_its_fields_parts_or_results():
    found = tree_sins(ROOT, vocabulary())
    assert found == {}, (
        "ask the kind instead (its hooks, its parts' PartType, its view): "
        + "; ".join(f"{module} {counts}" for module, counts in found.items())
    )


#: A fixture tree: one module per way of asking, and one that asks nothing.
PLANTED = {
    "app/isinstance_sin.py": "def f(c):\n    return isinstance(c, model.Fabrik)\n",
    "app/field_sin.py": (
        "def f(c):\n"
        "    if 'pivots' in c.field_names():\n"
        "        return 1\n"
        "    return hasattr(c, 'relative_to')\n"
    ),
    "app/part_sin.py": (
        "from app.scene.rig.refs import PIVOT\n"
        "def f(ref):\n"
        "    if ref.kind == PIVOT:\n"
        "        return 1\n"
        "    return {'pole': 2, 'bone': 3}[ref.kind]\n"
    ),
    "app/result_sin.py": "def f(trace):\n    return isinstance(trace, ChainTrace)\n",
    "app/kinds/own.py": "def f(c):\n    return isinstance(c, Fabrik) and c.pivots\n",
    "app/clean.py": (
        "def f(c, ref, node):\n"
        "    names = ('pole', 'tgt')  # a bone naming convention, not a part\n"
        "    kind = c.parts()[0][0]\n"
        "    return isinstance(c, Constraint) and node.get('target') and kind\n"
    ),
}


def test_each_planted_sin_is_caught_in_a_fixture_tree(tmp_path):
    for rel, text in PLANTED.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    words = vocabulary()
    assert "ChainTrace" in words.results and {"pivots", "relative_to"} <= words.fields
    assert tree_sins(tmp_path, words, allowed=("app/kinds/",)) == {
        "app/field_sin.py": {"field": 2},
        "app/isinstance_sin.py": {"kind": 1},
        "app/part_sin.py": {"part": 2},
        "app/result_sin.py": {"result": 1},
    }


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
    return Pin(
        bone=read_name(required(obj, "bone", path), f"{path}.bone"),
        target=target_from_json(required(obj, "target", path), f"{path}.target"),
        height=read_number(obj.get("height", 0.0), f"{path}.height"),
        **common,
    )


def _write(c: Pin) -> dict:
    return {"bone": c.bone, "target": target_to_json(c.target), "height": c.height}


def _section(form, c: Pin) -> None:
    form.label_row("Bones", c.bone)
    form.target_row(c)
    form.float_field("Height", "toyHeight", "height", 3, 0.1, -1e3, 1e3)


def add_pin(document, bone: str) -> Ref:
    """The toy's add operation: a pin on ``bone`` holding its head where it is now."""
    head = document.pose().heads[0, document.scene.bone_index(bone)]
    name = new_constraint_name(document.scene, Pin, bone)
    pin = Pin(name=name, bone=bone, target=Target(position=tuple(float(v) for v in head)))
    return constraint_operations.add_constraint(document, pin)


def _add_on_bone(menu, document, bone: str, bones) -> None:
    act(menu, f"Add Toy Pin on {bone}", add_pin, document, bone)


@contextlib.contextmanager
def toy_kind():
    """The toy kind registered on each side (the one line per registry of the recipe)."""
    solvers.SOLVERS.register(Pin, PinSolver)
    schemas.SCHEMAS.register(
        schemas.KindSchema(Pin, frozenset({"bone", "target", "height"}), _read, _write)
    )
    views.VIEWS.register(views.ConstraintView(Pin, section=_section, add_on_bone=_add_on_bone))
    try:
        yield
    finally:
        views.VIEWS.unregister(Pin)
        schemas.SCHEMAS.unregister(Pin)
        solvers.SOLVERS.unregister(Pin)


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
    ],
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
    ],
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


def test_the_toy_kind_is_added_from_the_add_menu_and_undone(toy, qtbot, tmp_path, monkeypatch):
    path = tmp_path / "toy.json"
    scene = json.loads(json.dumps(SCENE))
    scene["constraints"] = []
    path.write_text(json.dumps(scene))
    win = gui.open_window(qtbot, path, frame=0)
    doc, outliner = win.document, win.outliner
    before, heads = doc.scene.copy(), doc.pose().heads.copy()
    shown = []

    def exec_menu(menu, at):  # the real add menu, as the outliner's right click opens it
        shown.extend(a.text() for a in menu.actions())
        (entry,) = [a for a in menu.actions() if a.text() == "Add Toy Pin on arm"]
        entry.trigger()
        return entry

    monkeypatch.setattr(outliner, "exec_menu", exec_menu)
    item = outliner.item_for(Ref.bone("arm"))
    outliner.customContextMenuRequested.emit(outliner.visualItemRect(item).center())
    assert "Add Points-At Constraint on arm" in shown  # beside the shipped kinds' entries
    (pin,) = doc.scene.constraints
    assert type(pin) is Pin and pin.name == "Toy Pin arm" and pin.bone == "arm"
    assert doc.selection == (Ref.constraint("Toy Pin arm"),)
    shown_pin = outliner.item_for(Ref.constraint("Toy Pin arm"))
    assert shown_pin is not None and shown_pin.text(0) == "Toy Pin arm"
    np.testing.assert_allclose(doc.pose().heads, heads, atol=1e-12)  # nothing jumps
    assert doc.undo_stack.undoText() == "Add Toy Pin arm"
    doc.undo_stack.undo()
    assert doc.scene == before and outliner.item_for(Ref.constraint("Toy Pin arm")) is None


# --- a toy kind with a part of its own shape, declared only here ------------------------------

#: The toy's part: named points on its bone (as a pivot is on its body) that do not turn.
TACK = model.PartType(
    "tack",
    "Tack",
    on_body=True,
    named=True,
    at_least=1,
    color=(0.2, 1.0, 0.4, 1.0),
    guide_color=(0.2, 1.0, 0.4, 0.5),
    list_color=(60, 230, 110),
)


@dataclass(frozen=True, kw_only=True)
class Tacks(Constraint):
    """Holds its bone where the hierarchy puts it; its parts are named points on the bone."""

    type = "toy_tacks"
    label = "toy tacks"
    bone: str
    tacks: tuple[model.Pivot, ...]

    def driven_bones(self):
        return (self.bone,)

    def own_bone_fields(self):
        return (("bone", self.bone),)

    def parts(self):
        return tuple((TACK.word, t.name) for t in self.tacks)

    def part_item(self, word, name=None):
        for t in self.tacks:
            if word == TACK.word and t.name == name:
                return t
        raise KeyError(f"{self.name!r} has no {word} named {name!r}")

    def with_part(self, word, name, item):
        self.part_item(word, name)
        tacks = tuple(item if t.name == name else t for t in self.tacks)
        return dataclasses.replace(self, tacks=tacks)

    def without_part(self, word, name):
        self.part_item(word, name)
        if len(self.tacks) <= TACK.at_least:
            raise ValueError(f"{name!r} is the only tack of {self.name!r}")
        return dataclasses.replace(self, tacks=tuple(t for t in self.tacks if t.name != name))

    def guide_of(self, word):
        return self.bone, "head"


class TacksSolver:
    @staticmethod
    def apply(constraint: Tacks, ctx) -> None:
        b = ctx.skeleton.index(constraint.bone)
        ctx.set_world(b, ctx.bone_to_world[:, b].copy())


def _read_tacks(obj, path, common) -> Tacks:
    tacks = tuple(
        model.Pivot(name=t["name"], position=tuple(float(v) for v in t["position"]))
        for t in required(obj, "tacks", path)
    )
    return Tacks(bone=read_name(required(obj, "bone", path), f"{path}.bone"), tacks=tacks, **common)


def _write_tacks(c: Tacks) -> dict:
    return {
        "bone": c.bone,
        "tacks": [{"name": t.name, "position": list(t.position)} for t in c.tacks],
    }


@pytest.fixture
def tacks_kind():
    """The toy registered in each registry, its part type in ``PARTS``: the recipe's lines."""
    model.PARTS.register(TACK)
    solvers.SOLVERS.register(Tacks, TacksSolver)
    schemas.SCHEMAS.register(
        schemas.KindSchema(Tacks, frozenset({"bone", "tacks"}), _read_tacks, _write_tacks)
    )
    try:
        yield
    finally:
        schemas.SCHEMAS.unregister(Tacks)
        solvers.SOLVERS.unregister(Tacks)
        model.PARTS.unregister(TACK.word)


def test_a_part_declared_by_a_toy_kind_is_listed_drawn_dragged_renamed_and_deleted(
    tacks_kind, qtbot, tmp_path
):
    """Nothing outside this test knows a tack: the outliner lists the toy's tacks in their
    type's colour, the viewport draws and drags them on the bone, the inspector shows where
    they sit (no rotation: they do not turn), R refuses them, F2's rename and X's delete
    work, and X keeps the last one (its type's ``at_least``)."""
    from app.editor.operations.base import OperationError
    from app.widgets.viewport.interaction import transform_edit

    scene = json.loads(json.dumps(SCENE))
    scene["constraints"] = [
        {
            "type": "toy_tacks",
            "name": "tacks",
            "bone": "arm",
            "tacks": [
                {"name": "near", "position": [0.3, 0, 0]},
                {"name": "far", "position": [0.9, 0, 0]},
            ],
        }
    ]
    path = tmp_path / "tacks.json"
    path.write_text(json.dumps(scene))
    win = gui.open_window(qtbot, path, frame=0)
    doc, outliner, vp = win.document, win.outliner, win.viewport
    near, far = Ref("tack", "tacks", "near"), Ref("tack", "tacks", "far")
    # Listed under its constraint by name, in its type's colour, editable in place.
    item = outliner.item_for(Ref.constraint("tacks"))
    assert [item.child(i).text(0) for i in range(item.childCount())] == ["near", "far"]
    row = outliner.item_for(near)
    assert row.foreground(0).color() == QtGui.QColor(60, 230, 110)
    assert row.flags() & QtCore.Qt.ItemFlag.ItemIsEditable
    # Drawn on the bone: the arm's head is at (0, 1, 0), unturned.
    handles = dict(scene_drawing.handles_of(doc))
    np.testing.assert_allclose(handles[near], [0.3, 1, 0], atol=1e-12)
    np.testing.assert_allclose(handles[far], [0.9, 1, 0], atol=1e-12)
    # The inspector says what it is and where it sits.
    doc.set_selection([near])
    headers = [w.text() for w in win.inspector.findChildren(QtWidgets.QLabel)]
    assert any("Tack near" in t for t in headers) and any("body arm" in t for t in headers)
    # R refuses a part that does not turn; G takes it.
    subject, why = transform_edit.subject_for(doc, transform_edit.ROTATE, [near])
    assert subject is None and "tack near cannot be rotated" in why.lower()
    assert transform_edit.subject_for(doc, transform_edit.MOVE, [near])[0] is not None
    # A drag in the viewport moves it on the bone, one undo step.
    start = vp.project([handles[near]])[0]
    gui.drag(vp, start, start + [30, -25], qtbot=qtbot)
    moved = np.array(doc.scene.constraint("tacks").part_item("tack", "near").position)
    assert np.linalg.norm(moved - [0.3, 0, 0]) > 0.02
    assert doc.undo_stack.undoText() == "Move tack near"
    doc.undo_stack.undo()
    # Renamed as a bone is (the outliner's edit); the selection follows.
    constraint_operations.rename_part(doc, near, "close")
    assert [n for _, n in doc.scene.constraint("tacks").parts()] == ["close", "far"]
    assert doc.selection == (Ref("tack", "tacks", "close"),)
    # X deletes one, and refuses the last.
    constraint_operations.delete_selected(doc)
    assert [n for _, n in doc.scene.constraint("tacks").parts()] == ["far"]
    assert doc.undo_stack.undoText() == "Delete tack close"
    doc.set_selection([far])
    with pytest.raises(OperationError, match="would have no tack left"):
        constraint_operations.delete_selected(doc)
    assert [n for _, n in doc.scene.constraint("tacks").parts()] == ["far"]
