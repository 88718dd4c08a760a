"""The multi-parent's one-frame compose (the editor's frame, on Python floats) gives the bits
of the stacked form (whatever the number of frames evaluated with it), on random affine
transforms of every scale, and is ``a @ b``."""

import numpy as np

from app.scene.constraints.multi_parent.solver import compose


def _affine(rng, n):
    m = rng.normal(size=(n, 4, 4)) * rng.choice([1e-6, 1e-3, 1.0, 1e3, 1e6], size=(n, 1, 1))
    m[:, 3] = [0.0, 0.0, 0.0, 1.0]
    return m


def test_one_frame_is_bit_identical_to_a_frame_of_a_stack():
    rng = np.random.default_rng(7)
    a, b = _affine(rng, 5000), _affine(rng, 5000)
    stacked = compose(a, b)  # 5000 frames at once: numpy's entry-by-entry form
    one = np.stack([compose(a[i : i + 1], b[i : i + 1])[0] for i in range(len(a))])
    assert np.array_equal(one, stacked)
    np.testing.assert_allclose(one, a @ b, rtol=1e-12, atol=1e-12 * np.abs(a @ b).max())
