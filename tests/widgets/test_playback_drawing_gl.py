"""Playing the humanoid with both foot-roll rigs: the handles, their guides and labels are
drawn from arrays kept while the handles, constraints, bones, selection and hover stay (a
few gathers per frame), exactly as the per-handle path draws them."""

from __future__ import annotations

import importlib.util

import numpy as np

from app.scene.rig.refs import Ref
from tests.helpers import gui
from tests.helpers.paths import ROOT, SCENES


def _add_foot_roll():
    spec = importlib.util.spec_from_file_location(
        "add_foot_roll", ROOT / "tools" / "add_foot_roll.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.add_foot_roll


def _recorded(drawing, document, hover):
    """What one draw hands the handle, guide and label items."""
    got = {}
    drawing._handles.set_handles = lambda *a: got.__setitem__("handles", a)
    drawing._guides.setData = lambda **k: got.__setitem__("guides", (k["pos"], k["color"]))
    drawing.labels.set_labels = lambda *a: got.__setitem__("labels", a)
    drawing.draw(document, show_axes=False, hover=hover)
    return got


def test_handles_guides_and_labels_while_playing_match_the_per_handle_path(qtbot):
    win = gui.open_window(qtbot, SCENES / "humanoid.glb")
    doc = win.document
    roll = _add_foot_roll()(doc)
    doc.prepare_timeline()
    drawing = win.viewport.drawing
    hover = Ref.pivot_of(roll, "ball")
    doc.set_selection([Ref.constraint(roll)])
    for frame in (doc.scene.frame_start + 3, doc.scene.frame_start + 20):
        doc.set_frame(frame)
        kept = _recorded(drawing, doc, hover)
        style = drawing._kept_style[-1]
        again = _recorded(drawing, doc, hover)
        assert drawing._kept_style[-1] is style  # kept across draws, not rebuilt
        drawing._style = lambda *a: None  # the per-handle path
        loop = _recorded(drawing, doc, hover)
        del drawing._style
        for got in (kept, again):
            assert len(got["handles"][0]) >= 12  # both rigs' pivots, targets and poles
            for name in ("handles", "guides"):
                for a, b in zip(got[name], loop[name]):
                    assert np.array_equal(np.asarray(a), np.asarray(b)), name
            positions, texts, colors, priority = got["labels"]
            assert texts == loop["labels"][1]
            assert np.array_equal(positions, loop["labels"][0])
            assert np.array_equal(colors, loop["labels"][2])
            assert np.array_equal(priority, loop["labels"][3])
        assert np.asarray(kept["handles"][2]).sum() == 3  # the selected roll's pivots
    # a new selection is drawn at once
    doc.set_selection([])
    assert not np.asarray(_recorded(drawing, doc, None)["handles"][2]).any()
