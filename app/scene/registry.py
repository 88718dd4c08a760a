"""One registry class for every "key -> what handles it" table of the app.

The solvers (model class -> solver), the step-through's traces, the schemas (``type``
string -> :class:`~app.scene.formats.kinds.base.KindSchema`), the views (model class ->
``ConstraintView``) and the export formats (``--format`` name -> ``ExportFormat``) are each
one :class:`Registry`, as glue's ``Registry`` is: a mapping that keeps the order entries were
registered in, filled with :meth:`Registry.register` (a call or a decorator), emptied of an
entry with :meth:`Registry.unregister` (a test's kind), and asked with
:meth:`Registry.lookup`, whose error names the missing key in words and the keys it knows.

It imports nothing of the app, so every layer may hold one (a leaf module, like ``errors``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_NOTHING: Any = object()


class NotRegistered(LookupError):
    """A key that no entry of a registry has; its message names the key and the known ones."""


def key_words(key) -> str:
    """A key in words: a constraint class by its ``type`` word and name, else as it prints."""
    if isinstance(key, type):
        word = getattr(key, "type", None)
        return f"{word!r} ({key.__name__})" if isinstance(word, str) else key.__name__
    return repr(key)


class Registry(MutableMapping[K, V], Generic[K, V]):
    """An ordered table from keys to the things registered for them.

    Parameters
    ----------
    what : str
        What an entry is, in words (``"solver"``, ``"export format"``): the error's subject.
    key : callable, optional
        ``key(entry) -> key`` for registries whose entries name their own key (a schema's
        ``type``, a view's ``cls``, a format's ``name``); then ``register(entry)`` is enough.

    Examples
    --------
    >>> SOLVERS = Registry("solver")
    >>> @SOLVERS.register(int)
    ... class IntSolver: ...
    >>> SOLVERS.lookup(int) is IntSolver
    True
    >>> FORMATS = Registry("format", key=lambda f: f.name)
    """

    def __init__(self, what: str, key: Callable[[V], K] | None = None) -> None:
        self.what = what
        self._key = key
        self._entries: dict[K, V] = {}

    def register(self, key_or_entry=_NOTHING, entry=_NOTHING):
        """Register an entry, as a call or a decorator; returns the entry (or a decorator).

        ``register(key, entry)`` and, in a registry with a ``key`` function,
        ``register(entry)``; ``@register(key)`` over a class or function registers it under
        ``key`` (``@register`` alone, with a ``key`` function). A key already present is
        replaced, as a test's monkeypatch would.
        """
        if entry is not _NOTHING:
            self._entries[key_or_entry] = entry
            return entry
        if self._key is not None:
            self._entries[self._key(key_or_entry)] = key_or_entry
            return key_or_entry

        def decorate(value: V) -> V:
            self._entries[key_or_entry] = value
            return value

        return decorate

    def unregister(self, key: K) -> None:
        """Forget ``key``'s entry (nothing happens when there is none)."""
        self._entries.pop(key, None)

    def lookup(self, key: K) -> V:
        """The entry of ``key``.

        Raises
        ------
        NotRegistered
            Naming ``key`` in words and every key registered.
        """
        try:
            return self._entries[key]
        except KeyError:
            known = ", ".join(key_words(k) for k in self._entries) or "none"
            message = f"no {self.what} is registered for {key_words(key)} (registered: {known})"
            raise NotRegistered(message) from None

    # the mapping: iteration in registration order, item access for tests' monkeypatch
    def __getitem__(self, key: K) -> V:
        return self._entries[key]

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value

    def __delitem__(self, key: K) -> None:
        del self._entries[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {list(self._entries)!r})"
