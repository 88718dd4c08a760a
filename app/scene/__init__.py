"""Pivotal's model and math: pure data and numpy, never Qt, pyqtgraph or OpenGL.

Conventions used by every module of this package:

- Right-handed axes, column vectors, active rotations: ``p_in_world = bone_to_world @ p_in_bone``.
- Quaternions are ``[w, x, y, z]`` (scalar first), Hamilton product (``i*j = k``), unit length
  where they stand for rotations; ``q`` and ``-q`` are the same rotation.
- A transform named ``a_to_b`` takes coordinates in frame ``a`` to frame ``b``; names of
  neighbouring factors match: ``calf_to_world = thigh_to_world @ calf_to_thigh``.
  Points carry their frame: ``pivot_in_body``, ``ankle_in_calf``. Conversions are
  ``<output>_from_<input>`` (``matrix_from_quat``).
- Functions take stacks: ``(..., 4)`` quaternions, ``(..., 3)`` vectors, ``(..., 4, 4)``
  transforms; a stack keeps the plain name (``bone_to_world`` shaped ``(F, B, 4, 4)``).
- Frames are numbers and may be fractional.
"""
