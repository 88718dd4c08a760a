"""What the schema registry holds per constraint kind (:class:`KindSchema`), and the registry.

Each kind's schema module registers its schema here as it is defined
(``SCHEMA = SCHEMAS.register(KindSchema(...))``); :mod:`app.scene.formats.kinds.registry`
imports every kind's module, which is the one line a kind adds, and asks the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.scene.registry import Registry

#: Keys every constraint has.
COMMON_KEYS = frozenset({"type", "name", "space"})


@dataclass(frozen=True)
class KindSchema:
    """One constraint kind in the scene file.

    Attributes
    ----------
    cls : type
        The model class (its ``type`` is the JSON ``"type"``).
    keys : frozenset of str
        Its own keys besides ``type``, ``name`` and ``space`` (other keys ride in ``extra``).
    read : callable ``(obj, path, common) -> Constraint``
        ``common`` holds ``name``, ``space`` and ``extra``, already read.
    write : callable ``(constraint) -> dict``
        Its own keys, in file order.
    check : callable ``(scene, constraint, index, path) -> None``, optional
        What the kind checks across the scene (``index``: bone name -> position).
    """

    cls: type
    keys: frozenset
    read: Callable
    write: Callable
    check: Callable | None = None

    @property
    def type(self) -> str:
        return self.cls.type

    @property
    def all_keys(self) -> frozenset:
        return COMMON_KEYS | self.keys


#: Model class -> its schema (filled by each kind's module as it is imported).
SCHEMAS: Registry[type, KindSchema] = Registry("schema", key=lambda schema: schema.cls)
