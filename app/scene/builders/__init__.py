"""Builders: whole rigs made from a scene in one go (the items an editor command adds)."""
