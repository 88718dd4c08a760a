"""Quaternion and transform algebra: pure functions on ``(..., 4)`` and ``(..., 3)`` arrays."""
