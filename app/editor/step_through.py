"""Step-through mode: a solver at the current frame, one pass or one step at a time.

For a FABRIK constraint the stages are its reaching passes
(:mod:`app.scene.constraints.fabrik.trace`);
for a multi-parent constraint, the integration substeps from the previous frame to this one
(:mod:`app.scene.constraints.multi_parent.steps`). The panel moves through them; the viewport draws
the
one shown. Both listen to this object, which follows the document: scrubbing, an edit or a
change of space traces again at once (it is one frame's solve).
"""

from __future__ import annotations

from PySide6 import QtCore

from app.editor.throttle import Throttle
from app.scene.constraints import registry
from app.scene.errors import SceneError


class StepThrough(QtCore.QObject):
    """The step-through state of one document.

    Signals
    -------
    changed()
        The trace, the stage shown, or whether the mode is on changed.
    """

    changed = QtCore.Signal()

    def __init__(self, document, parent=None):
        super().__init__(parent or document)
        self._document = document
        self.active = False
        self.constraint: str | None = None
        self.trace = None  # ChainTrace or Steps
        self.index = 0
        self.error = ""
        self._retrace = Throttle(self._recompute, 60, self)
        document.frame_changed.connect(self._on_document)
        document.scene_changed.connect(self._on_document)
        document.space_changed.connect(self._on_document)
        document.structure_changed.connect(self._on_structure)

    # --- choosing ------------------------------------------------------------------------

    def candidates(self) -> list[str]:
        """Constraints that can be stepped through (FABRIK and multi-parent)."""
        return [c.name for c in self._document.scene.constraints if registry.traceable(c)]

    def _guess(self) -> str | None:
        """The selection's constraint, else the first that can be traced."""
        doc = self._document
        names = self.candidates()
        for ref in reversed(doc.selection):
            if ref.kind != "bone" and ref.name in names:
                return ref.name
            if ref.kind == "bone":
                for c in doc.scene.constraints:
                    if c.name in names and ref.name in c.driven_bones():
                        return c.name
        return names[0] if names else None

    @property
    def kind(self) -> str | None:
        if self.constraint is None:
            return None
        try:
            return self._document.scene.constraint(self.constraint).type
        except KeyError:
            return None

    def start(self, name: str | None = None) -> bool:
        """Step through ``name`` (default: the selection's, or the first) at this frame.

        Returns whether there was a constraint to step through.
        """
        name = name or self._guess()
        if name is None:
            self.active, self.constraint, self.trace = False, None, None
            self.error = "No FABRIK or multi-parent constraint to step through"
            self.changed.emit()
            return False
        self.active = True
        self.constraint = name
        self.index = 0
        self._recompute()
        return True

    def stop(self) -> None:
        if self.active:
            self.active = False
            self.changed.emit()

    # --- moving --------------------------------------------------------------------------

    def count(self) -> int:
        """Stages (FABRIK) or substeps (multi-parent) of the trace."""
        return 0 if self.trace is None else len(self.trace)

    def set_index(self, index: int) -> None:
        index = max(0, min(int(index), self.count() - 1))
        if index != self.index:
            self.index = index
            self.changed.emit()

    def next(self) -> None:
        self.set_index(self.index + 1)

    def previous(self) -> None:
        self.set_index(self.index - 1)

    def first(self) -> None:
        self.set_index(0)

    def last(self) -> None:
        self.set_index(self.count() - 1)

    # --- tracing -------------------------------------------------------------------------

    def _on_document(self, *_) -> None:
        if self.active:
            self._retrace()

    def _on_structure(self) -> None:
        if self.active and self.constraint not in self.candidates():
            self.active, self.trace = False, None
            self.changed.emit()

    def _recompute(self) -> None:
        if not self.active:
            return
        doc = self._document
        try:
            c = doc.scene.constraint(self.constraint)
            ctx = doc.evaluations.context_before(c.name)  # the pose the solver starts from, cached
            self.trace = registry.trace(c, ctx, doc.frame)
            self.error = ""
        except (SceneError, ArithmeticError, ValueError, KeyError) as e:
            self.trace, self.error = None, str(e)
        self.index = max(0, min(self.index, self.count() - 1))
        self.changed.emit()

    def flush(self) -> None:
        """Trace now if a change is pending (tests)."""
        self._retrace.flush()
