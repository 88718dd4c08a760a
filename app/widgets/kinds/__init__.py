"""Constraint kinds in the editor: the view registry and each kind's view."""
