"""The model never knows its views: app.scene imports no Qt, pyqtgraph or OpenGL."""

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT


def test_app_scene_imports_no_gui_modules():
    code = (
        "import sys, pkgutil, importlib, app.scene\n"
        "for m in pkgutil.walk_packages(app.scene.__path__, 'app.scene.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph', 'OpenGL'))\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


# The import graph, read with ast: every import anywhere in a module (lazy ones in functions
# too, since a lazy import is still a dependency), resolved to the modules of app/.
APP = ROOT / "app"


def _modules() -> dict[str, Path]:
    mods = {}
    for path in APP.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            while t and t not in mods:
                t = t.rpartition(".")[0]
            if t and t != name and not (mods[t].name == "__init__.py" and name.startswith(t + ".")):
                found.add(t)
    return found


@functools.cache
def _graph() -> dict[str, set[str]]:
    """The import graph, read once per process (the tests only read it)."""
    mods = _modules()
    return {name: _imports(name, path, mods) for name, path in mods.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as the list of modules around it, or None (iterative DFS)."""
    state = dict.fromkeys(graph, 0)  # 0 new, 1 on the stack, 2 done
    for start in graph:
        if state[start]:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state[child] == 1:
                return path[path.index(child) :] + [child]
            elif state[child] == 0:
                state[child] = 1
                stack.append((child, iter(sorted(graph[child]))))
                path.append(child)
    return None


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_circle_under_app():
    cycle = _cycle(_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


@pytest.mark.parametrize(
    "layer, forbidden",
    [
        ("app.scene", ("app.editor", "app.widgets", "app.window", "app.cli")),
        ("app.editor", ("app.widgets", "app.window", "app.cli")),
        ("app.widgets", ("app.window", "app.cli")),
    ],
)
def test_imports_go_one_way(layer, forbidden):
    bad = [
        f"{name} imports {dep}"
        for name, deps in _graph().items()
        if name == layer or name.startswith(layer + ".")
        for dep in deps
        if any(dep == f or dep.startswith(f + ".") for f in forbidden)
    ]
    assert bad == []


def test_folders_and_modules_stay_small():
    crowded = {
        str(d.relative_to(ROOT)): n
        for d in [APP, *(p for p in APP.rglob("*") if p.is_dir() and p.name != "__pycache__")]
        if (n := len([f for f in d.glob("*.py") if f.name != "__init__.py"])) > 15
    }
    assert crowded == {}
    long = {}
    for path in APP.rglob("*.py"):
        lines = path.read_text().count("\n")
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if lines > 420 and "One idea:" not in doc:
            long[str(path.relative_to(ROOT))] = lines
    assert long == {}, "long modules must say in their docstring which one idea they hold"


#: Reads of another object's private attribute that are allowed, as ``(module, "x._name")``
#: with the reason. An object that others need to read offers a public name.
PRIVATE_READS_ALLOWED: dict[tuple[str, str], str] = {
    ("app/scene/formats/fbx/assimp.py", "os._exit"): (
        "the standard library's public exit without cleanup: the forked reader child must "
        "not run the parent's atexit handlers or flush its buffers"
    ),
}


def _private_reads(source: str) -> list[tuple[int, str]]:
    """``x._name`` in ``source`` where ``x`` is not ``self`` or ``cls`` (dunders aside)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
        if not own and not node.attr.startswith("__"):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_private_read_finder_finds_one():
    code = "def f(self, panel):\n    self._a = panel._group\n    return panel.__class__\n"
    assert _private_reads(code) == [(2, "panel._group")]


def test_no_object_reads_another_objects_private_attributes():
    bad = [
        f"{path.relative_to(ROOT)}:{line} {text}"
        for path in sorted(APP.rglob("*.py"))
        for line, text in _private_reads(path.read_text())
        if (str(path.relative_to(ROOT)), text) not in PRIVATE_READS_ALLOWED
    ]
    assert bad == [], "read a public name instead (or declare the exception here with why)"


# Inside app/scene, the table of docs/architecture.md: each part of the core and the parts it
# may import (a part is a package or a top-level module of app/scene). The leaf modules hold
# what every layer needs and import only each other: SceneError, the bounds on hostile input
# (a bone name's characters, a hierarchy's depth), the words for counts, the one registry
# class every table of kinds and formats is.
SCENE_LEAVES = {"errors", "bounds", "words", "registry"}
SCENE_RULES = {
    "math": set(),
    "rig": {"math"},
    "constraints": {"math", "rig"},
    "evaluate": {"math", "rig", "constraints"},
    # the exports bake; a cycle of constraints is refused at load (constraints/order)
    # a scene file's humanoid map is checked at load (retarget/map_file)
    "formats": {"math", "rig", "constraints", "evaluate", "retarget"},
    "io": {"math", "rig", "evaluate", "formats"},
    # a rig builder reads the skeleton and evaluates it (to place pivots and the pole), makes
    # the kinds' constraints (each kind's model is in its package), and reads which bones
    # are the legs from the humanoid map (retarget)
    "builders": {"math", "rig", "constraints", "evaluate", "retarget"},
    # the humanoid map reads the skeleton at rest; the retarget evaluates the clip
    "retarget": {"math", "rig", "evaluate"},
    "analysis": {"math", "rig", "constraints", "evaluate", "formats", "io"},
    # planting feet builds the foot-roll rig on a clip and evaluates it for its figures
    "motion": {"math", "rig", "evaluate", "builders"},
    "evaluations": {
        "math",
        "rig",
        "constraints",
        "evaluate",
        "formats",
        "io",
        "analysis",
        "motion",
    },
    "__init__": set(),
    **{leaf: set() for leaf in SCENE_LEAVES},
}
#: Imports against SCENE_RULES that stay, as (module, module it imports): why.
SCENE_EXCEPTIONS = {
    ("app.scene.evaluate", "app.scene.formats.npz_stream"): (
        "bake_to_npz writes a bake's .npz chunk by chunk and atomically; npz_stream imports "
        "only atomic and errors, so the import closes no circle"
    ),
}


#: A kind is one package (``constraints/<kind>/``): its schema there (``schema.py``) reads and
#: writes the scene file with the formats' helpers. Nothing else of the constraints imports
#: ``formats``, and these helpers import no constraint, so the import closes no circle.
KIND_SCHEMA_HELPERS = {
    "app.scene.formats.json_values",
    "app.scene.formats.kinds.base",
    "app.scene.formats.kinds.parts",
}


def _kind_schema_import(name: str, dep: str) -> bool:
    """Whether ``name`` is a kind's schema module importing one of the schema helpers."""
    in_kind = name.startswith("app.scene.constraints.") and name.endswith(".schema")
    return in_kind and dep in KIND_SCHEMA_HELPERS


def _scene_part(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["app", "scene"]:
        return None
    return parts[2] if len(parts) > 2 else "__init__"


def test_every_part_of_the_core_has_a_rule():
    parts = {_scene_part(name) for name in _modules()} - {None}
    assert parts == set(SCENE_RULES)


def _scene_layer_breaks(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for name, deps in graph.items():
        part = _scene_part(name)
        if part is None:
            continue
        allowed = SCENE_RULES[part] | SCENE_LEAVES | {part}
        for dep in deps:
            if _scene_part(dep) in allowed or _kind_schema_import(name, dep):
                continue
            if (name, dep) not in SCENE_EXCEPTIONS:
                bad.append(f"{name} imports {dep}")
    return bad


def test_the_layer_rule_finds_a_break():
    graph = {
        "app.scene.rig.skeleton": {"app.scene.math.quat", "app.scene.bounds", "app.scene.evaluate"}
    }
    assert _scene_layer_breaks(graph) == ["app.scene.rig.skeleton imports app.scene.evaluate"]


def test_only_a_kinds_schema_imports_the_schema_helpers():
    graph = {
        "app.scene.constraints.points_at.schema": {"app.scene.formats.json_values"},
        "app.scene.constraints.points_at.solver": {"app.scene.formats.json_values"},
        "app.scene.constraints.fabrik.schema": {"app.scene.formats.schema"},
    }
    assert sorted(_scene_layer_breaks(graph)) == [
        "app.scene.constraints.fabrik.schema imports app.scene.formats.schema",
        "app.scene.constraints.points_at.solver imports app.scene.formats.json_values",
    ]


def test_the_core_keeps_its_own_layers():
    assert _scene_layer_breaks(_graph()) == [], "see the table in docs/architecture.md"
