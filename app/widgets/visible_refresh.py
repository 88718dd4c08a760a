"""Panels that rebuild only while shown: a hidden panel remembers it is stale and catches up
when it is shown again, so scrubbing never pays for a closed dock."""

from __future__ import annotations


class RefreshWhileVisible:
    """A mixin for a widget with a ``refresh()`` (put it before the Qt base class)."""

    _stale = True

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        if self._stale:
            self.refresh()

    def _defer_while_hidden(self) -> bool:
        """Whether ``refresh`` should stop here: the widget is hidden (it is marked stale)."""
        self._stale = not self.isVisible()
        return self._stale
