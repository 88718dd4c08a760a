"""Rig ▸ Plant Feet… and the contact bars: planting a clip's feet, and editing its contacts,
each as one undo step.

The pure entry point (:func:`app.scene.motion.plant.plant_feet`) makes the planted scene;
one :class:`SetPlanted` puts its bones, constraints and plant record in place, so one undo
takes the whole plant away. An edited contact (an end dragged, one added or removed) plants
the clip again from the original the record keeps, with that foot's contacts as edited: the
plant follows at once, and one undo puts the contacts and the plant back as they were.
"""

from __future__ import annotations

from PySide6 import QtGui

from app.editor.operations.base import OperationError
from app.scene.motion.contacts import DURATION_S
from app.scene.motion.feet import POINTS
from app.scene.motion.plant import Planted, PlantError, PlantOptions, plant_feet


class SetPlanted(QtGui.QUndoCommand):
    """Replace the scene's bones, constraints and plant record by those of ``scene``."""

    def __init__(self, document, scene, text: str):
        super().__init__(text)
        old = document.scene
        self.document = document
        self.old = (tuple(old.bones), tuple(old.constraints), old.plant)
        self.new = (tuple(scene.bones), tuple(scene.constraints), scene.plant)

    def _apply(self, state) -> None:
        scene = self.document.scene
        bones, constraints, plant = state
        scene.bones[:] = bones
        scene.constraints[:] = constraints
        scene.plant = plant
        self.document.scene_edited()

    def redo(self):
        self._apply(self.new)

    def lists_after(self, scene):
        """The ``(bones, constraints)`` :meth:`redo` puts in place."""
        return self.new[0], self.new[1]

    def undo(self):
        self._apply(self.old)


def plant(
    document,
    options: PlantOptions | None = None,
    legs=None,
    contacts=None,
    text: str = "Plant feet",
) -> Planted:
    """Plant the document's clip (one undo step); says the figures in the status bar.

    Raises
    ------
    OperationError
        What :func:`~app.scene.motion.plant.plant_feet` refuses, in its words.
    """
    try:
        planted = plant_feet(
            document.scene, options or PlantOptions(), legs=legs, contacts=contacts
        )
    except (PlantError, ValueError) as e:
        raise OperationError(str(e)) from None
    document.push(SetPlanted(document, planted.scene, text))
    before, after = planted.before.row(), planted.after.row()
    document.notify(
        f"{text}: skating ratio {before[0]} → {after[0]}, longest slide "
        f"{before[1]} → {after[1]} (Ctrl+Z undoes)"
    )
    return planted


def _record(document):
    record = document.scene.plant
    if record is None:
        raise OperationError("Plant the feet first (Rig ▸ Plant Feet…)")
    return record


def _edited(document, foot: str, point: int, spans, text: str) -> Planted:
    record = _record(document)
    feet = {f.foot: [list(c) for c in f.contacts] for f in record.feet}
    if foot not in feet:
        raise OperationError(f"{foot} is not planted")
    feet[foot][point] = sorted(spans)
    return plant(document, contacts={foot: feet[foot]}, text=text)


def _spans(document, foot: str, point: int) -> list:
    return [tuple(s) for s in _record(document).foot(foot).contacts[point]]


def move_contact_end(document, foot: str, point: int, index: int, end: int, frame: int) -> Planted:
    """Move the first (``end=0``) or last (``end=1``) frame of a contact to ``frame``; a
    contact it runs into is merged with it. One undo step."""
    spans = _spans(document, foot, point)
    first, last = spans[index]
    first, last = (min(frame, last), last) if end == 0 else (first, max(frame, first))
    low, high = _record(document).frames
    first, last = max(first, low), min(last, high)
    rest = [s for k, s in enumerate(spans) if k != index]
    merged = _merge(rest + [(first, last)])
    word = "start" if end == 0 else "end"
    return _edited(
        document,
        foot,
        point,
        merged,
        f"Move the {word} of a {POINTS[point]} contact of {foot} to {frame}",
    )


def add_contact(document, foot: str, point: int, frame: int) -> Planted:
    """Add a contact of ``point`` around ``frame`` (as long as the shortest contact the
    detection keeps, at least a frame), merged with any it touches. One undo step."""
    record = _record(document)
    half = max(1, int(round(DURATION_S * document.scene.fps)))
    low, high = record.frames
    span = (max(low, frame - half), min(high, frame + half))
    return _edited(
        document,
        foot,
        point,
        _merge(_spans(document, foot, point) + [span]),
        f"Add a {POINTS[point]} contact of {foot} at {frame}",
    )


def remove_contact(document, foot: str, point: int, index: int) -> Planted:
    """Remove a contact. One undo step."""
    spans = _spans(document, foot, point)
    if not 0 <= index < len(spans):
        raise OperationError("There is no such contact")
    kept = [s for k, s in enumerate(spans) if k != index]
    first, last = spans[index]
    return _edited(
        document, foot, point, kept, f"Remove the {POINTS[point]} contact {first}–{last} of {foot}"
    )


def _merge(spans) -> list:
    """Sorted intervals with the ones that overlap or touch merged."""
    out = []
    for first, last in sorted(spans):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out
