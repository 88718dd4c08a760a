"""Authoring operations: building bones, constraint settings and poses (issue 12)."""
