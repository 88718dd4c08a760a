"""Derived views of an evaluated scene for the editor and teaching: no state of their own."""
