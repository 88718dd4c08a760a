"""The one registry class (issue 29 item 1): a call or a decorator, lookup with an error that
names the kind, unregister for tests; and every table of the app is one."""

from __future__ import annotations

import pytest

from app.editor import export
from app.scene.constraints import registry as solvers
from app.scene.constraints.fabrik.model import Fabrik
from app.scene.constraints.points_at.model import PointsAt
from app.scene.formats.kinds import registry as schemas
from app.scene.registry import NotRegistered, Registry
from app.widgets.kinds import registry as views
from app.widgets.viewport.layers import registry as layers


def test_register_as_a_call_and_as_a_decorator_keeps_the_order():
    table = Registry("solver")

    @table.register(Fabrik)
    class FabrikSolver:
        pass

    assert FabrikSolver.__name__ == "FabrikSolver"  # the decorator gives the class back
    assert table.register(PointsAt, "aim") == "aim"
    assert list(table) == [Fabrik, PointsAt] and table.lookup(Fabrik) is FabrikSolver
    table.unregister(Fabrik)
    table.unregister(Fabrik)  # forgetting twice is harmless (a test's teardown)
    assert list(table) == [PointsAt]


def test_a_registry_with_a_key_function_registers_the_entry_itself():
    class Format:
        def __init__(self, name):
            self.name = name

    table = Registry("export format", key=lambda f: f.name)
    bvh = table.register(Format("bvh"))
    table.register(Format("csv"))
    assert table["bvh"] is bvh and list(table) == ["bvh", "csv"]
    newer = table.register(Format("bvh"))  # the same name replaces, in place
    assert table.lookup("bvh") is newer and list(table) == ["bvh", "csv"]


def test_lookup_names_the_missing_kind_and_the_known_ones():
    table = Registry("solver")
    table.register(PointsAt, "aim")
    with pytest.raises(NotRegistered) as e:
        table.lookup(Fabrik)
    assert str(e.value) == (
        "no solver is registered for 'fabrik' (Fabrik) (registered: 'points_at' (PointsAt))"
    )
    with pytest.raises(
        NotRegistered, match=r"no format is registered for 'tga' \(registered: none\)"
    ):
        Registry("format").lookup("tga")


def test_every_table_of_the_app_is_one_registry():
    tables = (
        solvers.SOLVERS,
        solvers.TRACES,
        schemas.SCHEMAS,
        views.VIEWS,
        export.FORMATS,
        layers.LAYERS,
    )
    assert all(type(t) is Registry for t in tables)
    # the three kind registries agree on the kinds, keyed by model class
    assert set(solvers.SOLVERS) == set(schemas.SCHEMAS) == set(views.VIEWS)
    assert {Fabrik, PointsAt} <= set(solvers.SOLVERS)
    assert export.register == export.FORMATS.register and "bvh" in export.FORMATS
