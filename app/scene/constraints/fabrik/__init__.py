"""FABRIK: one chain, many chains at once, a pass-by-pass trace, and the constraint."""
