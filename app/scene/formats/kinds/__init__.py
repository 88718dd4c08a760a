"""Constraint kinds in the scene file: the schema registry and each kind's read and write."""
