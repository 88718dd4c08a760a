"""Plain 3-vector products in the two layouts the quaternion code needs them in.

- *component-major* stacks ``(3, ...)`` (``*_components``): elementwise only, no BLAS, for
  the multi-parent integrator, whose result must not depend on how many steps are computed
  together;
- ONE vector as a tuple of 3 floats (``*_one``): the one-frame FABRIK path and its limits,
  where numpy's fixed cost per call would dominate.

Stacks ``(..., 3)`` use numpy's own ``np.cross`` and ``np.sum(a * b, axis=-1)``.

One idea: the vector products under :mod:`app.scene.math.quat`'s fast layouts; they are not
quaternion operations, so they live apart from it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cross_components", "dot_components", "cross_one", "dot_one"]


def cross_components(a, b) -> np.ndarray:
    """Cross product of component-major vectors ``(3, ...)``, as a ``(3, ...)`` array."""
    out = np.empty((3,) + np.broadcast_shapes(a[0].shape, b[0].shape))
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


def dot_components(a, b):
    """Dot product of component-major vectors ``(3, ...)`` over the leading axis."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def dot_one(a, b) -> float:
    """Dot product of two vectors given as 3 floats."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross_one(a, b) -> tuple:
    """Cross product of two vectors given as 3 floats, as a tuple of 3 floats."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
