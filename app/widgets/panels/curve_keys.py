"""Editing keys in the curve view with the mouse and keyboard, like Blender's graph editor.

- Click a key (diamond) to select it (Shift: add or remove it); drag in empty space to
  box-select (Shift: add). A click in empty space scrubs and deselects. On the current-frame
  line the line wins (it drags to scrub) unless the key there is already selected.
- Drag selected keys in time (whole frames); hold Shift while dragging to drag in value
  instead (translations, positions and the Euler-angle display of rotations). Dropping a key
  onto another replaces it. One undo step per drag; Esc or a right click cancels it.
- Ctrl+click on a curve inserts a key there (at the clicked value for a translation or an
  Euler angle; a quaternion component cannot change alone, so a rotation is keyed as it is).
- With the plot focused: Delete / X deletes the selected keys, Ctrl+C copies them, Ctrl+V
  pastes them with the first at the current frame, T (or a right click on a key) sets their
  interpolation.

The curve view owns the diamonds (:class:`Diamonds`); this module reads them, keeps the key
selection, and edits through :mod:`app.editor.operations.key_operations`.

One idea: the curve view's key selection and the gestures that edit its keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.editor.operations import key_operations
from app.editor.operations.base import OperationError
from app.scene.analysis.curve_subjects import DRIVEN
from app.scene.math.euler import euler_xyz_from_quat, quat_from_euler_xyz
from app.scene.rig import key_edits
from app.scene.rig.keys import sample
from app.scene.rig.refs import exists, resolve
from app.scene.words import plural
from app.widgets.interpolation_menu import pop_up

#: Pixels within which a press picks a key, and a drag starts.
PICK_PX = 8.0
DRAG_PX = 4.0
QUAT, EULER, VECTOR = "quat", "euler", "vector"

Qt = QtCore.Qt
EV = QtCore.QEvent.Type


@dataclass(eq=False)
class Diamonds:
    """One curve's key diamonds, as the curve view drew them.

    Attributes
    ----------
    plot : DualPlot
    right : bool
        On the right axis.
    frames, values : ndarray, (K,)
    channel : (Ref, str) or None
        Whose keys (``None`` for a driven bone's markers, which only jump and select).
    component : int or None
        The vector component or Euler angle (0, 1, 2) the values show.
    mode : {"quat", "euler", "vector", "driven"}
    item : pyqtgraph.ScatterPlotItem or None
        ``None`` for a curve (:attr:`CurveView.editable_curves`), which has no diamonds.
    owners : list of Ref, optional
        A driven bone's markers: whose key each is.
    """

    name: str
    plot: object
    right: bool
    frames: np.ndarray
    values: np.ndarray
    channel: tuple | None
    component: int | None
    mode: str
    item: object = None
    owners: list | None = None


@dataclass(eq=False)
class _Press:
    pos: QtCore.QPointF
    plot: object
    frame: float
    hit: tuple | None  # (Diamonds, index)
    shift: bool
    was_selected: bool = False
    moved: bool = False


class CurveKeyEditor(QtCore.QObject):
    """Mouse and keyboard on the curve view's plots; ``view`` is the :class:`CurveView`."""

    def __init__(self, view):
        super().__init__(view)
        self.view = view
        self.document = view.document
        #: The selected keys: ``{(ref, field): set of frames}``.
        self.selected: dict = {}
        self.menu: QtWidgets.QMenu | None = None
        self._press: _Press | None = None
        self._gesture = None
        self._band = None
        self._viewports = []
        for plot in (view.plot, view.lower):
            plot.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            viewport = plot.viewport()
            viewport.installEventFilter(self)
            plot.installEventFilter(self)
            self._viewports.append((viewport, plot))

    @property
    def dragging(self) -> bool:
        """Whether a drag of keys is under way."""
        return self._gesture is not None

    # --- selection -----------------------------------------------------------------------

    def selection(self) -> dict:
        """``{(ref, field): sorted frames}`` of the selected keys that still exist."""
        out = {}
        scene = self.document.scene
        for channel, frames in self.selected.items():
            ref, field = channel
            if not exists(scene, ref):
                continue
            keys = getattr(resolve(scene, ref), field, None)
            if keys is None:
                continue
            kept = sorted(f for f in frames if np.any(keys.frames == f))
            if kept:
                out[channel] = kept
        return out

    def is_selected(self, channel, frame: float) -> bool:
        return frame in self.selected.get(channel, ())

    def set_selection(self, selected: dict) -> None:
        self.selected = {c: set(map(float, f)) for c, f in selected.items() if len(f)}
        self.view.style_diamonds()

    def clear(self) -> None:
        self.set_selection({})

    def _toggle(self, channel, frame: float, on: bool) -> None:
        frames = self.selected.setdefault(channel, set())
        (frames.add if on else frames.discard)(float(frame))

    # --- picking -------------------------------------------------------------------------

    def _hit(self, plot, pos: QtCore.QPointF):
        best, best_d = None, PICK_PX
        for d in self.view.diamonds:
            if d.plot is not plot:
                continue
            for i, (f, v) in enumerate(zip(d.frames, d.values)):
                p = plot.pixel_of(float(f), float(v), d.right)
                dist = float(np.hypot(p.x() - pos.x(), p.y() - pos.y()))
                if dist <= best_d:
                    best, best_d = (d, i), dist
        return best

    def _value_at(self, plot, pos: QtCore.QPointF, right: bool) -> float:
        vb = plot.right if right else plot.getPlotItem().vb
        return float(vb.mapSceneToView(plot.mapToScene(pos.toPoint())).y())

    def _near_frame_line(self, plot, pos) -> bool:
        x = plot.pixel_of(float(plot.frame_line.value()), 0.0).x()
        return abs(x - pos.x()) <= 5

    # --- events --------------------------------------------------------------------------

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        kind = ev.type()
        if kind in (EV.ShortcutOverride, EV.KeyPress):
            return self._key(ev, kind)
        plot = next((p for v, p in self._viewports if v is obj), None)
        if plot is None:
            return False
        if kind in (EV.MouseButtonPress, EV.MouseButtonDblClick):
            # A second press soon after a release arrives as a double click: the same press.
            return self._pressed(plot, ev)
        if kind == EV.MouseMove and self._press is not None:
            self._moved(ev)
            return True
        if kind == EV.MouseButtonRelease and self._press is not None:
            if ev.button() == Qt.MouseButton.LeftButton:
                self._released(ev)
            return True
        return False

    def _pressed(self, plot, ev) -> bool:
        if ev.button() == Qt.MouseButton.RightButton:
            if self._gesture is not None:
                self._cancel()
                return True
            return self._context_menu(plot, ev)
        if ev.button() != Qt.MouseButton.LeftButton:
            return False
        self.view.flush()  # pick on the diamonds of the scene as it is, not 100 ms ago
        pos = ev.position()
        mods = ev.modifiers()
        if mods & Qt.KeyboardModifier.ControlModifier:
            self._insert(plot, pos)
            return True
        hit = self._hit(plot, pos)
        if self._near_frame_line(plot, pos) and not (
            hit is not None
            and hit[0].channel is not None
            and self.is_selected(hit[0].channel, float(hit[0].frames[hit[1]]))
        ):
            return False  # the frame line drags itself (over a key too, unless it is selected)
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        self._press = _Press(pos, plot, plot.frame_at(pos.x()), hit, shift)
        if hit is not None and hit[0].channel is not None:
            d, i = hit
            frame = float(d.frames[i])
            self._press.was_selected = self.is_selected(d.channel, frame)
            if shift:
                self._toggle(d.channel, frame, True)
            elif not self._press.was_selected:
                self.selected = {d.channel: {frame}}
            self.view.style_diamonds()
        plot.setFocus(Qt.FocusReason.MouseFocusReason)
        return True

    def _moved(self, ev) -> None:
        press = self._press
        pos = ev.position()
        if not press.moved and np.hypot(pos.x() - press.pos.x(), pos.y() - press.pos.y()) < DRAG_PX:
            return
        press.moved = True
        if press.hit is None:
            self._rubber_band(press, pos)
            return
        d, i = press.hit
        if d.channel is None:
            return
        # Shift held when the drag began, or pressed during it: in value.
        if press.shift or ev.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self._drag_value(press, d, pos)
        else:
            self._drag_time(press, pos)

    def _drag_time(self, press, pos) -> None:
        if not isinstance(self._gesture, key_operations.KeyMove):
            self._cancel_gesture()
            self._base = self.selection()
            self._gesture = key_operations.KeyMove(self.document, self._base)
        offset = float(round(press.plot.frame_at(pos.x()) - press.frame))
        if offset != self._gesture.offset or offset == 0:
            self._gesture.to(offset)
        self.selected = {
            c: set(f) for c, f in key_operations.moved_selection(self._base, offset).items()
        }

    def _drag_value(self, press, d, pos) -> None:
        if d.mode not in (EULER, VECTOR):
            self.document.notify(
                "Drag rotation keys in value in the Euler-angle display "
                "(the curve view's Euler option)"
            )
            return
        if not isinstance(self._gesture, key_operations.KeyGesture) or isinstance(
            self._gesture, key_operations.KeyMove
        ):
            self._cancel_gesture()
            self.selected = {c: f for c, f in self.selection().items()}
            frames = sorted(self.selected.get(d.channel, ()))
            self._gesture = key_operations.KeyGesture(
                self.document, {d.channel: frames}, f"Change {plural(len(frames), 'key')} in value"
            )
        delta = self._value_at(press.plot, pos, d.right) - self._value_at(
            press.plot, press.pos, d.right
        )
        edit = key_edits.offset_euler if d.mode == EULER else key_edits.offset_component
        self._gesture.preview(lambda keys, frames: edit(keys, frames, d.component, delta))

    def _rubber_band(self, press, pos) -> None:
        if self._band is None:
            self._band = QtWidgets.QRubberBand(
                QtWidgets.QRubberBand.Shape.Rectangle, press.plot.viewport()
            )
            self._band.show()
        self._band.setGeometry(QtCore.QRect(press.pos.toPoint(), pos.toPoint()).normalized())

    def _released(self, ev) -> None:
        press, self._press = self._press, None
        if self._band is not None:
            rect = QtCore.QRectF(self._band.geometry())
            self._band.hide()
            self._band.deleteLater()
            self._band = None
            self._box_select(press.plot, rect, press.shift)
            return
        if self._gesture is not None:
            gesture, self._gesture = self._gesture, None
            if gesture.commit():
                self.document.notify(gesture.text)
            self.view.style_diamonds()
            return
        if press.hit is None:
            if not press.shift:
                self.clear()
            press.plot.frame_dragged.emit(press.frame)
            return
        d, i = press.hit
        if press.shift and press.was_selected and d.channel is not None:
            self._toggle(d.channel, float(d.frames[i]), False)
            self.view.style_diamonds()
        self.view.key_clicked(d, i)

    def _box_select(self, plot, rect: QtCore.QRectF, add: bool) -> None:
        selected = {c: set(f) for c, f in self.selected.items()} if add else {}
        for d in self.view.diamonds:
            if d.plot is not plot or d.channel is None:
                continue
            for f, v in zip(d.frames, d.values):
                if rect.contains(plot.pixel_of(float(f), float(v), d.right)):
                    selected.setdefault(d.channel, set()).add(float(f))
        self.set_selection(selected)
        count = sum(len(f) for f in selected.values())
        self.document.notify(f"{plural(count, 'key')} selected")

    def _cancel_gesture(self) -> None:
        if self._gesture is not None:
            self._gesture.cancel()
            self._gesture = None

    def _cancel(self) -> None:
        self._cancel_gesture()
        if getattr(self, "_base", None) is not None and self._press is not None:
            self.selected = {c: set(f) for c, f in self._base.items()}
        self._press = None
        self.view.style_diamonds()

    def _context_menu(self, plot, ev) -> bool:
        """Right-click on a key (or anywhere while keys are selected): the interpolation
        menu for the selected keys, as Blender's graph editor's context menu has it."""
        self.view.flush()
        hit = self._hit(plot, ev.position())
        if hit is not None and hit[0].channel is not None:
            d, i = hit
            if not self.is_selected(d.channel, float(d.frames[i])):
                self.set_selection({d.channel: [float(d.frames[i])]})
        if not self.selection():
            return False  # nothing to act on: the plot keeps its right button
        self.menu = pop_up(self.view, self._interpolate, ev.globalPosition().toPoint())
        return True

    # --- inserting -----------------------------------------------------------------------

    def _insert(self, plot, pos) -> None:
        """Ctrl+click: a key on the editable curve nearest the click, at the whole frame."""
        s = self.document.scene
        frame = float(min(max(round(plot.frame_at(pos.x())), s.frame_start), s.frame_end))
        best, best_d = None, 30.0
        for c in self.view.editable_curves:
            if c.plot is not plot:
                continue
            y = float(np.interp(frame, c.frames, c.values))
            dist = abs(plot.pixel_of(frame, y, c.right).y() - pos.y())
            if dist <= best_d:
                best, best_d = c, dist
        if best is None:
            self.document.notify("Ctrl+click on a curve to insert a key there")
            return
        ref, field = best.channel
        item = resolve(s, ref)
        keys = getattr(item, field)
        static = getattr(item, key_edits.static_field(field))
        value = sample(static, keys, np.asarray(frame), key_edits.is_rotation(field))
        clicked = self._value_at(plot, pos, best.right)
        if best.mode == VECTOR:
            value = np.array(value)
            value[best.component] = clicked
        elif best.mode == EULER:
            angles = euler_xyz_from_quat(value)
            angles[best.component] = clicked
            value = quat_from_euler_xyz(angles)
        key_operations.insert_key(self.document, ref, field, frame, value)
        self.set_selection({best.channel: [frame]})
        self.document.notify(f"Inserted a key on {ref.label()} at frame {frame:g}")

    # --- keyboard ------------------------------------------------------------------------

    def _key(self, ev, kind) -> bool:
        key, mods = ev.key(), ev.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        ours = (
            (key in (Qt.Key.Key_Delete, Qt.Key.Key_X, Qt.Key.Key_T) and not ctrl)
            or (ctrl and key in (Qt.Key.Key_C, Qt.Key.Key_V))
            or (key == Qt.Key.Key_Escape and self._gesture is not None)
        )
        if not ours:
            return False
        ev.accept()
        if kind == EV.ShortcutOverride:
            return True  # the key comes to this widget; no window shortcut fires
        try:
            if key == Qt.Key.Key_Escape:
                self._cancel()
            elif key == Qt.Key.Key_T:
                self.menu = pop_up(self.view, self._interpolate, QtGui.QCursor.pos())
            elif ctrl and key == Qt.Key.Key_C:
                self._copy()
            elif ctrl and key == Qt.Key.Key_V:
                self._paste()
            else:
                key_operations.delete(self.document, self.selection())
                self.clear()
        except OperationError as e:
            self.document.notify(str(e))
        return True

    def _interpolate(self, kind: str) -> None:
        try:
            key_operations.set_interpolation(self.document, self.selection(), kind)
        except OperationError as e:
            self.document.notify(str(e))

    def _copy(self) -> None:
        selected = self.selection()
        if not selected:
            raise OperationError("Select keys to copy them")
        scene = self.document.scene
        key_operations.CLIPBOARD.clip = key_edits.copy_keys(
            {c: (key_operations.keys_of(scene, c), f) for c, f in selected.items()}
        )
        count = sum(len(f) for f in selected.values())
        self.document.notify(f"Copied {plural(count, 'key')}")

    def _paste(self) -> None:
        clip = key_operations.CLIPBOARD.clip
        if clip is None:
            raise OperationError("Copy keys first (Ctrl+C in the curve view)")
        subject = self.view.subject
        target = None if subject is None or subject.kind == DRIVEN else subject.ref
        pasted = key_operations.paste(self.document, clip, target)
        self.set_selection(pasted)
        count = sum(len(f) for f in pasted.values())
        self.document.notify(f"Pasted {plural(count, 'key')} at frame {self.document.frame:g}")
