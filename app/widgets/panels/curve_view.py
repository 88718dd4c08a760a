"""The curve view: the selection's values over the whole timeline.

For a pivot or a free bone, its quaternion ``w, x, y, z`` (left axis) and rotation angle
(right axis, degrees) with the keys as diamonds; for a driven bone (or its constraint), its
head's world position and, below, by how much world and object space part (distance and
angle). The current frame is a line: drag it (or click the plot) to scrub. Clicking a key
jumps to its frame and selects whose key it is, so K and Shift+K act on it. A rotation can be
shown as Blender's XYZ Euler angles instead (the "Euler XYZ" option). Keys are selected,
dragged, inserted, deleted, copied and given an interpolation as in Blender's graph editor
(:mod:`app.widgets.panels.curve_keys`).

Everything plotted comes from the keys or from the document's whole-timeline cache: a scrub
only moves the line.

One idea: the curve view's plots of the selection's values and keys over the timeline.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.editor.throttle import Throttle
from app.scene.analysis import compare
from app.scene.analysis.compare import rotation_parts
from app.scene.analysis.curve_subjects import DRIVEN, POSITION, ROTATION, CurveSubject, subject_of
from app.scene.analysis.curves import accumulated_turn_deg, plot_frames, rotation_curve
from app.scene.math.euler import euler_xyz_from_quat
from app.scene.rig.keys import sample
from app.scene.rig.refs import Ref
from app.scene.words import plural
from app.widgets.panels.curve_keys import EULER, QUAT, VECTOR, CurveKeyEditor, Diamonds
from app.widgets.panels.plots import DualPlot
from app.widgets.visible_refresh import RefreshWhileVisible

COLORS = {
    "w": (215, 217, 224),
    "x": (240, 90, 90),
    "y": (120, 215, 95),
    "z": (95, 150, 255),
    "angle": (255, 175, 60),
    "distance": (80, 215, 255),
}
SELECTED_BRUSH = (255, 255, 255)
#: Points per curve at least, so slerp between sparse keys is drawn smooth.
MIN_SAMPLES = 400
#: More keys than this (motion capture: one per frame) are not drawn as diamonds.
MAX_DIAMONDS = 400
#: Milliseconds of quiet after an edit before a driven bone's curves are re-read (the
#: document evaluates the whole timeline then).
DRIVEN_DELAY_MS = 300


def nearest_rows(frames: np.ndarray, at) -> np.ndarray:
    """Index of the frame in the increasing ``frames`` nearest to each of ``at``."""
    at = np.asarray(at, dtype=float)
    if len(frames) < 2:
        return np.zeros(at.shape, dtype=int)
    right = np.clip(np.searchsorted(frames, at), 1, len(frames) - 1)
    left = right - 1
    nearer_left = np.abs(at - frames[left]) <= np.abs(frames[right] - at)
    return np.clip(np.where(nearer_left, left, right), 0, len(frames) - 1)


def _pen(name: str, width: float = 1.6):
    return pg.mkPen(COLORS[name], width=width)


class CurveView(RefreshWhileVisible, QtWidgets.QWidget):
    """The curve view panel; its plot is the ``PlotWidget`` named ``curveView``."""

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.setObjectName("curvePanel")
        self._document = document
        self.subject: CurveSubject | None = None
        self._series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._keys: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._owners: list = []
        self._picked_key: float | None = None
        #: The key diamonds drawn, and the curves Ctrl+click can key (see curve_keys).
        self.diamonds: list[Diamonds] = []
        self.editable_curves: list[Diamonds] = []
        self.title = QtWidgets.QLabel()
        self.title.setObjectName("curveTitle")
        self.title.setWordWrap(True)
        self.euler = QtWidgets.QCheckBox("Euler XYZ")
        self.euler.setObjectName("curveEuler")
        self.euler.setToolTip(
            "Show rotations as Blender's XYZ Euler angles in degrees (their "
            "keys can then be dragged in value with Shift)"
        )
        self.euler.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.euler.toggled.connect(lambda _on: self.refresh())
        self.plot = DualPlot("curveView")
        #: Below the main plot: world against object space for a driven bone, the
        #: translation for a bone whose translation is keyed (a motion-capture root).
        self.lower = DualPlot("curveLowerView")
        self.lower.getPlotItem().setLabel("bottom", "frame", color="#c8cad0")
        self.lower_note = QtWidgets.QLabel()
        self.lower_note.setObjectName("curveLowerNote")
        self.lower_note.setStyleSheet("color: #9aa0a8;")
        self.lower_note.setWordWrap(True)
        self.lower.setXLink(self.plot)
        self.plot.getPlotItem().setLabel("bottom", "frame", color="#c8cad0")
        splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        splitter.addWidget(self.plot)
        lower = QtWidgets.QWidget()
        lower_layout = QtWidgets.QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.lower_note)
        lower_layout.addWidget(self.lower)
        splitter.addWidget(lower)
        splitter.setSizes([300, 170])
        self._lower = lower
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(4)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.euler)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self.keys_editor = CurveKeyEditor(self)

        for plot in (self.plot, self.lower):
            plot.frame_dragged.connect(self._scrub)
        self._throttled = Throttle(self.refresh, 100, self)
        self._later = QtCore.QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(DRIVEN_DELAY_MS)
        self._later.timeout.connect(self.refresh)
        document.frame_changed.connect(self._on_frame)
        document.selection_changed.connect(self.refresh)
        document.scene_changed.connect(self._on_scene)
        document.space_changed.connect(self._on_space)
        document.scene_replaced.connect(self.refresh)
        self._stale = True
        self.refresh()

    # --- what the tests and the window read ----------------------------------------------

    @property
    def document(self):
        """The document whose curves this view plots."""
        return self._document

    def series(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The plotted curves by name: ``w``, ``x``, ``y``, ``z``, ``angle`` of a rotation
        (and ``tx``... of a keyed translation); ``px``, ``py``, ``pz`` of a position (and
        ``turn``, ``distance``, ``angle difference`` of a driven bone): ``(frames, values)``."""
        return dict(self._series)

    def key_markers(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The key diamonds by curve name: ``(frames, values)``."""
        return dict(self._keys)

    @property
    def picked_key(self) -> float | None:
        """The frame of the key last clicked (drawn ringed), or ``None``."""
        return self._picked_key

    # --- reacting to the document --------------------------------------------------------

    def _scrub(self, frame: float) -> None:
        s = self._document.scene
        self._document.set_frame(float(min(max(round(frame), s.frame_start), s.frame_end)))
        self._on_frame(self._document.frame)  # the line snaps to the whole frame

    def _on_frame(self, frame: float) -> None:
        self.plot.set_frame(frame)
        self.lower.set_frame(frame)

    def _on_scene(self) -> None:
        if self.subject is not None and self.subject.kind == DRIVEN:
            self._later.start()
        else:
            self._throttled()

    def _on_space(self, _space) -> None:
        if self.subject is not None and self.subject.kind == DRIVEN:
            self.refresh()

    # --- building the plots --------------------------------------------------------------

    def refresh(self) -> None:
        """Rebuild the curves for the active selection (only while visible)."""
        if self._defer_while_hidden():
            return
        doc = self._document
        previous = self.subject
        self.subject = subject_of(doc.scene, doc.active)
        if previous is None or self.subject is None or previous.ref != self.subject.ref:
            self._picked_key = None
            self.keys_editor.selected = {}
        self.plot.clear_items()
        self.lower.clear_items()
        self._series, self._keys, self._owners = {}, {}, []
        self.diamonds, self.editable_curves = [], []
        s = doc.scene
        for plot in (self.plot, self.lower):
            plot.set_frame_range(s.frame_start, s.frame_end)
            plot.set_frame(doc.frame)
        subject = self.subject
        self._lower.setVisible(False)
        if subject is None:
            self.title.setText(
                "Select a pivot, a bone, a constraint or a position target to plot it over "
                "the timeline."
            )
            self.plot.set_right_axis(None)
            return
        self.title.setText(f"<b>{subject.title}</b>")
        if subject.kind == ROTATION:
            self._plot_rotation(subject)
        elif subject.kind == POSITION:
            self._plot_position(subject)
        else:
            self._plot_driven(subject)
        self._draw_picked()
        self._fit()
        # Once more when the layout has settled (a plot just shown has no height yet).
        QtCore.QTimer.singleShot(0, self, self._fit)

    def flush(self) -> None:
        """Rebuild now if the throttled rebuild after an edit is waiting."""
        self._throttled.flush()

    def _fit(self) -> None:
        if self.keys_editor.dragging:
            return  # the axes hold still under a drag, so the keys follow the mouse
        self.plot.auto_y()
        if self._lower.isVisibleTo(self):
            self.lower.auto_y()

    def _frames(self, *keys_list) -> np.ndarray:
        """Where to sample the curves of ``keys_list``: steps and eases drawn as they are."""
        s = self._document.scene
        count = max(s.frame_end - s.frame_start + 1, MIN_SAMPLES)
        return plot_frames(s.frame_start, s.frame_end, keys_list, count)

    def _curve(
        self,
        plot,
        frames,
        values,
        name,
        right=False,
        label=None,
        style=None,
        channel=None,
        component=None,
        mode=QUAT,
        dashed=False,
    ):
        if channel is not None:
            self.editable_curves.append(
                Diamonds(
                    name,
                    plot,
                    right,
                    np.asarray(frames, float),
                    np.asarray(values, float),
                    channel,
                    component,
                    mode,
                )
            )
        pen = _pen(style or name)
        if right or dashed:  # dashed: read on the right axis (or a bone's scale)
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        item = pg.PlotDataItem(frames, values, pen=pen)
        (plot.add_right if right else plot.add_left)(item, label or name)
        # After adding: both look up the view box, which the item has only then.
        item.setDownsampling(auto=True, method="peak")
        item.setClipToView(True)
        return item

    def _markers(
        self,
        plot,
        frames,
        values,
        name,
        owners=None,
        right=False,
        style=None,
        channel=None,
        component=None,
        mode="driven",
    ):
        """Key diamonds on a curve of ``channel`` ``(ref, field)``; clicking one picks it."""
        if len(frames) == 0:
            return
        color = COLORS[style or name]
        markers = pg.ScatterPlotItem(
            x=frames,
            y=values,
            symbol="d",
            size=11,
            brush=pg.mkBrush(*color),
            pen=pg.mkPen((20, 20, 24), width=1),
            hoverable=True,
            hoverBrush=pg.mkBrush(255, 255, 255),
            data=list(range(len(frames))),
            tip=lambda x, y, data: f"key at frame {x:g}: {y:.4g} (click, drag)",
        )
        markers.setZValue(20)
        markers.base_color = color
        (plot.add_right if right else plot.add_left)(markers)
        frames, values = np.asarray(frames, float), np.asarray(values, float)
        self._keys[name] = (frames, values)
        self.diamonds.append(
            Diamonds(name, plot, right, frames, values, channel, component, mode, markers, owners)
        )
        if owners is not None:
            self._owners = owners

    def style_diamonds(self) -> None:
        """Selected keys white and larger, the others in their curve's colour."""
        editor = self.keys_editor
        for d in self.diamonds:
            on = [
                d.channel is not None and editor.is_selected(d.channel, float(f)) for f in d.frames
            ]
            d.item.setBrush([pg.mkBrush(*(SELECTED_BRUSH if s else d.item.base_color)) for s in on])
            d.item.setSize([14 if s else 11 for s in on])

    def selected_keys(self) -> dict:
        """The selected keys: ``{(ref, field): frames}``."""
        return self.keys_editor.selection()

    def _plot_rotation(self, subject: CurveSubject) -> None:
        bone = subject.bone_item
        frames = self._frames(
            subject.keys, *(() if bone is None else (bone.translation_keys, bone.scale_keys))
        )
        curve = rotation_curve(subject.static, subject.keys, frames)
        channel = (subject.ref, "rotation_keys")
        if self.euler.isChecked():
            self._plot_euler(curve, channel)
        else:
            self._plot_quaternion(curve, channel)
        if bone is not None and (bone.translation_keys is not None or bone.scale_keys is not None):
            self._plot_translation(bone, frames)
        self.style_diamonds()

    def _plot_euler(self, curve, channel) -> None:
        """Blender's XYZ Euler angles of the rotation, unwrapped over the frames."""
        frames = curve.frames
        angles = np.unwrap(euler_xyz_from_quat(curve.quats), period=360.0, axis=0)
        # An empty right axis: the frames line up with the translation plot below.
        self.plot.set_right_axis(" ")
        self.plot.getPlotItem().setLabel("left", "Euler XYZ (°)", color="#c8cad0")
        for i, axis in enumerate("xyz"):
            self._curve(
                self.plot,
                frames,
                angles[:, i],
                f"e{axis}",
                label=f"{axis} (°)",
                style=axis,
                channel=channel,
                component=i,
                mode=EULER,
            )
            self._series[f"e{axis}"] = (frames, angles[:, i])
        if len(curve.key_frames) and len(curve.key_frames) <= MAX_DIAMONDS:
            raw = euler_xyz_from_quat(curve.key_quats)
            near = np.clip(np.searchsorted(frames, curve.key_frames), 0, len(frames) - 1)
            # The key's own angles, by whole turns brought onto the unwrapped curve.
            on_curve = raw + 360.0 * np.round((angles[near] - raw) / 360.0)
            for i, axis in enumerate("xyz"):
                self._markers(
                    self.plot,
                    curve.key_frames,
                    on_curve[:, i],
                    f"e{axis}",
                    style=axis,
                    channel=channel,
                    component=i,
                    mode=EULER,
                )

    def _plot_quaternion(self, curve, channel) -> None:
        frames = curve.frames
        self.plot.set_right_axis("angle (°)")
        self.plot.getPlotItem().setLabel("left", "q = (w, x, y, z)", color="#c8cad0")
        for i, name in enumerate("wxyz"):
            self._curve(self.plot, frames, curve.quats[:, i], name, channel=channel)
            self._series[name] = (frames, curve.quats[:, i])
        self._curve(self.plot, frames, curve.angle_deg, "angle", right=True, label="angle (°)")
        self._series["angle"] = (frames, curve.angle_deg)
        if len(curve.key_frames) <= MAX_DIAMONDS:  # one per mocap frame would be a smear
            for i, name in enumerate("wxyz"):
                self._markers(
                    self.plot,
                    curve.key_frames,
                    curve.key_quats[:, i],
                    name,
                    channel=channel,
                    mode=QUAT,
                )
            self._markers(
                self.plot,
                curve.key_frames,
                curve.key_angle_deg,
                "angle",
                right=True,
                channel=channel,
                mode=QUAT,
            )

    def _plot_translation(self, bone, frames) -> None:
        """A bone's keyed translation (a motion-capture root's path) and keyed scale, in the
        lower plot (scale dashed)."""
        self._lower.setVisible(True)
        self.lower.set_right_axis(" ")  # an empty axis: the frames line up with the plot above
        notes, labels = [], []
        for field, prefix, what in (
            ("translation_keys", "t", "translation"),
            ("scale_keys", "s", "scale"),
        ):
            keys = getattr(bone, field)
            if keys is None:
                continue
            values = sample(getattr(bone, what), keys, frames)
            channel = (Ref.bone(bone.name), field)
            for i, axis in enumerate("xyz"):
                name = f"{prefix}{axis}"
                label = axis if prefix == "t" else f"scale {axis}"
                self._curve(
                    self.lower,
                    frames,
                    values[:, i],
                    name,
                    label=label,
                    style=axis,
                    channel=channel,
                    component=i,
                    mode=VECTOR,
                    dashed=prefix == "s",
                )
                self._series[name] = (frames, values[:, i])
                if len(keys) <= MAX_DIAMONDS:
                    self._markers(
                        self.lower,
                        keys.frames,
                        keys.values[:, i],
                        name,
                        style=axis,
                        channel=channel,
                        component=i,
                        mode=VECTOR,
                    )
            labels.append(what + (" (units)" if prefix == "t" else ""))
            shape = " (its head in its parent's frame)" if prefix == "t" else " (dashed)"
            notes.append(f"{what}{shape}, {plural(len(keys), 'key')}")
        self.lower.getPlotItem().setLabel("left", " and ".join(labels), color="#c8cad0")
        self.lower_note.setText(f"{bone.name}'s " + "; ".join(notes))

    def _plot_position(self, subject: CurveSubject) -> None:
        frames = self._frames(subject.keys)
        values = sample(subject.static, subject.keys, frames)
        self.plot.set_right_axis(None)
        self.plot.getPlotItem().setLabel("left", "position (world, units)", color="#c8cad0")
        channel = (subject.ref, "position_keys")
        for i, axis in enumerate("xyz"):
            self._curve(
                self.plot,
                frames,
                values[:, i],
                f"p{axis}",
                label=axis,
                style=axis,
                channel=channel,
                component=i,
                mode=VECTOR,
            )
            self._series[f"p{axis}"] = (frames, values[:, i])
        if subject.keys is not None:
            for i, axis in enumerate("xyz"):
                self._markers(
                    self.plot,
                    subject.keys.frames,
                    subject.keys.values[:, i],
                    f"p{axis}",
                    style=axis,
                    channel=channel,
                    component=i,
                    mode=VECTOR,
                )
        self.style_diamonds()

    def _plot_driven(self, subject: CurveSubject) -> None:
        doc = self._document
        timeline = doc.evaluations.timeline_for_plot()
        frames = timeline.frames
        heads = timeline.heads[:, subject.bone]
        self.plot.set_right_axis(None)
        space = doc.space or "as authored"
        self.plot.getPlotItem().setLabel("left", f"head (units, {space})", color="#c8cad0")
        for i, axis in enumerate("xyz"):
            self._curve(self.plot, frames, heads[:, i], f"p{axis}", label=axis, style=axis)
            self._series[f"p{axis}"] = (frames, heads[:, i])
        key_frames = subject.key_frames()
        rows = nearest_rows(frames, key_frames)
        owners = [ref for _, ref in subject.key_owners]
        for i, axis in enumerate("xyz"):
            self._markers(self.plot, key_frames, heads[rows, i], f"p{axis}", owners, style=axis)
        turn = accumulated_turn_deg(rotation_parts(timeline.bone_to_world[:, subject.bone]))
        self.plot.set_right_axis("turn since first frame (°)")
        self._curve(self.plot, frames, turn, "angle", right=True, label="turn (°)")
        self._series["turn"] = (frames, turn)
        self._lower.setVisible(True)
        self.lower.set_right_axis("angle (°)")
        self.lower.getPlotItem().setLabel("left", "distance (units)", color="#c8cad0")
        evaluations = doc.evaluations
        world, obj = evaluations.timeline_for_plot("world"), evaluations.timeline_for_plot("object")
        fits = evaluations.timeline_fits_cache()
        every = "every frame" if fits else f"{len(frames)} frames, evenly"
        b = subject.bone
        distance, angle = compare.pose_differences(
            world.bone_to_world[:, b], obj.bone_to_world[:, b]
        )
        self._curve(self.lower, frames, distance, "distance", label="distance (units)")
        self._curve(self.lower, frames, angle, "angle", right=True, label="angle (°)")
        self._series["distance"] = (frames, distance)
        self._series["angle difference"] = (frames, angle)
        self.lower_note.setText(
            f"World space against object space, {every}: the head up to "
            f"{distance.max():.3g} units apart, the orientation up to {angle.max():.3g}°"
            + (
                " (they agree: no limits or non-uniform scale in play)"
                if distance.max() < 1e-9 and angle.max() < 1e-6
                else ""
            )
        )

    # --- keys ----------------------------------------------------------------------------

    def key_clicked(self, diamonds: Diamonds, index: int) -> None:
        """A click on a key: jump to its frame and (for a driven bone) select whose it is."""
        frame = float(diamonds.frames[index])
        self._picked_key = frame
        doc = self._document
        if diamonds.owners:
            owner = diamonds.owners[index]
            if owner not in doc.selection:
                doc.set_selection([owner])  # whose key it is: K / Shift+K act on it
        doc.set_frame(frame)
        self._draw_picked()
        doc.notify(f"Key at frame {frame:g} — K re-keys, Shift+K deletes it")

    def _draw_picked(self) -> None:
        item = getattr(self, "_ring", None)
        if item is not None:
            self.plot.getPlotItem().removeItem(item)
            self._ring = None
        if self._picked_key is None:
            return
        xs, ys = [], []
        for name, (frames, values) in self._keys.items():
            if name == "angle":
                continue  # on the right axis
            at = np.isclose(frames, self._picked_key)
            xs += list(frames[at])
            ys += list(values[at])
        if not xs:
            return
        self._ring = pg.ScatterPlotItem(
            x=xs, y=ys, symbol="o", size=19, brush=None, pen=pg.mkPen((255, 255, 255), width=2)
        )
        self._ring.setZValue(19)
        self.plot.getPlotItem().addItem(self._ring)
