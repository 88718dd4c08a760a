"""Every shipped scene bakes as it did (issue 29: the house's refactorings change no bake):
each scene × the three space modes against the fingerprints in ``tests/data/shipped_bakes.npz``
(``tools/shipped_bakes.py``; its docstring says what they hold and when to regenerate them).

Bit for bit on the machine that made them (the lead's golden check); here within 1e-9 of the
scene's size per value, so that another machine's rounding (BLAS, numpy) does not fail it."""

from __future__ import annotations

import numpy as np
import pytest

from tools.shipped_bakes import ROOT, fingerprint, shipped_scenes

REFERENCE = ROOT / "tests" / "data" / "shipped_bakes.npz"


@pytest.fixture(scope="module")
def reference():
    with np.load(REFERENCE) as data:
        return {k: data[k] for k in data.files}


def test_every_shipped_scene_has_a_reference(reference):
    names = {k.split("|")[0] for k in reference}
    assert names == {p.name for p in shipped_scenes()}


@pytest.mark.parametrize("path", shipped_scenes(), ids=lambda p: p.name)
def test_a_shipped_scene_bakes_as_before_in_every_space(path, reference):
    now = fingerprint(path)
    mine = {k for k in reference if k.startswith(f"{path.name}|")}
    assert set(now) == mine
    heads = [v for k, v in reference.items() if k.startswith(f"{path.name}|") and "heads" in k]
    size = max(1.0, max(float(np.ptp(h.reshape(-1, 3), axis=0).max()) for h in heads))
    for key, value in now.items():
        frames = int(reference[key.rsplit("|", 1)[0] + "|frames"])
        # a sum over all frames carries each frame's rounding; violations are degrees
        tol = 1e-9 * (180.0 if "violation" in key else size) * (frames if "_sum" in key else 1)
        np.testing.assert_allclose(value, reference[key], rtol=0, atol=tol, err_msg=key)
