"""Draw docs/plant-feet-before-after.png: the contact points of the three contacts that slid
farthest in CMU 01_01, seen from above, before and after ``plant_feet`` (issue 24).

Each panel is 12 cm across (for a 1.7 m person) around one foot over one contact: heel
(blue), ball (green) and toe tip (orange), one dot per frame of the contact, joined. Before,
they smear across the floor; after, each stays on its spot (the foot turns about the points
that are down, so a point that is down is one dot).

    xvfb-run -a python tools/plant_picture.py [OUT.png]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.scene.evaluate import bake  # noqa: E402
from app.scene.io import load_scene  # noqa: E402
from app.scene.motion import feet  # noqa: E402
from app.scene.motion.plant import plant_feet  # noqa: E402

CLIP = Path("/usr/share/assimp/models/BVH/01_01.bvh")
COLORS = ("#5aaaff", "#6ed282", "#f0aa46")
PANEL, PAD, SPAN_M = 300, 24, 0.12


def paths(scene, pose, record):
    """Per foot: world paths (F, 3, 3) of heel, ball, toe as ``pose`` carries them."""
    index = {str(n): i for i, n in enumerate(pose.bone_names)}
    out = []
    for foot in record.feet:
        rotation, head = feet.rigid(pose.bone_to_world[:, index[foot.foot]])
        toes = None
        if foot.toes:
            toes_rotation, _ = feet.rigid(pose.bone_to_world[:, index[foot.toes]])
            from app.scene.math import quat

            toes = quat.mul(quat.conj(rotation), toes_rotation)
            toes_head = quat.rotate(
                quat.conj(rotation[0]), pose.heads[0, index[foot.toes]] - head[0]
            )
        else:
            toes_head = None
        motion = feet.FootMotion(rotation, head, np.array(foot.points()), toes_head, toes)
        out.append(motion.point_paths())
    return out


def main(out: Path) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    scene = load_scene(CLIP)
    planted = plant_feet(scene)
    record = planted.scene.plant
    before = paths(scene, bake(scene), record)
    after = paths(planted.scene, planted.baked, record)
    per_metre = planted.before.units_per_metre
    # the three contacts (any point) that slid farthest before
    found = []
    for f, foot in enumerate(record.feet):
        for p, spans in enumerate(foot.contacts):
            for a, b in spans:
                track = before[f][a : b + 1, p][:, [0, 2]]
                found.append((np.linalg.norm(track - track[0], axis=1).max(), f, a, b))
    found.sort(reverse=True)
    chosen = []
    for slide, f, a, b in found:
        if all(abs(a - c[2]) > 60 for c in chosen):
            chosen.append((slide, f, a, b))
        if len(chosen) == 3:
            break
    width, height = 3 * PANEL + 4 * PAD, 2 * PANEL + 3 * PAD + 40
    image = QtGui.QImage(width, height, QtGui.QImage.Format.Format_RGB32)
    image.fill(QtGui.QColor("#22232a"))
    painter = QtGui.QPainter(image)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    font = painter.font()
    font.setPointSize(11)
    painter.setFont(font)
    for column, (slide, f, a, b) in enumerate(chosen):
        centre = before[f][a : b + 1].reshape(-1, 3).mean(axis=0)[[0, 2]]
        for row, data in enumerate((before, after)):
            left = PAD + column * (PANEL + PAD)
            top = 40 + PAD + row * (PANEL + PAD)
            painter.fillRect(QtCore.QRectF(left, top, PANEL, PANEL), QtGui.QColor("#2c2e34"))
            scale = PANEL / (SPAN_M * per_metre)
            painter.setPen(QtGui.QPen(QtGui.QColor("#3a3c44"), 1))
            for k in range(13):  # a 1 cm grid
                x = left + k * PANEL / 12
                painter.drawLine(QtCore.QPointF(x, top), QtCore.QPointF(x, top + PANEL))
                painter.drawLine(
                    QtCore.QPointF(left, top + k * PANEL / 12),
                    QtCore.QPointF(left + PANEL, top + k * PANEL / 12),
                )
            painter.save()
            painter.setClipRect(QtCore.QRectF(left, top, PANEL, PANEL))
            for p in range(3):  # each point over the frames it is down within the contact
                for s_, e_ in record.feet[f].contacts[p]:
                    lo, hi = max(s_, a), min(e_, b)
                    if lo > hi:
                        continue
                    xy = (data[f][lo : hi + 1, p][:, [0, 2]] - centre) * scale
                    pts = [QtCore.QPointF(left + PANEL / 2 + x, top + PANEL / 2 + y) for x, y in xy]
                    painter.setPen(QtGui.QPen(QtGui.QColor(COLORS[p]), 2))
                    painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                    painter.drawPolyline(QtGui.QPolygonF(pts))
                    painter.setBrush(QtGui.QColor(COLORS[p]))
                    for q in pts[::4] + pts[-1:]:
                        painter.drawEllipse(q, 2.5, 2.5)
            painter.restore()
            painter.setPen(QtGui.QColor("#d0d2d8"))
            words = (
                f"before: {slide / per_metre * 1000:.0f} mm slide, frames {a}–{b}"
                if row == 0
                else "after: planted"
            )
            painter.drawText(
                QtCore.QRectF(left, top + PANEL - 22, PANEL, 20),
                QtCore.Qt.AlignmentFlag.AlignCenter,
                words,
            )
    painter.setPen(QtGui.QColor("#e8e8ec"))
    painter.drawText(
        QtCore.QRectF(0, 8, width, 28),
        QtCore.Qt.AlignmentFlag.AlignCenter,
        "CMU 01_01 from above, 12 cm panels: heel (blue), ball (green), toe "
        "(orange) over a contact",
    )
    painter.end()
    image.save(str(out))
    del app


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "plant-feet-before-after.png")
